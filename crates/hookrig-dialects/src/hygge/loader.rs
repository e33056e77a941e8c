//! Loader for hygge's `hooks.toml` (`[hooks.<name>]` tables, exec form, Go durations).
//!
//! hygge is lenient where hookrig's native format is strict: a bad entry is skipped
//! with a warning and a file that does not parse is skipped whole, so every problem
//! here is a non-fatal diagnostic, never a load error. The rules (and the exact layers)
//! are those of hygge's `hook` package; see `docs/dialects/hygge.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{Dialect, EventName, HookSpec, Level, Matcher, Mode, OnError, Source};
use serde::Deserialize;
use toml::Spanned;
use toml::de::DeTable;

use hookrig_exec::CommandDef;

use crate::definition::HookDef;
use crate::hygge::HyggeProtocol;
use crate::loader::LoadContext;
use hookrig_config::{Lowering, span_of};
use hookrig_core::{Diagnostic, Severity};

/// The dialect name of hygge files.
pub(crate) const DIALECT: Dialect = Dialect::Hygge;

/// hygge's default per-hook timeout.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Loads this dialect's sources of one level into `ctx`: for the global level
/// `~/.agents/hooks.toml` then `$XDG_CONFIG_HOME/hygge/hooks.toml`; for the project
/// level the nearest `.agents/hooks.toml` then the nearest `.hygge/hooks.toml` on the
/// walk up from the working directory.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    let paths = match level {
        Level::Global => vec![
            Some(ctx.env.home.join(".agents").join("hooks.toml")),
            Some(ctx.env.config_home.join("hygge").join("hooks.toml")),
        ],
        Level::Project => vec![
            ctx.project.nearest_file(".agents/hooks.toml"),
            ctx.project.nearest_file(".hygge/hooks.toml"),
        ],
    };
    for path in paths.into_iter().flatten() {
        // hygge skips a file it cannot use and carries on; so does hookrig.
        if let Some(text) = ctx.read(&path) {
            let hooks = parse_hygge(&path, &text, level, &mut ctx.diagnostics);
            ctx.hooks.extend(hooks);
        }
    }
}

// Raw layer: exactly what the file says, with positions.

#[derive(Debug, Deserialize)]
struct RawFile {
    hooks: Option<BTreeMap<String, Spanned<RawHook>>>,
}

#[derive(Debug, Deserialize)]
struct RawHook {
    description: Option<String>,
    events: Option<Spanned<Vec<Spanned<String>>>>,
    command: Option<Spanned<String>>,
    args: Option<Vec<String>>,
    timeout: Option<Spanned<String>>,
    mode: Option<Spanned<String>>,
    env: Option<BTreeMap<String, String>>,
}

const KNOWN_KEYS: &[&str] = &[
    "hooks",
    "description",
    "events",
    "command",
    "args",
    "timeout",
    "mode",
    "env",
];

/// Parses one hygge `hooks.toml` into hook definitions, in file order. Everything wrong
/// with it is a warning in `warnings`: a file that does not parse yields no hooks, a bad
/// entry is left out.
pub fn parse_hygge(
    path: &Path,
    text: &str,
    level: Level,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<HookDef> {
    let first_warning = warnings.len();
    let mut lowering = Lowering::new(path, text, warnings);
    let skipped = "hygge hooks file skipped: ";
    let root = match DeTable::parse(text) {
        Ok(root) => root,
        Err(err) => {
            let diagnostic = lowering.toml_error(&err, Severity::Warning, skipped);
            lowering.push(diagnostic);
            return Vec::new();
        }
    };
    let raw: RawFile = match lowering.toml_table(&root, KNOWN_KEYS) {
        Ok(raw) => raw,
        Err(err) => {
            let diagnostic = lowering.toml_error(&err, Severity::Warning, skipped);
            lowering.push(diagnostic);
            return Vec::new();
        }
    };

    // TOML tables are maps, and toml's map is sorted by key: hygge runs hooks in file
    // order, so the entries are put back in the order their names appear.
    let mut entries: Vec<_> = raw
        .hooks
        .unwrap_or_default()
        .into_iter()
        .map(|(name, hook)| {
            let span = span_of(root.get_ref(), &["hooks".to_owned(), name.clone()])
                .unwrap_or_else(|| hook.span());
            (name, span, hook)
        })
        .collect();
    entries.sort_by_key(|(_, span, _)| span.start);

    // A project file's relative command is resolved against the directory that holds
    // `.hygge/` or `.agents/`: the project directory hygge runs from.
    let base = match level {
        Level::Project => path.parent().and_then(Path::parent),
        Level::Global => None,
    };
    let mut lower = Lower {
        lowering,
        level,
        base,
    };
    let mut hooks = Vec::new();
    for (name, name_span, raw_hook) in entries {
        let span = raw_hook.span();
        lower.hook(&name, name_span, raw_hook.into_inner(), span, &mut hooks);
    }
    // Unknown keys are found before the entries are read; people read top to bottom.
    warnings[first_warning..].sort_by_key(|d| d.line);
    hooks
}

struct Lower<'a> {
    lowering: Lowering<'a>,
    level: Level,
    base: Option<&'a Path>,
}

impl Lower<'_> {
    fn warn(&mut self, span: Range<usize>, message: String) {
        self.lowering.warning(span, message);
    }

    /// Lowers one entry into `out`: nothing when it is skipped, two definitions when a
    /// sync hook listens to `post_message` and other events (hygge runs it async for
    /// `post_message` only).
    fn hook(
        &mut self,
        name: &str,
        name_span: Range<usize>,
        raw: RawHook,
        span: Range<usize>,
        out: &mut Vec<HookDef>,
    ) {
        if name.trim().is_empty() {
            self.warn(name_span, "hook with an empty name skipped".to_owned());
            return;
        }
        let command = match raw.command {
            Some(command) if !command.get_ref().trim().is_empty() => command.into_inner(),
            Some(command) => {
                self.warn(
                    command.span(),
                    format!("hook `{name}` skipped: `command` is empty"),
                );
                return;
            }
            None => {
                self.warn(span, format!("hook `{name}` skipped: no `command`"));
                return;
            }
        };
        let Some(mut events) = self.events(name, raw.events, &span) else {
            return;
        };

        let mode_span = raw.mode.as_ref().map_or(span.clone(), Spanned::span);
        let mode = self
            .lowering
            .choice(
                raw.mode.as_ref(),
                Mode::Sync,
                &[("sync", Mode::Sync), ("async", Mode::Async)],
                Severity::Warning,
                |other, _| format!("hook `{name}`: unknown mode `{other}`, running it sync"),
            )
            .unwrap_or(Mode::Sync);
        if mode == Mode::Async
            && let Some((pre, _)) = events.iter().find(|(e, _)| e.starts_with("pre_"))
        {
            self.warn(
                mode_span,
                format!(
                    "hook `{name}` skipped: mode \"async\" is not allowed on {pre}; pre_* hooks must be sync"
                ),
            );
            return;
        }

        let timeout = self.timeout(raw.timeout.as_ref(), name);
        let mut argv = vec![self.resolve(command)];
        argv.extend(raw.args.unwrap_or_default());
        let spec = HookSpec {
            name: name.to_owned(),
            events: Vec::new(),
            matcher: Matcher::Any,
            priority: HookSpec::DEFAULT_PRIORITY,
            mode,
            enabled: true,
            // hygge denies the event when a hook fails (times out, cannot start).
            on_error: OnError::Deny,
            source: Source {
                path: self.lowering.path().to_owned(),
                dialect: DIALECT,
                level: self.level,
            },
            description: raw.description,
            timeout,
            group: None,
            matcher_field: None,
            untrusted: None,
            shadow: false,
            side_effects: true,
        };
        let def = HookDef {
            spec,
            command: CommandDef::Exec { argv },
            env: raw.env.unwrap_or_default().into_iter().collect(),
            protocol: Arc::new(HyggeProtocol),
            // The `[hooks.NAME]` key (or `NAME = {...}` in an inline table).
            declared_at: Some(name_span.start),
            workers: None,
        };

        // hygge's registry always runs post_message hooks async, whatever they declare.
        let post_message = events.iter().position(|(e, _)| *e == "post_message");
        if mode == Mode::Sync
            && let Some(index) = post_message
        {
            let (_, span) = events.remove(index);
            self.warn(
                span,
                format!(
                    "hook `{name}`: post_message hooks always run async; mode \"sync\" coerced to \"async\" for post_message"
                ),
            );
            let mut coerced = def.clone();
            coerced.spec.mode = Mode::Async;
            coerced.spec.events = vec![crate::events::resolve("post_message")];
            if !events.is_empty() {
                let mut rest = def;
                rest.spec.events = canonical(&events);
                out.push(rest);
            }
            out.push(coerced);
            return;
        }
        let mut def = def;
        def.spec.events = canonical(&events);
        out.push(def);
    }

    /// The entry's known events with their positions; `None` (warned) when it has none.
    fn events(
        &mut self,
        name: &str,
        raw: Option<Spanned<Vec<Spanned<String>>>>,
        span: &Range<usize>,
    ) -> Option<Vec<(&'static str, Range<usize>)>> {
        let Some(raw_events) = raw.filter(|e| !e.get_ref().is_empty()) else {
            self.warn(span.clone(), format!("hook `{name}` skipped: no `events`"));
            return None;
        };
        let events_span = raw_events.span();
        let mut events: Vec<(&'static str, Range<usize>)> = Vec::new();
        for event in raw_events.into_inner() {
            match super::events::EVENTS
                .iter()
                .find(|(hygge, _)| hygge == event.get_ref())
            {
                Some((hygge, _)) if events.iter().any(|(e, _)| e == hygge) => {}
                Some((hygge, _)) => events.push((hygge, event.span())),
                None => self.warn(
                    event.span(),
                    format!(
                        "hook `{name}`: unknown event `{}` dropped; hygge events are pre_tool, post_tool, pre_message and post_message",
                        event.get_ref()
                    ),
                ),
            }
        }
        if events.is_empty() {
            self.warn(
                events_span,
                format!("hook `{name}` skipped: no known events remain"),
            );
            return None;
        }
        Some(events)
    }

    /// hygge's timeout: a Go duration, default 5 s, `0s` for none; a value it cannot
    /// read falls back to the default with a warning.
    fn timeout(&mut self, raw: Option<&Spanned<String>>, name: &str) -> Option<Duration> {
        let Some(raw) = raw else {
            return Some(DEFAULT_TIMEOUT);
        };
        let problem = match parse_go_duration(raw.get_ref()) {
            Ok(0) => return None,
            Ok(nanos) if nanos > 0 => {
                return Some(Duration::from_nanos(
                    u64::try_from(nanos).expect("a positive i64 fits in u64"),
                ));
            }
            Ok(_) => "a timeout cannot be negative".to_owned(),
            Err(err) => err,
        };
        self.warn(
            raw.span(),
            format!(
                "hook `{name}`: invalid timeout `{}` ({problem}); using 5s",
                raw.get_ref()
            ),
        );
        Some(DEFAULT_TIMEOUT)
    }

    /// A relative path (`scripts/guard`, `./guard`) in a project file is made absolute
    /// against the project directory; bare names stay for `PATH`, and a global file's
    /// relative path stays relative to the working directory, as hygge runs it.
    fn resolve(&self, command: String) -> String {
        match self.base {
            Some(base) if command.contains('/') && !command.starts_with('/') => {
                let joined = base.join(command.strip_prefix("./").unwrap_or(&command));
                joined.to_string_lossy().into_owned()
            }
            _ => command,
        }
    }
}

fn canonical(events: &[(&str, Range<usize>)]) -> Vec<EventName> {
    events
        .iter()
        .map(|(event, _)| crate::events::resolve(event))
        .collect()
}

const NANOS_PER_UNIT: [(&str, u64); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("\u{b5}s", 1_000),  // U+00B5 micro sign
    ("\u{3bc}s", 1_000), // U+03BC Greek small letter mu
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60 * 1_000_000_000),
    ("h", 3600 * 1_000_000_000),
];

/// Parses a duration the way Go's `time.ParseDuration` does, since hygge's files are
/// written for it: a sign, then one or more decimal numbers with an optional fraction
/// and a unit (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), e.g. `300ms`, `1.5h`, `2h45m`;
/// `0` alone needs no unit. Returns nanoseconds, or Go's error message.
///
/// Written by hand because the exact grammar matters: humantime accepts words and
/// spaces Go rejects, and rejects fractions Go accepts.
pub fn parse_go_duration(text: &str) -> Result<i64, String> {
    // This follows the structure of Go's src/time/format.go ParseDuration.
    const LIMIT: u64 = 1 << 63;
    let invalid = || format!("time: invalid duration \"{text}\"");
    let mut s = text;
    let mut negative = false;
    if let Some(rest) = s.strip_prefix('-') {
        negative = true;
        s = rest;
    } else if let Some(rest) = s.strip_prefix('+') {
        s = rest;
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(invalid());
        }
        // The integer part.
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let mut value: u64 = 0;
        for digit in s[..digits].bytes() {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(digit - b'0')))
                .filter(|v| *v <= LIMIT)
                .ok_or_else(invalid)?;
        }
        s = &s[digits..];
        let mut fraction: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut fraction_digits = 0;
        if let Some(rest) = s.strip_prefix('.') {
            s = rest;
            fraction_digits = s.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for digit in s[..fraction_digits].bytes() {
                // Like Go, digits past what fits are dropped, not an error.
                if overflow {
                    continue;
                }
                match fraction
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(u64::from(digit - b'0')))
                    .filter(|v| *v < LIMIT)
                {
                    Some(v) => {
                        fraction = v;
                        scale *= 10.0;
                    }
                    None => overflow = true,
                }
            }
            s = &s[fraction_digits..];
        }
        if digits == 0 && fraction_digits == 0 {
            return Err(invalid());
        }
        let unit_len = s
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration \"{text}\""));
        }
        let unit = &s[..unit_len];
        s = &s[unit_len..];
        let Some((_, nanos)) = NANOS_PER_UNIT.iter().find(|(name, _)| *name == unit) else {
            return Err(format!(
                "time: unknown unit \"{unit}\" in duration \"{text}\""
            ));
        };
        if value > LIMIT / nanos {
            return Err(invalid());
        }
        value *= nanos;
        if fraction > 0 {
            // Go computes the fractional part in floating point, truncating.
            #[expect(
                clippy::cast_precision_loss,
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "the same float arithmetic as Go, for the same results"
            )]
            let part = (fraction as f64 * (*nanos as f64 / scale)) as u64;
            value = value
                .checked_add(part)
                .filter(|v| *v <= LIMIT)
                .ok_or_else(invalid)?;
        }
        total = total
            .checked_add(value)
            .filter(|v| *v <= LIMIT)
            .ok_or_else(invalid)?;
    }
    if negative {
        // -(1<<63) is the one value whose magnitude does not fit in i64.
        return Ok(0_i64.wrapping_sub_unsigned(total));
    }
    i64::try_from(total).map_err(|_| invalid())
}

/// Formats a duration the way Go's `time.Duration.String` does (`5s`, `1.5s`, `100ms`,
/// `1m30s`, `1h0m0s`), for messages that must read as hygge's do.
pub fn format_go_duration(duration: Duration) -> String {
    let nanos = duration.as_nanos();
    if nanos == 0 {
        return "0s".to_owned();
    }
    if nanos < 1_000_000_000 {
        let (digits, unit) = match nanos {
            ..1_000 => return format!("{nanos}ns"),
            1_000..1_000_000 => (3, "\u{b5}s"),
            _ => (6, "ms"),
        };
        let scale = 10_u128.pow(digits);
        return format!("{}{}{unit}", nanos / scale, fraction(nanos % scale, digits));
    }
    let secs = nanos / 1_000_000_000;
    let (hours, minutes, seconds) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut out = String::new();
    if hours > 0 {
        let _ = write!(out, "{hours}h{minutes}m");
    } else if minutes > 0 {
        let _ = write!(out, "{minutes}m");
    }
    let _ = write!(out, "{seconds}{}s", fraction(nanos % 1_000_000_000, 9));
    out
}

/// `.ddd` for `value` out of `10^digits`, trailing zeros dropped; empty for zero.
fn fraction(value: u128, digits: u32) -> String {
    if value == 0 {
        return String::new();
    }
    let padded = format!("{value:0width$}", width = digits as usize);
    format!(".{}", padded.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use indoc::indoc;
    use test_case::test_case;

    use super::*;

    #[test_case("5s", 5_000_000_000; "seconds")]
    #[test_case("100ms", 100_000_000; "millis")]
    #[test_case("1m30s", 90_000_000_000; "minutes and seconds")]
    #[test_case("1h2m", 3_720_000_000_000; "hours and minutes")]
    #[test_case("1.5s", 1_500_000_000; "fraction")]
    #[test_case(".5s", 500_000_000; "fraction without integer")]
    #[test_case("1.s", 1_000_000_000; "dot without fraction")]
    #[test_case("300us", 300_000; "micro ascii")]
    #[test_case("300µs", 300_000; "micro sign")]
    #[test_case("300μs", 300_000; "greek mu")]
    #[test_case("42ns", 42; "nanos")]
    #[test_case("0", 0; "bare zero")]
    #[test_case("0s", 0; "zero seconds")]
    #[test_case("+2s", 2_000_000_000; "plus sign")]
    #[test_case("-1.5h", -5_400_000_000_000; "negative")]
    #[test_case("1h1h", 7_200_000_000_000; "repeated unit")]
    #[test_case("2562047h47m16.854775807s", i64::MAX; "max")]
    #[test_case("-2562047h47m16.854775808s", i64::MIN; "min")]
    #[test_case("0.3333333333333333333h", 1_200_000_000_000; "long fraction")]
    fn parses_like_go(text: &str, nanos: i64) {
        assert_eq!(parse_go_duration(text), Ok(nanos));
    }

    #[test_case("", "time: invalid duration \"\""; "empty")]
    #[test_case("5", "time: missing unit in duration \"5\""; "no unit")]
    #[test_case("5 s", "time: unknown unit \" s\" in duration \"5 s\""; "space")]
    #[test_case("5sec", "time: unknown unit \"sec\" in duration \"5sec\""; "word unit")]
    #[test_case("5S", "time: unknown unit \"S\" in duration \"5S\""; "upper case")]
    #[test_case("-", "time: invalid duration \"-\""; "sign alone")]
    #[test_case(".s", "time: invalid duration \".s\""; "no digits")]
    #[test_case("s", "time: invalid duration \"s\""; "unit alone")]
    #[test_case("soon", "time: invalid duration \"soon\""; "word")]
    #[test_case("9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""; "overflow")]
    #[test_case("3000000h", "time: invalid duration \"3000000h\""; "overflow after unit")]
    fn rejects_like_go(text: &str, message: &str) {
        assert_eq!(parse_go_duration(text), Err(message.to_owned()));
    }

    #[test_case(0, "0s")]
    #[test_case(42, "42ns")]
    #[test_case(1_500, "1.5µs"; "micro")]
    #[test_case(100_000_000, "100ms")]
    #[test_case(1_500_000, "1.5ms")]
    #[test_case(5_000_000_000, "5s")]
    #[test_case(1_500_000_000, "1.5s")]
    #[test_case(90_000_000_000, "1m30s")]
    #[test_case(120_000_000_000, "2m0s")]
    #[test_case(3_600_000_000_000, "1h0m0s")]
    #[test_case(3_723_005_000_000, "1h2m3.005s")]
    fn formats_like_go(nanos: u64, text: &str) {
        assert_eq!(format_go_duration(Duration::from_nanos(nanos)), text);
    }

    fn parse(text: &str, level: Level) -> (Vec<HookDef>, Vec<String>) {
        let path = match level {
            Level::Project => Path::new("/p/.hygge/hooks.toml"),
            Level::Global => Path::new("/h/.agents/hooks.toml"),
        };
        let mut warnings = Vec::new();
        let hooks = parse_hygge(path, text, level, &mut warnings);
        assert!(warnings.iter().all(|w| w.severity == Severity::Warning));
        (hooks, warnings.iter().map(ToString::to_string).collect())
    }

    fn summary(hooks: &[HookDef]) -> Vec<String> {
        hooks
            .iter()
            .map(|h| {
                let events: Vec<_> = h.spec.events.iter().map(EventName::as_str).collect();
                format!(
                    "{} {} {} {:?}",
                    h.spec.name,
                    events.join(","),
                    h.spec.mode.as_str(),
                    h.spec.timeout
                )
            })
            .collect()
    }

    #[test]
    fn full_entry() {
        let (hooks, warnings) = parse(
            indoc! {r#"
                [hooks.guard]
                description = "no rm -rf"
                events = ["pre_tool", "post_tool"]
                command = "scripts/guard"
                args = ["--strict", "a b"]
                timeout = "1.5s"
                env = { LEVEL = "high" }
            "#},
            Level::Project,
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        let guard = &hooks[0];
        assert_eq!(guard.spec.name, "guard");
        assert_eq!(
            guard.spec.events,
            [
                EventName::resolve("tool.before"),
                EventName::resolve("tool.after")
            ]
        );
        assert_eq!(guard.spec.timeout, Some(Duration::from_millis(1500)));
        assert_eq!(guard.spec.on_error, OnError::Deny);
        assert_eq!(guard.spec.source.dialect, Dialect::Hygge);
        assert_eq!(guard.spec.source.level, Level::Project);
        assert_eq!(guard.spec.description.as_deref(), Some("no rm -rf"));
        assert_eq!(
            guard.command,
            CommandDef::Exec {
                argv: vec!["/p/scripts/guard".into(), "--strict".into(), "a b".into()]
            }
        );
        assert_eq!(guard.env, [("LEVEL".to_owned(), "high".to_owned())]);
        assert_eq!(guard.dialect(), Dialect::Hygge);
    }

    #[test]
    fn hooks_keep_file_order() {
        let (hooks, _) = parse(
            indoc! {r#"
                [hooks.zeta]
                events = ["pre_tool"]
                command = "z"
                [hooks.alpha]
                events = ["pre_tool"]
                command = "a"
                [hooks.mid]
                events = ["pre_tool"]
                command = "m"
            "#},
            Level::Global,
        );
        let names: Vec<_> = hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha", "mid"]);
    }

    #[test]
    fn commands_resolve_only_in_project_files() {
        let text = "[hooks.a]\nevents = [\"pre_tool\"]\ncommand = \"./bin/a\"\n[hooks.b]\nevents = [\"pre_tool\"]\ncommand = \"jq\"\n";
        let argv = |hooks: &[HookDef], i: usize| match &hooks[i].command {
            CommandDef::Exec { argv } => argv[0].clone(),
            other => panic!("{other:?}"),
        };
        let (project, _) = parse(text, Level::Project);
        assert_eq!(argv(&project, 0), "/p/bin/a");
        assert_eq!(argv(&project, 1), "jq");
        let (global, _) = parse(text, Level::Global);
        assert_eq!(argv(&global, 0), "./bin/a");
    }

    #[test]
    fn skipped_entries_and_warnings() {
        let (hooks, warnings) = parse(
            indoc! {r#"
                [hooks.""]
                events = ["pre_tool"]
                command = "x"

                [hooks.nocmd]
                events = ["pre_tool"]

                [hooks.noevents]
                command = "x"

                [hooks.emptyevents]
                events = []
                command = "x"

                [hooks.unknown]
                events = ["pre_tol", "post_tool"]
                command = "x"

                [hooks.allunknown]
                events = ["tool.before"]
                command = "x"

                [hooks.asyncpre]
                events = ["post_tool", "pre_message"]
                command = "x"
                mode = "async"

                [hooks.slow]
                events = ["pre_tool"]
                command = "x"
                timeout = "soon"
                tiemout = "1s"

                [hooks.forever]
                events = ["pre_tool"]
                command = "x"
                timeout = "0s"
            "#},
            Level::Project,
        );
        assert_eq!(
            summary(&hooks),
            [
                "unknown tool.after sync Some(5s)",
                "slow tool.before sync Some(5s)",
                "forever tool.before sync None",
            ]
        );
        insta::assert_debug_snapshot!(warnings);
    }

    #[test]
    fn post_message_is_coerced_to_async() {
        let (hooks, warnings) = parse(
            indoc! {r#"
                [hooks.log]
                events = ["post_message"]
                command = "x"

                [hooks.both]
                events = ["post_tool", "post_message"]
                command = "x"
                mode = "sync"

                [hooks.quiet]
                events = ["post_message"]
                command = "x"
                mode = "async"
            "#},
            Level::Global,
        );
        assert_eq!(
            summary(&hooks),
            [
                "log message.after async Some(5s)",
                "both tool.after sync Some(5s)",
                "both message.after async Some(5s)",
                "quiet message.after async Some(5s)",
            ]
        );
        assert_eq!(
            warnings,
            [
                "/h/.agents/hooks.toml:2:11: hook `log`: post_message hooks always run async; mode \"sync\" coerced to \"async\" for post_message",
                "/h/.agents/hooks.toml:6:24: hook `both`: post_message hooks always run async; mode \"sync\" coerced to \"async\" for post_message",
            ]
        );
    }

    #[test]
    fn a_file_that_does_not_parse_is_skipped_whole() {
        let (hooks, warnings) = parse(
            "[hooks.a]\nevents = [\"pre_tool\"]\ncommand = \"x\"\n[hooks.b\n",
            Level::Project,
        );
        assert!(hooks.is_empty());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("/p/.hygge/hooks.toml:4:"),
            "{warnings:?}"
        );
        assert!(warnings[0].contains("hygge hooks file skipped: "));

        let (hooks, warnings) = parse(
            "[hooks.a]\nevents = \"pre_tool\"\ncommand = \"x\"\n",
            Level::Project,
        );
        assert!(hooks.is_empty());
        assert!(
            warnings[0].starts_with("/p/.hygge/hooks.toml:2:10: hygge hooks file skipped: "),
            "{warnings:?}"
        );
    }
}
