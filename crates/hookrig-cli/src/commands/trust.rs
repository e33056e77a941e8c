//! `hookrig trust`: approve the hooks, automation files, config.toml files and plan
//! validators a project brings, as they are now; `--revoke` and `--list`.

use std::fmt::Write;

use hookrig_runtime::Scope;
use hookrig_runtime::trust::{self, Approved};

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{count, print, report_errors, table};

pub(crate) fn run(scope: &Scope, list: bool, revoke: bool) -> Result<u8, ExpectedError> {
    let text = if list {
        let store = trust::trusted(scope)?;
        if store.hooks.is_empty() {
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
        }
    } else if revoke {
        let revoked = trust::revoke(scope)?;
        format!(
            "revoked trust in {} under {}\n",
            count(revoked.count, "hook"),
            revoked.under.display()
        )
    } else {
        let trusted = trust::trust(
            scope,
            &hookrig_automation::definition::trust_project_automations,
        )?;
        // A file skipped for an error is not trusted: say so, so that it is fixed and
        // trusted again.
        report_errors(&trusted.skipped);
        approved_text(&trusted.approved)
    };
    print(&text)?;
    Ok(exit_codes::PROCEED)
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
