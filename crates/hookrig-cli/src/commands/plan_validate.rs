//! `hookrig plan validate`: the built-in checks of hookrig-plan, then every external
//! validator (Hence's validator plugins), merged into one list.
//!
//! External validators are the executables in `.hookrig/validators/` and
//! `.hence/validators/` nearest to the plan (local first), then in
//! `$XDG_CONFIG_HOME/hookrig/validators/` and `$XDG_CONFIG_HOME/hence/validators/`, then
//! the `validators` of the plugin packages enabled for the agent. Each gets the plan
//! path as `$1`, `HOOKRIG_PLAN`/`HENCE_PLAN` (absolute) and
//! `HOOKRIG_STRICT`/`HENCE_STRICT` (`true`/`false`), and prints a JSON array of
//! `{level, message, line?, rule?}` on stdout. A validator that cannot be used is
//! skipped with Hence's warning; it never stops the others. A project validator runs
//! only once `hookrig trust` recorded its content; until then it is skipped with a
//! warning.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::future::join_all;
use hookrig_config::{Environment, find_project};
use hookrig_dialects::PackageRef;
use hookrig_exec::{EnvPolicy, ProcessGroups, ProcessSpec, Termination, run_process};
use hookrig_plan::plan::Plan;
use hookrig_plan::spl;
use hookrig_plan::validate::{self, Severity};
use serde::Serialize;
use serde_json::Value;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;
use hookrig_exec::{Probe, probe};

/// Between SIGTERM and SIGKILL for a validator that ran out of time (Hence's grace for
/// hooks).
const KILL_GRACE: Duration = Duration::from_secs(5);

/// A validator's stdout beyond this is cut (and then fails to parse): diagnostics of
/// any real plan are far smaller.
const STDOUT_CAP: usize = 4 * 1024 * 1024;

/// Kept for nothing but draining: a validator's stderr goes nowhere.
const STDERR_CAP: usize = 64 * 1024;

/// What `plan validate` is asked.
pub(crate) struct Request<'a> {
    /// The plan file.
    pub(crate) plan: &'a Path,
    /// Warnings fail too.
    pub(crate) strict: bool,
    /// Print JSON.
    pub(crate) json: bool,
    /// The plugin packages enabled for the agent.
    pub(crate) packages: Vec<PackageRef>,
}

/// One diagnostic in the merged list.
#[derive(Debug, Serialize)]
struct Entry {
    /// `null` for a built-in rule, else the validator's name (shown as `[name]`).
    validator: Option<String>,
    rule: Option<String>,
    level: Severity,
    message: String,
    line: Option<u64>,
    column: Option<u64>,
}

/// The JSON of `plan validate --json`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    plan: String,
    strict: bool,
    ok: bool,
    errors: usize,
    warnings: usize,
    diagnostics: &'a [Entry],
    /// Validators that could not be used (Hence's warnings), in run order.
    skipped: &'a [String],
}

/// A validator and what it gave: its diagnostics, or the warning saying why it was
/// skipped.
type Ran = (Validator, Result<Vec<Entry>, String>);

/// An external validator to run.
#[derive(Debug, Clone)]
struct Validator {
    name: String,
    path: PathBuf,
    /// False for a project validator not trusted as it is now: reported, never run.
    trusted: bool,
}

/// `plan validate`: the plan is the positional file, else `--plan`, else `hookrig
/// --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`.
pub(crate) fn command(
    global: &crate::cli::GlobalArgs,
    args: &crate::cli::PlanValidateArgs,
    top_agent: Option<&std::ffi::OsStr>,
    top_plan: Option<&Path>,
) -> Result<u8, ExpectedError> {
    let plan =
        super::plan_file::plan_path(args.file.as_deref().or(args.plan.as_deref()), top_plan)?;
    let (_, packages) = crate::config_scope(global, None, args.agent.clone(), top_agent)?;
    run(&Request {
        plan: &plan,
        strict: args.strict,
        json: args.json,
        packages,
    })
}

pub(crate) fn run(request: &Request<'_>) -> Result<u8, ExpectedError> {
    let cwd = std::env::current_dir().map_err(ExpectedError::Cwd)?;
    let plan_path = request.plan;
    // Normalised, so that `../plan.spl` finds the project (and its trust) that the plan
    // path without `..` finds, and validators see that path in `HENCE_PLAN`.
    let absolute = hookrig_config::normal_path(&cwd.join(plan_path));
    let text = std::fs::read_to_string(plan_path).map_err(|source| ExpectedError::ReadPlan {
        path: plan_path.to_owned(),
        source,
    })?;
    let shown = plan_path.display().to_string();

    let mut entries = Vec::new();
    let statements = match spl::parse(plan_path, &text) {
        Ok(statements) => Some(statements),
        Err(err) => {
            entries.push(Entry {
                validator: None,
                rule: Some("syntax".to_owned()),
                level: Severity::Error,
                message: err.message.clone(),
                line: Some(err.line as u64),
                column: Some(err.col as u64),
            });
            None
        }
    };
    if let Some(statements) = &statements {
        let env = Environment::from_process(cwd.clone())?;
        let mut config_warnings = Vec::new();
        let config = hookrig_config::load_config_toml(&env, &mut config_warnings)?;
        for warning in config_warnings {
            eprintln!("hookrig: warning: {warning}");
        }
        let providers: Vec<String> = config
            .providers
            .iter()
            .map(|p| p.value.id.clone())
            .collect();
        let plan = Plan::new(statements);
        entries.extend(
            validate::validate(&text, statements, &plan, &providers)
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

        let validators = discover(&absolute, &env, &request.packages);
        let timeout = config.hook_timeout();
        let mut skipped = Vec::new();
        for (validator, outcome) in run_all(
            &validators,
            plan_path,
            &absolute,
            request.strict,
            timeout,
            &cwd,
        )? {
            match outcome {
                Ok(found) => entries.extend(found.into_iter().map(|mut e| {
                    e.validator = Some(validator.name.clone());
                    e
                })),
                Err(warning) => skipped.push(warning),
            }
        }
        return finish(request, &shown, &entries, &skipped);
    }
    finish(request, &shown, &entries, &[])
}

fn finish(
    request: &Request<'_>,
    shown: &str,
    entries: &[Entry],
    skipped: &[String],
) -> Result<u8, ExpectedError> {
    let errors = entries
        .iter()
        .filter(|e| e.level == Severity::Error)
        .count();
    let warnings = entries.len() - errors;
    // A validator that could not run is a warning too: under --strict a broken team rule
    // must not pass silently.
    let ok = errors == 0 && !(request.strict && (warnings > 0 || !skipped.is_empty()));
    if request.json {
        let report = Report {
            plan: shown.to_owned(),
            strict: request.strict,
            ok,
            errors,
            warnings,
            diagnostics: entries,
            skipped,
        };
        let mut out = serde_json::to_string_pretty(&report).unwrap_or_default();
        out.push('\n');
        print(&out)?;
    } else {
        for warning in skipped {
            eprintln!("hookrig: warning: {warning}");
        }
        let mut out = String::new();
        for entry in entries {
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
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let _ = writeln!(
            out,
            "{shown}: {}, {}{}",
            plural(errors, "error"),
            plural(warnings, "warning"),
            if request.strict { " (strict)" } else { "" }
        );
        print(&out)?;
    }
    Ok(if ok {
        exit_codes::PROCEED
    } else {
        exit_codes::FAILURE
    })
}

/// The validators, in run order: local (nearest to the plan) `.hookrig/validators/`
/// then `.hence/validators/`, global hookrig then hence, then plugin packages. Within
/// a directory, by file name; names starting with `.` are left out (editor and VCS
/// files).
fn discover(plan: &Path, env: &Environment, packages: &[PackageRef]) -> Vec<Validator> {
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
        Some(hookrig_config::TrustStore::load(&path).unwrap_or_else(|err| {
            eprintln!(
                "hookrig: warning: {err}; no project validator is trusted until the file is fixed or removed"
            );
            hookrig_config::TrustStore::default()
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
    for package in packages {
        let check = hookrig_dialects::check_package(env, package);
        match check.package {
            Some(loaded) => {
                // Enabled plugin packages are the user's choice, trusted as such.
                validators.extend(loaded.validators.into_iter().map(|file| Validator {
                    name: file.name,
                    path: file.path,
                    trusted: true,
                }));
            }
            None => eprintln!(
                "hookrig: warning: plugin package {} is not loaded, its validators do not run",
                package.id
            ),
        }
    }
    validators
}

/// Runs every usable validator at once, each under `timeout`; the results come back in
/// discovery order: its diagnostics, or the warning that says why it was skipped.
fn run_all(
    validators: &[Validator],
    plan: &Path,
    absolute: &Path,
    strict: bool,
    timeout: Duration,
    cwd: &Path,
) -> Result<Vec<Ran>, ExpectedError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    let groups = ProcessGroups::new();
    let strict = if strict { "true" } else { "false" };
    let runs = validators.iter().map(|validator| {
        let groups = &groups;
        async move {
            let name = &validator.name;
            if !validator.trusted {
                return (
                    validator.clone(),
                    Err(format!(
                        "validator '{name}' is not trusted; review it, then run hookrig trust"
                    )),
                );
            }
            match probe(&validator.path) {
                Probe::Executable => {}
                Probe::NotExecutable => {
                    return (
                        validator.clone(),
                        Err(format!("validator '{name}' is not executable, skipping")),
                    );
                }
                Probe::Missing => {
                    return (
                        validator.clone(),
                        Err(format!(
                            "validator '{name}' not found at {}",
                            validator.path.display()
                        )),
                    );
                }
            }
            // The exec layer takes UTF-8 variables; a plan path that is not UTF-8 is
            // passed lossily here (and exactly as `$1`).
            let absolute = absolute.to_string_lossy().into_owned();
            let set = vec![
                ("HOOKRIG_PLAN".to_owned(), absolute.clone()),
                ("HENCE_PLAN".to_owned(), absolute),
                ("HOOKRIG_STRICT".to_owned(), strict.to_owned()),
                ("HENCE_STRICT".to_owned(), strict.to_owned()),
            ];
            let spec = ProcessSpec {
                program: validator.path.clone().into_os_string(),
                args: vec![plan.as_os_str().to_owned()],
                cwd: cwd.to_owned(),
                env: EnvPolicy::Inherit { set },
                stdin: Vec::new(),
                timeout: Some(timeout),
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
                        parse_output(&output.stdout).ok_or_else(|| {
                            format!("validator '{name}' output invalid JSON, skipping")
                        })
                    }
                }
                Termination::Signaled(_)
                | Termination::SpawnFailed(_)
                | Termination::Interrupted => Err(format!("validator '{name}' failed")),
            };
            // A validator that could not be used says why on its stderr, or nowhere.
            if let Err(warning) = &mut result {
                warning.push_str(&stderr_lines(&output.stderr));
            }
            (validator.clone(), result)
        }
    });
    Ok(runtime.block_on(join_all(runs)))
}

/// How many lines of a failed validator's stderr its warning shows.
const STDERR_LINES: usize = 20;

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
}
