//! The merged `config.toml` as it takes effect: every value with its default applied and
//! the file and line it came from, or none for a default. `hookrig config show` renders
//! it as text and serializes it as its `--json` (docs/config-toml.md).

use std::path::PathBuf;
use std::time::Duration;

use serde::{Serialize, Serializer};

use crate::automation_settings::{
    DEFAULT_DEBOUNCE, DEFAULT_LLM_TIMEOUT, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_TOKENS,
    DEFAULT_NOTES_DIR, DEFAULT_RUN_TIMEOUT, DEFAULT_TICK, EmbeddingsConfig, NotifierConfig,
};
use crate::hook_point::HookPoint;
use crate::settings_file::{
    AgentConfig, ConfigToml, DEFAULT_HOOK_TIMEOUT, HookSetting, Provider, ProvisionFile, Sourced,
    UntrustedConfig,
};

/// A value in effect and where it came from; `source` and `line` are `None` for a
/// default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// The file that set it.
    pub source: Option<PathBuf>,
    /// The 1-based line of the value in that file.
    pub line: Option<usize>,
}

impl<T> Setting<T> {
    /// The value `sourced` sets, converted, else `default`.
    fn from<U>(sourced: Option<&Sourced<U>>, convert: impl FnOnce(&U) -> T, default: T) -> Self {
        match sourced {
            Some(sourced) => Setting {
                value: convert(&sourced.value),
                source: Some(sourced.source.clone()),
                line: Some(sourced.line),
            },
            None => Setting {
                value: default,
                source: None,
                line: None,
            },
        }
    }

    /// Whether no file sets the value.
    pub fn is_default(&self) -> bool {
        self.source.is_none()
    }
}

impl<T: Clone> Setting<T> {
    /// The value `sourced` sets as it is.
    fn set(sourced: &Sourced<T>) -> Self {
        Setting::from(Some(sourced), T::clone, sourced.value.clone())
    }

    /// Each value of a list, where it came from.
    fn all(list: &[Sourced<T>]) -> Vec<Self> {
        list.iter().map(Setting::set).collect()
    }
}

/// A duration that serializes as seconds: an integer when whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub Duration);

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.subsec_nanos() == 0 {
            serializer.serialize_u64(self.0.as_secs())
        } else {
            serializer.serialize_f64(self.0.as_secs_f64())
        }
    }
}

/// The merged `config.toml` in effect ([`ConfigToml::effective`]), in the order of its
/// sections.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Effective {
    /// The files read, in merge order (later wins).
    pub files: Vec<PathBuf>,
    /// Project files whose settings that name programs, URLs or places to send data
    /// were left out because they are not trusted.
    pub untrusted: Vec<UntrustedConfig>,
    /// `[settings]`.
    pub settings: EffectiveSettings,
    /// `[[providers]]`, merged by id.
    pub providers: Vec<Setting<Provider>>,
    /// `[[agents]]`, merged by name.
    pub agents: Vec<Setting<AgentConfig>>,
    /// `[hooks]`, the hook points some file sets, in [`HookPoint::ALL`] order.
    #[serde(serialize_with = "hooks_map")]
    pub hooks: Vec<(HookPoint, Setting<HookSetting>)>,
    /// `[worktree.provision]`.
    pub worktree: EffectiveWorktree,
    /// `[automation]` and `[automation.llm]`.
    pub automation: EffectiveAutomation,
    /// `[[notifiers]]`.
    pub notifiers: Vec<Setting<NotifierConfig>>,
    /// `[memory]`.
    pub memory: EffectiveMemory,
}

/// `[settings]` in effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EffectiveSettings {
    /// `hook_timeout`, in whole seconds.
    pub hook_timeout: Setting<u64>,
    /// `plugin_path`.
    pub plugin_path: Setting<Vec<PathBuf>>,
}

/// `[worktree]` in effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EffectiveWorktree {
    /// `[worktree.provision]`.
    pub provision: EffectiveProvision,
}

/// `[worktree.provision]` in effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EffectiveProvision {
    /// `files`, merged by `to`.
    pub files: Vec<Setting<ProvisionFile>>,
}

/// `[automation]` in effect.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectiveAutomation {
    /// `enabled`.
    pub enabled: Setting<bool>,
    /// `max_concurrent`.
    pub max_concurrent: Setting<u32>,
    /// `run_timeout`.
    pub run_timeout: Setting<Seconds>,
    /// `tick`.
    pub tick: Setting<Seconds>,
    /// `debounce`.
    pub debounce: Setting<Seconds>,
    /// `file_watcher`.
    pub file_watcher: Setting<bool>,
    /// `[automation.llm]`.
    pub llm: EffectiveLlm,
}

/// `[automation.llm]` in effect; the strings have no default.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectiveLlm {
    /// `provider`.
    pub provider: Setting<Option<String>>,
    /// `model`.
    pub model: Setting<Option<String>>,
    /// `base_url`.
    pub base_url: Setting<Option<String>>,
    /// `api_key_env`.
    pub api_key_env: Setting<Option<String>>,
    /// `timeout`.
    pub timeout: Setting<Seconds>,
    /// `max_tokens`.
    pub max_tokens: Setting<u32>,
}

/// `[memory]` in effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EffectiveMemory {
    /// `notes_dir`, as written.
    pub notes_dir: Setting<PathBuf>,
    /// `[memory.embeddings]`, when a file sets it.
    pub embeddings: Option<Setting<EmbeddingsConfig>>,
}

/// The `[hooks]` entries as one object, keyed as config.toml writes them.
fn hooks_map<S: Serializer>(
    hooks: &[(HookPoint, Setting<HookSetting>)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(hooks.iter().map(|(point, setting)| (point.key(), setting)))
}

impl ConfigToml {
    /// The config in effect: every value with its default applied and where it came
    /// from.
    pub fn effective(&self) -> Effective {
        let seconds = |d: &Duration| Seconds(*d);
        let text = |s: &String| Some(s.clone());
        let a = &self.automation;
        let l = &a.llm;
        Effective {
            files: self.files.clone(),
            untrusted: self.untrusted.clone(),
            settings: EffectiveSettings {
                hook_timeout: Setting::from(
                    self.hook_timeout.as_ref(),
                    Duration::as_secs,
                    DEFAULT_HOOK_TIMEOUT.as_secs(),
                ),
                plugin_path: Setting::from(self.plugin_path.as_ref(), Clone::clone, Vec::new()),
            },
            providers: Setting::all(&self.providers),
            agents: Setting::all(&self.agents),
            hooks: self
                .hooks
                .iter()
                .map(|(point, setting)| (*point, Setting::set(setting)))
                .collect(),
            worktree: EffectiveWorktree {
                provision: EffectiveProvision {
                    files: Setting::all(&self.provision),
                },
            },
            automation: EffectiveAutomation {
                enabled: Setting::from(a.enabled.as_ref(), |b| *b, true),
                max_concurrent: Setting::from(
                    a.max_concurrent.as_ref(),
                    |n| *n,
                    DEFAULT_MAX_CONCURRENT,
                ),
                run_timeout: Setting::from(
                    a.run_timeout.as_ref(),
                    seconds,
                    Seconds(DEFAULT_RUN_TIMEOUT),
                ),
                tick: Setting::from(a.tick.as_ref(), seconds, Seconds(DEFAULT_TICK)),
                debounce: Setting::from(a.debounce.as_ref(), seconds, Seconds(DEFAULT_DEBOUNCE)),
                file_watcher: Setting::from(a.file_watcher.as_ref(), |b| *b, true),
                llm: EffectiveLlm {
                    provider: Setting::from(l.provider.as_ref(), text, None),
                    model: Setting::from(l.model.as_ref(), text, None),
                    base_url: Setting::from(l.base_url.as_ref(), text, None),
                    api_key_env: Setting::from(l.api_key_env.as_ref(), text, None),
                    timeout: Setting::from(
                        l.timeout.as_ref(),
                        seconds,
                        Seconds(DEFAULT_LLM_TIMEOUT),
                    ),
                    max_tokens: Setting::from(l.max_tokens.as_ref(), |n| *n, DEFAULT_MAX_TOKENS),
                },
            },
            notifiers: Setting::all(&self.notifiers),
            memory: EffectiveMemory {
                notes_dir: Setting::from(
                    self.memory.notes_dir.as_ref(),
                    Clone::clone,
                    PathBuf::from(DEFAULT_NOTES_DIR),
                ),
                embeddings: self.memory.embeddings.as_ref().map(Setting::set),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_have_no_source_and_set_values_their_place() {
        let config = ConfigToml {
            hook_timeout: Some(Sourced {
                value: Duration::from_millis(2500),
                source: PathBuf::from("/p/config.toml"),
                line: 3,
            }),
            ..ConfigToml::default()
        };
        let effective = config.effective();
        let json = serde_json::to_value(&effective).expect("serializes");
        assert_eq!(
            json["settings"]["hook_timeout"],
            serde_json::json!({"value": 2, "source": "/p/config.toml", "line": 3})
        );
        assert_eq!(
            json["automation"]["run_timeout"],
            serde_json::json!({"value": 300, "source": null, "line": null})
        );
        assert!(effective.automation.llm.provider.is_default());
        assert_eq!(
            serde_json::to_value(Seconds(Duration::from_millis(250))).expect("serializes"),
            serde_json::json!(0.25)
        );
    }
}
