//! Configuration of hookrig that is not a dialect's: finding the user's and the
//! project's directories ([`Environment`], [`Project`]), `config.toml` and its automation
//! settings, the trust store file, reading config sources with their size cap, and the
//! one lowering toolkit every loader uses (placed diagnostics, unknown-key warnings,
//! durations). It must not know any dialect's files or hooks: those are
//! hookrig-dialects', which builds on this crate. Errors and warnings read
//! `path:line:col: message`.
//!
//! ```no_run
//! use hookrig_config::{Environment, load_config_toml};
//!
//! let env = Environment::from_process(std::env::current_dir()?)?;
//! let mut warnings = Vec::new();
//! let config = load_config_toml(&env, &mut warnings)?;
//! println!("{} providers", config.providers.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod annotated;
mod automation_settings;
pub mod consulted;
mod effective;
mod environment;
mod errors;
mod hook_point;
mod lowering;
mod settings_file;
mod source;
mod store_settings;
mod trust;
mod trust_text;
mod webhook;

pub use automation_settings::{
    AutomationSettings, DEFAULT_DEBOUNCE, DEFAULT_LLM_TIMEOUT, DEFAULT_MAX_CONCURRENT,
    DEFAULT_MAX_TOKENS, DEFAULT_NOTES_DIR, DEFAULT_RUN_TIMEOUT, DEFAULT_TICK, EmbeddingsConfig,
    LlmSettings, MemorySettings, NOTIFIER_EVENTS, NotifierConfig, NotifierKind,
};
pub use effective::{
    Effective, EffectiveAutomation, EffectiveLlm, EffectiveMemory, EffectiveProvision,
    EffectiveSettings, EffectiveWorktree, Seconds, Setting,
};
pub use environment::{
    Environment, Project, absolute_var, find_project, lexical_path, normal_path, project_id,
};
pub use errors::{ConfigError, TrustError};
pub use hook_point::HookPoint;
pub use lowering::{
    JsonKey, Lowering, did_you_mean, json_key_offset, json_message, parse_duration, segments,
    span_of, toml_message,
};
pub use settings_file::{
    AgentConfig, ConfigToml, DEFAULT_HOOK_TIMEOUT, HookSetting, Provider, ProvisionFile,
    ProvisionMode, Sourced, UntrustedConfig, config_toml_paths, load_config_toml,
    load_config_toml_by_level,
};
pub use source::{MAX_SOURCE_BYTES, read_source, read_source_bytes};
pub use store_settings::user_store_url;
pub use trust::{
    Distrust, FileStamp, TrustStore, TrustedHook, content_hash, file_trust_key, load_or_warn,
    project_dir, project_validators, trust_store_path,
};
pub use trust_text::{SCRIPT_TEXT_CAP, ScriptText, TrustedText, TrustedTexts};
pub use webhook::{check_env_name, check_header, check_url};
