//! `hookrig explain EVENT`: which hooks an event would run, and why the others would not.

use std::fmt::Write;
use std::path::PathBuf;

use hookrig_core::{Mode, SkipReason};
use hookrig_runtime::{Explanation, Scope};

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

pub(crate) fn run(
    scope: &Scope,
    event: &str,
    tool: Option<&str>,
    plugin_dirs: &[PathBuf],
) -> Result<u8, ExpectedError> {
    let options = scope.load_options(plugin_dirs)?;
    let explanation = hookrig_runtime::explain(scope, event, tool, &options)?;
    print(&render(&explanation))?;
    Ok(exit_codes::PROCEED)
}

fn render(explanation: &Explanation) -> String {
    let event = &explanation.event;
    let mut text = format!("event {} ({})", event, event.kind());
    if !event.is_known() {
        text.push_str(", a custom event");
    }
    if let Some(tool) = &explanation.tool {
        let _ = write!(text, ", tool {tool}");
    }
    let _ = writeln!(text, ", in {}", explanation.cwd.display());
    if explanation.nothing_configured {
        text.push_str("\n(no hooks configured)\n");
    }
    let mut step = 0;
    for hook in &explanation.hooks {
        let place = format!(
            "{} ({}, {})",
            hook.name,
            hook.dialect,
            hook.source.display()
        );
        match &hook.skip {
            None => {
                step += 1;
                let how = match hook.mode {
                    Mode::Async => ", async: started, not awaited",
                    Mode::Sync => "",
                };
                let _ = writeln!(
                    text,
                    "\n{step:>3}. {place}\n     runs (priority {}{how})",
                    hook.priority
                );
            }
            Some(skip) => {
                let _ = writeln!(text, "\n   - {place}\n     does not run: {skip}");
                if let (SkipReason::Untrusted, Some(why)) = (skip, &hook.untrusted_because) {
                    let _ = writeln!(text, "     {why}");
                }
            }
        }
    }
    for shadowed in &explanation.shadowed {
        let spec = &shadowed.hook.spec;
        let _ = writeln!(
            text,
            "\n   - {} ({}, {})\n     does not run: shadowed duplicate of {} (an identical handler runs once)",
            spec.name,
            spec.source.dialect,
            spec.source.path.display(),
            shadowed.by
        );
    }
    for warning in &explanation.warnings {
        let _ = writeln!(text, "\nwarning: {warning}");
    }
    text
}
