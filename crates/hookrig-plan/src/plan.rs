//! A plan read from SPL: its meta, tasks, agents, assignments and dependencies, the
//! state of each task, and the statements each task action appends.
//!
//! Everything here is pure: [`crate::lifecycle`] reads and locks the file, calls
//! [`Plan::prepare`] and writes [`spl::append`]'s text; its caller runs the hooks.

use std::fmt::Write as _;

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use foldhash::HashSet as FastSet;

use crate::errors::ActionError;
use crate::names::{Names, id};
use crate::reasoner::{Conclusions, Status, Theory};
use crate::spl::{
    self, Claims, Literal, MetaProperty, MetaValue, RuleKind, Statement, StatementKind, Term,
    for_each_flat,
};

/// The state of a task, from the conclusions, first match wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Neither ready nor anything else.
    Backlog,
    /// `ready-X`.
    Ready,
    /// `claimed-X`.
    InProgress,
    /// `decomposed-X`.
    Decomposed,
    /// `blocked-X` or `upstream-blocked-X`.
    Blocked,
    /// `completed-X`.
    Done,
}

impl TaskState {
    /// The name used in the board JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Backlog => "backlog",
            TaskState::Ready => "ready",
            TaskState::InProgress => "in_progress",
            TaskState::Decomposed => "decomposed",
            TaskState::Blocked => "blocked",
            TaskState::Done => "done",
        }
    }
}

/// Why a blocked task is blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockType {
    /// `blocked-X`: blocked by hand (`task block`).
    Blocked,
    /// `upstream-blocked-X`: a task it depends on failed or is upstream-blocked.
    UpstreamBlocked,
}

/// A declared task.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The name without `task-`.
    pub name: String,
    /// Its `meta` properties (from `(meta task-X …)`), later statements winning.
    pub meta: Map<String, Value>,
    /// Its state.
    pub state: TaskState,
    /// Set when the state is blocked.
    pub block_type: Option<BlockType>,
    /// Agents it is assigned to, in file order.
    pub assigned_to: Vec<String>,
    /// Tasks whose completion its readiness rules require.
    pub depends_on: Vec<String>,
    /// The agent of the latest claim, while the task is in progress.
    pub claimed_by: Option<String>,
    /// The reason given with the latest block, while the task is blocked by hand.
    pub block_reason: Option<String>,
}

impl Task {
    /// Why `agent` cannot claim the task because another agent holds it: the task is in
    /// progress and its latest claim is not `agent`'s (or names no agent at all).
    pub fn held_by_another(&self, agent: &str) -> Option<ActionError> {
        let agent = agent.strip_prefix("agent:").unwrap_or(agent);
        if self.state != TaskState::InProgress || self.claimed_by.as_deref() == Some(agent) {
            return None;
        }
        Some(ActionError::Held {
            task: self.name.clone(),
            holder: self.claimed_by.clone(),
        })
    }
}

/// Version numbers already used by a task's lifecycle statements.
#[derive(Debug, Clone, Copy, Default)]
struct Versions {
    /// Highest N of `claim-vN-X` and `unclaim-vN-X` (one sequence).
    claim_seq: u32,
    last_claim: Option<u32>,
    last_unclaim: Option<u32>,
    /// Highest N of `block-vN-X` and `unblock-vN-X` (one sequence).
    block_seq: u32,
    last_block: Option<u32>,
    last_unblock: Option<u32>,
}

/// What the scan learns of a task's lifecycle statements. The strings borrow from the
/// statements: a large plan costs no allocation per action.
#[derive(Debug, Clone, Copy, Default)]
struct Lifecycle<'a> {
    versions: Versions,
    /// The agent of the `claims` block holding the highest claim version seen so far,
    /// with that version.
    claimer: Option<(u32, &'a str)>,
    /// The reason in the `claims` block holding the highest block version seen so far.
    reason: Option<(u32, &'a str)>,
}

/// A plan: what the file declares and what follows from it.
#[derive(Debug, Clone)]
pub struct Plan {
    /// `(meta plan …)`.
    pub meta: Map<String, Value>,
    /// Declared tasks, in file order.
    pub tasks: Vec<Task>,
    /// Agents declared with `(given agent-NAME-available)`, in file order.
    pub agents: Vec<String>,
    /// Every +∂ conclusion, printed.
    pub conclusions: Vec<String>,
    /// The versions of each task's lifecycle statements, beside `tasks`.
    versions: Vec<Versions>,
}

/// A lifecycle action on a plan, with what it acts on: the five task actions and
/// `assert`. [`Plan::prepare`] turns one into the statement it appends;
/// [`crate::lifecycle::apply`] performs it on a plan file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `task claim TASK [--force]`.
    Claim {
        /// The task (`api` or `task-api`).
        task: String,
        /// Claim it even when it is not ready (never when it is done).
        force: bool,
    },
    /// `task unclaim TASK`.
    Unclaim {
        /// The task.
        task: String,
    },
    /// `task complete TASK`.
    Complete {
        /// The task.
        task: String,
    },
    /// `task block TASK [--reason R]`.
    Block {
        /// The task.
        task: String,
        /// Kept as `(given (blocked-by X "reason"))`.
        reason: Option<String>,
    },
    /// `task unblock TASK`.
    Unblock {
        /// The task.
        task: String,
    },
    /// `task assert 'SPL'`: statements appended inside a `claims` block.
    Assert {
        /// One or more SPL statements, as given.
        spl: String,
    },
}

impl Action {
    /// `claim`, `unclaim`, `complete`, `block`, `unblock` or `assert`.
    pub fn verb(&self) -> &'static str {
        match self {
            Action::Claim { .. } => "claim",
            Action::Unclaim { .. } => "unclaim",
            Action::Complete { .. } => "complete",
            Action::Block { .. } => "block",
            Action::Unblock { .. } => "unblock",
            Action::Assert { .. } => "assert",
        }
    }

    /// `claimed`, `unclaimed`, `completed`, `blocked`, `unblocked` or `asserted`.
    pub fn past(&self) -> &'static str {
        match self {
            Action::Claim { .. } => "claimed",
            Action::Unclaim { .. } => "unclaimed",
            Action::Complete { .. } => "completed",
            Action::Block { .. } => "blocked",
            Action::Unblock { .. } => "unblocked",
            Action::Assert { .. } => "asserted",
        }
    }

    /// The task acted on, as given; `None` for [`Action::Assert`].
    pub fn task(&self) -> Option<&str> {
        match self {
            Action::Claim { task, .. }
            | Action::Unclaim { task }
            | Action::Complete { task }
            | Action::Block { task, .. }
            | Action::Unblock { task } => Some(task),
            Action::Assert { .. } => None,
        }
    }
}

/// What an action appends.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    /// Nothing: the task is already where the action would take it.
    Noop,
    /// This `claims` statement, to append with [`spl::append`].
    Append(Statement),
}

impl Plan {
    /// Reads a plan from parsed statements and reasons about it.
    pub fn new(statements: &[Statement]) -> Self {
        // One pass over the statements feeds both the scan and the theory: the
        // statements of a large plan do not fit in the cache, and a second pass would
        // read them all from memory again.
        let mut scan = Scan::default();
        let mut theory = Theory::new();
        theory.reserve(statements.len());
        for_each_flat(statements, &mut |statement, claims| {
            scan.visit(statement, claims);
            theory.add_statement(statement);
        });
        add_propagation_rules(&mut theory, &scan);
        let conclusions = theory.reason();

        let states = scan.states(&conclusions);
        let mut assigned = scan.assignments(&conclusions);
        let mut versions = Vec::with_capacity(scan.tasks.len());
        let tasks = scan
            .tasks
            .iter()
            .map(|&t| {
                let t = t as usize;
                let (state, block_type) = state_of(states[t]);
                let lifecycle = scan.lifecycles[t];
                versions.push(lifecycle.versions);
                let last_claim = lifecycle.versions.last_claim;
                let last_block = lifecycle.versions.last_block;
                Task {
                    name: scan.names.name(id(t)).to_owned(),
                    meta: std::mem::take(&mut scan.meta[t]),
                    state,
                    block_type,
                    assigned_to: std::mem::take(&mut assigned[t]),
                    depends_on: scan.depends_on[t].iter().map(|&d| d.to_owned()).collect(),
                    claimed_by: lifecycle
                        .claimer
                        .filter(|(n, _)| state == TaskState::InProgress && Some(*n) == last_claim)
                        .map(|(_, agent)| agent.to_owned()),
                    block_reason: lifecycle
                        .reason
                        .filter(|(n, _)| {
                            block_type == Some(BlockType::Blocked) && Some(*n) == last_block
                        })
                        .map(|(_, reason)| reason.to_owned()),
                }
            })
            .collect();
        Plan {
            meta: scan.plan_meta,
            tasks,
            agents: scan.agents.iter().map(|&a| a.to_owned()).collect(),
            conclusions: conclusions.proved(),
            versions,
        }
    }

    /// The task called `name` (with or without `task-`).
    pub fn task(&self, name: &str) -> Option<&Task> {
        let name = name.strip_prefix("task-").unwrap_or(name);
        self.tasks.iter().find(|t| t.name == name)
    }

    /// For each task, the indices of the declared tasks it depends on, each once, in the
    /// order its dependencies are listed: the dependency graph the board draws and the
    /// cycle check walks.
    pub fn dependencies(&self) -> Vec<Vec<usize>> {
        let index: std::collections::HashMap<&str, usize> = self
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), i))
            .collect();
        self.tasks
            .iter()
            .map(|task| {
                let mut on = Vec::new();
                for d in task.depends_on.iter().filter_map(|d| index.get(d.as_str())) {
                    if !on.contains(d) {
                        on.push(*d);
                    }
                }
                on
            })
            .collect()
    }

    /// Whether every task is done (and there is at least one).
    pub fn is_complete(&self) -> bool {
        !self.tasks.is_empty() && self.tasks.iter().all(|t| t.state == TaskState::Done)
    }

    /// The statement `action` by `agent` at `at` (RFC 3339) appends, or
    /// [`Prepared::Noop`], or why it is refused. Claiming needs `force` unless the task
    /// is ready; unclaiming or blocking a done task is refused.
    /// `task assert 'SPL'` appends the SPL, read, inside a `claims` block.
    pub fn prepare(&self, action: &Action, agent: &str, at: &str) -> Result<Prepared, ActionError> {
        let source = source(agent)?;
        match action {
            Action::Assert { spl } => {
                let statements = spl::parse(Path::new("<assert>"), spl)?;
                Ok(Prepared::Append(wrap(source, at, statements)))
            }
            Action::Claim { task, .. }
            | Action::Unclaim { task }
            | Action::Complete { task }
            | Action::Block { task, .. }
            | Action::Unblock { task } => self.prepare_task(action, task, source, agent, at),
        }
    }

    /// [`Plan::prepare`] for the five actions on a task; `source` is `agent:NAME`.
    fn prepare_task(
        &self,
        action: &Action,
        task: &str,
        source: String,
        agent: &str,
        at: &str,
    ) -> Result<Prepared, ActionError> {
        let name = task.strip_prefix("task-").unwrap_or(task);
        let Some(index) = self.tasks.iter().position(|t| t.name == name) else {
            return Err(ActionError::UnknownTask {
                task: task.to_owned(),
                declared: self.tasks.iter().map(|t| t.name.clone()).collect(),
            });
        };
        let found = &self.tasks[index];
        let x = found.name.as_str();
        let state = found.state;
        let verb = action.verb();
        let refuse = |reason: &str| ActionError::Refused {
            action: verb,
            task: x.to_owned(),
            reason: reason.to_owned(),
        };
        let versions = self.versions[index];
        let mut statements = Vec::new();
        match action {
            Action::Claim { force, .. } => {
                if state == TaskState::Done {
                    return Err(refuse("it is done"));
                }
                if state == TaskState::InProgress {
                    // Claiming again is a no-op for the holder only: another agent
                    // must not go on to work on the same task.
                    return found.held_by_another(agent).map_or(Ok(Prepared::Noop), Err);
                }
                if state != TaskState::Ready && !*force {
                    return Err(ActionError::NeedsForce {
                        action: verb,
                        task: x.to_owned(),
                        reason: format!("it is not ready (state {})", state.as_str()),
                    });
                }
                statements = versioned(
                    "claim",
                    versions.claim_seq + 1,
                    x,
                    Literal::atom(format!("claimed-{x}")),
                    versions.last_unclaim.map(|m| format!("r-unclaim-v{m}-{x}")),
                );
            }
            Action::Unclaim { .. } => {
                if state == TaskState::Done {
                    return Err(refuse("it is done"));
                }
                if state != TaskState::InProgress {
                    return Ok(Prepared::Noop);
                }
                statements = versioned(
                    "unclaim",
                    versions.claim_seq + 1,
                    x,
                    Literal::atom(format!("claimed-{x}")).negated(),
                    versions.last_claim.map(|m| format!("r-claim-v{m}-{x}")),
                );
            }
            Action::Complete { .. } => {
                if state == TaskState::Done {
                    return Ok(Prepared::Noop);
                }
                statements.push(Statement::new(StatementKind::Given(Literal::atom(
                    format!("completed-{x}"),
                ))));
            }
            Action::Block { reason, .. } => {
                if state == TaskState::Done {
                    return Err(refuse("it is done"));
                }
                if found.block_type == Some(BlockType::Blocked) {
                    return Ok(Prepared::Noop);
                }
                statements = versioned(
                    "block",
                    versions.block_seq + 1,
                    x,
                    Literal::atom(format!("blocked-{x}")),
                    versions.last_unblock.map(|m| format!("r-unblock-v{m}-{x}")),
                );
                if let Some(reason) = reason {
                    statements.push(Statement::new(StatementKind::Given(Literal::Atom {
                        name: "blocked-by".to_owned(),
                        args: vec![Term::Symbol(x.to_owned()), Term::Str(reason.clone())],
                    })));
                }
            }
            Action::Unblock { .. } => {
                if found.block_type != Some(BlockType::Blocked) {
                    return Ok(Prepared::Noop);
                }
                statements = versioned(
                    "unblock",
                    versions.block_seq + 1,
                    x,
                    Literal::atom(format!("blocked-{x}")).negated(),
                    versions.last_block.map(|m| format!("r-block-v{m}-{x}")),
                );
            }
            Action::Assert { .. } => unreachable!("assert names no task"),
        }
        Ok(Prepared::Append(wrap(source, at, statements)))
    }
}

/// `(given VERB-vN-X)`, `(normally r-VERB-vN-X VERB-vN-X HEAD)` and, when there is an
/// earlier opposite action, `(prefer r-VERB-vN-X BEATS)`. Beating only the latest
/// opposite rule is enough: with team defeat, every earlier rule of the other side is
/// already beaten by the rule that followed it.
fn versioned(verb: &str, n: u32, x: &str, head: Literal, beats: Option<String>) -> Vec<Statement> {
    let fact = format!("{verb}-v{n}-{x}");
    let label = format!("r-{verb}-v{n}-{x}");
    let mut statements = vec![
        Statement::new(StatementKind::Given(Literal::atom(fact.clone()))),
        Statement::new(StatementKind::Rule(spl::Rule {
            kind: RuleKind::Defeasible,
            label: Some(label.clone()),
            body: vec![Literal::atom(fact)],
            head,
        })),
    ];
    if let Some(beats) = beats {
        statements.push(Statement::new(StatementKind::Prefer(vec![label, beats])));
    }
    statements
}

fn source(agent: &str) -> Result<String, ActionError> {
    let name = agent.strip_prefix("agent:").unwrap_or(agent);
    if spl::is_symbol(name) {
        Ok(format!("agent:{name}"))
    } else {
        Err(ActionError::InvalidAgent(agent.to_owned()))
    }
}

fn wrap(source: String, at: &str, statements: Vec<Statement>) -> Statement {
    Statement::new(StatementKind::Claims(Claims {
        source,
        at: Some(at.to_owned()),
        sig: None,
        id: None,
        note: None,
        statements,
    }))
}

/// Sets `key` to `PREFIX-NAME`.
fn prefixed(key: &mut String, prefix: &str, name: &str) {
    key.clear();
    key.push_str(prefix);
    key.push('-');
    key.push_str(name);
}

/// The prefixes of the atoms that set a task's state, in the order the first match
/// wins; bit i of a task's state flags says that `PREFIXES[i]-X` is +∂.
const STATE_PREFIXES: [&str; 6] = [
    "completed-",
    "blocked-",
    "upstream-blocked-",
    "decomposed-",
    "claimed-",
    "ready-",
];

fn state_of(flags: u8) -> (TaskState, Option<BlockType>) {
    match flags.trailing_zeros() {
        0 => (TaskState::Done, None),
        1 => (TaskState::Blocked, Some(BlockType::Blocked)),
        2 => (TaskState::Blocked, Some(BlockType::UpstreamBlocked)),
        3 => (TaskState::Decomposed, None),
        4 => (TaskState::InProgress, None),
        5 => (TaskState::Ready, None),
        _ => (TaskState::Backlog, None),
    }
}

/// What one pass over the statements finds, per task name. Task names (without
/// `task-`) are interned as they are met, declared or only mentioned (a claim may come
/// before the declaration); what the scan learns of a task sits at its id in each
/// array, so that a large plan needs no lookup by name in a table of every literal.
/// Other strings borrow from the statements: only what ends up in the [`Plan`] is
/// copied, once, at the end.
#[derive(Default)]
struct Scan<'a> {
    names: Names,
    /// Declared tasks' ids, in file order.
    tasks: Vec<u32>,
    declared: Vec<bool>,
    meta: Vec<Map<String, Value>>,
    depends_on: Vec<Vec<&'a str>>,
    lifecycles: Vec<Lifecycle<'a>>,
    agents: Vec<&'a str>,
    /// Labels of the file's rules that look like those of the propagation rules
    /// (`r-propagate-…`): almost always none, so no table of every label is needed.
    propagation_labels: FastSet<&'a str>,
    plan_meta: Map<String, Value>,
    /// `(assign T A)` literals written anywhere, to look up in the conclusions.
    assign_literals: Vec<&'a Literal>,
}

impl<'a> Scan<'a> {
    /// The id of the task called `name`, declared or not.
    fn task(&mut self, name: &str) -> usize {
        let t = self.names.intern(name) as usize;
        if t == self.declared.len() {
            self.declared.push(false);
            self.meta.push(Map::new());
            self.depends_on.push(Vec::new());
            self.lifecycles.push(Lifecycle::default());
        }
        t
    }

    /// The id of the declared task called `name`.
    fn declared(&self, name: &str) -> Option<usize> {
        self.names
            .get(name)
            .map(|t| t as usize)
            .filter(|&t| self.declared[t])
    }

    fn visit(&mut self, statement: &'a Statement, claims: Option<&'a Claims>) {
        match &statement.kind {
            StatementKind::Given(lit) => {
                self.note_assign(lit);
                let Some(name) = lit.plain_name() else { return };
                if let Some(task) = name.strip_prefix("task-") {
                    let t = self.task(task);
                    if !self.declared[t] {
                        self.declared[t] = true;
                        self.tasks.push(id(t));
                    }
                } else if let Some(agent) = name
                    .strip_prefix("agent-")
                    .and_then(|r| r.strip_suffix("-available"))
                {
                    if !agent.is_empty() && !self.agents.contains(&agent) {
                        self.agents.push(agent);
                    }
                } else if let Some((action, n, task)) = version_of(name) {
                    self.note_version(action, n, task, claims);
                }
            }
            StatementKind::Rule(rule) => {
                self.note_assign(&rule.head);
                if let Some(label) = &rule.label
                    && label.starts_with("r-propagate-")
                {
                    self.propagation_labels.insert(label);
                }
                if rule.kind == RuleKind::Defeater {
                    return;
                }
                let Some(task) = rule
                    .head
                    .plain_name()
                    .and_then(|h| h.strip_prefix("ready-"))
                else {
                    return;
                };
                let t = self.task(task);
                let deps = &mut self.depends_on[t];
                for dep in rule
                    .body
                    .iter()
                    .filter_map(|l| l.plain_name()?.strip_prefix("completed-"))
                {
                    if !deps.contains(&dep) {
                        deps.push(dep);
                    }
                }
            }
            StatementKind::Meta { label, properties } => {
                // Only the plan's and the tasks' properties are read.
                let map = if label == "plan" {
                    &mut self.plan_meta
                } else if let Some(task) = label.strip_prefix("task-") {
                    let t = self.task(task);
                    &mut self.meta[t]
                } else {
                    return;
                };
                for property in properties {
                    map.insert(property.key.clone(), meta_json(property));
                }
            }
            _ => {}
        }
    }

    fn note_assign(&mut self, lit: &'a Literal) {
        if let Literal::Atom { name, args } = lit
            && name == "assign"
            && matches!(args.as_slice(), [Term::Symbol(_), Term::Symbol(_)])
        {
            self.assign_literals.push(lit);
        }
    }

    fn note_version(&mut self, action: &str, n: u32, task: &str, claims: Option<&'a Claims>) {
        let t = self.task(task);
        let lifecycle = &mut self.lifecycles[t];
        let v = &mut lifecycle.versions;
        match action {
            "claim" | "unclaim" => {
                v.claim_seq = v.claim_seq.max(n);
                let last = if action == "claim" {
                    &mut v.last_claim
                } else {
                    &mut v.last_unclaim
                };
                *last = Some(last.map_or(n, |l| l.max(n)));
                if action == "claim"
                    && let Some(claims) = claims
                {
                    let agent = claims
                        .source
                        .strip_prefix("agent:")
                        .unwrap_or(&claims.source);
                    if lifecycle.claimer.is_none_or(|(m, _)| n >= m) {
                        lifecycle.claimer = Some((n, agent));
                    }
                }
            }
            _ => {
                v.block_seq = v.block_seq.max(n);
                let last = if action == "block" {
                    &mut v.last_block
                } else {
                    &mut v.last_unblock
                };
                *last = Some(last.map_or(n, |l| l.max(n)));
                if action == "block"
                    && let Some(claims) = claims
                {
                    let reason = claims.statements.iter().find_map(|s| match &s.kind {
                        StatementKind::Given(Literal::Atom { name, args })
                            if name == "blocked-by" =>
                        {
                            match args.as_slice() {
                                [Term::Symbol(t), Term::Str(reason)] if t == task => {
                                    Some(reason.as_str())
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    });
                    if let Some(reason) = reason
                        && lifecycle.reason.is_none_or(|(m, _)| n >= m)
                    {
                        lifecycle.reason = Some((n, reason));
                    }
                }
            }
        }
    }

    /// The state flags of each task id (see [`STATE_PREFIXES`]), from one pass over
    /// the +∂ atoms: a lookup in the small table of task names per atom that has a
    /// state prefix, instead of six lookups per task in the table of every literal.
    fn states(&self, conclusions: &Conclusions) -> Vec<u8> {
        let mut flags = vec![0_u8; self.names.len()];
        for atom in conclusions.proved_atoms() {
            for (bit, prefix) in STATE_PREFIXES.iter().enumerate() {
                if let Some(t) = atom.strip_prefix(prefix).and_then(|x| self.names.get(x)) {
                    flags[t as usize] |= 1 << bit;
                }
            }
        }
        flags
    }

    /// The agents of each task id: `(assign TASK AGENT)`, or Hence's
    /// `assign-TASK-AGENT` and `assign-to-TASK-AGENT` atoms (the longest declared task
    /// name wins when names contain dashes), when +∂.
    fn assignments(&self, conclusions: &Conclusions) -> Vec<Vec<String>> {
        let mut out = vec![Vec::new(); self.names.len()];
        let mut add = |t: usize, agent: &str| {
            let agents: &mut Vec<String> = &mut out[t];
            if !agents.iter().any(|a| a == agent) {
                agents.push(agent.to_owned());
            }
        };
        for lit in &self.assign_literals {
            if let Literal::Atom { args, .. } = lit
                && let [Term::Symbol(task), Term::Symbol(agent)] = args.as_slice()
                && let Some(t) = self.declared(task.strip_prefix("task-").unwrap_or(task))
                && conclusions.defeasible(lit) == Status::Proved
            {
                add(t, agent);
            }
        }
        for atom in conclusions.proved_atoms() {
            let Some(rest) = atom
                .strip_prefix("assign-to-")
                .or_else(|| atom.strip_prefix("assign-"))
            else {
                continue;
            };
            // The task is the longest prefix of `rest` that ends before a dash and is a
            // declared task, with a non-empty agent after the dash: one lookup per dash
            // rather than a scan of every task per atom.
            let best = rest.rmatch_indices('-').find_map(|(at, _)| {
                (at + 1 < rest.len())
                    .then(|| self.declared(&rest[..at]).map(|t| (t, at)))
                    .flatten()
            });
            if let Some((t, at)) = best {
                add(t, &rest[at + 1..]);
            }
        }
        out
    }
}

/// `claim-v3-X` → `("claim", 3, "X")`, for claim, unclaim, block and unblock.
fn version_of(name: &str) -> Option<(&'static str, u32, &str)> {
    for action in ["claim", "unclaim", "block", "unblock"] {
        let Some(rest) = name.strip_prefix(action).and_then(|r| r.strip_prefix("-v")) else {
            continue;
        };
        let (digits, task) = rest.split_once('-')?;
        let n = digits.parse().ok()?;
        if !task.is_empty() {
            return Some((action, n, task));
        }
    }
    None
}

/// Rules hookrig adds to every plan (not to the file) so that a failure upstream
/// blocks the tasks that depend on it, transitively: for each dependency of X on D,
/// `failed-D`, `permanently-failed-D` and `upstream-blocked-D` each make
/// `upstream-blocked-X`. A manual `blocked-D` does not. The labels are Hence's; a plan
/// that already has a rule with one of them keeps its own.
fn add_propagation_rules(theory: &mut Theory, scan: &Scan<'_>) {
    // Names are built in reused buffers: the theory interns them, so there is no
    // allocation per rule.
    let (mut head, mut body, mut label) = (String::new(), String::new(), String::new());
    for &t in &scan.tasks {
        let deps = &scan.depends_on[t as usize];
        if deps.is_empty() {
            continue;
        }
        let task = scan.names.name(t);
        prefixed(&mut head, "upstream-blocked", task);
        for &dep in deps {
            for (suffix, prefix) in [
                ("failed", "failed"),
                ("permanently-failed", "permanently-failed"),
                ("blocked", "upstream-blocked"),
            ] {
                label.clear();
                let _ = write!(label, "r-propagate-{task}-from-{dep}-{suffix}");
                if !scan.propagation_labels.contains(label.as_str()) {
                    prefixed(&mut body, prefix, dep);
                    theory.add_plain_rule(&label, RuleKind::Defeasible, &[&body], &head);
                }
            }
        }
    }
}

fn meta_json(property: &MetaProperty) -> Value {
    fn value(v: &MetaValue) -> Value {
        match v {
            MetaValue::Str(s) | MetaValue::Symbol(s) => Value::String(s.clone()),
            MetaValue::Number(n) => {
                serde_json::from_str(n).unwrap_or_else(|_| Value::String(n.clone()))
            }
            MetaValue::List(items) => Value::Array(items.iter().map(value).collect()),
        }
    }
    match property.values.as_slice() {
        [] => Value::Null,
        [one] => value(one),
        many => Value::Array(many.iter().map(value).collect()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use indoc::indoc;

    use super::*;

    /// design → api → ui, and docs with no dependency; two agents.
    const PLAN: &str = indoc! {r#"
        (meta plan (title "Shop") (status "active"))
        (given agent-coder-available)
        (given agent-writer-available)
        (given task-design)
        (meta task-design (description "Design the API") (acceptance "Reviewed"))
        (given task-api)
        (meta task-api (description "Build the API") (provider "claude"))
        (given task-ui)
        (given task-docs)
        (given assign-api-coder)
        (given assign-to-ui-coder)
        (given (assign docs writer))
        (normally r-ready-design task-design ready-design)
        (normally r-ready-api (and task-api completed-design) ready-api)
        (normally r-ready-ui (and task-ui completed-api) ready-ui)
    "#};

    const AT: &str = "2025-01-02T03:04:05Z";

    fn plan(text: &str) -> Plan {
        Plan::new(&spl::parse(Path::new("plan.spl"), text).expect("valid SPL"))
    }

    fn state(text: &str, task: &str) -> (TaskState, Option<BlockType>) {
        let plan = plan(text);
        let task = plan.task(task).expect("declared");
        (task.state, task.block_type)
    }

    /// Runs an action and returns the file with the appended text.
    fn claim(task: &str, force: bool) -> Action {
        Action::Claim {
            task: task.to_owned(),
            force,
        }
    }

    fn unclaim(task: &str) -> Action {
        Action::Unclaim {
            task: task.to_owned(),
        }
    }

    fn complete(task: &str) -> Action {
        Action::Complete {
            task: task.to_owned(),
        }
    }

    fn block(task: &str, reason: Option<&str>) -> Action {
        Action::Block {
            task: task.to_owned(),
            reason: reason.map(str::to_owned),
        }
    }

    fn unblock(task: &str) -> Action {
        Action::Unblock {
            task: task.to_owned(),
        }
    }

    fn assert(spl: &str) -> Action {
        Action::Assert {
            spl: spl.to_owned(),
        }
    }

    fn act(text: &str, action: &Action, agent: &str) -> String {
        match plan(text).prepare(action, agent, AT).expect("allowed") {
            Prepared::Append(statement) => {
                format!(
                    "{text}{}",
                    spl::append(text, std::slice::from_ref(&statement))
                )
            }
            Prepared::Noop => text.to_owned(),
        }
    }

    #[test]
    fn assignment_atoms_name_the_longest_declared_task() {
        // guards: the lookup of the task in `assign-TASK-AGENT` by dash position
        let plan = plan(indoc! {"
            (given task-a)
            (given task-a-b)
            (given assign-a-b-coder)
            (given assign-to-a-writer)
            (given assign-zz-coder)
            (given assign-a-)
        "});
        let a = plan.task("a").expect("declared");
        let ab = plan.task("a-b").expect("declared");
        assert_eq!(a.assigned_to, ["writer"]);
        assert_eq!(ab.assigned_to, ["coder"]);
    }

    #[test]
    fn lifecycle_and_meta_before_the_declaration_count() {
        // guards: the scan's per-task arrays for names met before `(given task-X)`
        let plan = plan(indoc! {r#"
            (meta task-late (description "written first"))
            (normally r-ready-late (and task-late completed-early) ready-late)
            (claims agent:coder :at "2025-01-02T03:04:05Z"
              (given claim-v1-late)
              (normally r-claim-v1-late claim-v1-late claimed-late))
            (given task-early)
            (given task-late)
        "#});
        let late = plan.task("late").expect("declared");
        assert_eq!(late.meta["description"], "written first");
        assert_eq!(late.depends_on, ["early"]);
        assert_eq!(late.state, TaskState::InProgress);
        assert_eq!(late.claimed_by.as_deref(), Some("coder"));
        let names: Vec<_> = plan.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["early", "late"]);
    }

    #[test]
    fn declarations() {
        let plan = plan(PLAN);
        assert_eq!(plan.meta["title"], "Shop");
        assert_eq!(plan.agents, ["coder", "writer"]);
        let names: Vec<_> = plan.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["design", "api", "ui", "docs"]);
        let api = plan.task("task-api").expect("declared");
        assert_eq!(api.depends_on, ["design"]);
        assert_eq!(api.assigned_to, ["coder"]);
        assert_eq!(api.meta["provider"], "claude");
        assert_eq!(plan.task("ui").expect("declared").assigned_to, ["coder"]);
        assert_eq!(plan.task("docs").expect("declared").assigned_to, ["writer"]);
    }

    #[test]
    fn state_rules_first_match_wins() {
        let base = "(given task-x)";
        let cases = [
            ("", TaskState::Backlog, None),
            ("(given ready-x)", TaskState::Ready, None),
            (
                "(given ready-x) (given claimed-x)",
                TaskState::InProgress,
                None,
            ),
            (
                "(given claimed-x) (given decomposed-x)",
                TaskState::Decomposed,
                None,
            ),
            (
                "(given decomposed-x) (given upstream-blocked-x)",
                TaskState::Blocked,
                Some(BlockType::UpstreamBlocked),
            ),
            (
                "(given upstream-blocked-x) (given blocked-x)",
                TaskState::Blocked,
                Some(BlockType::Blocked),
            ),
            (
                "(given blocked-x) (given completed-x)",
                TaskState::Done,
                None,
            ),
        ];
        for (extra, expected, block_type) in cases {
            assert_eq!(
                state(&format!("{base} {extra}"), "x"),
                (expected, block_type),
                "{extra}"
            );
        }
    }

    #[test]
    fn claim_unclaim_cycles_use_versions() {
        let mut text = PLAN.to_owned();
        assert_eq!(state(&text, "design").0, TaskState::Ready);
        for round in 1..=3 {
            text = act(&text, &claim("design", false), "coder");
            assert_eq!(
                state(&text, "design").0,
                TaskState::InProgress,
                "round {round}"
            );
            assert_eq!(
                plan(&text)
                    .task("design")
                    .expect("declared")
                    .claimed_by
                    .as_deref(),
                Some("coder")
            );
            text = act(&text, &unclaim("design"), "coder");
            assert_eq!(state(&text, "design").0, TaskState::Ready, "round {round}");
        }
        assert!(text.contains("(given unclaim-v6-design)"));
        assert!(text.contains("(prefer r-claim-v5-design r-unclaim-v4-design)"));
        assert!(text.starts_with(PLAN), "history is never rewritten");
    }

    #[test]
    fn appended_claim_snapshot() {
        let text = act(PLAN, &claim("design", false), "coder");
        let text = act(&text, &unclaim("design"), "coder");
        let text = act(&text, &claim("design", false), "writer");
        insta::assert_snapshot!(&text[PLAN.len()..]);
    }

    #[test]
    fn completing_makes_dependents_ready() {
        let text = act(PLAN, &claim("design", false), "coder");
        let text = act(&text, &complete("design"), "coder");
        assert_eq!(state(&text, "design").0, TaskState::Done);
        assert_eq!(state(&text, "api").0, TaskState::Ready);
        assert_eq!(state(&text, "ui").0, TaskState::Backlog);
        assert!(!plan(&text).is_complete());
    }

    #[test]
    fn refusals_and_noops() {
        let p = plan(PLAN);
        let err = p
            .prepare(&claim("api", false), "coder", AT)
            .expect_err("backlog");
        assert_eq!(
            err.to_string(),
            "cannot claim task 'api': it is not ready (state backlog) (use --force to claim it anyway)"
        );
        assert!(matches!(
            p.prepare(&claim("api", true), "coder", AT),
            Ok(Prepared::Append(_))
        ));
        let err = p
            .prepare(&claim("nope", false), "coder", AT)
            .expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "unknown task 'nope'; declared tasks: design, api, ui, docs"
        );
        assert!(matches!(err, ActionError::UnknownTask { .. }));
        assert_eq!(
            p.prepare(&unclaim("design"), "coder", AT),
            Ok(Prepared::Noop)
        );
        assert_eq!(
            p.prepare(&unblock("design"), "coder", AT),
            Ok(Prepared::Noop)
        );
        assert!(matches!(
            p.prepare(&claim("design", false), "bad agent", AT),
            Err(ActionError::InvalidAgent(_))
        ));

        let claimed = act(PLAN, &claim("design", false), "coder");
        assert_eq!(
            plan(&claimed).prepare(&claim("design", false), "coder", AT),
            Ok(Prepared::Noop)
        );
        // guards: a claim by another agent of a task in progress was a no-op, so a
        // second agent went on to work on a task the first one held
        for force in [false, true] {
            let err = plan(&claimed)
                .prepare(&claim("design", force), "x", AT)
                .expect_err("held by coder");
            assert_eq!(
                err.to_string(),
                "cannot claim task 'design': agent 'coder' holds it (it is in progress); `hookrig task unclaim design` releases it"
            );
        }
        let by_hand = format!("{PLAN}(given claimed-design)\n");
        assert_eq!(
            plan(&by_hand)
                .prepare(&claim("design", false), "x", AT)
                .expect_err("held by nobody known")
                .to_string(),
            "cannot claim task 'design': it is in progress, claimed without a recorded agent; `hookrig task unclaim design` releases it"
        );
        let done = act(&claimed, &complete("design"), "coder");
        let p = plan(&done);
        for action in [
            unclaim("design"),
            block("design", None),
            claim("design", true),
        ] {
            let err = p.prepare(&action, "coder", AT).expect_err("done");
            assert_eq!(
                err.to_string(),
                format!("cannot {} task 'design': it is done", action.verb())
            );
        }
        assert_eq!(
            p.prepare(&complete("design"), "coder", AT),
            Ok(Prepared::Noop)
        );
    }

    #[test]
    fn manual_block_keeps_reason_and_does_not_block_dependents() {
        let text = act(
            PLAN,
            &block("design", Some("waiting on \"legal\"")),
            "coder",
        );
        assert!(text.contains(r#"(given (blocked-by design "waiting on \"legal\""))"#));
        let p = plan(&text);
        let design = p.task("design").expect("declared");
        assert_eq!(
            (design.state, design.block_type),
            (TaskState::Blocked, Some(BlockType::Blocked))
        );
        assert_eq!(design.block_reason.as_deref(), Some("waiting on \"legal\""));
        assert_eq!(state(&text, "api"), (TaskState::Backlog, None));
        assert_eq!(
            p.prepare(&block("design", None), "c", AT),
            Ok(Prepared::Noop)
        );

        let text = act(&text, &unblock("design"), "coder");
        assert_eq!(state(&text, "design").0, TaskState::Ready);
        let text = act(&text, &block("design", None), "coder");
        assert!(text.contains("(prefer r-block-v3-design r-unblock-v2-design)"));
        let p = plan(&text);
        assert_eq!(
            p.task("design").expect("declared").block_reason,
            None,
            "a new block has no reason"
        );
        let text = act(&text, &unblock("design"), "coder");
        assert_eq!(state(&text, "design").0, TaskState::Ready);
    }

    #[test]
    fn failure_blocks_dependents_transitively() {
        let text = act(PLAN, &assert("(given failed-design)"), "coder");
        assert_eq!(
            state(&text, "api"),
            (TaskState::Blocked, Some(BlockType::UpstreamBlocked))
        );
        assert_eq!(
            state(&text, "ui"),
            (TaskState::Blocked, Some(BlockType::UpstreamBlocked))
        );
        assert_eq!(
            state(&text, "docs"),
            (TaskState::Backlog, None),
            "docs does not depend on design"
        );
        // The failed task itself is not blocked by the propagation rules.
        assert_eq!(state(&text, "design").0, TaskState::Ready);
        // A plan can override a propagation rule with its own.
        let own = format!("{text}\n(normally r-propagate-api-from-design-failed failed-design ok)");
        assert_eq!(state(&own, "api").0, TaskState::Backlog);
    }

    #[test]
    fn assert_rejects_bad_spl_with_its_position() {
        let err = plan(PLAN)
            .prepare(&assert("(given a"), "coder", AT)
            .expect_err("bad");
        assert_eq!(
            err.to_string(),
            "<assert>:1:1: unclosed '(': no matching ')' before the end of the file"
        );
    }

    #[test]
    fn plan_complete() {
        let mut text = PLAN.to_owned();
        for task in ["design", "api", "ui", "docs"] {
            text = act(&text, &complete(task), "coder");
        }
        assert!(plan(&text).is_complete());
    }
}
