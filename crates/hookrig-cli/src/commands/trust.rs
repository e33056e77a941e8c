//! `hookrig trust`: approve the hooks, automation files, config.toml files and plan
//! validators a project brings, as they are now; `--revoke` and `--list`.

use std::fmt::Write;

use hookrig_runtime::Scope;
use hookrig_runtime::trust::{self, Approved};

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{count, print, report_errors, table};

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
        What::List => list_text(&trust::trusted(scope)?),
        What::Revoke => {
            let revoked = trust::revoke(scope)?;
            format!(
                "revoked trust in {} under {}\n",
                count(revoked.count, "hook"),
                revoked.under.display()
            )
        }
        What::AnyProject { on } => {
            let changed = trust::trust_any_project(scope, on)?;
            match (on, changed) {
                (true, true) => "every project's hooks are now trusted on this machine, whatever they are; `hookrig trust --any-project --revoke` undoes it\n",
                (true, false) => "every project's hooks were already trusted on this machine\n",
                (false, true) => "projects are trusted one by one again, as `hookrig trust DIR` recorded them\n",
                (false, false) => "projects were already trusted one by one\n",
            }
            .to_owned()
        }
        What::Project => {
            let trusted = trust::trust(
                scope,
                &hookrig_automation::definition::trust_project_automations,
            )?;
            // A file skipped for an error is not trusted: say so, so that it is fixed and
            // trusted again.
            report_errors(&trusted.skipped);
            approved_text(&trusted.approved)
        }
    };
    print(&text)?;
    Ok(exit_codes::PROCEED)
}

/// `--list`: the trusted hooks, and the machine-wide switch when it is on.
fn list_text(store: &hookrig_config::TrustStore) -> String {
    let mut text = String::new();
    if store.any_project {
        text.push_str("every project is trusted on this machine (hookrig trust --any-project)\n");
    }
    text.push_str(&if store.hooks.is_empty() {
        "(no trusted project hooks)\n".to_owned()
    } else {
        let rows: Vec<[String; 3]> = store
            .hooks
            .values()
            .map(|h| {
                [
                    h.name.clone(),
                    h.dialect.clone(),
                    h.source.display().to_string(),
                ]
            })
            .collect();
        table(&["NAME", "DIALECT", "SOURCE"], &rows)
    });
    text
}

/// One line per item trusted; a line saying so when there was none.
fn approved_text(approved: &[Approved]) -> String {
    let mut text = String::new();
    for item in approved {
        let (changed, what) = match item {
            Approved::Hook {
                name,
                dialect,
                source,
                changed,
            } => (
                *changed,
                format!("{name} ({dialect}, {})", source.display()),
            ),
            Approved::Automation(id) => (true, format!("automation {id}")),
            Approved::Config { file, changed } => (*changed, format!("config {}", file.display())),
            Approved::ClaudeSettings { file, changed } => {
                (*changed, format!("Claude Code settings {}", file.display()))
            }
            Approved::Validator {
                name,
                file,
                changed,
            } => (*changed, format!("validator {name} ({})", file.display())),
        };
        let verb = if changed {
            "trusted"
        } else {
            "already trusted"
        };
        let _ = writeln!(text, "{verb} {what}");
    }
    if approved.is_empty() {
        text.push_str(
            "no project hooks to trust
",
        );
    }
    text
}
