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

use std::hash::BuildHasher as _;

use foldhash::HashMap;
use hashbrown::HashTable;

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

/// An interned literal: atom index times two, plus one when negated.
type Lit = usize;

#[derive(Debug, Clone)]
struct RuleData {
    label: String,
    kind: RuleKind,
    body: Vec<Lit>,
    head: Lit,
}

/// The atom names of a theory, each stored once: the table holds indices into `names`
/// and hashes the names it points to, so there is no second copy of each name as a key.
#[derive(Debug, Clone, Default)]
struct Atoms {
    names: Vec<String>,
    table: HashTable<usize>,
    hasher: foldhash::fast::FixedState,
}

impl Atoms {
    fn get(&self, name: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(name);
        self.table.find(hash, |&i| self.names[i] == name).copied()
    }

    fn insert(&mut self, name: String) -> usize {
        let index = self.names.len();
        let hash = self.hasher.hash_one(name.as_str());
        let (names, hasher) = (&self.names, &self.hasher);
        self.table
            .insert_unique(hash, index, |&i| hasher.hash_one(names[i].as_str()));
        self.names.push(name);
        index
    }

    fn len(&self) -> usize {
        self.names.len()
    }
}

/// A defeasible theory ready to be reasoned about.
#[derive(Debug, Clone, Default)]
pub struct Theory {
    atoms: Atoms,
    facts: Vec<Lit>,
    rules: Vec<RuleData>,
    superiority: Vec<(String, String)>,
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
        // Most statements bring one new literal: sizing the table once saves rehashing a
        // large table several times over.
        let atoms = &mut self.atoms;
        let (names, hasher) = (&atoms.names, &atoms.hasher);
        atoms
            .table
            .reserve(statements.len(), |&i| hasher.hash_one(names[i].as_str()));
        for_each_flat(statements, &mut |statement, _| match &statement.kind {
            StatementKind::Given(lit) => self.add_fact(lit),
            StatementKind::Rule(rule) => {
                let label = rule
                    .label
                    .clone()
                    .unwrap_or_else(|| format!("_r{}", self.rules.len() + 1));
                self.add_rule(label, rule.kind, &rule.body, &rule.head);
            }
            StatementKind::Prefer(labels) => {
                for pair in labels.windows(2) {
                    self.add_superiority(&pair[0], &pair[1]);
                }
            }
            _ => {}
        });
    }

    /// Whether a rule with this label exists.
    ///
    /// A scan of every rule: for occasional questions, not for a loop over rules.
    pub fn has_label(&self, label: &str) -> bool {
        self.rules.iter().any(|r| r.label == label)
    }

    /// Adds a fact.
    pub fn add_fact(&mut self, literal: &Literal) {
        let lit = self.intern(literal);
        self.facts.push(lit);
    }

    /// Adds a rule.
    pub fn add_rule(&mut self, label: String, kind: RuleKind, body: &[Literal], head: &Literal) {
        let body = body.iter().map(|l| self.intern(l)).collect();
        let head = self.intern(head);
        self.rules.push(RuleData {
            label,
            kind,
            body,
            head,
        });
    }

    /// Says that the rules labelled `stronger` beat those labelled `weaker`.
    pub fn add_superiority(&mut self, stronger: &str, weaker: &str) {
        self.superiority
            .push((stronger.to_owned(), weaker.to_owned()));
    }

    fn intern(&mut self, literal: &Literal) -> Lit {
        // Almost every literal is a plain name, possibly negated: look it up without
        // building a key, so that a known literal costs one hash and no allocation.
        if let Some((name, negated)) = plain_key(literal) {
            let index = match self.atoms.get(name) {
                Some(index) => index,
                None => self.atoms.insert(name.to_owned()),
            };
            return index * 2 + usize::from(negated);
        }
        let (atom, negated) = key(literal);
        let index = match self.atoms.get(&atom) {
            Some(index) => index,
            None => self.atoms.insert(atom),
        };
        index * 2 + usize::from(negated)
    }

    /// Computes every conclusion.
    pub fn reason(self) -> Conclusions {
        let by_body = self.rules_by_body();
        let definite = self.definite(&by_body);
        let defeasible = self.defeasible(&definite, &by_body);
        Conclusions {
            atoms: self.atoms,
            definite,
            defeasible,
        }
    }

    fn rules_by_head(&self) -> Adjacency {
        Adjacency::new(
            self.atoms.len() * 2,
            self.rules
                .iter()
                .enumerate()
                .map(|(r, rule)| (rule.head, r)),
        )
    }

    fn rules_by_body(&self) -> Adjacency {
        Adjacency::new(
            self.atoms.len() * 2,
            self.rules
                .iter()
                .enumerate()
                .flat_map(|(r, rule)| rule.body.iter().map(move |&lit| (lit, r))),
        )
    }

    /// +Δ by forward chaining over facts and strict rules; −Δ by finite failure: not a
    /// fact, and every strict rule for it has a body literal in −Δ.
    fn definite(&self, by_body: &Adjacency) -> Vec<Status> {
        let n = self.atoms.len() * 2;
        let mut status = vec![Status::Undecided; n];
        let mut missing: Vec<usize> = self.rules.iter().map(|r| r.body.len()).collect();
        let mut queue = Vec::new();
        let prove = |lit: Lit, status: &mut Vec<Status>, queue: &mut Vec<Lit>| {
            if status[lit] != Status::Proved {
                status[lit] = Status::Proved;
                queue.push(lit);
            }
        };
        for &fact in &self.facts {
            prove(fact, &mut status, &mut queue);
        }
        for (r, rule) in self.rules.iter().enumerate() {
            if rule.kind == RuleKind::Strict && rule.body.is_empty() {
                prove(self.rules[r].head, &mut status, &mut queue);
            }
        }
        while let Some(lit) = queue.pop() {
            for &r in by_body.of(lit) {
                if self.rules[r].kind != RuleKind::Strict {
                    continue;
                }
                missing[r] -= 1;
                if missing[r] == 0 {
                    prove(self.rules[r].head, &mut status, &mut queue);
                }
            }
        }

        let mut alive = vec![0_usize; n];
        for rule in &self.rules {
            if rule.kind == RuleKind::Strict {
                alive[rule.head] += 1;
            }
        }
        let mut failed = vec![false; self.rules.len()];
        let mut queue: Vec<Lit> = (0..n)
            .filter(|&lit| status[lit] == Status::Undecided && alive[lit] == 0)
            .collect();
        for &lit in &queue {
            status[lit] = Status::Refuted;
        }
        while let Some(lit) = queue.pop() {
            for &r in by_body.of(lit) {
                let rule = &self.rules[r];
                if rule.kind != RuleKind::Strict || failed[r] {
                    continue;
                }
                failed[r] = true;
                alive[rule.head] -= 1;
                if alive[rule.head] == 0 && status[rule.head] == Status::Undecided {
                    status[rule.head] = Status::Refuted;
                    queue.push(rule.head);
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
        let by_head = self.rules_by_head();

        // Rules by label: the latest rule of each label, and for each rule the previous
        // one with the same label (labels are almost always unique, so a chain through
        // one array costs less than a `Vec` per label).
        let mut labels: HashMap<&str, usize> = HashMap::default();
        labels.reserve(rules.len());
        let mut same_label = vec![usize::MAX; rules.len()];
        for (r, rule) in rules.iter().enumerate() {
            if let Some(previous) = labels.insert(rule.label.as_str(), r) {
                same_label[r] = previous;
            }
        }
        let with_label = |label: &str| {
            let first = labels.get(label).copied().unwrap_or(usize::MAX);
            std::iter::successors((first != usize::MAX).then_some(first), |&r| {
                (same_label[r] != usize::MAX).then_some(same_label[r])
            })
        };
        // inferiors[t]: rules s with t > s that attack t's head (head(s) = ~head(t)),
        // when t can support a conclusion (not a defeater).
        let mut superiors_alive = vec![0_usize; rules.len()];
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (stronger, weaker) in &self.superiority {
            for t in with_label(stronger) {
                for s in with_label(weaker) {
                    if rules[t].kind != RuleKind::Defeater && rules[s].head == rules[t].head ^ 1 {
                        pairs.push((t, s));
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        for &(_, s) in &pairs {
            superiors_alive[s] += 1;
        }
        let inferiors = Adjacency::new(rules.len(), pairs.iter().copied());

        let mut state = Defeasible {
            rules,
            by_body,
            definite,
            inferiors: &inferiors,
            status: vec![Status::Undecided; n],
            queue: Vec::new(),
            missing: rules.iter().map(|r| r.body.len()).collect(),
            applicable: vec![false; rules.len()],
            discarded: vec![false; rules.len()],
            answered: vec![false; rules.len()],
            superiors_alive,
            attackers_open: (0..n).map(|lit| by_head.of(lit ^ 1).len()).collect(),
            support_alive: (0..n)
                .map(|lit| {
                    by_head
                        .of(lit)
                        .iter()
                        .filter(|&&r| rules[r].kind != RuleKind::Defeater)
                        .count()
                })
                .collect(),
            supported: vec![false; n],
        };
        for lit in 0..n {
            if definite[lit] == Status::Proved {
                state.set(lit, Status::Proved);
            } else if definite[lit ^ 1] == Status::Proved || state.support_alive[lit] == 0 {
                state.try_refute(lit);
            }
        }
        for (r, rule) in rules.iter().enumerate() {
            if rule.body.is_empty() {
                state.make_applicable(r);
            }
        }
        state.run();
        state.status
    }
}

/// For each literal, the rules that mention it (as head or in the body), in rule order
/// (or for each rule, the rules it is superior to), in one flat array: one allocation instead of one `Vec` per literal, and the rules of
/// neighbouring literals next to each other in memory.
struct Adjacency {
    /// `rules[start[lit]..start[lit + 1]]` are the rules of `lit`.
    start: Vec<usize>,
    rules: Vec<usize>,
}

impl Adjacency {
    fn new(literals: usize, pairs: impl Iterator<Item = (Lit, usize)> + Clone) -> Self {
        let mut start = vec![0_usize; literals + 1];
        for (lit, _) in pairs.clone() {
            start[lit + 1] += 1;
        }
        for i in 0..literals {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut rules = vec![0_usize; start[literals]];
        for (lit, r) in pairs {
            rules[next[lit]] = r;
            next[lit] += 1;
        }
        Self { start, rules }
    }

    fn of(&self, lit: Lit) -> &[usize] {
        &self.rules[self.start[lit]..self.start[lit + 1]]
    }
}

struct Defeasible<'a> {
    rules: &'a [RuleData],
    by_body: &'a Adjacency,
    definite: &'a [Status],
    inferiors: &'a Adjacency,
    status: Vec<Status>,
    queue: Vec<Lit>,
    /// Body literals of each rule not yet +∂.
    missing: Vec<usize>,
    applicable: Vec<bool>,
    discarded: Vec<bool>,
    /// A rule's attack on the complement of its head is answered: it is discarded or
    /// beaten by an applicable superior rule.
    answered: Vec<bool>,
    /// Superior (non-defeater) rules of the opposite head not yet discarded.
    superiors_alive: Vec<usize>,
    /// Rules for ~lit whose attack on lit is not yet answered.
    attackers_open: Vec<usize>,
    /// Strict or defeasible rules for lit not yet discarded.
    support_alive: Vec<usize>,
    /// Some strict or defeasible rule for lit is applicable.
    supported: Vec<bool>,
}

impl Defeasible<'_> {
    fn set(&mut self, lit: Lit, status: Status) {
        if self.status[lit] == Status::Undecided {
            self.status[lit] = status;
            self.queue.push(lit);
        }
    }

    fn run(&mut self) {
        while let Some(lit) = self.queue.pop() {
            let proved = self.status[lit] == Status::Proved;
            for &r in self.by_body.of(lit) {
                if proved {
                    self.missing[r] -= 1;
                    if self.missing[r] == 0 && !self.discarded[r] {
                        self.make_applicable(r);
                    }
                } else if !self.discarded[r] {
                    self.discard(r);
                }
            }
        }
    }

    fn make_applicable(&mut self, r: usize) {
        self.applicable[r] = true;
        let head = self.rules[r].head;
        if self.rules[r].kind != RuleKind::Defeater {
            self.supported[head] = true;
            for &s in self.inferiors.of(r) {
                self.answer(s);
            }
            self.check_proved(head);
        }
        if self.superiors_alive[r] == 0 {
            self.try_refute(head ^ 1);
        }
    }

    fn discard(&mut self, r: usize) {
        self.discarded[r] = true;
        self.answer(r);
        if self.rules[r].kind == RuleKind::Defeater {
            return;
        }
        let head = self.rules[r].head;
        self.support_alive[head] -= 1;
        if self.support_alive[head] == 0 {
            self.try_refute(head);
        }
        for &s in self.inferiors.of(r) {
            self.superiors_alive[s] -= 1;
            if self.superiors_alive[s] == 0 && self.applicable[s] {
                self.try_refute(head);
            }
        }
    }

    fn answer(&mut self, s: usize) {
        if !self.answered[s] {
            self.answered[s] = true;
            let attacked = self.rules[s].head ^ 1;
            self.attackers_open[attacked] -= 1;
            self.check_proved(attacked);
        }
    }

    fn check_proved(&mut self, lit: Lit) {
        if self.supported[lit]
            && self.attackers_open[lit] == 0
            && self.definite[lit ^ 1] == Status::Refuted
        {
            self.set(lit, Status::Proved);
        }
    }

    fn try_refute(&mut self, lit: Lit) {
        if self.definite[lit] == Status::Refuted {
            self.set(lit, Status::Refuted);
        }
    }
}

/// The conclusions of a theory.
#[derive(Debug, Clone)]
pub struct Conclusions {
    atoms: Atoms,
    definite: Vec<Status>,
    defeasible: Vec<Status>,
}

impl Conclusions {
    fn lookup(&self, literal: &Literal) -> Option<Lit> {
        if let Some((name, negated)) = plain_key(literal) {
            return self.atoms.get(name).map(|i| i * 2 + usize::from(negated));
        }
        let (atom, negated) = key(literal);
        self.atoms.get(&atom).map(|i| i * 2 + usize::from(negated))
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
            .is_some_and(|i| self.defeasible[i * 2] == Status::Proved)
    }

    /// Every +∂ literal, printed as SPL (`p`, `(not p)`), in the order the theory
    /// first mentions them.
    pub fn proved(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, atom) in self.atoms.names.iter().enumerate() {
            if self.defeasible[i * 2] == Status::Proved {
                out.push(atom.clone());
            }
            if self.defeasible[i * 2 + 1] == Status::Proved {
                out.push(format!("(not {atom})"));
            }
        }
        out
    }

    /// The +∂ plain atoms (no arguments, not negated), in theory order.
    pub fn proved_atoms(&self) -> impl Iterator<Item = &str> {
        self.atoms
            .names
            .iter()
            .enumerate()
            .filter(|(i, _)| self.defeasible[i * 2] == Status::Proved)
            .map(|(_, atom)| atom.as_str())
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
