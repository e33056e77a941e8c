//! `hookrig plan validate`: the built-in checks of hookrig-plan, then every external
//! validator (Hence's validator plugins), merged into one list.
//!
//! External validators are the executables in `.hookrig/validators/` and
//! `.hence/validators/` nearest to the plan (local first), then in
//! `$XDG_CONFIG_HOME/hookrig/validators/` and `$XDG_CONFIG_HOME/hence/validators/`, then
//! the `validators` of the plugin packages enabled for the agent. Each gets the plan
//! path as `$1`, the scope's variables ([`Scope::child_env`]: `HOOKRIG_PLAN`/`HENCE_PLAN`
//! absolute, and the agent when one is known) and `HOOKRIG_STRICT`/`HENCE_STRICT`
//! (`true`/`false`), and prints a JSON array of `{level, message, line?, rule?}` on
//! stdout. A validator that cannot be used is skipped with Hence's warning; it never
//! stops the others. A project validator runs only once `hookrig trust` recorded its
//! content; until then it is skipped with a warning.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::future::join_all;
use hookrig_config::{Environment, TrustStore, find_project};
use hookrig_dialects::PackageRef;
use hookrig_exec::{EnvPolicy, Probe, ProcessGroups, ProcessSpec, Termination, probe, run_process};
use hookrig_plan::plan::Plan;
use hookrig_plan::spl;
use hookrig_plan::validate::{self, Severity};
use serde::Serialize;
use serde_json::Value;

use crate::errors::RuntimeError;
use crate::programs::PackageFiles;
use crate::scope::{PlanFile, Scope};

/// Between SIGTERM and SIGKILL for a validator that ran out of time (Hence's grace for
/// hooks).
const KILL_GRACE: Duration = Duration::from_secs(5);

/// A validator's stdout beyond this is cut (and then fails to parse): diagnostics of
/// any real plan are far smaller.
const STDOUT_CAP: usize = 4 * 1024 * 1024;

/// Kept for nothing but draining: a validator's stderr goes nowhere.
const STDERR_CAP: usize = 64 * 1024;

/// How many lines of a failed validator's stderr its warning shows.
const STDERR_LINES: usize = 20;

/// One diagnostic in the merged list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// `None` for a built-in rule, else the validator's name.
    pub validator: Option<String>,
    /// The rule id, when the check names one.
    pub rule: Option<String>,
    /// Error or warning.
    pub level: Severity,
    /// What is wrong.
    pub message: String,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// 1-based column, when known.
    pub column: Option<u64>,
}

/// What checking a plan found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanCheck {
    /// Every diagnostic: the built-in rules' first, then each validator's, in run order.
    pub entries: Vec<Entry>,
    /// Validators that could not be used (Hence's warnings), in run order.
    pub skipped: Vec<String>,
    /// Everything else worth saying on the way (unknown keys of `config.toml`, a trust
    /// store that cannot be read, a plugin package that does not load).
    pub warnings: Vec<String>,
}

impl PlanCheck {
    /// How many entries are errors.
    pub fn errors(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.level == Severity::Error)
            .count()
    }

    /// How many entries are warnings.
    pub fn warnings(&self) -> usize {
        self.entries.len() - self.errors()
    }

    /// Whether the plan passes: no error, and with `strict` no warning and no validator
    /// that could not run either (a broken team rule must not pass silently).
    pub fn passes(&self, strict: bool) -> bool {
        self.errors() == 0 && !(strict && (self.warnings() > 0 || !self.skipped.is_empty()))
    }

    /// `hookrig plan validate` as text, for the plan shown as `shown`: a line per
    /// entry (`[validator] plan:line:col: level[rule]: message`), then the counts.
    pub fn text(&self, shown: &str, strict: bool) -> String {
        let mut out = String::new();
        for entry in &self.entries {
            if let Some(name) = &entry.validator {
                let _ = write!(out, "[{name}] ");
            }
            out.push_str(shown);
            if let Some(line) = entry.line {
                let _ = write!(out, ":{line}");
                if let Some(column) = entry.column {
                    let _ = write!(out, ":{column}");
                }
            }
            let _ = write!(out, ": {}", entry.level);
            if let Some(rule) = &entry.rule {
                let _ = write!(out, "[{rule}]");
            }
            let _ = writeln!(out, ": {}", entry.message);
        }
        let count = hookrig_core::text::count;
        let _ = writeln!(
            out,
            "{shown}: {}, {}{}",
            count(self.errors(), "error"),
            count(self.warnings(), "warning"),
            if strict { " (strict)" } else { "" }
        );
        out
    }

    /// The check of the plan shown as `plan`, judged with or without `strict`, as
    /// `hookrig plan validate --json` prints it.
    pub fn report<'a>(&'a self, plan: &'a str, strict: bool) -> PlanReport<'a> {
        PlanReport {
            plan,
            strict,
            ok: self.passes(strict),
            errors: self.errors(),
            warnings: self.warnings(),
            diagnostics: &self.entries,
            skipped: &self.skipped,
        }
    }
}

/// A [`PlanCheck`] with its verdict ([`PlanCheck::report`]).
#[derive(Debug, Serialize)]
pub struct PlanReport<'a> {
    /// The plan, as named.
    pub plan: &'a str,
    /// Whether warnings failed the check.
    pub strict: bool,
    /// Whether the plan passes.
    pub ok: bool,
    /// How many entries are errors.
    pub errors: usize,
    /// How many entries are warnings.
    pub warnings: usize,
    /// Every entry.
    pub diagnostics: &'a [Entry],
    /// Validators that could not be used (Hence's warnings), in run order.
    pub skipped: &'a [String],
}

/// An external validator to run.
#[derive(Debug, Clone)]
struct Validator {
    name: String,
    path: PathBuf,
    /// False for a project validator not trusted as it is now: reported, never run.
    trusted: bool,
}

/// Checks `plan` (the scope's plan, which a scope may lack) with the built-in rules, then
/// with every validator, under `strict` or not.
pub fn check_plan(scope: &Scope, plan: &PlanFile, strict: bool) -> Result<PlanCheck, RuntimeError> {
    let text = std::fs::read_to_string(&plan.named).map_err(|source| RuntimeError::ReadPlan {
        path: plan.named.clone(),
        source,
    })?;
    let mut check = PlanCheck::default();
    let statements = match spl::parse(&plan.named, &text) {
        Ok(statements) => statements,
        Err(err) => {
            check.entries.push(Entry {
                validator: None,
                rule: Some("syntax".to_owned()),
                level: Severity::Error,
                message: err.message.clone(),
                line: Some(err.line as u64),
                column: Some(err.col as u64),
            });
            return Ok(check);
        }
    };
    let mut config_warnings = Vec::new();
    let config = hookrig_config::load_config_toml(&scope.env, &mut config_warnings)?;
    check
        .warnings
        .extend(config_warnings.iter().map(ToString::to_string));
    let providers: Vec<String> = config
        .providers
        .iter()
        .map(|p| p.value.id.clone())
        .collect();
    let built = Plan::new(&statements);
    check.entries.extend(
        validate::validate(&text, &statements, &built, &providers)
            .into_iter()
            .map(|f| Entry {
                validator: None,
                rule: Some(f.rule.to_owned()),
                level: f.severity,
                message: f.message,
                line: Some(f.line as u64),
                column: Some(f.column as u64),
            }),
    );
    let packages = scope.packages()?;
    let validators = discover(&plan.path, &scope.env, &packages, &mut check.warnings);
    let run = Run {
        plan: &plan.named,
        env: scope
            .child_env()
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value.to_string_lossy().into_owned()))
            .collect(),
        strict,
        timeout: config.hook_timeout(),
        cwd: scope.cwd(),
    };
    for (validator, outcome) in run.all(&validators)? {
        match outcome {
            Ok(found) => check.entries.extend(found.into_iter().map(|mut e| {
                e.validator = Some(validator.name.clone());
                e
            })),
            Err(warning) => check.skipped.push(warning),
        }
    }
    Ok(check)
}

/// The validators, in run order: local (nearest to the plan) `.hookrig/validators/`
/// then `.hence/validators/`, global hookrig then hence, then plugin packages. Within
/// a directory, by file name; names starting with `.` are left out (editor and VCS
/// files).
fn discover(
    plan: &Path,
    env: &Environment,
    packages: &[PackageRef],
    warnings: &mut Vec<String>,
) -> Vec<Validator> {
    let plan_dir = plan.parent().unwrap_or(Path::new("/")).to_owned();
    let local = find_project(&Environment {
        cwd: plan_dir,
        ..env.clone()
    });
    // Project validators come with the repository: each runs only while the trust
    // store holds its content's SHA-256 (`hookrig trust`), like Hence hook scripts.
    let store = if env.trust_all {
        None
    } else {
        let path = hookrig_config::trust_store_path(env);
        Some(TrustStore::load(&path).unwrap_or_else(|err| {
            warnings.push(format!(
                "{err}; no project validator is trusted until the file is fixed or removed"
            ));
            TrustStore::default()
        }))
    };
    let mut validators: Vec<Validator> = hookrig_config::project_validators(&local)
        .into_iter()
        .map(|(name, path)| {
            let trusted = store.as_ref().is_none_or(|store| {
                let key = hookrig_config::file_trust_key("validator", &path);
                // An unreadable file cannot match a hash; it is then reported as not
                // trusted rather than as missing, which it is not.
                std::fs::read(&path).is_ok_and(|bytes| store.check_file(&key, &bytes).is_none())
            });
            Validator {
                name,
                path,
                trusted,
            }
        })
        .collect();
    for tool in ["hookrig", "hence"] {
        let dir = env.config_home.join(tool).join("validators");
        let Ok(read) = std::fs::read_dir(&dir) else {
            // A missing directory means no custom validation there, not an error.
            continue;
        };
        let mut found: Vec<Validator> = read
            .filter_map(Result::ok)
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| e.path().is_file())
            .map(|e| Validator {
                name: e.file_name().to_string_lossy().into_owned(),
                path: e.path(),
                trusted: true,
            })
            .collect();
        found.sort_by(|a, b| a.name.cmp(&b.name));
        validators.extend(found);
    }
    // Enabled plugin packages are the user's choice, trusted as such.
    let (files, package_warnings) = PackageFiles::Validators.of(env, packages);
    warnings.extend(package_warnings);
    validators.extend(files.into_iter().map(|program| Validator {
        name: program.name,
        path: program.path,
        trusted: true,
    }));
    validators
}

/// How every validator of one check runs.
struct Run<'a> {
    /// The plan as named, passed as `$1`.
    plan: &'a Path,
    /// The scope's variables.
    env: Vec<(String, String)>,
    strict: bool,
    timeout: Duration,
    cwd: &'a Path,
}

/// A validator and what it gave: its diagnostics, or the warning saying why it was
/// skipped.
type Ran = (Validator, Result<Vec<Entry>, String>);

impl Run<'_> {
    /// Runs every usable validator at once, each under the timeout; the results come
    /// back in discovery order.
    fn all(&self, validators: &[Validator]) -> Result<Vec<Ran>, RuntimeError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(RuntimeError::AsyncRuntime)?;
        let groups = ProcessGroups::new();
        let runs = validators.iter().map(|validator| {
            let groups = &groups;
            async move { (validator.clone(), self.one(validator, groups).await) }
        });
        Ok(runtime.block_on(join_all(runs)))
    }

    /// Runs one validator: its diagnostics, or the warning saying why it was skipped.
    async fn one(
        &self,
        validator: &Validator,
        groups: &ProcessGroups,
    ) -> Result<Vec<Entry>, String> {
        let name = &validator.name;
        if !validator.trusted {
            return Err(format!(
                "validator '{name}' is not trusted; review it, then run hookrig trust"
            ));
        }
        match probe(&validator.path) {
            Probe::Executable => {}
            Probe::NotExecutable => {
                return Err(format!("validator '{name}' is not executable, skipping"));
            }
            Probe::Missing => {
                return Err(format!(
                    "validator '{name}' not found at {}",
                    validator.path.display()
                ));
            }
        }
        let strict = if self.strict { "true" } else { "false" };
        let mut set = self.env.clone();
        set.push(("HOOKRIG_STRICT".to_owned(), strict.to_owned()));
        set.push(("HENCE_STRICT".to_owned(), strict.to_owned()));
        let spec = ProcessSpec {
            program: validator.path.clone().into_os_string(),
            args: vec![self.plan.as_os_str().to_owned()],
            cwd: self.cwd.to_owned(),
            env: EnvPolicy::Inherit { set },
            stdin: Vec::new(),
            timeout: Some(self.timeout),
            kill_grace: KILL_GRACE,
            stdout_cap: STDOUT_CAP,
            stderr_cap: STDERR_CAP,
        };
        let output = run_process(spec, groups).await;
        let mut result = match output.termination {
            Termination::TimedOut { .. } => Err(format!("validator '{name}' timed out")),
            Termination::Exited(code) => {
                let empty = output.stdout.iter().all(u8::is_ascii_whitespace);
                if code != 0 && empty {
                    Err(format!("validator '{name}' failed"))
                } else if empty {
                    // Exit 0 and nothing to say: nothing found.
                    Ok(Vec::new())
                } else {
                    parse_output(&output.stdout)
                        .ok_or_else(|| format!("validator '{name}' output invalid JSON, skipping"))
                }
            }
            Termination::Signaled(_) | Termination::SpawnFailed(_) | Termination::Interrupted => {
                Err(format!("validator '{name}' failed"))
            }
        };
        // A validator that could not be used says why on its stderr, or nowhere.
        if let Err(warning) = &mut result {
            warning.push_str(&stderr_lines(&output.stderr));
        }
        result
    }
}

/// A failed validator's stderr as lines to append to its warning, each `\n  stderr: `
/// and a line of it; nothing when it printed nothing.
fn stderr_lines(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .trim_end()
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .collect();
    let mut out = String::new();
    for line in lines.iter().take(STDERR_LINES) {
        let _ = write!(out, "\n  stderr: {line}");
    }
    if lines.len() > STDERR_LINES {
        let _ = write!(
            out,
            "\n  stderr: ... {} more lines",
            lines.len() - STDERR_LINES
        );
    }
    out
}

/// A validator's stdout: a JSON array of `{level, message, line?, rule?}`, `level`
/// `warning` or `error`. Anything else (another shape, a missing field, an unknown
/// level) makes the whole output invalid, as a half-read answer would mislead.
fn parse_output(stdout: &[u8]) -> Option<Vec<Entry>> {
    let Value::Array(items) = serde_json::from_slice::<Value>(stdout).ok()? else {
        return None;
    };
    items
        .iter()
        .map(|item| {
            let object = item.as_object()?;
            let level = match object.get("level")?.as_str()? {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => return None,
            };
            let message = object.get("message")?.as_str()?.to_owned();
            let line = match object.get("line") {
                None | Some(Value::Null) => None,
                Some(line) => Some(line.as_u64()?),
            };
            let rule = match object.get("rule") {
                None | Some(Value::Null) => None,
                Some(rule) => Some(rule.as_str()?.to_owned()),
            };
            Some(Entry {
                validator: None,
                rule,
                level,
                message,
                line,
                column: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_reads_one_line_per_entry_then_the_counts() {
        let check = PlanCheck {
            entries: vec![
                Entry {
                    validator: None,
                    rule: Some("cycle".to_owned()),
                    level: Severity::Error,
                    message: "a depends on itself".to_owned(),
                    line: Some(3),
                    column: Some(5),
                },
                Entry {
                    validator: Some("team".to_owned()),
                    rule: None,
                    level: Severity::Warning,
                    message: "no owner".to_owned(),
                    line: None,
                    column: None,
                },
            ],
            ..PlanCheck::default()
        };
        assert_eq!(
            check.text("PLAN.spl", true),
            "PLAN.spl:3:5: error[cycle]: a depends on itself\n\
             [team] PLAN.spl: warning: no owner\n\
             PLAN.spl: 1 error, 1 warning (strict)\n"
        );
    }

    #[test]
    fn output_shapes() {
        let ok = parse_output(br#"[{"level":"warning","message":"m","line":3,"rule":"r"},{"level":"error","message":"e"}]"#)
            .expect("valid");
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[0].line, Some(3));
        assert_eq!(ok[1].rule, None);
        assert!(parse_output(b"[]").is_some_and(|v| v.is_empty()));
        for bad in [
            &b"{}"[..],
            b"not json",
            br#"[{"level":"info","message":"m"}]"#,
            br#"[{"message":"m"}]"#,
            br#"[{"level":"error"}]"#,
            br#"[{"level":"error","message":"m","line":"3"}]"#,
            br#"[{"level":"error","message":"m","line":-1}]"#,
            br#"["text"]"#,
        ] {
            assert!(
                parse_output(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn a_failed_validators_stderr_is_shown_up_to_a_limit() {
        assert_eq!(stderr_lines(b""), "");
        assert_eq!(stderr_lines(b"\n\nboom\n"), "\n  stderr: boom");
        let many = (0..25).fold(String::new(), |mut text, i| {
            let _ = writeln!(text, "line {i}");
            text
        });
        let shown = stderr_lines(many.as_bytes());
        assert!(shown.ends_with("\n  stderr: ... 5 more lines"), "{shown}");
        assert_eq!(shown.matches("\n  stderr: line").count(), STDERR_LINES);
    }

    #[test]
    fn strict_checks_fail_on_warnings_and_on_validators_that_could_not_run() {
        let warning = Entry {
            validator: None,
            rule: None,
            level: Severity::Warning,
            message: "m".to_owned(),
            line: None,
            column: None,
        };
        let warned = PlanCheck {
            entries: vec![warning],
            ..PlanCheck::default()
        };
        assert!(warned.passes(false));
        assert!(!warned.passes(true));
        let skipped = PlanCheck {
            skipped: vec!["validator 'x' failed".to_owned()],
            ..PlanCheck::default()
        };
        assert!(skipped.passes(false));
        assert!(!skipped.passes(true));
    }
}
