//! The engine wired to the real thing: the context steps ([`steps::run_steps`]), the
//! providers ([`Llm`]) and the notifiers ([`Notifiers`]), configured by one
//! `config.toml`; and where an automation works (its workspace) and what it watches.
//!
//! An automation's **workspace** is the project root of the file it was loaded from:
//! the nearest directory above the file holding `.git` (as [`default_project_id`]
//! names the project), else the file's own directory. An automation with no source
//! file, or whose file's directory is gone, works in the directory `hookrig serve` (or
//! `hookrig fire`) runs for: the project root of the working directory. Relative paths
//! of steps and of watch blocks, the notes directory of `memory_search` and the working
//! directory of CLI providers are all that workspace.
//!
//! [`default_project_id`]: crate::definition::default_project_id

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use hookrig_config::ConfigToml;
use hookrig_exec::ProcessGroups;
use hookrig_store::PgStore;
use serde_json::Value;

use crate::definition::{Automation, Trigger};
use crate::engine::{
    Answered, BoxFuture, EngineSettings, LlmBackend, RunObserver, RunPhase, StepRunner, Wiring,
    system_clock,
};
use crate::llm::Llm;
use crate::notifier::{Notifiers, Phase};
use crate::repository::{self, Workspace};
use crate::steps::{self, EmbeddingsEndpoint, MemoryOptions, StepEnv};
use crate::tool_loop::Limits;
use crate::tools::{ActionLog, BuiltinTools, PluginToolbox, ToolEnv, Toolbox, Toolboxes};
use crate::watch::{FILE_CHANGED, FOLDER_CHANGED, WatchKind, WatchRule};

/// The engine's settings from `[automation]` of `config`.
pub fn engine_settings(config: &ConfigToml) -> EngineSettings {
    EngineSettings {
        enabled: config.automation.enabled(),
        max_concurrent: usize::try_from(config.automation.max_concurrent()).unwrap_or(usize::MAX),
        run_timeout: config.automation.run_timeout(),
    }
}

/// The workspace of `automation` (see the module docs); `default_root` for an
/// automation without a usable source file.
pub fn workspace(automation: &Automation, default_root: &Path) -> PathBuf {
    automation
        .source
        .as_deref()
        .map(Path::new)
        .filter(|file| file.is_absolute())
        .and_then(Path::parent)
        .filter(|dir| dir.is_dir())
        .map_or_else(
            || default_root.to_owned(),
            |dir| {
                dir.ancestors()
                    .find(|d| d.join(".git").exists())
                    .unwrap_or(dir)
                    .to_owned()
            },
        )
}

/// The watch of `automation` as a [`WatchRule`], when its trigger is `file.changed` or
/// `folder.changed` with a `watch` block. `base_dir` defaults to the workspace (a
/// relative one is relative to it); relative paths are relative to `base_dir`.
pub fn watch_rule(automation: &Automation, workspace: &Path) -> Option<WatchRule> {
    let Trigger::Event {
        event_type,
        watch: Some(watch),
        ..
    } = &automation.trigger
    else {
        return None;
    };
    let kind = match event_type.as_str() {
        FILE_CHANGED => WatchKind::File,
        FOLDER_CHANGED => WatchKind::Folder,
        _ => return None,
    };
    let base_dir = watch
        .base_dir
        .as_deref()
        .filter(|b| !b.is_empty())
        .map_or_else(|| workspace.to_owned(), |b| workspace.join(b));
    Some(WatchRule {
        watch_id: automation.id.clone(),
        kind,
        paths: watch.paths.iter().map(|p| base_dir.join(p)).collect(),
        base_dir,
        project_id: watch
            .project_id
            .clone()
            .unwrap_or_else(|| automation.project_id.clone()),
        recursive: watch.recursive,
        extensions: watch.extensions.clone(),
    })
}

/// The watch rules of the enabled automations among `automations`, sorted by id.
pub fn watch_rules(automations: &[Automation], default_root: &Path) -> Vec<WatchRule> {
    let mut rules: Vec<WatchRule> = automations
        .iter()
        .filter(|a| a.enabled)
        .filter_map(|a| watch_rule(a, &workspace(a, default_root)))
        .collect();
    rules.sort_by(|a, b| a.watch_id.cmp(&b.watch_id));
    rules
}

/// The engine's wiring for `config`: steps over the store at `store_path` (their tasks
/// and memory in `shared` when the node shares a PostgreSQL store), the providers (CLI providers' process groups registered in `groups`, so that a shutdown
/// can kill them), and the notifiers, plus `progress` told of every phase as well.
pub fn wiring(
    config: &ConfigToml,
    default_root: &Path,
    store_path: &Path,
    shared: Option<Arc<PgStore>>,
    groups: &ProcessGroups,
    notifiers: Notifiers,
    progress: Option<Arc<dyn RunObserver>>,
) -> Wiring {
    let steps = Arc::new(Steps {
        config: config.clone(),
        default_root: default_root.to_owned(),
        store_path: store_path.to_owned(),
        shared,
    });
    Wiring {
        steps: Arc::clone(&steps) as Arc<dyn StepRunner>,
        llm: Arc::new(Providers {
            config: config.clone(),
            default_root: default_root.to_owned(),
            groups: groups.clone(),
            by_workspace: Mutex::new(HashMap::new()),
            steps,
            notifiers: notifiers.clone(),
        }),
        observer: Some(Arc::new(Notify {
            notifiers,
            progress,
        })),
        clock: system_clock(),
    }
}

/// [`StepRunner`] over [`steps::run_steps`].
struct Steps {
    config: ConfigToml,
    default_root: PathBuf,
    store_path: PathBuf,
    shared: Option<Arc<PgStore>>,
}

impl Steps {
    fn env(&self, automation: &Automation, event: Option<&Value>) -> StepEnv {
        let workspace = workspace(automation, &self.default_root);
        let embeddings = self.config.memory.embeddings.as_ref().map(|e| {
            let e = &e.value;
            EmbeddingsEndpoint {
                base_url: e.base_url.clone(),
                model: e.model.clone(),
                // Read at each run, so that a key exported after serve started (or
                // rotated) is used without a restart.
                api_key: e
                    .api_key_env
                    .as_deref()
                    .and_then(|var| std::env::var(var).ok())
                    .filter(|key| !key.trim().is_empty()),
            }
        });
        StepEnv {
            event: event.cloned(),
            memory: MemoryOptions {
                notes_dir: self.config.memory.notes_dir(&workspace),
                embeddings,
            },
            workspace,
            project_id: automation.project_id.clone(),
            store_path: self.store_path.clone(),
            shared: self.shared.clone(),
        }
    }
}

impl StepRunner for Steps {
    fn run_steps<'a>(
        &'a self,
        automation: &'a Automation,
        event: Option<&'a Value>,
    ) -> BoxFuture<'a, Vec<Value>> {
        let env = self.env(automation, event);
        Box::pin(async move { steps::run_steps(&automation.context_steps, &env).await })
    }

    fn workspace<'a>(&'a self, automation: &'a Automation) -> BoxFuture<'a, Option<Workspace>> {
        let path = workspace(automation, &self.default_root);
        Box::pin(async move { Some(repository::describe(&path).await) })
    }
}

/// [`LlmBackend`] over [`Llm`]: one per workspace, since CLI providers run in it; the
/// model's tools are [`BuiltinTools`] in the automation's workspace, then the plugin
/// tools it was granted ([`PluginToolbox`]).
struct Providers {
    config: ConfigToml,
    default_root: PathBuf,
    groups: ProcessGroups,
    by_workspace: Mutex<HashMap<PathBuf, Arc<Llm>>>,
    steps: Arc<Steps>,
    notifiers: Notifiers,
}

impl Providers {
    fn llm(&self, automation: &Automation) -> Arc<Llm> {
        let workspace = workspace(automation, &self.default_root);
        let mut cache = self
            .by_workspace
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(cache.entry(workspace).or_insert_with_key(|workspace| {
            Arc::new(Llm::new(&self.config, workspace).with_process_groups(self.groups.clone()))
        }))
    }
}

impl LlmBackend for Providers {
    fn complete<'a>(
        &'a self,
        automation: &'a Automation,
        prompt: &'a str,
        actions: &'a ActionLog,
    ) -> BoxFuture<'a, Result<Answered, String>> {
        let llm = self.llm(automation);
        let steps = self.steps.env(automation, None);
        let plugin_tools = automation.tools.plugin_tools();
        let builtin = BuiltinTools::new(
            ToolEnv {
                steps: steps.clone(),
                automation_name: automation.name.clone(),
                agent: automation.id.clone(),
                notifiers: Some(self.notifiers.clone()),
            },
            automation.tools.clone(),
        );
        let limits = Limits {
            max_rounds: automation.tools.max_tool_rounds,
            max_tokens: automation.max_tokens_per_run,
        };
        Box::pin(async move {
            let resolved = llm
                .resolve(automation.llm_config.as_ref())
                .map_err(|e| e.to_string())?;
            // A granted plugin tool that cannot be offered fails the run before the model
            // is asked: its prompt counts on the tool, and an answer without it would
            // look like a success.
            let tools: Box<dyn Toolbox> = if plugin_tools.is_empty() {
                Box::new(builtin)
            } else {
                let plugins = PluginToolbox::open(&steps, &automation.id, plugin_tools)
                    .await
                    .map_err(|e| format!("the granted plugin tools cannot be offered: {e}"))?;
                Box::new(Toolboxes(vec![Box::new(builtin), Box::new(plugins)]))
            };
            llm.converse(prompt, &resolved, tools.as_ref(), limits, actions)
                .await
                .map(|reply| Answered {
                    text: reply.text,
                    tokens: reply.tokens_estimate,
                })
                .map_err(|e| e.to_string())
        })
    }
}

/// [`RunObserver`] that hands each phase to the notifiers (and to `progress`).
struct Notify {
    notifiers: Notifiers,
    progress: Option<Arc<dyn RunObserver>>,
}

impl RunObserver for Notify {
    fn phase(&self, automation: &Automation, phase: RunPhase<'_>) {
        if let Some(progress) = &self.progress {
            progress.phase(automation, phase);
        }
        self.notifiers.send(&automation.name, notifier_phase(phase));
    }
}

/// The engine's phase as the notifiers take it.
pub fn notifier_phase(phase: RunPhase<'_>) -> Phase {
    match phase {
        RunPhase::Started { trigger_reason } => Phase::Started {
            trigger_reason: trigger_reason.to_owned(),
        },
        RunPhase::Completed { response } => Phase::Completed {
            response: response.unwrap_or_default().to_owned(),
        },
        RunPhase::Skipped { reason } => Phase::Skipped {
            reason: reason.to_owned(),
        },
        RunPhase::Failed { error } => Phase::Failed {
            error: error.to_owned(),
        },
        RunPhase::Tools { chain } => Phase::Tools {
            chain: chain.to_vec(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use tempfile::TempDir;

    use super::*;
    use crate::definition::parse_automation;

    fn automation(toml: &str, source: Option<&Path>) -> Automation {
        let mut a = parse_automation(Path::new("a.toml"), toml, "p", 0.0).expect("parses");
        a.source = source.map(|s| s.display().to_string());
        a
    }

    const FOLDER: &str = r#"
name = "Docs"
[trigger]
type = "event"
event_type = "folder.changed"
[trigger.watch]
paths = ["docs/", "/abs/specs"]
recursive = true
extensions = [".md"]
"#;

    #[test]
    fn the_workspace_is_the_project_root_of_the_source_file() {
        let dir = TempDir::new().expect("tempdir");
        let project = dir.path().join("proj");
        fs::create_dir_all(project.join(".git")).expect("mkdir");
        fs::create_dir_all(project.join(".hookrig/automations")).expect("mkdir");
        let file = project.join(".hookrig/automations/a.toml");
        let default = Path::new("/srv/default");
        assert_eq!(
            workspace(&automation(FOLDER, Some(&file)), default),
            project
        );
        // No repository above: the file's own directory.
        let loose = dir.path().join("loose");
        fs::create_dir_all(&loose).expect("mkdir");
        assert_eq!(
            workspace(&automation(FOLDER, Some(&loose.join("a.toml"))), default),
            loose
        );
        // Store-only, relative, or a directory that is gone: the default.
        assert_eq!(workspace(&automation(FOLDER, None), default), default);
        assert_eq!(
            workspace(&automation(FOLDER, Some(Path::new("rel/a.toml"))), default),
            default
        );
        assert_eq!(
            workspace(
                &automation(FOLDER, Some(&dir.path().join("gone/a.toml"))),
                default
            ),
            default
        );
    }

    #[test]
    fn a_folder_watch_becomes_a_rule_relative_to_the_workspace() {
        let rule = watch_rule(&automation(FOLDER, None), Path::new("/w")).expect("a rule");
        assert_eq!(
            rule,
            WatchRule {
                watch_id: "docs".to_owned(),
                kind: WatchKind::Folder,
                paths: vec![PathBuf::from("/w/docs/"), PathBuf::from("/abs/specs")],
                base_dir: PathBuf::from("/w"),
                project_id: "p".to_owned(),
                recursive: true,
                extensions: vec![".md".to_owned()],
            }
        );
    }

    #[test]
    fn a_file_watch_takes_base_dir_and_project_id_from_its_block() {
        let toml = r#"
name = "Cfg"
[trigger]
type = "event"
event_type = "file.changed"
[trigger.watch]
paths = ["app.toml"]
base_dir = "config"
project_id = "other"
"#;
        let rule = watch_rule(&automation(toml, None), Path::new("/w")).expect("a rule");
        assert_eq!(rule.kind, WatchKind::File);
        assert_eq!(rule.base_dir, PathBuf::from("/w/config"));
        assert_eq!(rule.paths, vec![PathBuf::from("/w/config/app.toml")]);
        assert_eq!(rule.project_id, "other");
    }

    #[test]
    fn only_enabled_watching_automations_give_rules() {
        let periodic = automation("name = \"P\"\n[trigger]\ntype = \"periodic\"\n", None);
        let mut disabled = automation(FOLDER, None);
        disabled.enabled = false;
        let plain_event = automation(
            "name = \"E\"\n[trigger]\ntype = \"event\"\nevent_type = \"task.completed\"\n",
            None,
        );
        assert!(watch_rules(&[periodic, disabled, plain_event], Path::new("/w")).is_empty());
        assert_eq!(
            watch_rules(&[automation(FOLDER, None)], Path::new("/w")).len(),
            1
        );
    }

    #[test]
    fn settings_come_from_the_automation_section() {
        let config = ConfigToml::default();
        assert_eq!(engine_settings(&config), EngineSettings::default());
    }
}
