//! SPL, the s-expression language of Hence plans: reader, printer and appender.
//!
//! The lexer and parser are written by hand. S-expressions need a few dozen lines, and
//! a hand-written reader can say exactly what is wrong and where (`path:line:col`), and
//! keep the byte span of every statement so that text appended to a plan leaves the
//! rest of the file untouched; a generic s-expression crate gives neither.
//!
//! Reading is two steps: the text becomes a tree of `Sexp` (parentheses, strings and
//! atoms with their spans), then each top-level list becomes a [`Statement`].

use std::fmt::Write as _;
use std::path::Path;

use crate::errors::SplError;

/// Byte range of a statement (or part of one) in the text it was read from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// An argument of a predicate: `(parent alice ?x "note" 3)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// A plain symbol such as `alice` or `agent:coder`.
    Symbol(String),
    /// A variable, kept with its `?`. The reasoner is propositional: a variable is a
    /// name like any other (hookrig does not ground rules).
    Var(String),
    /// A string, unescaped.
    Str(String),
    /// A number, as written.
    Number(String),
}

/// The modal operators of SPL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Modal {
    /// `(must p)`.
    Must,
    /// `(may p)`.
    May,
    /// `(forbidden p)`.
    Forbidden,
}

impl Modal {
    fn as_str(self) -> &'static str {
        match self {
            Modal::Must => "must",
            Modal::May => "may",
            Modal::Forbidden => "forbidden",
        }
    }
}

/// A point in time of a `during` literal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TimeExpr {
    /// `(moment "2024-06-15T14:30:00Z")`, the text as written.
    Moment(String),
    /// Epoch milliseconds.
    Millis(i64),
    /// `inf`.
    Inf,
    /// `-inf`.
    NegInf,
}

/// A literal: an atom, a predicate, a negation, a modal or a `during` interval.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Literal {
    /// `name` or `(name arg…)`.
    Atom {
        /// The predicate name.
        name: String,
        /// Its arguments (none for a plain atom).
        args: Vec<Term>,
    },
    /// Strong negation: `(not p)` or `~p`.
    Not(Box<Literal>),
    /// `(must p)`, `(may p)`, `(forbidden p)`.
    Modal(Modal, Box<Literal>),
    /// `(during p from to)`. The reasoner reads the literal and ignores the interval.
    During(Box<Literal>, TimeExpr, TimeExpr),
}

impl Literal {
    /// A plain atom.
    pub fn atom(name: impl Into<String>) -> Self {
        Literal::Atom {
            name: name.into(),
            args: Vec::new(),
        }
    }

    /// The strong negation of `self`.
    #[must_use]
    pub fn negated(self) -> Self {
        Literal::Not(Box::new(self))
    }

    /// The name of a plain atom (no arguments, not negated), else `None`.
    pub fn plain_name(&self) -> Option<&str> {
        match self {
            Literal::Atom { name, args } if args.is_empty() => Some(name),
            _ => None,
        }
    }
}

/// The three kinds of rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// `always`: a strict rule.
    Strict,
    /// `normally`: a defeasible rule.
    Defeasible,
    /// `except`: a defeater, which can only block a conclusion.
    Defeater,
}

impl RuleKind {
    fn keyword(self) -> &'static str {
        match self {
            RuleKind::Strict => "always",
            RuleKind::Defeasible => "normally",
            RuleKind::Defeater => "except",
        }
    }
}

/// A rule: `(normally label body head)`; the label may be left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Strict, defeasible or defeater.
    pub kind: RuleKind,
    /// The label, when written. The reasoner names unlabelled rules itself.
    pub label: Option<String>,
    /// The body: one literal, or the members of `(and …)`.
    pub body: Vec<Literal>,
    /// The head.
    pub head: Literal,
}

/// A value in a `meta` property: `(key "text")`, `(key 0.9)`, `(key ("a" "b"))`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetaValue {
    /// A string.
    Str(String),
    /// A symbol.
    Symbol(String),
    /// A number, as written.
    Number(String),
    /// A parenthesised list.
    List(Vec<MetaValue>),
}

/// One property of a `meta` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaProperty {
    /// The key.
    pub key: String,
    /// The values after the key (usually one).
    pub values: Vec<MetaValue>,
}

/// `(claims source :at … :sig … :id … :note … statement…)`: provenance around
/// statements that otherwise count as if written at the top level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claims {
    /// Who claims: `agent:coder`.
    pub source: String,
    /// `:at`, an RFC 3339 time (not checked).
    pub at: Option<String>,
    /// `:sig`.
    pub sig: Option<String>,
    /// `:id`.
    pub id: Option<String>,
    /// `:note`.
    pub note: Option<String>,
    /// The statements claimed.
    pub statements: Vec<Statement>,
}

/// The decay models of `decays`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecayModel {
    /// `exponential`.
    Exponential,
    /// `linear`.
    Linear,
    /// `step`.
    Step,
}

impl DecayModel {
    fn as_str(self) -> &'static str {
        match self {
            DecayModel::Exponential => "exponential",
            DecayModel::Linear => "linear",
            DecayModel::Step => "step",
        }
    }
}

/// What a statement says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatementKind {
    /// `(given lit)`.
    Given(Literal),
    /// `(always|normally|except …)`.
    Rule(Rule),
    /// `(prefer r1 r2 …)`: each label beats the next.
    Prefer(Vec<String>),
    /// `(meta label (key value…)…)`.
    Meta {
        /// What the properties describe.
        label: String,
        /// The properties, in order.
        properties: Vec<MetaProperty>,
    },
    /// `(claims …)`.
    Claims(Claims),
    /// `(trusts source weight)`; read and kept, ignored by the reasoner.
    Trusts {
        /// The source.
        source: String,
        /// The weight, as written.
        weight: String,
    },
    /// `(decays source model rate)`; read and kept, ignored by the reasoner.
    Decays {
        /// The source.
        source: String,
        /// The model.
        model: DecayModel,
        /// The rate, as written.
        rate: String,
    },
    /// `(threshold name value)`; read and kept, ignored by the reasoner.
    Threshold {
        /// The name.
        name: String,
        /// The value, as written.
        value: String,
    },
}

/// A statement and where it was read.
///
/// Equality compares what statements say, not where they were written, so that a
/// printed and re-read file equals the original.
#[derive(Debug, Clone, Eq)]
pub struct Statement {
    /// What it says.
    pub kind: StatementKind,
    /// Where it was read (empty for statements built in code).
    pub span: Span,
}

impl PartialEq for Statement {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

impl Statement {
    /// A statement built in code (no span).
    pub fn new(kind: StatementKind) -> Self {
        Self {
            kind,
            span: Span::default(),
        }
    }
}

/// Calls `f` on every statement, looking inside `claims` blocks (recursively), with the
/// innermost `claims` block around it. `claims` blocks themselves are not passed.
pub fn for_each_flat<'a>(
    statements: &'a [Statement],
    f: &mut impl FnMut(&'a Statement, Option<&'a Claims>),
) {
    fn walk<'a>(
        statements: &'a [Statement],
        claims: Option<&'a Claims>,
        f: &mut impl FnMut(&'a Statement, Option<&'a Claims>),
    ) {
        for statement in statements {
            if let StatementKind::Claims(inner) = &statement.kind {
                walk(&inner.statements, Some(inner), f);
            } else {
                f(statement, claims);
            }
        }
    }
    walk(statements, None, f);
}

// ---------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------

/// Parses the text of an SPL file; `path` is only used in error messages.
pub fn parse(path: &Path, text: &str) -> Result<Vec<Statement>, SplError> {
    let err = |offset: usize, message: String| SplError::new(path, text, offset, message);
    // Each statement is built as soon as its list closes, so the reader's tree of one
    // statement is dropped while still in cache instead of holding the whole file's.
    let mut statements = Vec::new();
    read(text, &mut |sexp| {
        statements.push(statement(&sexp)?);
        Ok(())
    })
    .map_err(|(offset, message)| err(offset, message))?;
    Ok(statements)
}

type Fail = (usize, String);

/// How deep lists may nest. Real plans nest a handful of levels (a `claims` block, a
/// rule, an `and`, a `not`, a modal, a `during`); the statement builder, the printer
/// and the reasoner walk literals recursively, so a file nested thousands deep would
/// overflow the stack instead of giving an error.
pub const MAX_DEPTH: usize = 64;

/// Atoms borrow from the text: only what ends up in a statement is copied.
#[derive(Debug)]
enum Sexp<'a> {
    List(Vec<Sexp<'a>>, Span),
    Atom(&'a str, Span),
    Str(String, Span),
}

impl Sexp<'_> {
    fn span(&self) -> Span {
        match self {
            Sexp::List(_, span) | Sexp::Atom(_, span) | Sexp::Str(_, span) => *span,
        }
    }

    fn describe(&self) -> String {
        match self {
            Sexp::List(..) => "a list".to_owned(),
            Sexp::Atom(text, _) => format!("'{text}'"),
            Sexp::Str(..) => "a string".to_owned(),
        }
    }
}

/// Reads the whole text into s-expressions, handing each top-level list to `statement`
/// as soon as it is closed.
fn read<'a>(
    text: &'a str,
    statement: &mut dyn FnMut(Sexp<'a>) -> Result<(), Fail>,
) -> Result<(), Fail> {
    let bytes = text.as_bytes();
    // Each open list: its start and the items read so far.
    let mut stack: Vec<(usize, Vec<Sexp<'a>>)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                if stack.len() >= MAX_DEPTH {
                    return Err((
                        i,
                        format!(
                            "lists nested more than {MAX_DEPTH} deep; hookrig reads plans nested at most {MAX_DEPTH} levels"
                        ),
                    ));
                }
                stack.push((i, Vec::new()));
                i += 1;
            }
            b')' => {
                let Some((start, items)) = stack.pop() else {
                    return Err((i, "unexpected ')' with no '(' open".to_owned()));
                };
                i += 1;
                let list = Sexp::List(items, Span { start, end: i });
                match stack.last_mut() {
                    Some((_, parent)) => parent.push(list),
                    None => statement(list)?,
                }
            }
            b'"' => {
                let (value, end) = read_string(text, i)?;
                let item = Sexp::Str(value, Span { start: i, end });
                push(&mut stack, item, i)?;
                i = end;
            }
            _ if b.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(bytes[i], b'(' | b')' | b'"' | b';')
                {
                    i += 1;
                }
                let item = Sexp::Atom(&text[start..i], Span { start, end: i });
                push(&mut stack, item, start)?;
            }
        }
    }
    if let Some((start, _)) = stack.last() {
        return Err((
            *start,
            "unclosed '(': no matching ')' before the end of the file".to_owned(),
        ));
    }
    Ok(())
}

fn push<'a>(stack: &mut [(usize, Vec<Sexp<'a>>)], item: Sexp<'a>, at: usize) -> Result<(), Fail> {
    match stack.last_mut() {
        Some((_, items)) => {
            items.push(item);
            Ok(())
        }
        None => Err((
            at,
            format!(
                "expected '(' to start a statement, found {}",
                item.describe()
            ),
        )),
    }
}

/// Reads a string starting at the `"` at `start`; returns its value and the offset
/// after the closing quote.
fn read_string(text: &str, start: usize) -> Result<(String, usize), Fail> {
    let mut value = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((value, start + 1 + i + 1)),
            '\\' => match chars.next() {
                Some((_, '"')) => value.push('"'),
                Some((_, '\\')) => value.push('\\'),
                Some((_, 'n')) => value.push('\n'),
                Some((_, 't')) => value.push('\t'),
                Some((_, 'r')) => value.push('\r'),
                Some((_, other)) => {
                    return Err((
                        start + 1 + i,
                        format!(
                            "unknown escape '\\{other}' in string; use \\\" \\\\ \\n \\t or \\r"
                        ),
                    ));
                }
                None => break,
            },
            _ => value.push(c),
        }
    }
    Err((start, "unterminated string: no closing '\"'".to_owned()))
}

const STATEMENT_KEYWORDS: &str =
    "given, normally, always, except, prefer, meta, claims, trusts, decays or threshold";

fn statement(sexp: &Sexp<'_>) -> Result<Statement, Fail> {
    let span = sexp.span();
    let Sexp::List(items, _) = sexp else {
        return Err((
            span.start,
            format!(
                "expected a statement in parentheses, found {}",
                sexp.describe()
            ),
        ));
    };
    let Some(Sexp::Atom(keyword, _)) = items.first() else {
        return Err((
            span.start,
            format!("expected a statement keyword ({STATEMENT_KEYWORDS})"),
        ));
    };
    let args = &items[1..];
    let kind = match *keyword {
        "given" => given(args, span)?,
        "always" => rule(RuleKind::Strict, args, span)?,
        "normally" => rule(RuleKind::Defeasible, args, span)?,
        "except" => rule(RuleKind::Defeater, args, span)?,
        "prefer" => {
            if args.len() < 2 {
                return Err((
                    span.start,
                    "'prefer' needs at least two rule labels".to_owned(),
                ));
            }
            StatementKind::Prefer(
                args.iter()
                    .map(|a| symbol(a, "a rule label"))
                    .collect::<Result<_, _>>()?,
            )
        }
        "meta" => meta(args, span)?,
        "claims" => claims(args, span)?,
        "trusts" => {
            let [source, weight] = args else {
                return Err((span.start, "expected (trusts SOURCE WEIGHT)".to_owned()));
            };
            StatementKind::Trusts {
                source: symbol(source, "a source")?,
                weight: number(weight)?,
            }
        }
        "decays" => {
            let [source, model, rate] = args else {
                return Err((span.start, "expected (decays SOURCE MODEL RATE)".to_owned()));
            };
            let model = match symbol(model, "a decay model")?.as_str() {
                "exponential" => DecayModel::Exponential,
                "linear" => DecayModel::Linear,
                "step" => DecayModel::Step,
                other => {
                    return Err((
                        model.span().start,
                        format!(
                            "unknown decay model '{other}'; expected exponential, linear or step"
                        ),
                    ));
                }
            };
            StatementKind::Decays {
                source: symbol(source, "a source")?,
                model,
                rate: number(rate)?,
            }
        }
        "threshold" => {
            let [name, value] = args else {
                return Err((span.start, "expected (threshold NAME VALUE)".to_owned()));
            };
            StatementKind::Threshold {
                name: symbol(name, "a threshold name")?,
                value: number(value)?,
            }
        }
        other => {
            return Err((
                items[0].span().start,
                format!("unknown statement '{other}'; expected {STATEMENT_KEYWORDS}"),
            ));
        }
    };
    Ok(Statement { kind, span })
}

fn given(args: &[Sexp<'_>], span: Span) -> Result<StatementKind, Fail> {
    match args {
        [] => Err((span.start, "'given' needs a literal".to_owned())),
        [one] => Ok(StatementKind::Given(literal(one)?)),
        // The flat form `(given parent alice bob)` means `(given (parent alice bob))`.
        [Sexp::Atom(name, name_span), rest @ ..] => {
            check_predicate_name(name, *name_span)?;
            Ok(StatementKind::Given(Literal::Atom {
                name: (*name).to_owned(),
                args: rest.iter().map(term).collect::<Result<_, _>>()?,
            }))
        }
        [first, ..] => Err((
            first.span().start,
            "'given' takes one literal, or a predicate name followed by its arguments".to_owned(),
        )),
    }
}

fn rule(kind: RuleKind, args: &[Sexp<'_>], span: Span) -> Result<StatementKind, Fail> {
    let (label, body, head) = match args {
        [label, body, head] => (Some(symbol(label, "a rule label")?), body, head),
        [body, head] => (None, body, head),
        _ => {
            return Err((
                span.start,
                format!(
                    "expected ({} LABEL BODY HEAD) or ({0} BODY HEAD)",
                    kind.keyword()
                ),
            ));
        }
    };
    let body = match body {
        Sexp::List(items, body_span) if matches!(items.first(), Some(Sexp::Atom(a, _)) if *a == "and") =>
        {
            if items.len() < 2 {
                return Err((
                    body_span.start,
                    "'and' needs at least one literal".to_owned(),
                ));
            }
            items[1..].iter().map(literal).collect::<Result<_, _>>()?
        }
        one => vec![literal(one)?],
    };
    Ok(StatementKind::Rule(Rule {
        kind,
        label,
        body,
        head: literal(head)?,
    }))
}

fn meta(args: &[Sexp<'_>], span: Span) -> Result<StatementKind, Fail> {
    let Some((label, properties)) = args.split_first() else {
        return Err((span.start, "expected (meta LABEL (KEY VALUE)…)".to_owned()));
    };
    let label = symbol(label, "a label")?;
    let properties = properties
        .iter()
        .map(|property| {
            let Sexp::List(items, property_span) = property else {
                return Err((
                    property.span().start,
                    format!(
                        "expected a property (KEY VALUE…), found {}",
                        property.describe()
                    ),
                ));
            };
            let Some((key, values)) = items.split_first() else {
                return Err((
                    property_span.start,
                    "empty property: expected (KEY VALUE…)".to_owned(),
                ));
            };
            Ok(MetaProperty {
                key: symbol(key, "a property key")?,
                values: values.iter().map(meta_value).collect(),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(StatementKind::Meta { label, properties })
}

fn meta_value(sexp: &Sexp<'_>) -> MetaValue {
    match sexp {
        Sexp::Str(s, _) => MetaValue::Str(s.clone()),
        Sexp::Atom(a, _) if is_number(a) => MetaValue::Number((*a).to_owned()),
        Sexp::Atom(a, _) => MetaValue::Symbol((*a).to_owned()),
        Sexp::List(items, _) => MetaValue::List(items.iter().map(meta_value).collect()),
    }
}

fn claims(args: &[Sexp<'_>], span: Span) -> Result<StatementKind, Fail> {
    let Some((source, rest)) = args.split_first() else {
        return Err((
            span.start,
            "expected (claims SOURCE [:at TIME] … STATEMENT…)".to_owned(),
        ));
    };
    let mut claims = Claims {
        source: symbol(source, "a source such as agent:NAME")?,
        at: None,
        sig: None,
        id: None,
        note: None,
        statements: Vec::new(),
    };
    let mut i = 0;
    while let Some(Sexp::Atom(key, key_span)) = rest.get(i) {
        let slot = match *key {
            ":at" => &mut claims.at,
            ":sig" => &mut claims.sig,
            ":id" => &mut claims.id,
            ":note" => &mut claims.note,
            other => {
                return Err((
                    key_span.start,
                    format!("unknown claims key '{other}'; expected :at, :sig, :id or :note"),
                ));
            }
        };
        if slot.is_some() {
            return Err((key_span.start, format!("'{key}' given twice")));
        }
        let value = match rest.get(i + 1) {
            Some(Sexp::Str(s, _)) => s.clone(),
            Some(Sexp::Atom(s, _)) => (*s).to_owned(),
            _ => return Err((key_span.start, format!("'{key}' needs a value"))),
        };
        *slot = Some(value);
        i += 2;
    }
    claims.statements = rest[i..].iter().map(statement).collect::<Result<_, _>>()?;
    Ok(StatementKind::Claims(claims))
}

const RESERVED: &[&str] = &[
    "bind", "fold", "=", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "div", "rem", "abs",
    "min", "max", "**", "round", "floor", "ceil",
];

fn check_predicate_name(name: &str, span: Span) -> Result<(), Fail> {
    if RESERVED.contains(&name) {
        return Err((
            span.start,
            format!("'{name}': arithmetic and aggregation are not supported by hookrig's reasoner"),
        ));
    }
    if name.starts_with('?') || name.starts_with(':') || is_number(name) {
        return Err((span.start, format!("'{name}' cannot be a predicate name")));
    }
    Ok(())
}

fn literal(sexp: &Sexp<'_>) -> Result<Literal, Fail> {
    match sexp {
        Sexp::Atom(text, span) => {
            if let Some(rest) = text.strip_prefix('~') {
                if rest.is_empty() {
                    return Err((
                        span.start,
                        "'~' must be followed by a literal name".to_owned(),
                    ));
                }
                check_predicate_name(rest, *span)?;
                return Ok(Literal::atom(rest).negated());
            }
            check_predicate_name(text, *span)?;
            Ok(Literal::atom(*text))
        }
        Sexp::Str(_, span) => Err((span.start, "expected a literal, found a string".to_owned())),
        Sexp::List(items, span) => {
            let Some((Sexp::Atom(head, head_span), args)) = items.split_first() else {
                return Err((
                    span.start,
                    "expected a literal: a name or (NAME ARG…)".to_owned(),
                ));
            };
            let one = |what: &str| -> Result<&Sexp<'_>, Fail> {
                match args {
                    [one] => Ok(one),
                    _ => Err((span.start, format!("expected ({what} LITERAL)"))),
                }
            };
            match *head {
                "not" => Ok(literal(one("not")?)?.negated()),
                "must" => Ok(Literal::Modal(
                    Modal::Must,
                    Box::new(literal(one("must")?)?),
                )),
                "may" => Ok(Literal::Modal(Modal::May, Box::new(literal(one("may")?)?))),
                "forbidden" => Ok(Literal::Modal(
                    Modal::Forbidden,
                    Box::new(literal(one("forbidden")?)?),
                )),
                "during" => {
                    let [inner, from, to] = args else {
                        return Err((span.start, "expected (during LITERAL FROM TO)".to_owned()));
                    };
                    Ok(Literal::During(
                        Box::new(literal(inner)?),
                        time(from)?,
                        time(to)?,
                    ))
                }
                "and" => Err((
                    span.start,
                    "'and' is only allowed as the body of a rule".to_owned(),
                )),
                name => {
                    check_predicate_name(name, *head_span)?;
                    Ok(Literal::Atom {
                        name: name.to_owned(),
                        args: args.iter().map(term).collect::<Result<_, _>>()?,
                    })
                }
            }
        }
    }
}

fn term(sexp: &Sexp<'_>) -> Result<Term, Fail> {
    match sexp {
        Sexp::Str(s, _) => Ok(Term::Str(s.clone())),
        Sexp::Atom(a, _) if a.starts_with('?') => Ok(Term::Var((*a).to_owned())),
        Sexp::Atom(a, _) if is_number(a) => Ok(Term::Number((*a).to_owned())),
        Sexp::Atom(a, _) => Ok(Term::Symbol((*a).to_owned())),
        Sexp::List(_, span) => Err((
            span.start,
            "predicate arguments must be symbols, variables, strings or numbers".to_owned(),
        )),
    }
}

fn time(sexp: &Sexp<'_>) -> Result<TimeExpr, Fail> {
    const EXPECTED: &str = "expected a time: (moment \"RFC3339\"), epoch milliseconds, inf or -inf";
    match sexp {
        Sexp::Atom(a, _) if *a == "inf" => Ok(TimeExpr::Inf),
        Sexp::Atom(a, _) if *a == "-inf" => Ok(TimeExpr::NegInf),
        Sexp::Atom(a, span) => a
            .parse()
            .map(TimeExpr::Millis)
            .map_err(|_| (span.start, format!("{EXPECTED}, found '{a}'"))),
        Sexp::List(items, span) => match items.as_slice() {
            [Sexp::Atom(m, _), Sexp::Str(s, _)] if *m == "moment" => {
                Ok(TimeExpr::Moment(s.clone()))
            }
            _ => Err((span.start, EXPECTED.to_owned())),
        },
        Sexp::Str(_, span) => Err((
            span.start,
            format!("{EXPECTED}; wrap a date in (moment \"…\")"),
        )),
    }
}

fn symbol(sexp: &Sexp<'_>, what: &str) -> Result<String, Fail> {
    match sexp {
        Sexp::Atom(a, _) if !a.starts_with('?') && !is_number(a) => Ok((*a).to_owned()),
        other => Err((
            other.span().start,
            format!("expected {what}, found {}", other.describe()),
        )),
    }
}

fn number(sexp: &Sexp<'_>) -> Result<String, Fail> {
    match sexp {
        Sexp::Atom(a, _) if is_number(a) => Ok((*a).to_owned()),
        other => Err((
            other.span().start,
            format!("expected a number, found {}", other.describe()),
        )),
    }
}

fn is_number(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    digits.starts_with(|c: char| c.is_ascii_digit()) && text.parse::<f64>().is_ok()
}

// ---------------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------------

/// Prints statements as an SPL file, one statement per line (a `meta` or `claims`
/// statement over several), each followed by a newline.
pub fn print(statements: &[Statement]) -> String {
    let mut out = String::new();
    for statement in statements {
        out.push_str(&print_statement(statement));
        out.push('\n');
    }
    out
}

/// The text to append to a file whose contents are `existing` so that it ends with
/// `statements`: everything already there stays byte for byte. The caller writes it
/// (under a lock).
pub fn append(existing: &str, statements: &[Statement]) -> String {
    let mut out = String::new();
    if !existing.is_empty() && !existing.ends_with('\n') {
        out.push('\n');
    }
    for statement in statements {
        out.push('\n');
        out.push_str(&print_statement(statement));
        out.push('\n');
    }
    out
}

/// Prints one statement (no trailing newline).
pub fn print_statement(statement: &Statement) -> String {
    let mut out = String::new();
    match &statement.kind {
        StatementKind::Given(lit) => {
            let _ = write!(out, "(given {})", print_literal(lit));
        }
        StatementKind::Rule(rule) => {
            out.push('(');
            out.push_str(rule.kind.keyword());
            if let Some(label) = &rule.label {
                out.push(' ');
                out.push_str(label);
            }
            out.push(' ');
            if let [one] = rule.body.as_slice() {
                out.push_str(&print_literal(one));
            } else {
                out.push_str("(and");
                for lit in &rule.body {
                    out.push(' ');
                    out.push_str(&print_literal(lit));
                }
                out.push(')');
            }
            let _ = write!(out, " {})", print_literal(&rule.head));
        }
        StatementKind::Prefer(labels) => {
            let _ = write!(out, "(prefer {})", labels.join(" "));
        }
        StatementKind::Meta { label, properties } => {
            let _ = write!(out, "(meta {label}");
            for property in properties {
                let _ = write!(out, "\n  ({}", property.key);
                for value in &property.values {
                    out.push(' ');
                    print_meta_value(&mut out, value);
                }
                out.push(')');
            }
            out.push(')');
        }
        StatementKind::Claims(claims) => {
            let _ = write!(out, "(claims {}", claims.source);
            for (key, value) in [
                (":at", &claims.at),
                (":sig", &claims.sig),
                (":id", &claims.id),
                (":note", &claims.note),
            ] {
                if let Some(value) = value {
                    let _ = write!(out, "\n  {key} {}", quote(value));
                }
            }
            for inner in &claims.statements {
                out.push_str("\n  ");
                out.push_str(&print_statement(inner).replace('\n', "\n  "));
            }
            out.push(')');
        }
        StatementKind::Trusts { source, weight } => {
            let _ = write!(out, "(trusts {source} {weight})");
        }
        StatementKind::Decays {
            source,
            model,
            rate,
        } => {
            let _ = write!(out, "(decays {source} {} {rate})", model.as_str());
        }
        StatementKind::Threshold { name, value } => {
            let _ = write!(out, "(threshold {name} {value})");
        }
    }
    out
}

/// Prints a literal as SPL: `p`, `(p a "b")`, `(not p)`, `(must p)`, `(during p 1 inf)`.
pub fn print_literal(literal: &Literal) -> String {
    match literal {
        Literal::Atom { name, args } if args.is_empty() => name.clone(),
        Literal::Atom { name, args } => {
            let mut out = format!("({name}");
            for arg in args {
                out.push(' ');
                match arg {
                    Term::Symbol(s) | Term::Var(s) | Term::Number(s) => out.push_str(s),
                    Term::Str(s) => out.push_str(&quote(s)),
                }
            }
            out.push(')');
            out
        }
        Literal::Not(inner) => format!("(not {})", print_literal(inner)),
        Literal::Modal(modal, inner) => format!("({} {})", modal.as_str(), print_literal(inner)),
        Literal::During(inner, from, to) => format!(
            "(during {} {} {})",
            print_literal(inner),
            print_time(from),
            print_time(to)
        ),
    }
}

fn print_time(time: &TimeExpr) -> String {
    match time {
        TimeExpr::Moment(s) => format!("(moment {})", quote(s)),
        TimeExpr::Millis(ms) => ms.to_string(),
        TimeExpr::Inf => "inf".to_owned(),
        TimeExpr::NegInf => "-inf".to_owned(),
    }
}

fn print_meta_value(out: &mut String, value: &MetaValue) {
    match value {
        MetaValue::Str(s) => out.push_str(&quote(s)),
        MetaValue::Symbol(s) | MetaValue::Number(s) => out.push_str(s),
        MetaValue::List(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                print_meta_value(out, item);
            }
            out.push(')');
        }
    }
}

/// A string literal with the escapes the reader understands.
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `name` can be written as a bare symbol (an agent, task or label name) and
/// read back as the same symbol.
pub fn is_symbol(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['?', ':', '~'])
        && !is_number(name)
        && !name
            .bytes()
            .any(|b| b.is_ascii_whitespace() || matches!(b, b'(' | b')' | b'"' | b';'))
        && !RESERVED.contains(&name)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use indoc::indoc;

    use super::*;

    /// Every form of the reference in one file.
    const ALL_FORMS: &str = indoc! {r#"
        ; a plan with every SPL form
        (meta plan (title "All \"forms\"") (status "active"))
        (given bird)
        (given (not guilty)) ; inline comment
        (given parent alice bob)
        (given (during (employed alice acme) (moment "2020-01-01T00:00:00Z") inf))
        (given (during sunny 1 -inf))
        (always r1 penguin bird)
        (normally r2 (and bird (not injured)) flies)
        (normally r3 penguin ~flies)
        (except d1 broken-wing flies)
        (normally bird (must nest))
        (normally r4 member (may (access ?x)))
        (always r5 thief (forbidden enter))
        (prefer r3 r2 r4)
        (meta r2 (confidence 0.9) (tags ("a" "b" c)) (note "line\nbreak\ttab\\"))
        (claims agent:alice
          :at "2024-06-15T12:00:00Z"
          :sig "abc123"
          :id "claim-001"
          :note "sensor reading"
          (given sunny)
          (normally r6 sunny (not umbrella)))
        (trusts agent:alice 0.8)
        (decays agent:alice exponential 0.1)
        (threshold actionable 0.5)
    "#};

    fn parse_ok(text: &str) -> Vec<Statement> {
        parse(Path::new("plan.spl"), text).expect("valid SPL")
    }

    fn error(text: &str) -> String {
        parse(Path::new("plan.spl"), text)
            .expect_err("invalid SPL")
            .to_string()
    }

    #[test]
    fn every_form_is_read() {
        let statements = parse_ok(ALL_FORMS);
        assert_eq!(statements.len(), 19);
        assert_eq!(
            statements[3].kind,
            StatementKind::Given(Literal::Atom {
                name: "parent".into(),
                args: vec![Term::Symbol("alice".into()), Term::Symbol("bob".into())],
            })
        );
        let StatementKind::Rule(r3) = &statements[8].kind else {
            panic!("rule expected")
        };
        assert_eq!(r3.head, Literal::atom("flies").negated());
        let StatementKind::Rule(unlabelled) = &statements[10].kind else {
            panic!("rule expected")
        };
        assert_eq!(unlabelled.label, None);
        assert_eq!(
            statements[13].kind,
            StatementKind::Prefer(vec!["r3".into(), "r2".into(), "r4".into()])
        );
        let StatementKind::Meta { properties, .. } = &statements[14].kind else {
            panic!("meta expected")
        };
        assert_eq!(
            properties[2].values,
            vec![MetaValue::Str("line\nbreak\ttab\\".into())]
        );
        let StatementKind::Claims(claims) = &statements[15].kind else {
            panic!("claims expected")
        };
        assert_eq!(claims.source, "agent:alice");
        assert_eq!(claims.at.as_deref(), Some("2024-06-15T12:00:00Z"));
        assert_eq!(claims.sig.as_deref(), Some("abc123"));
        assert_eq!(claims.id.as_deref(), Some("claim-001"));
        assert_eq!(claims.note.as_deref(), Some("sensor reading"));
        assert_eq!(claims.statements.len(), 2);
        assert_eq!(
            statements[17].kind,
            StatementKind::Decays {
                source: "agent:alice".into(),
                model: DecayModel::Exponential,
                rate: "0.1".into()
            }
        );
    }

    #[test]
    fn spans_cover_each_statement_exactly() {
        let statements = parse_ok(ALL_FORMS);
        assert_eq!(
            &ALL_FORMS[statements[1].span.start..statements[1].span.end],
            "(given bird)"
        );
        let claims = &ALL_FORMS[statements[15].span.start..statements[15].span.end];
        assert!(claims.starts_with("(claims agent:alice"));
        assert!(claims.ends_with("(not umbrella)))"));
    }

    #[test]
    fn printing_round_trips() {
        let first = parse_ok(ALL_FORMS);
        let printed = print(&first);
        let second = parse_ok(&printed);
        assert_eq!(first, second);
        // Printing is a fixed point after one round.
        assert_eq!(print(&second), printed);
    }

    #[test]
    fn printed_file_snapshot() {
        insta::assert_snapshot!(print(&parse_ok(ALL_FORMS)));
    }

    #[test]
    fn append_keeps_the_file_byte_for_byte() {
        for existing in [ALL_FORMS, ALL_FORMS.trim_end(), ""] {
            let before = parse_ok(existing);
            let new = vec![
                Statement::new(StatementKind::Given(Literal::atom("completed-a"))),
                Statement::new(StatementKind::Claims(Claims {
                    source: "agent:bob".into(),
                    at: Some("2025-01-01T00:00:00Z".into()),
                    sig: None,
                    id: None,
                    note: None,
                    statements: vec![Statement::new(StatementKind::Given(Literal::Atom {
                        name: "blocked-by".into(),
                        args: vec![Term::Symbol("a".into()), Term::Str("why \"not\"".into())],
                    }))],
                })),
            ];
            let text = format!("{existing}{}", append(existing, &new));
            assert!(text.starts_with(existing));
            let after = parse_ok(&text);
            assert_eq!(after.len(), before.len() + 2);
            for (old, again) in before.iter().zip(&after) {
                assert_eq!(old.span, again.span, "spans of old statements move");
            }
            assert_eq!(&after[before.len()..], new.as_slice());
        }
    }

    #[test]
    fn string_escapes() {
        let statements = parse_ok(r#"(meta x (a "q\"b\\s\nn\tt\rr"))"#);
        let StatementKind::Meta { properties, .. } = &statements[0].kind else {
            panic!("meta expected")
        };
        assert_eq!(
            properties[0].values,
            vec![MetaValue::Str("q\"b\\s\nn\tt\rr".into())]
        );
        assert_eq!(quote("q\"b\\s\nn\tt\rr"), r#""q\"b\\s\nn\tt\rr""#);
    }

    #[test]
    fn errors_name_the_place() {
        let cases = [
            "(given bird",
            "(given bird))",
            "given bird",
            "(given \"bird)",
            "(meta x (a \"bad \\q escape\"))",
            "(given a)\n  (frobnicate a)",
            "(normally a)",
            "(normally r1 a b c)",
            "(normally \"r1\" a b)",
            "(given (and a b))",
            "(normally r1 (and) b)",
            "(prefer r1)",
            "(claims agent:a :when \"x\" (given a))",
            "(claims agent:a :at \"x\" :at \"y\" (given a))",
            "(claims agent:a :at)",
            "(decays agent:a cubic 0.1)",
            "(trusts agent:a high)",
            "(given (during a (moment 2020) inf))",
            "(given (during a 1))",
            "(normally r1 (and a (> ?x 1)) b)",
            "(given (p (q r)))",
            "(given)",
            "(meta x y)",
            "()",
            "(given ~)",
            "\n\n   (given é) (given (not))",
        ];
        let rendered: Vec<String> = cases
            .iter()
            .map(|case| format!("{case:?}\n  {}", error(case)))
            .collect();
        insta::assert_snapshot!(rendered.join("\n"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        // guards: a plan nested 20,000 deep must give path:line:col, not crash the stack
        let deep = format!(
            "(given a)\n(given {}x{})",
            "(not ".repeat(20_000),
            ")".repeat(20_000)
        );
        let column = "(given ".len() + "(not ".len() * (MAX_DEPTH - 1) + 1;
        assert_eq!(
            error(&deep),
            format!(
                "plan.spl:2:{column}: lists nested more than 64 deep; hookrig reads plans nested at most 64 levels"
            )
        );
        // As deep as allowed still reads.
        let ok = format!(
            "(given {}x{})",
            "(not ".repeat(MAX_DEPTH - 1),
            ")".repeat(MAX_DEPTH - 1)
        );
        assert_eq!(parse_ok(&ok).len(), 1);
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(
            error("(given é)\n(given \"é"),
            "plan.spl:2:8: unterminated string: no closing '\"'"
        );
        assert_eq!(
            error("(given é) )"),
            "plan.spl:1:11: unexpected ')' with no '(' open"
        );
    }

    #[test]
    fn symbols_that_can_be_written_bare() {
        assert!(is_symbol("agent:coder"));
        assert!(is_symbol("task-a.b_c"));
        for bad in ["", "a b", "a(b", "?x", ":at", "~x", "12", "a\"b", "bind"] {
            assert!(!is_symbol(bad), "{bad:?}");
        }
    }
}
