//! Configuration for hookrig: finding config files, parsing them into raw layers with
//! positions, and lowering them into validated hook definitions. Errors and warnings
//! read `path:line:col: message`.
//!
//! ```no_run
//! use hookrig_config::{Environment, LoadOptions, load};
//!
//! let env = Environment::from_process(std::env::current_dir()?)?;
//! let config = load(&env, &LoadOptions::default())?;
//! for hook in &config.hooks {
//!     println!("{} from {}", hook.spec.name, hook.spec.source.path.display());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod automation_settings;
mod claude;
mod definition;
mod environment;
mod errors;
mod hence;
mod hygge;
mod loader;
mod native;
mod package;
mod schema;
mod settings_file;
mod trust;
mod webhook;
mod xcode;
mod xcode_state;

pub use automation_settings::{
    AutomationSettings, DEFAULT_DEBOUNCE, DEFAULT_LLM_TIMEOUT, DEFAULT_MAX_CONCURRENT,
    DEFAULT_MAX_TOKENS, DEFAULT_NOTES_DIR, DEFAULT_RUN_TIMEOUT, DEFAULT_TICK, EmbeddingsConfig,
    LlmSettings, MemorySettings, NOTIFIER_EVENTS, NotifierConfig, NotifierKind,
};
pub use claude::{
    ClaudeHook, DEFAULT_MANAGED_SETTINGS, MANAGED_SETTINGS_ENV, claude_matcher,
    claude_settings_to_trust, managed_settings_path,
};
pub use definition::{CommandDef, HookDef, LoadedConfig, ProtocolDef, Settings, Shadowed};
pub use environment::{Environment, Project, find_project, normal_path};
pub use errors::{ConfigError, Diagnostic, Severity, TrustError, json_offset};
pub use hence::{HenceHook, HookPoint};
pub use hygge::{format_go_duration, parse_go_duration, parse_hygge};
pub use loader::{LoadOptions, MAX_SOURCE_BYTES, load};
pub use native::{did_you_mean, parse_duration, parse_native};
pub use package::{
    Package, PackageCheck, PackageFile, PackageRef, PackageWebhook, check_package, valid_package_id,
};
pub use schema::native_schema;
pub use settings_file::{
    AgentConfig, ConfigToml, DEFAULT_HOOK_TIMEOUT, HookSetting, Provider, ProvisionFile,
    ProvisionMode, Sourced, UntrustedConfig, config_toml_paths, load_config_toml,
};
pub use trust::{
    Distrust, TrustStore, TrustedHook, content_hash, definition_hash, file_trust_key, hook_key,
    project_dir, project_validators, trust_store_path,
};
pub use webhook::{WEBHOOK_EVENTS, webhook_event_allowed};
pub use xcode::XcodeHook;
