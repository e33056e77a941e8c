//! Which hooks an event would run, in order, and why the others would not: the answer
//! to "my hook didn't fire" before anything runs.

use std::fmt;
use std::path::PathBuf;

use hookrig_core::{Dialect, EventName, Mode, SkipReason, plan};
use hookrig_dialects::{LoadOptions, Shadowed};
use hookrig_exec::ProcessGroups;

use crate::errors::RuntimeError;
use crate::registry;
use crate::scope::Scope;

/// What an event would do in a scope.
#[derive(Debug)]
pub struct Explanation {
    /// The event.
    pub event: EventName,
    /// The tool it was explained for.
    pub tool: Option<String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Whether no hook is configured at all.
    pub nothing_configured: bool,
    /// Every hook considered, in the order a dispatch would consider them.
    pub hooks: Vec<Considered>,
    /// Hooks left out as duplicates of one that runs, that listen to the event.
    pub shadowed: Vec<Shadowed>,
    /// The config's warnings (sources left out, unknown keys).
    pub warnings: Vec<String>,
}

/// One hook a dispatch would consider.
#[derive(Debug)]
pub struct Considered {
    /// Its name.
    pub name: String,
    /// Its dialect.
    pub dialect: Dialect,
    /// The file that declared it.
    pub source: PathBuf,
    /// Its priority.
    pub priority: i32,
    /// Sync or async.
    pub mode: Mode,
    /// Why it would not run; `None` when it would.
    pub skip: Option<SkipReason>,
    /// For an untrusted hook, why and what to run.
    pub untrusted_because: Option<String>,
}

/// Explains `event` (any accepted spelling) for `tool` in the scope. Handlers are built
/// but never run: explaining must not start anything.
pub fn explain(
    scope: &Scope,
    event: &str,
    tool: Option<&str>,
    options: &LoadOptions,
) -> Result<Explanation, RuntimeError> {
    let config = registry::load(scope, options)?;
    let registry = registry::registry(&config, &ProcessGroups::new(), None, None);
    let event = hookrig_dialects::events::parse(event)?;
    let hooks = plan(&registry, &event, tool)
        .into_iter()
        .map(|planned| {
            let spec = &planned.hook.spec;
            Considered {
                name: spec.name.clone(),
                dialect: spec.source.dialect,
                source: spec.source.path.clone(),
                priority: spec.priority,
                mode: spec.mode,
                untrusted_because: match planned.skip {
                    Some(SkipReason::Untrusted) => spec.untrusted.clone(),
                    _ => None,
                },
                skip: planned.skip,
            }
        })
        .collect();
    let shadowed = config
        .shadowed
        .iter()
        .filter(|s| s.hook.spec.listens_to(&event))
        .cloned()
        .collect();
    Ok(Explanation {
        tool: tool.map(str::to_owned),
        cwd: scope.cwd().to_owned(),
        nothing_configured: registry.is_empty(),
        hooks,
        shadowed,
        warnings: config.warnings.iter().map(ToString::to_string).collect(),
        event,
    })
}

impl fmt::Display for Explanation {
    /// `hookrig explain`: the event, then each hook in the order it would run with
    /// whether it runs and why not, then the shadowed duplicates and the warnings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let explanation = self;
        let event = &explanation.event;
        write!(f, "event {} ({})", event, event.kind())?;
        if !event.is_known() {
            f.write_str(", a custom event")?;
        }
        if let Some(tool) = &explanation.tool {
            write!(f, ", tool {tool}")?;
        }
        writeln!(f, ", in {}", explanation.cwd.display())?;
        if explanation.nothing_configured {
            f.write_str("\n(no hooks configured)\n")?;
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
                    writeln!(
                        f,
                        "\n{step:>3}. {place}\n     runs (priority {}{how})",
                        hook.priority
                    )?;
                }
                Some(skip) => {
                    writeln!(f, "\n   - {place}\n     does not run: {skip}")?;
                    if let (SkipReason::Untrusted, Some(why)) = (skip, &hook.untrusted_because) {
                        writeln!(f, "     {why}")?;
                    }
                }
            }
        }
        for shadowed in &explanation.shadowed {
            let spec = &shadowed.hook.spec;
            writeln!(
                f,
                "\n   - {} ({}, {})\n     does not run: shadowed duplicate of {} (an identical handler runs once)",
                spec.name,
                spec.source.dialect,
                spec.source.path.display(),
                shadowed.by
            )?;
        }
        for warning in &explanation.warnings {
            writeln!(f, "\nwarning: {warning}")?;
        }
        Ok(())
    }
}
