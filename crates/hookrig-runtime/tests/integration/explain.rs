//! `explain` and `list` as typed values.

use hookrig_core::{Dialect, SkipReason};
use hookrig_dialects::LoadOptions;
use hookrig_runtime::{Select, Trust, explain, list};

use crate::support::{scope, world};

#[test]
fn explain_orders_the_chain_and_says_why_the_others_do_not_run() {
    let env = world();
    env.write_global_config(
        "[[hooks]]\nname = \"mine\"\nevents = [\"tool.before\"]\ncommand = \"true\"\npriority = 50\n",
    );
    env.write_project_config(
        r#"
        [[hooks]]
        name = "writes"
        events = ["tool.before"]
        matcher = "^write$"
        command = "true"

        [[hooks]]
        name = "bash"
        events = ["tool.before"]
        matcher = "^bash$"
        command = "true"
        "#,
    );
    let explanation = explain(
        &scope(&env),
        "PreToolUse",
        Some("bash"),
        &LoadOptions::default(),
    )
    .expect("explains");

    assert_eq!(explanation.event.as_str(), "tool.before");
    let considered: Vec<(&str, bool)> = explanation
        .hooks
        .iter()
        .map(|h| (h.name.as_str(), h.skip.is_none()))
        .collect();
    assert_eq!(
        considered,
        [("mine", true), ("writes", false), ("bash", true)]
    );
    assert!(matches!(
        explanation.hooks[1].skip,
        Some(SkipReason::Matcher { .. })
    ));
    assert!(
        explanation
            .hooks
            .iter()
            .all(|h| h.dialect == Dialect::Native)
    );
}

#[test]
fn an_undeclared_version_is_an_error_not_a_custom_event() {
    let env = world();
    let err = explain(
        &scope(&env),
        "tool.before@v2",
        None,
        &LoadOptions::default(),
    )
    .expect_err("refused");
    assert!(err.to_string().contains("has no version v2"), "{err}");
}

#[test]
fn list_selects_by_event_or_name_and_suggests_a_close_name() {
    let env = world();
    env.write_global_config(
        "[[hooks]]\nname = \"guard\"\nevents = [\"tool.before\"]\ncommand = \"true\"\n",
    );
    let mut untrusted = scope(&env);
    untrusted.env.trust_all = false;
    env.write_project_config(
        "[[hooks]]\nname = \"notes\"\nevents = [\"session.start\"]\ncommand = \"true\"\n",
    );
    let options = LoadOptions::default();

    let all = list(&untrusted, Select::All, &options).expect("lists");
    let names: Vec<(&str, Trust)> = all
        .hooks
        .iter()
        .map(|h| (h.spec.name.as_str(), Trust::of(h)))
        .collect();
    assert_eq!(names, [("guard", Trust::User), ("notes", Trust::Untrusted)]);

    let by_event = list(&untrusted, Select::Event("PreToolUse"), &options).expect("lists");
    assert_eq!(by_event.hooks.len(), 1);
    assert_eq!(by_event.hooks[0].spec.name, "guard");

    let missing = list(&untrusted, Select::Name("gaurd"), &options).expect("lists");
    assert!(missing.hooks.is_empty());
    assert_eq!(missing.closest.as_deref(), Some("guard"));
}
