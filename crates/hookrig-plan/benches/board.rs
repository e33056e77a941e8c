//! Benchmarks of `plan board` on generated plans (divan): 1,000 and 10,000 tasks, each
//! with a readiness rule on the previous task and three claim/unclaim actions appended
//! (claim, unclaim, claim) in the form `Plan::prepare` writes them. Parsing, reasoning
//! (building the `Plan`) and the whole board (parse, reason, JSON) are timed apart.
//!
//! Run with `cargo bench -p hookrig-plan --bench board`.

use std::fmt::Write as _;
use std::path::Path;

use divan::{Bencher, black_box};
use hookrig_plan::board::Board;
use hookrig_plan::plan::Plan;
use hookrig_plan::spl;

fn main() {
    divan::main();
}

const SIZES: [usize; 2] = [1_000, 10_000];

fn generate(tasks: usize) -> String {
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

#[divan::bench(args = SIZES, sample_count = 10)]
fn parse(bencher: Bencher<'_, '_>, tasks: usize) {
    let text = generate(tasks);
    bencher.bench(|| spl::parse(Path::new("plan.spl"), black_box(&text)).expect("valid"));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn reason(bencher: Bencher<'_, '_>, tasks: usize) {
    let text = generate(tasks);
    let statements = spl::parse(Path::new("plan.spl"), &text).expect("valid");
    bencher.bench(|| Plan::new(black_box(&statements)));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn board(bencher: Bencher<'_, '_>, tasks: usize) {
    let text = generate(tasks);
    bencher.bench(|| {
        let statements = spl::parse(Path::new("plan.spl"), black_box(&text)).expect("valid");
        let plan = Plan::new(&statements);
        assert_eq!(
            plan.tasks[tasks - 1].state,
            hookrig_plan::plan::TaskState::InProgress
        );
        serde_json::to_string(&Board::new("plan.spl", &plan)).expect("serializable")
    });
}
