//! The built-in text formats of `plan board`: `kanban` (columns by state), `tree` (the
//! dependency tree), `dag` (the graph as text) and Graphviz `dot`.
//!
//! Dependencies on tasks the plan does not declare are left out of every drawing: they
//! are a validator's business, and drawing them would invent tasks.

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;

use crate::plan::{BlockType, Plan, Task, TaskState};

/// The kanban columns, in order, with their titles.
const COLUMNS: [(TaskState, &str); 6] = [
    (TaskState::Backlog, "BACKLOG"),
    (TaskState::Ready, "READY"),
    (TaskState::InProgress, "IN PROGRESS"),
    (TaskState::Decomposed, "DECOMPOSED"),
    (TaskState::Blocked, "BLOCKED"),
    (TaskState::Done, "DONE"),
];

/// Between two columns.
const SEPARATOR: &str = " │ ";

/// A column is never narrower than this, even when the terminal is: below it names are
/// unreadable, and a wrapped line is better than a row of ellipses.
const MIN_COLUMN: usize = 8;

/// The plan's title line: `TITLE — PATH`, or the path alone.
fn heading(path: &str, plan: &Plan) -> String {
    match plan.meta.get("title").and_then(|t| t.as_str()) {
        Some(title) => format!("{title} — {path}"),
        None => path.to_owned(),
    }
}

/// Six columns (backlog, ready, in progress, decomposed, blocked, done) sharing `width`
/// characters. A claimed task shows its agent (`api @coder`), a waiting one the agents
/// it is assigned to (`api (coder)`), a blocked one why (`legal: counsel` or
/// `ui (upstream)`); a cell too long for its column ends in `…`.
pub fn kanban(path: &str, plan: &Plan, width: usize) -> String {
    let gaps = SEPARATOR.chars().count() * (COLUMNS.len() - 1);
    let column = (width.saturating_sub(gaps) / COLUMNS.len()).max(MIN_COLUMN);
    let cells: Vec<Vec<String>> = COLUMNS
        .iter()
        .map(|(state, _)| {
            plan.tasks
                .iter()
                .filter(|t| t.state == *state)
                .map(kanban_cell)
                .collect()
        })
        .collect();
    let mut out = heading(path, plan);
    out.push('\n');
    let titles: Vec<String> = COLUMNS
        .iter()
        .zip(&cells)
        .map(|((_, title), cells)| format!("{title} {}", cells.len()))
        .collect();
    push_row(&mut out, &titles, column);
    let mut line = String::new();
    for index in 0..COLUMNS.len() {
        if index > 0 {
            line.push('┼');
        }
        // The rule under the first column has no space before it, the last none after.
        let len = if index == 0 || index == COLUMNS.len() - 1 {
            column + 1
        } else {
            column + 2
        };
        line.push_str(&"─".repeat(len));
    }
    out.push_str(&line);
    out.push('\n');
    let rows = cells.iter().map(Vec::len).max().unwrap_or(0);
    for row in 0..rows {
        let texts: Vec<String> = cells
            .iter()
            .map(|cells| cells.get(row).cloned().unwrap_or_default())
            .collect();
        push_row(&mut out, &texts, column);
    }
    out
}

fn kanban_cell(task: &Task) -> String {
    let name = &task.name;
    match task.state {
        TaskState::InProgress => match &task.claimed_by {
            Some(agent) => format!("{name} @{agent}"),
            None => name.clone(),
        },
        TaskState::Blocked => match (task.block_type, &task.block_reason) {
            (Some(BlockType::UpstreamBlocked), _) => format!("{name} (upstream)"),
            (_, Some(reason)) => format!("{name}: {reason}"),
            _ => name.clone(),
        },
        TaskState::Backlog | TaskState::Ready if !task.assigned_to.is_empty() => {
            format!("{name} ({})", task.assigned_to.join(", "))
        }
        _ => name.clone(),
    }
}

/// One row of cells, each cut or padded to `column` characters; no trailing spaces.
fn push_row(out: &mut String, cells: &[String], column: usize) {
    let mut line = String::new();
    for (index, cell) in cells.iter().enumerate() {
        if index > 0 {
            line.push_str(SEPARATOR);
        }
        let cell = fit(cell, column);
        let pad = column - cell.chars().count();
        line.push_str(&cell);
        line.extend(std::iter::repeat_n(' ', pad));
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// `text` cut to `width` characters, ending in `…` when it was cut. Newlines and tabs
/// (a block reason may hold them) become spaces, so that a cell stays on its row.
fn fit(text: &str, width: usize) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() <= width {
        return text;
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The tasks as indices, with the declared dependencies of each (in order, deduplicated)
/// and the tasks depending on each.
struct Graph<'a> {
    tasks: &'a [Task],
    depends_on: Vec<Vec<usize>>,
    dependents: Vec<Vec<usize>>,
}

impl<'a> Graph<'a> {
    fn new(plan: &'a Plan) -> Self {
        let depends_on = plan.dependencies();
        let mut dependents = vec![Vec::new(); plan.tasks.len()];
        for (i, on) in depends_on.iter().enumerate() {
            for &d in on {
                dependents[d].push(i);
            }
        }
        Self {
            tasks: &plan.tasks,
            depends_on,
            dependents,
        }
    }

    fn label(&self, i: usize) -> String {
        let task = &self.tasks[i];
        format!("{} [{}]", task.name, task.state.as_str())
    }
}

/// The dependency tree, as `cargo tree` draws one: each task no other task depends on
/// is a root, with the tasks it depends on below it. A task already drawn with its
/// dependencies is marked `(*)` and not expanded again, which keeps the drawing linear
/// in the size of the plan; a dependency that leads back to a task on the current path
/// is marked `(cycle)`. Tasks only reachable through a cycle are roots of their own.
pub fn tree(path: &str, plan: &Plan) -> String {
    let graph = Graph::new(plan);
    let mut out = heading(path, plan);
    out.push('\n');
    let mut drawing = Drawing {
        graph: &graph,
        expanded: HashSet::new(),
        on_path: vec![false; graph.tasks.len()],
        continued: VecDeque::new(),
        out,
    };
    let roots = (0..graph.tasks.len()).filter(|&i| graph.dependents[i].is_empty());
    let roots: Vec<usize> = roots.collect();
    for root in roots {
        drawing.tree_of(root);
    }
    for i in 0..graph.tasks.len() {
        if !drawing.expanded.contains(&i) {
            drawing.tree_of(i);
        }
    }
    drawing.out
}

/// How deep `tree` draws one tree. A task deeper down that has dependencies is marked
/// `(continued below)` and starts a tree of its own after the current one: a chain of
/// thousands of tasks would otherwise draw lines whose indentation alone is quadratic
/// in its length.
const TREE_DEPTH: usize = 64;

/// The state of a `tree` drawing. It walks with a stack of its own rather than by
/// recursion, so a long dependency chain cannot overflow the call stack.
struct Drawing<'a> {
    graph: &'a Graph<'a>,
    expanded: HashSet<usize>,
    /// Whether each task is on the path from the current root.
    on_path: Vec<bool>,
    /// Tasks cut at [`TREE_DEPTH`], to draw as roots once the current tree is done.
    continued: VecDeque<usize>,
    out: String,
}

/// A task of the current path: its index, the prefix of its children's lines and the
/// next of its dependencies to draw.
struct Open {
    task: usize,
    child_prefix: String,
    next: usize,
}

impl Drawing<'_> {
    /// Draws the tree of `root`, then the trees of the tasks it cut.
    fn tree_of(&mut self, root: usize) {
        let mut roots = VecDeque::from([root]);
        while let Some(root) = roots.pop_front() {
            // A cut task drawn meanwhile, through a shorter path, is not drawn twice.
            if self.expanded.contains(&root) {
                continue;
            }
            let mut path = Vec::new();
            self.open(root, "", String::new(), &mut path);
            while let Some(top) = path.last_mut() {
                let deps = &self.graph.depends_on[top.task];
                let Some(&dep) = deps.get(top.next) else {
                    self.on_path[top.task] = false;
                    path.pop();
                    continue;
                };
                top.next += 1;
                let prefix = &top.child_prefix;
                let (branch, child_prefix) = if top.next == deps.len() {
                    (format!("{prefix}└── "), format!("{prefix}    "))
                } else {
                    (format!("{prefix}├── "), format!("{prefix}│   "))
                };
                self.open(dep, &branch, child_prefix, &mut path);
            }
            roots.extend(self.continued.drain(..));
        }
    }

    /// Draws the line of task `i` and, unless it is a repeat, a cycle or too deep, puts
    /// it on `path` so that its dependencies are drawn under it.
    fn open(&mut self, i: usize, branch: &str, child_prefix: String, path: &mut Vec<Open>) {
        let label = self.graph.label(i);
        let out = &mut self.out;
        if self.on_path[i] {
            let _ = writeln!(out, "{branch}{label} (cycle)");
            return;
        }
        let deps = &self.graph.depends_on[i];
        if self.expanded.contains(&i) {
            let mark = if deps.is_empty() { "" } else { " (*)" };
            let _ = writeln!(out, "{branch}{label}{mark}");
            return;
        }
        if path.len() >= TREE_DEPTH && !deps.is_empty() {
            let _ = writeln!(out, "{branch}{label} (continued below)");
            self.continued.push_back(i);
            return;
        }
        self.expanded.insert(i);
        let _ = writeln!(out, "{branch}{label}");
        self.on_path[i] = true;
        path.push(Open {
            task: i,
            child_prefix,
            next: 0,
        });
    }
}

/// Each task's level: 0 without dependencies, else one more than its deepest
/// dependency (Kahn's algorithm, linear); `None` for tasks on or behind a cycle.
fn levels(graph: &Graph<'_>) -> Vec<Option<usize>> {
    let n = graph.tasks.len();
    let mut missing: Vec<usize> = graph.depends_on.iter().map(Vec::len).collect();
    let mut level = vec![None; n];
    let mut queue: std::collections::VecDeque<usize> =
        (0..n).filter(|&i| missing[i] == 0).collect();
    for &i in &queue {
        level[i] = Some(0);
    }
    while let Some(i) = queue.pop_front() {
        let here = level[i].unwrap_or(0);
        for &dependent in &graph.dependents[i] {
            let deeper = level[dependent].map_or(here + 1, |l: usize| l.max(here + 1));
            level[dependent] = Some(deeper);
            missing[dependent] -= 1;
            if missing[dependent] == 0 {
                queue.push_back(dependent);
            }
        }
    }
    // A task some of whose dependencies never finished is behind a cycle: its partial
    // level means nothing.
    for i in 0..n {
        if missing[i] > 0 {
            level[i] = None;
        }
    }
    level
}

/// The graph as text: one line per task, by level (tasks without dependencies first,
/// then those that depend only on them, …), each with its state and the tasks that
/// depend on it. Tasks on or behind a dependency cycle come last, at level `cycle`.
pub fn dag(path: &str, plan: &Plan) -> String {
    let graph = Graph::new(plan);
    let levels = levels(&graph);
    let mut order: Vec<usize> = (0..graph.tasks.len()).collect();
    // Stable: within a level, file order.
    order.sort_by_key(|&i| levels[i].map_or(usize::MAX, |l| l));
    let level_text = |i: usize| levels[i].map_or_else(|| "cycle".to_owned(), |l| l.to_string());
    let level_width = order
        .iter()
        .map(|&i| level_text(i).len())
        .max()
        .unwrap_or(1);
    let name_width = graph
        .tasks
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0);
    let state_width = graph
        .tasks
        .iter()
        .map(|t| t.state.as_str().len())
        .max()
        .unwrap_or(0);
    let mut out = heading(path, plan);
    out.push('\n');
    for i in order {
        let task = &graph.tasks[i];
        let mut line = format!(
            "{:<level_width$}  {:<name_width$}  {:<state_width$}",
            level_text(i),
            task.name,
            task.state.as_str()
        );
        if !graph.dependents[i].is_empty() {
            let names: Vec<&str> = graph.dependents[i]
                .iter()
                .map(|&d| graph.tasks[d].name.as_str())
                .collect();
            let _ = write!(line, "  → {}", names.join(", "));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The graph in Graphviz dot: a box per task, labelled with its name and state and
/// filled by state, and an edge from each dependency to the task that needs it.
pub fn dot(path: &str, plan: &Plan) -> String {
    let graph = Graph::new(plan);
    let mut out = String::from("digraph plan {\n");
    let _ = writeln!(out, "  label={};", dot_string(&heading(path, plan)));
    out.push_str("  rankdir=LR;\n  node [shape=box, style=filled];\n");
    for task in graph.tasks {
        let _ = writeln!(
            out,
            "  {} [label={}, fillcolor={}];",
            dot_string(&task.name),
            dot_string(&format!("{}\n{}", task.name, task.state.as_str())),
            dot_string(fill(task.state)),
        );
    }
    for (i, deps) in graph.depends_on.iter().enumerate() {
        for &d in deps {
            let _ = writeln!(
                out,
                "  {} -> {};",
                dot_string(&graph.tasks[d].name),
                dot_string(&graph.tasks[i].name)
            );
        }
    }
    out.push_str("}\n");
    out
}

fn fill(state: TaskState) -> &'static str {
    match state {
        TaskState::Backlog => "white",
        TaskState::Ready => "lightyellow",
        TaskState::InProgress => "lightblue",
        TaskState::Decomposed => "lavender",
        TaskState::Blocked => "lightpink",
        TaskState::Done => "palegreen",
    }
}

/// A dot string literal: quotes and backslashes escaped, a newline as `\n` (which dot
/// draws as a line break).
fn dot_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use indoc::indoc;

    use super::*;
    use crate::spl;

    const SHOP: &str = indoc! {r#"
        (meta plan (title "Shop") (status "active"))
        (given agent-coder-available)
        (given agent-writer-available)
        (given task-design)
        (given task-api)
        (given task-ui)
        (given task-docs)
        (given task-legal)
        (given task-release)
        (given assign-api-coder)
        (given (assign docs writer))
        (normally r-ready-design task-design ready-design)
        (normally r-ready-api (and task-api completed-design) ready-api)
        (normally r-ready-ui (and task-ui completed-api completed-design) ready-ui)
        (normally r-ready-docs task-docs ready-docs)
        (normally r-ready-release (and task-release completed-ui completed-docs completed-legal) ready-release)
        (given completed-design)
        (claims agent:writer :at "2025-01-02T03:04:05Z"
          (given claim-v1-docs)
          (normally r-claim-v1-docs claim-v1-docs claimed-docs))
        (claims agent:coder :at "2025-01-02T03:04:05Z"
          (given block-v1-legal)
          (normally r-block-v1-legal block-v1-legal blocked-legal)
          (given (blocked-by legal "waiting for counsel")))
    "#};

    fn plan(text: &str) -> Plan {
        Plan::new(&spl::parse(Path::new("plan.spl"), text).expect("valid SPL"))
    }

    #[test]
    fn kanban_at_100_columns() {
        insta::assert_snapshot!(kanban("plan.spl", &plan(SHOP), 100));
    }

    #[test]
    fn kanban_cuts_cells_to_narrow_terminals() {
        let text = kanban("plan.spl", &plan(SHOP), 40);
        // Every column is at the minimum width, and long cells end in an ellipsis.
        assert!(text.contains("legal: …"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn tree_marks_repeats_and_cycles() {
        insta::assert_snapshot!(tree("plan.spl", &plan(SHOP)));
        let cyclic = indoc! {"
            (given task-a) (given task-b) (given task-c)
            (normally r-ready-a (and task-a completed-b) ready-a)
            (normally r-ready-b (and task-b completed-a) ready-b)
        "};
        insta::assert_snapshot!("tree_cycle", tree("c.spl", &plan(cyclic)));
    }

    #[test]
    fn a_long_chain_is_drawn_without_recursion_in_bounded_width() {
        // guards: `plan board --format tree` on a chain of 16,000 dependencies overflowed
        // the stack (exit 134), and its indentation grew with the chain's length
        use std::fmt::Write as _;
        let mut text = String::new();
        for i in 0..16_000 {
            let _ = writeln!(text, "(given task-t{i})");
            if i > 0 {
                let _ = writeln!(
                    text,
                    "(normally r-ready-t{i} (and task-t{i} completed-t{}) ready-t{i})",
                    i - 1
                );
            }
        }
        let drawn = tree("long.spl", &plan(&text));
        // Every task once, plus one "(continued below)" line per cut.
        let cuts = drawn.matches("(continued below)").count();
        assert_eq!(drawn.lines().count(), 1 + 16_000 + cuts);
        assert!(cuts > 0 && cuts <= 16_000 / (TREE_DEPTH - 1) + 1, "{cuts}");
        let widest = drawn.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(widest < TREE_DEPTH * 4 + 40, "{widest}");
        assert!(
            drawn.starts_with("long.spl\nt15999 [backlog]\n└── t15998 [backlog]\n"),
            "{}",
            &drawn[..200]
        );
    }

    #[test]
    fn dag_levels_and_dot() {
        insta::assert_snapshot!(dag("plan.spl", &plan(SHOP)));
        insta::assert_snapshot!(dot("plan.spl", &plan(SHOP)));
    }

    #[test]
    fn dag_puts_cycles_last() {
        let cyclic = indoc! {"
            (given task-a) (given task-b) (given task-c)
            (normally r-ready-a (and task-a completed-b) ready-a)
            (normally r-ready-b (and task-b completed-a) ready-b)
            (normally r-ready-c (and task-c completed-b) ready-c)
        "};
        let text = dag("c.spl", &plan(cyclic));
        assert_eq!(
            text,
            "c.spl\ncycle  a  backlog  → b\ncycle  b  backlog  → a, c\ncycle  c  backlog\n"
        );
    }

    #[test]
    fn dot_escapes_quotes_and_backslashes() {
        assert_eq!(dot_string("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
    }
}
