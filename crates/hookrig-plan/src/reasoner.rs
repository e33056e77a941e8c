//! Defeasible logic: facts, strict rules, defeasible rules, defeaters, superiority and
//! strong negation, with the definite (+Δ/−Δ) and defeasible (+∂/−∂) conclusions of the
//! standard ambiguity-blocking semantics with team defeat (Antoniou, Billington,
//! Governatori and Maher, "Representation results for defeasible logic", 2001).
//!
//! The computation follows the idea of Maher's linear algorithm without its theory
//! transformations: every rule keeps a count of body literals not yet proved, every
//! literal counts the attacking rules not yet answered, and each conclusion is pushed
//! on a work list once and visits the rules it touches once, so the cost is linear in
//! the size of the theory (plus the superiority pairs).
//!
//! Literals are propositional: `(p a b)` is one name; variables are not grounded.
//! `during` literals count as their inner literal (the interval is ignored), and a
//! modal literal `(must p)` is a name of its own.
//!
//! The data is laid out for large plans, whose theory does not fit in the cache: names
//! are interned once into dense `u32` ids (one hash lookup per occurrence, the text of
//! each name stored once in one buffer), rule bodies are ranges of one flat array,
//! the rules of each literal are one flat array with offsets, and the reasoning state
//! of a rule or a literal sits in one small record, so that a visit touches one or two
//! cache lines instead of one per array.

use crate::names::{Names, Texts, id};
use crate::spl::{Literal, RuleKind, Statement, StatementKind, for_each_flat, print_literal};

/// Whether a literal is proved, refuted, or neither (a loop keeps it open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// +Δ or +∂.
    Proved,
    /// −Δ or −∂.
    Refuted,
    /// Neither.
    Undecided,
}

/// An interned literal: atom id times two, plus one when negated.
type Lit = u32;

/// The rules of a theory, one array per field: the passes that only need heads or
/// kinds read only those.
#[derive(Debug, Clone, Default)]
struct Rules {
    head: Vec<Lit>,
    kind: Vec<RuleKind>,
    /// The label of each rule. Labels are read by number, not looked up: only the
    /// labels `prefer` names need a table (see [`Theory::inferiors`]).
    label: Texts,
    /// The body of rule r is `body[body_end[r - 1]..body_end[r]]`.
    body_end: Vec<u32>,
    body: Vec<Lit>,
}

impl Rules {
    fn len(&self) -> usize {
        self.head.len()
    }

    fn body(&self, r: usize) -> &[Lit] {
        let start = if r == 0 { 0 } else { self.body_end[r - 1] };
        &self.body[start as usize..self.body_end[r] as usize]
    }

    fn reserve(&mut self, rules: usize) {
        self.head.reserve(rules);
        self.kind.reserve(rules);
        self.label.reserve(rules, rules * 24);
        self.body_end.reserve(rules);
        self.body.reserve(rules * 2);
    }

    fn push(&mut self, label: &str, kind: RuleKind, head: Lit) {
        self.head.push(head);
        self.kind.push(kind);
        self.label.push(label);
        self.body_end.push(id(self.body.len()));
    }
}

/// A defeasible theory ready to be reasoned about.
#[derive(Debug, Clone, Default)]
pub struct Theory {
    atoms: Names,
    /// The labels `prefer` names.
    preferred: Names,
    facts: Vec<Lit>,
    rules: Rules,
    /// (stronger, weaker) ids in `preferred`.
    superiority: Vec<(u32, u32)>,
}

impl Theory {
    /// An empty theory.
    pub fn new() -> Self {
        Self::default()
    }

    /// The theory of parsed statements: statements inside `claims` count as if written
    /// at the top level; unlabelled rules are named `_rN` (N = their position);
    /// `(prefer a b c)` means a > b and b > c. `meta`, `trusts`, `decays` and
    /// `threshold` do not take part.
    pub fn from_statements(statements: &[Statement]) -> Self {
        let mut theory = Self::new();
        theory.extend(statements);
        theory
    }

    /// Adds parsed statements (see [`Theory::from_statements`]).
    pub fn extend(&mut self, statements: &[Statement]) {
        self.reserve(statements.len());
        for_each_flat(statements, &mut |statement, _| {
            self.add_statement(statement);
        });
    }

    /// Makes room for about `statements` more statements.
    pub(crate) fn reserve(&mut self, statements: usize) {
        // Most statements bring one or two new literals or a rule: sizing the tables
        // and arrays once saves rehashing a large table, and copying large arrays
        // that have left the cache, several times over. Names average under 24 bytes.
        let (names, rules) = (statements * 3 / 2, statements);
        self.atoms.reserve(names, names * 24);
        self.rules.reserve(rules);
    }

    /// Adds one statement that is not a `claims` block (see [`for_each_flat`]).
    pub(crate) fn add_statement(&mut self, statement: &Statement) {
        match &statement.kind {
            StatementKind::Given(lit) => self.add_fact(lit),
            StatementKind::Rule(rule) => {
                if let Some(label) = &rule.label {
                    self.add_rule(label, rule.kind, &rule.body, &rule.head);
                } else {
                    let label = format!("_r{}", self.rules.len() + 1);
                    self.add_rule(label, rule.kind, &rule.body, &rule.head);
                }
            }
            StatementKind::Prefer(labels) => {
                for pair in labels.windows(2) {
                    self.add_superiority(&pair[0], &pair[1]);
                }
            }
            _ => {}
        }
    }

    /// Whether a rule with this label exists.
    ///
    /// A scan of every rule: for occasional questions, not for a loop over rules.
    pub fn has_label(&self, label: &str) -> bool {
        (0..self.rules.label.len()).any(|r| self.rules.label.get(r) == label)
    }

    /// Adds a fact.
    pub fn add_fact(&mut self, literal: &Literal) {
        let lit = self.intern(literal);
        self.facts.push(lit);
    }

    /// Adds a rule.
    pub fn add_rule(
        &mut self,
        label: impl AsRef<str>,
        kind: RuleKind,
        body: &[Literal],
        head: &Literal,
    ) {
        for literal in body {
            let lit = self.intern(literal);
            self.rules.body.push(lit);
        }
        let head = self.intern(head);
        self.rules.push(label.as_ref(), kind, head);
    }

    /// Adds a rule whose body and head are plain atoms, without building literals.
    pub(crate) fn add_plain_rule(
        &mut self,
        label: &str,
        kind: RuleKind,
        body: &[&str],
        head: &str,
    ) {
        for name in body {
            let lit = self.atoms.intern(name) * 2;
            self.rules.body.push(lit);
        }
        let head = self.atoms.intern(head) * 2;
        self.rules.push(label, kind, head);
    }

    /// Says that the rules labelled `stronger` beat those labelled `weaker`.
    pub fn add_superiority(&mut self, stronger: &str, weaker: &str) {
        let stronger = self.preferred.intern(stronger);
        let weaker = self.preferred.intern(weaker);
        self.superiority.push((stronger, weaker));
    }

    fn intern(&mut self, literal: &Literal) -> Lit {
        // Almost every literal is a plain name, possibly negated: look it up without
        // building a key, so that a literal costs one hash and no allocation.
        if let Some((name, negated)) = plain_key(literal) {
            return self.atoms.intern(name) * 2 + u32::from(negated);
        }
        let (atom, negated) = key(literal);
        self.atoms.intern(&atom) * 2 + u32::from(negated)
    }

    /// Computes every conclusion.
    pub fn reason(self) -> Conclusions {
        let rules = &self.rules;
        let by_body = Adjacency::new(
            self.atoms.len() * 2,
            (0..rules.len()).flat_map(|r| rules.body(r).iter().map(move |&lit| (lit, id(r)))),
        );
        let definite = self.definite(&by_body);
        let defeasible = self.defeasible(&definite, &by_body);
        Conclusions {
            atoms: self.atoms,
            definite,
            defeasible,
        }
    }

    /// +Δ by forward chaining over facts and strict rules; −Δ by finite failure: not a
    /// fact, and every strict rule for it has a body literal in −Δ.
    fn definite(&self, by_body: &Adjacency) -> Vec<Status> {
        let n = self.atoms.len() * 2;
        let rules = &self.rules;
        let mut status = vec![Status::Undecided; n];
        let mut missing: Vec<u32> = (0..rules.len()).map(|r| id(rules.body(r).len())).collect();
        let mut queue = Vec::new();
        let prove = |lit: Lit, status: &mut Vec<Status>, queue: &mut Vec<Lit>| {
            if status[lit as usize] != Status::Proved {
                status[lit as usize] = Status::Proved;
                queue.push(lit);
            }
        };
        for &fact in &self.facts {
            prove(fact, &mut status, &mut queue);
        }
        for (r, &left) in missing.iter().enumerate() {
            if rules.kind[r] == RuleKind::Strict && left == 0 {
                prove(rules.head[r], &mut status, &mut queue);
            }
        }
        while let Some(lit) = queue.pop() {
            for &r in by_body.of(lit) {
                let r = r as usize;
                if rules.kind[r] != RuleKind::Strict {
                    continue;
                }
                missing[r] -= 1;
                if missing[r] == 0 {
                    prove(rules.head[r], &mut status, &mut queue);
                }
            }
        }

        let mut alive = vec![0_u32; n];
        for r in 0..rules.len() {
            if rules.kind[r] == RuleKind::Strict {
                alive[rules.head[r] as usize] += 1;
            }
        }
        let mut failed = vec![false; rules.len()];
        let mut queue: Vec<Lit> = (0..id(n))
            .filter(|&lit| status[lit as usize] == Status::Undecided && alive[lit as usize] == 0)
            .collect();
        for &lit in &queue {
            status[lit as usize] = Status::Refuted;
        }
        while let Some(lit) = queue.pop() {
            for &r in by_body.of(lit) {
                let r = r as usize;
                if rules.kind[r] != RuleKind::Strict || failed[r] {
                    continue;
                }
                failed[r] = true;
                let head = rules.head[r] as usize;
                alive[head] -= 1;
                if alive[head] == 0 && status[head] == Status::Undecided {
                    status[head] = Status::Refuted;
                    queue.push(rules.head[r]);
                }
            }
        }
        status
    }

    /// +∂ and −∂. A literal q is +∂ when it is +Δ, or when ~q is −Δ, some strict or
    /// defeasible rule for q is applicable (its body is +∂), and every rule for ~q is
    /// either discarded (a body literal is −∂) or beaten by an applicable strict or
    /// defeasible rule for q that is superior to it. q is −∂ when it is −Δ and either
    /// ~q is +Δ, or every strict or defeasible rule for q is discarded, or some rule
    /// for ~q is applicable and every superior rule for q is discarded.
    fn defeasible(&self, definite: &[Status], by_body: &Adjacency) -> Vec<Status> {
        let n = self.atoms.len() * 2;
        let rules = &self.rules;
        let mut rule_state: Vec<RuleState> = (0..rules.len())
            .map(|r| RuleState {
                head: rules.head[r],
                missing: id(rules.body(r).len()),
                superiors_alive: 0,
                kind: rules.kind[r],
                flags: 0,
            })
            .collect();
        let inferiors = self.inferiors(&mut rule_state);

        let mut lit_state: Vec<LitState> = definite
            .iter()
            .map(|&definite| LitState {
                attackers_open: 0,
                support_alive: 0,
                status: Status::Undecided,
                definite,
                supported: false,
            })
            .collect();
        for rule in &rule_state {
            lit_state[(rule.head ^ 1) as usize].attackers_open += 1;
            if rule.kind != RuleKind::Defeater {
                lit_state[rule.head as usize].support_alive += 1;
            }
        }

        let mut state = Defeasible {
            by_body,
            inferiors: &inferiors,
            rules: rule_state,
            lits: lit_state,
            queue: Vec::new(),
        };
        for lit in 0..id(n) {
            let l = lit as usize;
            if definite[l] == Status::Proved {
                state.set(lit, Status::Proved);
            } else if definite[l ^ 1] == Status::Proved || state.lits[l].support_alive == 0 {
                state.try_refute(lit);
            }
        }
        for r in 0..rules.len() {
            if state.rules[r].missing == 0 {
                state.make_applicable(id(r));
            }
        }
        state.run();
        state.lits.iter().map(|l| l.status).collect()
    }

    /// For each rule t that can support a conclusion (not a defeater), the rules s with
    /// t > s that attack its head (head(s) = ~head(t)); counts each rule's superiors
    /// in `superiors_alive`.
    fn inferiors(&self, rule_state: &mut [RuleState]) -> Adjacency {
        let rules = &self.rules;
        // Rules by preferred label: one lookup per rule in the table of the labels
        // `prefer` names, which is much smaller than a table of every label.
        let labelled: Vec<(u32, u32)> = if self.superiority.is_empty() {
            Vec::new()
        } else {
            (0..rules.len())
                .filter_map(|r| Some((self.preferred.get(rules.label.get(r))?, id(r))))
                .collect()
        };
        let by_label = Adjacency::new(self.preferred.len(), labelled.iter().copied());
        let by_label = &by_label;
        let pairs = self
            .superiority
            .iter()
            .flat_map(move |&(stronger, weaker)| {
                by_label.of(stronger).iter().flat_map(move |&t| {
                    by_label.of(weaker).iter().filter_map(move |&s| {
                        let (t_, s_) = (t as usize, s as usize);
                        (rules.kind[t_] != RuleKind::Defeater
                            && rules.head[s_] == rules.head[t_] ^ 1)
                            .then_some((t, s))
                    })
                })
            });
        let inferiors = Adjacency::new(rules.len(), pairs);
        // A pair written twice is listed twice, which is harmless: it counts twice here
        // and is taken back twice when the superior is discarded, and answering an
        // attack is idempotent. So there is no need to sort or deduplicate.
        for &s in &inferiors.items {
            rule_state[s as usize].superiors_alive += 1;
        }
        inferiors
    }
}

/// For each key (a literal, a rule or a label), the items (rules) that go with it, in
/// the order given, in one flat array: one allocation instead of one `Vec` per key,
/// and the items of neighbouring keys next to each other in memory.
struct Adjacency {
    /// `items[start[key]..start[key + 1]]` go with `key`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Adjacency {
    fn new(keys: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut start = vec![0_u32; keys + 1];
        for (key, _) in pairs.clone() {
            start[key as usize + 1] += 1;
        }
        for i in 0..keys {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut items = vec![0_u32; start[keys] as usize];
        for (key, item) in pairs {
            let at = &mut next[key as usize];
            items[*at as usize] = item;
            *at += 1;
        }
        Self { start, items }
    }

    fn of(&self, key: u32) -> &[u32] {
        let key = key as usize;
        &self.items[self.start[key] as usize..self.start[key + 1] as usize]
    }
}

/// A rule is applicable: its body is +∂.
const APPLICABLE: u8 = 1;
/// A rule is discarded: a body literal is −∂.
const DISCARDED: u8 = 2;
/// A rule's attack on the complement of its head is answered: it is discarded or
/// beaten by an applicable superior rule.
const ANSWERED: u8 = 4;

/// What the defeasible pass knows of one rule (16 bytes: four per cache line).
#[derive(Debug, Clone, Copy)]
struct RuleState {
    head: Lit,
    /// Body literals not yet +∂.
    missing: u32,
    /// Superior (non-defeater) rules of the opposite head not yet discarded.
    superiors_alive: u32,
    kind: RuleKind,
    flags: u8,
}

/// What the defeasible pass knows of one literal (12 bytes).
#[derive(Debug, Clone, Copy)]
struct LitState {
    /// Rules for ~lit whose attack on lit is not yet answered.
    attackers_open: u32,
    /// Strict or defeasible rules for lit not yet discarded.
    support_alive: u32,
    /// +∂, −∂ or open.
    status: Status,
    /// +Δ, −Δ or open.
    definite: Status,
    /// Some strict or defeasible rule for lit is applicable.
    supported: bool,
}

struct Defeasible<'a> {
    by_body: &'a Adjacency,
    inferiors: &'a Adjacency,
    rules: Vec<RuleState>,
    lits: Vec<LitState>,
    queue: Vec<Lit>,
}

impl Defeasible<'_> {
    fn set(&mut self, lit: Lit, status: Status) {
        let state = &mut self.lits[lit as usize].status;
        if *state == Status::Undecided {
            *state = status;
            self.queue.push(lit);
        }
    }

    fn run(&mut self) {
        while let Some(lit) = self.queue.pop() {
            let proved = self.lits[lit as usize].status == Status::Proved;
            for &r in self.by_body.of(lit) {
                let rule = &mut self.rules[r as usize];
                if proved {
                    rule.missing -= 1;
                    if rule.missing == 0 && rule.flags & DISCARDED == 0 {
                        self.make_applicable(r);
                    }
                } else if rule.flags & DISCARDED == 0 {
                    self.discard(r);
                }
            }
        }
    }

    fn make_applicable(&mut self, r: u32) {
        let rule = &mut self.rules[r as usize];
        rule.flags |= APPLICABLE;
        let (head, kind, superiors_alive) = (rule.head, rule.kind, rule.superiors_alive);
        if kind != RuleKind::Defeater {
            self.lits[head as usize].supported = true;
            for &s in self.inferiors.of(r) {
                self.answer(s);
            }
            self.check_proved(head);
        }
        if superiors_alive == 0 {
            self.try_refute(head ^ 1);
        }
    }

    fn discard(&mut self, r: u32) {
        self.rules[r as usize].flags |= DISCARDED;
        self.answer(r);
        let RuleState { head, kind, .. } = self.rules[r as usize];
        if kind == RuleKind::Defeater {
            return;
        }
        let support = &mut self.lits[head as usize].support_alive;
        *support -= 1;
        if *support == 0 {
            self.try_refute(head);
        }
        for &s in self.inferiors.of(r) {
            let inferior = &mut self.rules[s as usize];
            inferior.superiors_alive -= 1;
            if inferior.superiors_alive == 0 && inferior.flags & APPLICABLE != 0 {
                self.try_refute(head);
            }
        }
    }

    fn answer(&mut self, s: u32) {
        let rule = &mut self.rules[s as usize];
        if rule.flags & ANSWERED == 0 {
            rule.flags |= ANSWERED;
            let attacked = rule.head ^ 1;
            self.lits[attacked as usize].attackers_open -= 1;
            self.check_proved(attacked);
        }
    }

    fn check_proved(&mut self, lit: Lit) {
        let state = &self.lits[lit as usize];
        if state.supported
            && state.attackers_open == 0
            && self.lits[(lit ^ 1) as usize].definite == Status::Refuted
        {
            self.set(lit, Status::Proved);
        }
    }

    fn try_refute(&mut self, lit: Lit) {
        if self.lits[lit as usize].definite == Status::Refuted {
            self.set(lit, Status::Refuted);
        }
    }
}

/// The conclusions of a theory.
#[derive(Debug, Clone)]
pub struct Conclusions {
    atoms: Names,
    definite: Vec<Status>,
    defeasible: Vec<Status>,
}

impl Conclusions {
    fn lookup(&self, literal: &Literal) -> Option<usize> {
        if let Some((name, negated)) = plain_key(literal) {
            return self
                .atoms
                .get(name)
                .map(|i| i as usize * 2 + usize::from(negated));
        }
        let (atom, negated) = key(literal);
        self.atoms
            .get(&atom)
            .map(|i| i as usize * 2 + usize::from(negated))
    }

    /// +Δ / −Δ of a literal. A literal the theory never mentions is refuted.
    pub fn definite(&self, literal: &Literal) -> Status {
        self.lookup(literal)
            .map_or(Status::Refuted, |lit| self.definite[lit])
    }

    /// +∂ / −∂ of a literal. A literal the theory never mentions is refuted.
    pub fn defeasible(&self, literal: &Literal) -> Status {
        self.lookup(literal)
            .map_or(Status::Refuted, |lit| self.defeasible[lit])
    }

    /// Whether the plain atom `name` is +∂.
    pub fn holds(&self, name: &str) -> bool {
        self.atoms
            .get(name)
            .is_some_and(|i| self.defeasible[i as usize * 2] == Status::Proved)
    }

    /// Every +∂ literal, printed as SPL (`p`, `(not p)`), in the order the theory
    /// first mentions them.
    pub fn proved(&self) -> Vec<String> {
        let mut out = Vec::new();
        for i in 0..id(self.atoms.len()) {
            let lit = i as usize * 2;
            if self.defeasible[lit] == Status::Proved {
                out.push(self.atoms.name(i).to_owned());
            }
            if self.defeasible[lit + 1] == Status::Proved {
                out.push(format!("(not {})", self.atoms.name(i)));
            }
        }
        out
    }

    /// The +∂ plain atoms (no arguments, not negated), in theory order.
    pub fn proved_atoms(&self) -> impl Iterator<Item = &str> {
        (0..id(self.atoms.len()))
            .filter(|&i| self.defeasible[i as usize * 2] == Status::Proved)
            .map(|i| self.atoms.name(i))
    }
}

/// The name of a plain (argument-free) literal, possibly negated, and whether it is
/// negated; `None` for any other literal.
fn plain_key(literal: &Literal) -> Option<(&str, bool)> {
    match literal {
        Literal::Not(inner) => plain_key(inner).map(|(name, negated)| (name, !negated)),
        Literal::During(inner, _, _) => plain_key(inner),
        Literal::Atom { name, args } if args.is_empty() => Some((name, false)),
        _ => None,
    }
}

/// The positive atom of a literal, printed, and whether the literal negates it.
fn key(literal: &Literal) -> (String, bool) {
    match literal {
        Literal::Not(inner) => {
            let (atom, negated) = key(inner);
            (atom, !negated)
        }
        Literal::During(inner, _, _) => key(inner),
        Literal::Atom { name, args } if args.is_empty() => (name.clone(), false),
        other => (print_literal(other), false),
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::path::Path;

    use indoc::indoc;

    use super::*;
    use crate::spl::parse;

    fn reason(text: &str) -> Conclusions {
        Theory::from_statements(&parse(Path::new("t.spl"), text).expect("valid SPL")).reason()
    }

    fn lit(text: &str) -> Literal {
        match text.strip_prefix('~') {
            Some(rest) => Literal::atom(rest).negated(),
            None => Literal::atom(text),
        }
    }

    fn plus(c: &Conclusions, text: &str) -> bool {
        c.defeasible(&lit(text)) == Status::Proved
    }

    fn minus(c: &Conclusions, text: &str) -> bool {
        c.defeasible(&lit(text)) == Status::Refuted
    }

    #[test]
    fn tweety_penguin() {
        let c = reason(indoc! {"
            (given penguin)
            (always r1 penguin bird)
            (normally r2 bird flies)
            (normally r3 penguin (not flies))
            (prefer r3 r2)
        "});
        assert_eq!(c.definite(&lit("bird")), Status::Proved);
        assert!(plus(&c, "~flies"));
        assert!(minus(&c, "flies"));
        // A bird that is not known to be a penguin flies.
        let c = reason(
            "(given bird) (normally r2 bird flies) (normally r3 penguin (not flies)) (prefer r3 r2)",
        );
        assert!(plus(&c, "flies"));
        assert!(minus(&c, "~flies"));
    }

    #[test]
    fn nixon_diamond_stays_undecided() {
        let c = reason(indoc! {"
            (given quaker) (given republican)
            (normally r1 quaker pacifist)
            (normally r2 republican (not pacifist))
            (normally r3 pacifist dove)
        "});
        // Neither side is proved; both are refuted, and ambiguity blocking stops the
        // chain that depends on it.
        assert!(minus(&c, "pacifist"));
        assert!(minus(&c, "~pacifist"));
        assert!(minus(&c, "dove"));
    }

    #[test]
    fn superiority_resolves_the_conflict() {
        let c = reason(indoc! {"
            (given quaker) (given republican)
            (normally r1 quaker pacifist)
            (normally r2 republican (not pacifist))
            (prefer r1 r2)
        "});
        assert!(plus(&c, "pacifist"));
        assert!(minus(&c, "~pacifist"));
    }

    #[test]
    fn team_defeat_needs_every_attacker_beaten() {
        let text = indoc! {"
            (given a) (given b) (given c)
            (normally r1 a p)
            (normally r2 b p)
            (normally r3 c (not p))
            (normally r4 c (not p))
            (prefer r1 r3)
        "};
        let c = reason(text);
        assert!(!plus(&c, "p"), "r4 is not beaten");
        let c = reason(&format!("{text} (prefer r2 r4)"));
        assert!(plus(&c, "p"), "r1 beats r3 and r2 beats r4");
    }

    #[test]
    fn a_repeated_preference_counts_once() {
        // guards: a pair listed twice is counted and taken back twice. r1 > r2 is
        // written twice, before the rules. r2 is applicable and its only superior r1 is
        // discarded, so p is −∂ although r3 (in an undecided loop) still supports it.
        let c = reason(indoc! {"
            (prefer r1 r2)
            (prefer r1 r2)
            (given b)
            (normally r1 a p)
            (normally r2 b (not p))
            (normally r3 c p)
            (normally l1 c d)
            (normally l2 d c)
        "});
        assert!(minus(&c, "p"));
        assert_eq!(c.defeasible(&lit("c")), Status::Undecided);
        assert_eq!(c.defeasible(&lit("~p")), Status::Undecided);
    }

    #[test]
    fn labels_of_rules_not_of_preferences() {
        let text = "(normally r1 a b) (normally c d) (prefer r1 r9)";
        let theory = Theory::from_statements(&parse(Path::new("t.spl"), text).expect("valid SPL"));
        assert!(theory.has_label("r1"));
        assert!(
            theory.has_label("_r2"),
            "unlabelled rules are named by position"
        );
        assert!(!theory.has_label("r9"), "named only by prefer");
        assert!(!theory.has_label("zz"));
    }

    #[test]
    fn a_defeater_blocks_without_concluding() {
        let c = reason(indoc! {"
            (given bird) (given broken-wing)
            (normally r1 bird flies)
            (except d1 broken-wing (not flies))
        "});
        assert!(minus(&c, "flies"));
        assert!(minus(&c, "~flies"), "a defeater never proves its head");
        // A superior rule overrides the defeater.
        let c = reason(indoc! {"
            (given bird) (given broken-wing) (given has-jetpack)
            (normally r1 bird flies)
            (except d1 broken-wing (not flies))
            (normally r2 has-jetpack flies)
            (prefer r2 d1)
        "});
        assert!(plus(&c, "flies"));
    }

    #[test]
    fn a_chain_of_a_thousand_rules() {
        let mut text = String::from("(given p0)\n");
        for i in 1..=1000 {
            let _ = writeln!(text, "(normally r{i} p{} p{i})", i - 1);
        }
        let c = reason(&text);
        assert!(plus(&c, "p1000"));
        // Cut the chain in the middle: everything after is refuted.
        text.push_str("(except cut p499 (not p500))\n");
        let c = reason(&text);
        assert!(plus(&c, "p499"));
        assert!(minus(&c, "p500"));
        assert!(minus(&c, "p1000"));
    }

    #[test]
    fn strict_rules_beat_defeasible_ones() {
        let c = reason(indoc! {"
            (given penguin)
            (always r1 penguin (not flies))
            (given bird)
            (normally r2 bird flies)
            (prefer r2 r1)
        "});
        // A definite conclusion cannot be overridden, whatever the superiority says.
        assert_eq!(c.definite(&lit("~flies")), Status::Proved);
        assert!(plus(&c, "~flies"));
        assert!(minus(&c, "flies"));
    }

    #[test]
    fn definite_implies_defeasible() {
        let c = reason(indoc! {"
            (given a)
            (always r1 a b)
            (always r2 b c)
            (normally r3 x (not c))
            (given x)
            (prefer r3 r2)
        "});
        for name in ["a", "b", "c"] {
            assert_eq!(c.definite(&lit(name)), Status::Proved);
            assert!(plus(&c, name), "{name}");
        }
        assert_eq!(c.definite(&lit("~c")), Status::Refuted);
    }

    #[test]
    fn strict_loops_stay_open() {
        let c = reason("(always r1 p q) (always r2 q p)");
        assert_eq!(c.definite(&lit("p")), Status::Undecided);
        assert_eq!(c.defeasible(&lit("p")), Status::Undecided);
        assert_eq!(c.definite(&lit("unknown")), Status::Refuted);
    }

    #[test]
    fn statements_inside_claims_count() {
        let c = reason(indoc! {r#"
            (claims agent:alice :at "2024-01-01T00:00:00Z"
              (given bird)
              (normally r1 bird flies))
        "#});
        assert!(plus(&c, "flies"));
        assert_eq!(c.proved(), vec!["bird", "flies"]);
    }

    #[test]
    fn predicates_and_during_literals() {
        let c = reason(indoc! {r#"
            (given (blocked-by a "why"))
            (given (during sunny 1 inf))
            (normally r1 sunny (not umbrella))
            (normally r2 (blocked-by a "why") (must wait))
        "#});
        assert!(plus(&c, "sunny"));
        assert!(plus(&c, "~umbrella"));
        assert_eq!(
            c.proved(),
            vec![
                r#"(blocked-by a "why")"#,
                "sunny",
                "(not umbrella)",
                "(must wait)"
            ]
        );
    }
}
