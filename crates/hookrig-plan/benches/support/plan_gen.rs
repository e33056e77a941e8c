//! The generated plans the board bench and the `board_profile` example measure: N tasks,
//! each with a `meta`, a readiness rule on the previous task and three lifecycle actions
//! appended (claim, unclaim, claim) in the form `Plan::prepare` writes them.

use std::fmt::Write as _;

/// The text of a generated plan of `tasks` tasks.
pub(crate) fn generate(tasks: usize) -> String {
    let mut text = String::from("(meta plan (title \"generated\") (status \"active\"))\n");
    text.push_str("(given agent-a-available)\n(given agent-b-available)\n");
    for i in 0..tasks {
        let _ = writeln!(text, "(given task-t{i})");
        let _ = writeln!(
            text,
            "(meta task-t{i} (description \"task {i}\") (acceptance \"done\"))"
        );
        if i == 0 {
            let _ = writeln!(text, "(normally r-ready-t{i} task-t{i} ready-t{i})");
        } else {
            let _ = writeln!(
                text,
                "(normally r-ready-t{i} (and task-t{i} completed-t{}) ready-t{i})",
                i - 1
            );
        }
    }
    let at = ":at \"2025-01-02T03:04:05Z\"";
    for i in 0..tasks {
        let _ = write!(
            text,
            "\n(claims agent:a\n  {at}\n  (given claim-v1-t{i})\n  (normally r-claim-v1-t{i} claim-v1-t{i} claimed-t{i}))\n\
             \n(claims agent:a\n  {at}\n  (given unclaim-v2-t{i})\n  (normally r-unclaim-v2-t{i} unclaim-v2-t{i} (not claimed-t{i}))\n  (prefer r-unclaim-v2-t{i} r-claim-v1-t{i}))\n\
             \n(claims agent:b\n  {at}\n  (given claim-v3-t{i})\n  (normally r-claim-v3-t{i} claim-v3-t{i} claimed-t{i})\n  (prefer r-claim-v3-t{i} r-unclaim-v2-t{i}))\n"
        );
    }
    text
}
