//! The built-in checks of `plan validate`: undeclared dependencies, dependency cycles,
//! tasks without a description or acceptance criterion, duplicate rule labels,
//! assignments to undeclared agents and providers nobody configured.
//!
//! Each finding has a rule id, a severity and a place (`path:line:col`). External
//! validators (scripts) are run by hookrig-runtime; this module needs no I/O.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::Serialize;

use crate::plan::Plan;
use crate::spl::{Literal, Span, Statement, StatementKind, Term, for_each_flat};
use hookrig_core::LineIndex;

/// The provider ids hookrig knows without a `[[providers]]` entry: the agent CLIs Hence
/// detects on its own. Any other id must be configured in `config.toml`.
pub const BUILTIN_PROVIDERS: &[&str] = &["claude", "codex", "gemini", "aider"];

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails `plan validate`.
    Error,
    /// Fails `plan validate --strict` only.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding of a built-in rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule id (`undeclared-dependency`, …).
    pub rule: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// Byte offset in the plan text.
    #[serde(skip)]
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Rule ids, one per built-in check.
pub mod rules {
    /// A readiness rule waits for `completed-D` but no task D is declared.
    pub const UNDECLARED_DEPENDENCY: &str = "undeclared-dependency";
    /// Tasks wait for each other in a circle.
    pub const DEPENDENCY_CYCLE: &str = "dependency-cycle";
    /// A task without `(description …)` in its meta.
    pub const MISSING_DESCRIPTION: &str = "missing-description";
    /// A task without `(acceptance …)` in its meta.
    pub const MISSING_ACCEPTANCE: &str = "missing-acceptance";
    /// Two rules with one label (superiority cannot tell them apart).
    pub const DUPLICATE_LABEL: &str = "duplicate-label";
    /// A task is assigned to an agent no `(given agent-NAME-available)` declares.
    pub const UNKNOWN_AGENT: &str = "unknown-agent";
    /// A task's `(provider "ID")` is neither built in nor in `config.toml`.
    pub const UNKNOWN_PROVIDER: &str = "unknown-provider";
}

/// Runs every built-in check on a parsed plan. `text` is the file the statements were
/// parsed from (for line and column); `providers` are the ids configured in
/// `config.toml` ([`BUILTIN_PROVIDERS`] are always known). Findings come sorted by
/// place, then rule.
pub fn validate(
    text: &str,
    statements: &[Statement],
    plan: &Plan,
    providers: &[String],
) -> Vec<Finding> {
    let mut checks = Checks {
        text,
        lines: LineIndex::new(text),
        findings: Vec::new(),
    };
    let scan = scan(statements, plan);
    checks.dependencies(plan, &scan);
    checks.cycles(plan, &scan);
    checks.meta(plan, &scan);
    checks.labels(&scan);
    checks.assignments(plan, &scan);
    checks.providers(plan, &scan, providers);
    let mut findings = checks.findings;
    findings.sort_by(|a, b| (a.offset, a.rule).cmp(&(b.offset, b.rule)));
    findings
}

/// Where things are written.
#[derive(Default)]
struct Places {
    /// First `(given task-X)` of each task.
    task: HashMap<String, Span>,
    /// Each readiness rule: its task, the dependencies it names, its place.
    readiness: Vec<(String, Vec<String>, Span)>,
    /// Every labelled rule, in file order.
    labels: Vec<(String, Span)>,
    /// Assignments: task, agent, place (atoms that fit no declared task are left out).
    assignments: Vec<(String, String, Span)>,
    /// `(meta task-X …)` statements.
    meta: Vec<(String, Span)>,
}

fn scan(statements: &[Statement], plan: &Plan) -> Places {
    let mut places = Places::default();
    let tasks: HashSet<&str> = plan.tasks.iter().map(|t| t.name.as_str()).collect();
    for_each_flat(statements, &mut |statement, _| {
        let span = statement.span;
        match &statement.kind {
            StatementKind::Given(lit) => {
                if let Some(task) = lit.plain_name().and_then(|n| n.strip_prefix("task-")) {
                    places.task.entry(task.to_owned()).or_insert(span);
                }
                if let Some((task, agent)) = assignment(lit, &tasks) {
                    places.assignments.push((task, agent, span));
                }
            }
            StatementKind::Rule(rule) => {
                if let Some(label) = &rule.label {
                    places.labels.push((label.clone(), span));
                }
                if let Some((task, agent)) = assignment(&rule.head, &tasks) {
                    places.assignments.push((task, agent, span));
                }
                if let Some(task) = rule
                    .head
                    .plain_name()
                    .and_then(|h| h.strip_prefix("ready-"))
                {
                    let deps = rule
                        .body
                        .iter()
                        .filter_map(|l| l.plain_name()?.strip_prefix("completed-"))
                        .map(str::to_owned)
                        .collect();
                    places.readiness.push((task.to_owned(), deps, span));
                }
            }
            StatementKind::Meta { label, .. } => {
                if let Some(task) = label.strip_prefix("task-") {
                    places.meta.push((task.to_owned(), span));
                }
            }
            _ => {}
        }
    });
    places
}

/// `(assign T A)`, `assign-T-A` or `assign-to-T-A` (the longest declared task that fits
/// the atom forms, as the plan reads them).
fn assignment(lit: &Literal, tasks: &HashSet<&str>) -> Option<(String, String)> {
    match lit {
        Literal::Atom { name, args } if name == "assign" => match args.as_slice() {
            [Term::Symbol(task), Term::Symbol(agent)] => Some((
                task.strip_prefix("task-").unwrap_or(task).to_owned(),
                agent.clone(),
            )),
            _ => None,
        },
        Literal::Atom { name, args } if args.is_empty() => {
            let rest = name
                .strip_prefix("assign-to-")
                .or_else(|| name.strip_prefix("assign-"))?;
            // One lookup per dash, longest prefix first, rather than a scan of every
            // task per atom (which made large plans quadratic).
            rest.rmatch_indices('-').find_map(|(at, _)| {
                (at + 1 < rest.len() && tasks.contains(&rest[..at]))
                    .then(|| (rest[..at].to_owned(), rest[at + 1..].to_owned()))
            })
        }
        _ => None,
    }
}

struct Checks<'a> {
    text: &'a str,
    lines: LineIndex<'a>,
    findings: Vec<Finding>,
}

impl Checks<'_> {
    fn push(&mut self, rule: &'static str, severity: Severity, offset: usize, message: String) {
        let (line, column) = self.lines.line_col(offset);
        self.findings.push(Finding {
            rule,
            severity,
            message,
            offset,
            line,
            column,
        });
    }

    fn dependencies(&mut self, plan: &Plan, places: &Places) {
        let declared: HashSet<&str> = plan.tasks.iter().map(|t| t.name.as_str()).collect();
        for (task, deps, span) in &places.readiness {
            if !declared.contains(task.as_str()) {
                self.push(
                    rules::UNDECLARED_DEPENDENCY,
                    Severity::Error,
                    span.start,
                    format!("readiness rule for task {task}, which is not declared; add (given task-{task})"),
                );
            }
            for dep in deps {
                if !declared.contains(dep.as_str()) {
                    self.push(
                        rules::UNDECLARED_DEPENDENCY,
                        Severity::Error,
                        span.start,
                        format!(
                            "task {task} depends on {dep}, which is not declared; add (given task-{dep})"
                        ),
                    );
                }
            }
        }
    }

    /// Depth-first search over "X waits for D"; each edge back to a task still on the
    /// path closes a cycle, reported once at the readiness rule of its first task.
    fn cycles(&mut self, plan: &Plan, places: &Places) {
        let edges = plan.dependencies();
        // 0 = not seen, 1 = on the current path, 2 = done.
        let mut color = vec![0_u8; edges.len()];
        let mut seen_cycles: HashSet<Vec<usize>> = HashSet::new();
        // Where each task on the current path is in it.
        let mut on_path = vec![0_usize; edges.len()];
        // The place of the first readiness rule of each "X waits for D".
        let mut rule_of: HashMap<(&str, &str), usize> = HashMap::new();
        for (task, deps, span) in &places.readiness {
            for dep in deps {
                rule_of
                    .entry((task.as_str(), dep.as_str()))
                    .or_insert(span.start);
            }
        }
        for root in 0..edges.len() {
            if color[root] != 0 {
                continue;
            }
            // The path, each task with the next edge to follow.
            let mut path: Vec<(usize, usize)> = vec![(root, 0)];
            color[root] = 1;
            on_path[root] = 0;
            while let Some(&mut (node, ref mut next)) = path.last_mut() {
                if let Some(&dep) = edges[node].get(*next) {
                    *next += 1;
                    match color[dep] {
                        0 => {
                            color[dep] = 1;
                            on_path[dep] = path.len();
                            path.push((dep, 0));
                        }
                        1 => {
                            let start = on_path[dep];
                            let cycle: Vec<usize> = path[start..].iter().map(|&(n, _)| n).collect();
                            let mut key = cycle.clone();
                            key.sort_unstable();
                            if seen_cycles.insert(key) {
                                self.report_cycle(plan, &rule_of, &cycle);
                            }
                        }
                        _ => {}
                    }
                } else {
                    color[node] = 2;
                    path.pop();
                }
            }
        }
    }

    fn report_cycle(
        &mut self,
        plan: &Plan,
        rule_of: &HashMap<(&str, &str), usize>,
        cycle: &[usize],
    ) {
        let names: Vec<&str> = cycle.iter().map(|&i| plan.tasks[i].name.as_str()).collect();
        let first = names[0];
        let second = names.get(1).copied().unwrap_or(first);
        let offset = rule_of.get(&(first, second)).copied().unwrap_or(0);
        let mut shown = names.join(" -> ");
        shown.push_str(" -> ");
        shown.push_str(first);
        self.push(
            rules::DEPENDENCY_CYCLE,
            Severity::Error,
            offset,
            format!(
                "dependency cycle: {shown} (each task waits for the next, so none can become ready)"
            ),
        );
    }

    fn meta(&mut self, plan: &Plan, places: &Places) {
        for task in &plan.tasks {
            let offset = places.task.get(&task.name).map_or(0, |s| s.start);
            let missing = |key: &str| {
                task.meta
                    .get(key)
                    .is_none_or(|v| v.as_str().is_some_and(|s| s.trim().is_empty()))
            };
            if missing("description") {
                self.push(
                    rules::MISSING_DESCRIPTION,
                    Severity::Warning,
                    offset,
                    format!(
                        "task {} has no description; add (meta task-{} (description \"...\"))",
                        task.name, task.name
                    ),
                );
            }
            if missing("acceptance") {
                self.push(
                    rules::MISSING_ACCEPTANCE,
                    Severity::Warning,
                    offset,
                    format!(
                        "task {} has no acceptance criterion; add (meta task-{} (acceptance \"...\"))",
                        task.name, task.name
                    ),
                );
            }
        }
    }

    fn labels(&mut self, places: &Places) {
        let mut first: HashMap<&str, Span> = HashMap::new();
        for (label, span) in &places.labels {
            match first.get(label.as_str()) {
                Some(earlier) => {
                    let (line, column) = self.lines.line_col(earlier.start);
                    self.push(
                        rules::DUPLICATE_LABEL,
                        Severity::Error,
                        span.start,
                        format!(
                            "rule label {label} is already used at line {line} column {column}; superiority cannot tell the two rules apart"
                        ),
                    );
                }
                None => {
                    first.insert(label, *span);
                }
            }
        }
    }

    fn assignments(&mut self, plan: &Plan, places: &Places) {
        let agents: HashSet<&str> = plan.agents.iter().map(String::as_str).collect();
        for (task, agent, span) in &places.assignments {
            if !agents.contains(agent.as_str()) {
                let known = if plan.agents.is_empty() {
                    "none are declared".to_owned()
                } else {
                    format!("declared: {}", plan.agents.join(", "))
                };
                self.push(
                    rules::UNKNOWN_AGENT,
                    Severity::Error,
                    span.start,
                    format!(
                        "task {task} is assigned to agent {agent}, which is not declared ({known}); add (given agent-{agent}-available)"
                    ),
                );
            }
        }
    }

    fn providers(&mut self, plan: &Plan, places: &Places, configured: &[String]) {
        let mut meta_of: HashMap<&str, Vec<&Span>> = HashMap::new();
        for (task, span) in &places.meta {
            meta_of.entry(task.as_str()).or_default().push(span);
        }
        for task in &plan.tasks {
            let Some(value) = task.meta.get("provider") else {
                continue;
            };
            let Some(id) = value.as_str() else {
                continue;
            };
            if BUILTIN_PROVIDERS.contains(&id) || configured.iter().any(|c| c == id) {
                continue;
            }
            // The last meta statement of the task that names a provider set the value.
            let offset = meta_of
                .get(task.name.as_str())
                .into_iter()
                .flatten()
                .rev()
                .find_map(|span| {
                    let written = &self.text[span.start..span.end.min(self.text.len())];
                    written.find("(provider").map(|at| span.start + at)
                })
                .unwrap_or(0);
            let mut known: Vec<&str> = BUILTIN_PROVIDERS.to_vec();
            known.extend(configured.iter().map(String::as_str));
            self.push(
                rules::UNKNOWN_PROVIDER,
                Severity::Error,
                offset,
                format!(
                    "task {} uses provider '{id}', which is not configured (known: {}); add a [[providers]] entry with id = \"{id}\" to config.toml",
                    task.name,
                    known.join(", ")
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use indoc::indoc;

    use super::*;
    use crate::spl::parse;

    fn check(text: &str, providers: &[&str]) -> Vec<String> {
        let statements = parse(Path::new("plan.spl"), text).expect("valid SPL");
        let plan = Plan::new(&statements);
        let providers: Vec<String> = providers.iter().map(|p| (*p).to_owned()).collect();
        validate(text, &statements, &plan, &providers)
            .into_iter()
            .map(|f| {
                format!(
                    "{}:{}: {}[{}]: {}",
                    f.line, f.column, f.severity, f.rule, f.message
                )
            })
            .collect()
    }

    const GOOD: &str = indoc! {r#"
        (given agent-coder-available)
        (given task-a)
        (meta task-a (description "A") (acceptance "done") (provider "claude"))
        (given task-b)
        (meta task-b (description "B") (acceptance "done"))
        (given (assign b coder))
        (given assign-a-coder)
        (normally r-ready-a task-a ready-a)
        (normally r-ready-b (and task-b completed-a) ready-b)
    "#};

    #[test]
    fn a_good_plan_has_no_findings() {
        assert_eq!(check(GOOD, &[]), Vec::<String>::new());
    }

    #[test]
    fn undeclared_dependency() {
        let text = format!("{GOOD}(normally r-ready-b2 (and task-b completed-db) ready-b)\n");
        assert_eq!(
            check(&text, &[]),
            [
                "10:1: error[undeclared-dependency]: task b depends on db, which is not declared; add (given task-db)"
            ]
        );
    }

    #[test]
    fn readiness_of_an_undeclared_task() {
        let text = format!("{GOOD}(normally r-ready-c completed-a ready-c)\n");
        assert_eq!(
            check(&text, &[]),
            [
                "10:1: error[undeclared-dependency]: readiness rule for task c, which is not declared; add (given task-c)"
            ]
        );
    }

    #[test]
    fn dependency_cycle_is_named() {
        let text = indoc! {r#"
            (given task-a) (meta task-a (description "A") (acceptance "x"))
            (given task-b) (meta task-b (description "B") (acceptance "x"))
            (given task-c) (meta task-c (description "C") (acceptance "x"))
            (given task-d) (meta task-d (description "D") (acceptance "x"))
            (normally r-ready-a (and task-a completed-b) ready-a)
            (normally r-ready-b (and task-b completed-c) ready-b)
            (normally r-ready-c (and task-c completed-a) ready-c)
            (normally r-ready-d (and task-d completed-d) ready-d)
        "#};
        assert_eq!(
            check(text, &[]),
            [
                "5:1: error[dependency-cycle]: dependency cycle: a -> b -> c -> a (each task waits for the next, so none can become ready)",
                "8:1: error[dependency-cycle]: dependency cycle: d -> d (each task waits for the next, so none can become ready)",
            ]
        );
    }

    #[test]
    fn a_diamond_is_not_a_cycle() {
        let text = indoc! {r#"
            (given task-a) (meta task-a (description "A") (acceptance "x"))
            (given task-b) (meta task-b (description "B") (acceptance "x"))
            (given task-c) (meta task-c (description "C") (acceptance "x"))
            (given task-d) (meta task-d (description "D") (acceptance "x"))
            (normally r-ready-b (and task-b completed-a) ready-b)
            (normally r-ready-c (and task-c completed-a) ready-c)
            (normally r-ready-d (and task-d completed-b completed-c) ready-d)
        "#};
        assert_eq!(check(text, &[]), Vec::<String>::new());
    }

    #[test]
    fn missing_description_and_acceptance() {
        let text = indoc! {r#"
            (given task-a)
            (given task-b)
            (meta task-b (description "  ") (acceptance "ok"))
        "#};
        assert_eq!(
            check(text, &[]),
            [
                "1:1: warning[missing-acceptance]: task a has no acceptance criterion; add (meta task-a (acceptance \"...\"))",
                "1:1: warning[missing-description]: task a has no description; add (meta task-a (description \"...\"))",
                "2:1: warning[missing-description]: task b has no description; add (meta task-b (description \"...\"))",
            ]
        );
    }

    #[test]
    fn duplicate_label() {
        let text = format!("{GOOD}  (normally r-ready-a task-a other)\n");
        assert_eq!(
            check(&text, &[]),
            [
                "10:3: error[duplicate-label]: rule label r-ready-a is already used at line 8 column 1; superiority cannot tell the two rules apart"
            ]
        );
    }

    #[test]
    fn duplicate_label_inside_claims() {
        let text = format!(
            "{GOOD}(claims agent:coder :at \"2025-01-01T00:00:00Z\"\n  (normally r-ready-b task-b x))\n"
        );
        assert_eq!(
            check(&text, &[]),
            [
                "11:3: error[duplicate-label]: rule label r-ready-b is already used at line 9 column 1; superiority cannot tell the two rules apart"
            ]
        );
    }

    #[test]
    fn unknown_agent_in_each_assignment_form() {
        let text = format!("{GOOD}(given (assign a tester))\n(given assign-to-b-reviewer)\n");
        assert_eq!(
            check(&text, &[]),
            [
                "10:1: error[unknown-agent]: task a is assigned to agent tester, which is not declared (declared: coder); add (given agent-tester-available)",
                "11:1: error[unknown-agent]: task b is assigned to agent reviewer, which is not declared (declared: coder); add (given agent-reviewer-available)",
            ]
        );
    }

    #[test]
    fn unknown_provider_unless_configured() {
        let text = format!("{GOOD}(meta task-b (provider \"internal-gpt\"))\n");
        assert_eq!(
            check(&text, &[]),
            [
                "10:14: error[unknown-provider]: task b uses provider 'internal-gpt', which is not configured (known: claude, codex, gemini, aider); add a [[providers]] entry with id = \"internal-gpt\" to config.toml"
            ]
        );
        assert_eq!(check(&text, &["internal-gpt"]), Vec::<String>::new());
    }

    #[test]
    fn large_plans_validate_in_near_linear_time() {
        // guards: validate was quadratic (a line count from the file's start per
        // finding, a scan of every task per assignment, of every meta per provider):
        // 16,000 tasks took seconds in a release build and minutes in a debug one
        use std::fmt::Write as _;
        let mut text = String::from("(given agent-coder-available)\n");
        for i in 0..16_000 {
            let _ = writeln!(
                text,
                "(given task-t{i})\n(given assign-t{i}-nobody)\n(meta task-t{i} (provider \"nope\"))"
            );
            if i > 0 {
                let _ = writeln!(
                    text,
                    "(normally r-ready-t{i} (and task-t{i} completed-t{}) ready-t{i})",
                    i - 1
                );
            }
        }
        let statements = parse(Path::new("plan.spl"), &text).expect("valid SPL");
        let plan = Plan::new(&statements);
        let started = std::time::Instant::now();
        let findings = validate(&text, &statements, &plan, &[]);
        // A generous bound that only proves the work is not quadratic.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        // Per task: missing description and acceptance, unknown agent and provider.
        assert_eq!(findings.len(), 4 * 16_000);
        let last = findings.last().expect("findings");
        assert_eq!((last.line, last.column), (63_999, 19));
    }
}
