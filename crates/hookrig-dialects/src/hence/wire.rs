//! What a Hence hook reads: no stdin and no JSON, but three positional arguments and
//! the `HENCE_*` variables, all read from the canonical payload here. Hence hooks
//! answer with their exit status only, so there is no reply format.

use std::path::{Path, PathBuf};

use hookrig_config::HookPoint;
use hookrig_core::Invocation;
use serde_json::Value;

use super::loader::HenceHook;

/// What the event tells a Hence hook, read from the canonical payload.
pub(crate) struct Presented {
    /// The plan path as given.
    pub(crate) plan: String,
    /// The plan path made absolute; empty when there is no plan.
    pub(crate) plan_absolute: String,
    /// The task name; empty for `post-assert`.
    pub(crate) task: String,
    /// `$2`: the task name, or for `post-assert` the asserted expression.
    pub(crate) second: String,
    pub(crate) agent: String,
}

impl Presented {
    pub(crate) fn read(def: &HenceHook, invocation: &Invocation) -> Self {
        let payload = invocation.payload.as_map();
        let field = |key: &str| match payload.get(key) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
        };
        let plan = field("plan");
        let plan_absolute = if plan.is_empty() {
            String::new()
        } else {
            absolute(&invocation.context.cwd, Path::new(&plan))
                .to_string_lossy()
                .into_owned()
        };
        let (task, second) = if def.point == HookPoint::PostAssert {
            (String::new(), field("expression"))
        } else {
            let task = field("task");
            (task.clone(), task)
        };
        Self {
            plan,
            plan_absolute,
            task,
            second,
            agent: field("agent"),
        }
    }
}

/// `path` against `cwd`, normalised (no `.` or `..`) as trust lookups see it.
fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    hookrig_config::normal_path(&cwd.join(path))
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::sync::Arc;

    use hookrig_core::{EventContext, EventName, Payload};
    use serde_json::json;

    use super::*;

    fn presented(point: HookPoint, event: &str, payload: Value) -> Presented {
        let Value::Object(map) = payload else {
            panic!("payload must be an object")
        };
        let invocation = Invocation {
            context: Arc::new(EventContext {
                name: EventName::resolve(event),
                session_id: "s1".to_owned(),
                cwd: PathBuf::from("/project"),
                env: None,
            }),
            payload: Payload::from_map(map),
        };
        Presented::read(&HenceHook { point }, &invocation)
    }

    #[test]
    fn what_each_hook_point_reads() {
        let payload = json!({"plan": "plans/plan.spl", "task": "auth", "agent": "coder", "expression": "(given done)"});
        let mut shown = String::new();
        for point in HookPoint::ALL {
            let p = presented(
                point,
                super::super::events::event_of(point),
                payload.clone(),
            );
            let _ = writeln!(
                shown,
                "{}: args [{:?}, {:?}, {:?}] plan {:?} task {:?}",
                point.name(),
                p.plan,
                p.second,
                p.agent,
                p.plan_absolute,
                p.task
            );
        }
        insta::assert_snapshot!(shown);
    }

    #[test]
    fn plan_is_made_absolute_against_the_event_directory() {
        assert_eq!(
            absolute(Path::new("/srv/repo"), Path::new("./plans/plan.spl")),
            PathBuf::from("/srv/repo/plans/plan.spl")
        );
        assert_eq!(
            absolute(Path::new("/srv/repo"), Path::new("/elsewhere/plan.spl")),
            PathBuf::from("/elsewhere/plan.spl")
        );
        // guards: `HENCE_PLAN` gets the normalised path, without `..`, as trust sees it
        assert_eq!(
            absolute(Path::new("/srv/repo/sub"), Path::new("../plan.spl")),
            PathBuf::from("/srv/repo/plan.spl")
        );
    }
}
