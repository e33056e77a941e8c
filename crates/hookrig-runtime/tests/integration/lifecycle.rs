//! A plan action through the runtime: the plan changes, then its events reach hooks.

use std::path::PathBuf;

use hookrig_plan::plan::Action;
use hookrig_runtime::lifecycle::perform;

use crate::support::{scope, world};

#[test]
fn a_claim_appends_to_the_plan_and_its_event_reaches_a_hook() {
    let env = world();
    let seen = env.root().join("seen");
    env.write_project_config(&format!(
        r#"
        [[hooks]]
        name = "claims"
        events = ["post-claim"]
        command = "cat > '{}'"
        "#,
        seen.display()
    ));
    let plan: PathBuf = env.write_file("plan.spl", "(given task-api)\n");
    let scope = scope(&env);

    let performed = perform(
        &scope,
        &plan,
        &Action::Claim {
            task: "api".to_owned(),
            force: true,
        },
        "coder",
    )
    .expect("claims");

    assert!(!performed.outcome.is_noop());
    assert!(
        performed.delivered.warnings.is_empty(),
        "{:?}",
        performed.delivered.warnings
    );
    let text = std::fs::read_to_string(&plan).expect("plan");
    assert!(text.contains("agent:coder"), "{text}");
    let event: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).expect("the hook ran"))
            .expect("the hook got JSON");
    assert_eq!(event["event"], "task.claimed", "{event}");
}
