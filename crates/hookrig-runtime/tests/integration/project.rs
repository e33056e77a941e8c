//! What the runtime answers about a project as library calls: `validate`, `trust`,
//! plan checks with their validators, and board formatters.

use std::path::PathBuf;

use hookrig_core::Severity;
use hookrig_dialects::LoadOptions;
use hookrig_runtime::trust::{self, Approved};
use hookrig_runtime::{PlanFile, RuntimeError, Scope, check_plan, format_board, validate};
use hookrig_test_support::TestEnv;

use crate::support::{scope, world};

/// The scope of `env`'s project with trust enforced, as a user's would be.
fn untrusting(env: &TestEnv) -> Scope {
    let mut scope = scope(env);
    scope.env.trust_all = false;
    scope
}

/// `scope` working on the plan `plan`.
fn with_plan(mut scope: Scope, plan: PathBuf) -> Scope {
    scope.plan = Some(PlanFile::new(plan));
    scope
}

#[test]
fn validate_places_a_missing_script_at_its_hooks_declaration() {
    let env = world();
    env.write_project_config(
        "[[hooks]]\nname = \"fine\"\nevents = [\"tool.before\"]\nexec = [\"true\"]\n\n\
         [[hooks]]\nname = \"missing\"\nevents = [\"tool.before\"]\ncommand = \"./nope.sh\"\n",
    );

    let validation = validate(&scope(&env), &LoadOptions::default()).expect("validates");

    assert_eq!(validation.errors(), 1, "{:?}", validation.diagnostics);
    let error = &validation.diagnostics[0];
    assert_eq!(error.severity, Severity::Error);
    assert_eq!(error.path, env.project_config_path());
    assert_eq!(error.line, Some(6), "{error}");
    assert!(error.message.contains("hook `missing`"), "{error}");
    assert!(!validation.passes(false));
}

#[test]
fn trust_approves_what_the_project_brings_once_and_revoke_forgets_it() {
    let env = world();
    env.write_project_config(
        "[[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\nexec = [\"true\"]\n",
    );
    let config = env.write_file(".hookrig/config.toml", "[settings]\nhook_timeout = 5\n");
    let validator = env.write_script(".hookrig/validators/lint", "echo '[]'\n");
    let scope = untrusting(&env);
    let automations = |_: &mut hookrig_config::TrustStore, root: &std::path::Path, _: i64| {
        vec![
            root.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        ]
    };

    let first = trust::trust(&scope, &automations).expect("trusts");
    assert!(first.skipped.is_empty(), "{:?}", first.skipped);
    assert_eq!(
        first.approved,
        [
            Approved::Hook {
                name: "guard".to_owned(),
                dialect: hookrig_core::Dialect::Native,
                source: env.project_config_path(),
                changed: true,
            },
            Approved::Automation("project".to_owned()),
            Approved::Config {
                file: config,
                changed: true,
            },
            Approved::Validator {
                name: "lint".to_owned(),
                file: validator,
                changed: true,
            },
        ]
    );
    let again = trust::trust(&scope, &automations).expect("trusts again");
    assert!(
        again.approved.iter().all(|item| !matches!(
            item,
            Approved::Hook { changed: true, .. }
                | Approved::Config { changed: true, .. }
                | Approved::Validator { changed: true, .. }
        )),
        "{:?}",
        again.approved
    );
    // The hook, config.toml and the validator; automation files are the callback's.
    assert_eq!(trust::trusted(&scope).expect("lists").hooks.len(), 3);

    let revoked = trust::revoke(&scope).expect("revokes");
    assert_eq!(revoked.under, env.project());
    assert_eq!(revoked.count, 3, "{revoked:?}");
    assert!(trust::trusted(&scope).expect("lists").hooks.is_empty());
}

#[test]
fn a_plan_that_does_not_parse_is_one_syntax_error_and_no_validator_runs() {
    let env = world();
    let ran = env.root().join("ran");
    let global = env.config_home().join("hookrig/validators/touch");
    hookrig_test_support::write_executable(
        &global,
        &format!("touch '{}'\necho '[]'\n", ran.display()),
    );
    let plan = env.write_file("plan.spl", "(given task-a\n");
    let scope = with_plan(scope(&env), plan);

    let check = check_plan(&scope, scope.plan.as_ref().expect("a plan"), false).expect("checks");

    assert_eq!(check.entries.len(), 1, "{:?}", check.entries);
    assert_eq!(check.entries[0].rule.as_deref(), Some("syntax"));
    assert!(!check.passes(false));
    assert!(
        !ran.exists(),
        "a validator ran on a plan that does not parse"
    );
}

#[test]
fn validators_get_the_scopes_variables_and_an_untrusted_one_is_skipped() {
    let env = world();
    let global = env.config_home().join("hookrig/validators/echo");
    hookrig_test_support::write_executable(
        &global,
        "printf '[{\"level\":\"warning\",\"message\":\"%s %s %s\"}]' \"$HOOKRIG_PLAN\" \"$HENCE_AGENT\" \"$HOOKRIG_STRICT\"\n",
    );
    env.write_script(".hookrig/validators/local", "echo '[]'\n");
    let plan = env.write_file(
        "plan.spl",
        "(given task-a)\n(meta task-a (description \"A\") (acceptance \"B\"))\n",
    );
    let mut scope = with_plan(untrusting(&env), plan.clone());
    scope.agent = Some("coder".to_owned());

    let check = check_plan(&scope, scope.plan.as_ref().expect("a plan"), true).expect("checks");

    let echoed: Vec<&str> = check
        .entries
        .iter()
        .filter(|e| e.validator.as_deref() == Some("echo"))
        .map(|e| e.message.as_str())
        .collect();
    let absolute = PlanFile::new(plan).path;
    assert_eq!(echoed, [format!("{} coder true", absolute.display())]);
    assert_eq!(
        check.skipped,
        ["validator 'local' is not trusted; review it, then run hookrig trust"]
    );
    assert!(!check.passes(true));
}

#[test]
fn a_board_formatter_from_plugin_path_gets_the_board_and_the_scopes_plan() {
    let env = world();
    let tools = env.root().join("tools");
    hookrig_test_support::write_executable(
        &tools.join("hookrig-board-echo"),
        "cat\necho \" $HOOKRIG_PLAN\"\n",
    );
    std::fs::create_dir_all(env.config_home().join("hookrig")).expect("config dir");
    std::fs::write(
        env.config_home().join("hookrig/config.toml"),
        format!("[settings]\nplugin_path = [\"{}\"]\n", tools.display()),
    )
    .expect("config.toml");
    let plan = env.write_file("plan.spl", "(given task-a)\n");
    let scope = with_plan(scope(&env), plan.clone());

    let mut warnings = Vec::new();
    let out =
        format_board(&scope, "echo", b"{}".to_vec(), &mut |w| warnings.push(w)).expect("formats");
    assert_eq!(
        String::from_utf8_lossy(&out),
        format!("{{}} {}\n", plan.display())
    );
    assert!(warnings.is_empty(), "{warnings:?}");

    let unknown = format_board(&scope, "nope", b"{}".to_vec(), &mut |_| {}).expect_err("unknown");
    assert!(
        matches!(&unknown, RuntimeError::UnknownFormat { found, .. } if found == &["echo"]),
        "{unknown}"
    );
}
