//! `hookrig explain EVENT`: which hooks an event would run, and why the others would not.

use std::fmt::Write;
use std::path::Path;

use hookrig_core::{EventName, Mode, SkipReason, plan};
use hookrig_dialects::LoadOptions;
use hookrig_exec::ProcessGroups;

use crate::engine;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

pub(crate) fn run(
    cwd: Option<&Path>,
    event: &str,
    tool: Option<&str>,
    options: &LoadOptions,
) -> Result<u8, ExpectedError> {
    let (env, config) = engine::load(cwd, options)?;
    // Handlers are built but never run: explaining must not start anything.
    let registry = engine::registry(&config, &ProcessGroups::new());
    let event = EventName::parse(event)?;
    let mut text = format!("event {} ({})", event, event.kind());
    if !event.is_known() {
        text.push_str(", a custom event");
    }
    if let Some(tool) = tool {
        let _ = write!(text, ", tool {tool}");
    }
    let _ = writeln!(text, ", in {}", env.cwd.display());
    if registry.is_empty() {
        text.push_str("\n(no hooks configured)\n");
    }
    let mut step = 0;
    for planned in plan(&registry, &event, tool) {
        let spec = &planned.hook.spec;
        let place = format!(
            "{} ({}, {})",
            spec.name,
            spec.source.dialect,
            spec.source.path.display()
        );
        match &planned.skip {
            None => {
                step += 1;
                let how = match spec.mode {
                    Mode::Async => ", async: started, not awaited",
                    Mode::Sync => "",
                };
                let _ = writeln!(
                    text,
                    "\n{step:>3}. {place}\n     runs (priority {}{how})",
                    spec.priority
                );
            }
            Some(skip) => {
                let _ = writeln!(text, "\n   - {place}\n     does not run: {skip}");
                if let (SkipReason::Untrusted, Some(why)) = (skip, &spec.untrusted) {
                    let _ = writeln!(text, "     {why}");
                }
            }
        }
    }
    for shadowed in config
        .shadowed
        .iter()
        .filter(|s| s.hook.spec.listens_to(&event))
    {
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
    for warning in &config.warnings {
        let _ = writeln!(text, "\nwarning: {warning}");
    }
    print(&text)?;
    Ok(exit_codes::PROCEED)
}
