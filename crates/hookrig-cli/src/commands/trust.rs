//! `hookrig trust`: approve the hooks, automation files, config.toml files and plan
//! validators a project brings, as they are now; `--revoke` and `--list`.

use hookrig_runtime::Scope;
use hookrig_runtime::trust;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, report_errors};

/// What `hookrig trust` was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// Trust the project as it is now.
    Project,
    /// `--list`.
    List,
    /// `--revoke`.
    Revoke,
    /// `--any-project` (`on`), `--any-project --revoke` (not).
    AnyProject { on: bool },
}

impl What {
    /// What `--any-project`, `--list` and `--revoke` ask for.
    pub(crate) fn of_flags(any_project: bool, list: bool, revoke: bool) -> What {
        match (any_project, list, revoke) {
            (true, _, revoke) => What::AnyProject { on: !revoke },
            (false, true, _) => What::List,
            (false, false, true) => What::Revoke,
            (false, false, false) => What::Project,
        }
    }
}

pub(crate) fn run(scope: &Scope, what: What) -> Result<u8, ExpectedError> {
    let text = match what {
        What::List => trust::list_text(&trust::trusted(scope)?),
        What::Revoke => trust::revoke(scope)?.to_string(),
        What::AnyProject { on } => {
            trust::any_project_text(on, trust::trust_any_project(scope, on)?).to_owned()
        }
        What::Project => {
            let trusted = trust::trust(
                scope,
                &hookrig_automation::definition::trust_project_automations,
            )?;
            // A file skipped for an error is not trusted: say so, so that it is fixed and
            // trusted again.
            report_errors(&trusted.skipped);
            trusted.text()
        }
    };
    print(&text)?;
    Ok(exit_codes::PROCEED)
}
