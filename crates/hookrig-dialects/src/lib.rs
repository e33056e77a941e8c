//! The dialects hookrig speaks, one folder each: `native`, `claude`, `hygge`, `xcode`,
//! `hence`, `hermit` and `cursor`. A dialect owns everything that is its own: how its config files
//! become hook definitions, its wire types, how an event is presented to its hooks and
//! their replies read, its host mode (how a host of that dialect calls hookrig and reads
//! the answer) and its event names. On top of them this crate loads every dialect's
//! sources in discovery order ([`load`]), applies trust to the hooks loaded, and
//! resolves event names with every dialect's table ([`events`]). It must
//! not dispatch events, record runs or parse command lines: the core dispatches, the
//! runtime records, the binary owns argv.
//!
//! ```no_run
//! use hookrig_config::Environment;
//! use hookrig_dialects::{LoadOptions, load};
//!
//! let env = Environment::from_process(std::env::current_dir()?)?;
//! let config = load(&env, &LoadOptions::default())?;
//! for hook in &config.hooks {
//!     println!("{} ({}) from {}", hook.spec.name, hook.dialect(), hook.spec.source.path.display());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod claude;
mod codex;
mod cursor;
mod definition;
mod errors;
pub mod events;
mod gemini;
mod hence;
mod hermit;
mod host;
mod hygge;
mod install;
mod loader;
mod native;
mod orchestrator;
mod protocol;
mod trust;
mod wire;
mod xcode;

pub use claude::{
    ClaudeHook, ClaudePlugin, ClaudeProtocol, DEFAULT_MANAGED_SETTINGS, MANAGED_SETTINGS_ENV,
    claude_matcher, claude_settings_to_trust, managed_settings_path,
};
pub use codex::{CODEX_HOME_ENV, CodexHook, CodexProtocol, codex_home, codex_matcher};
pub use definition::{HookDef, LoadedConfig, Settings, Shadowed};
pub use errors::{HostError, InstallError, PackageError};
pub use gemini::{
    DEFAULT_SYSTEM_SETTINGS as GEMINI_DEFAULT_SYSTEM_SETTINGS, GeminiHook, GeminiProtocol,
    SYSTEM_SETTINGS_ENV as GEMINI_SYSTEM_SETTINGS_ENV, gemini_system_settings_path,
};
pub use hence::{HenceHook, HenceProtocol};
pub use hermit::{
    Described, PluginHost, PluginSubscription, PluginTool, PluginWorker, Subscription,
    describe as describe_plugin, package_digest, plugin_subscription,
    remember as remember_description, run_host as run_plugin_host,
};
pub use host::{HOSTS, Host, HostAnswer, HostInput};
pub use hygge::{HyggeProtocol, format_go_duration, parse_go_duration, parse_hygge};
pub use install::{
    Doctor, FileChange, HookCheck, HostCheck, InstallLevel, InstallReport, InstallRequest,
    InstallState, Installed, SidecarTrust, UninstallReport, doctor, hookrig_program, install,
    install_hosts, uninstall,
};
pub use loader::{LoadOptions, Sources, load, read_sources};
pub use native::{NativeProtocol, native_schema, parse_native};
pub use protocol::DialectProtocol;
pub use trust::{HookTrust, definition_document, definition_hash, hook_key, trusted_text};
pub use xcode::{
    Package, PackageCheck, PackageFile, PackageRef, PackageWebhook, Registrable, WEBHOOK_EVENTS,
    XcodeHook, XcodeProtocol, check_package, registrable, valid_package_id, webhook_event_allowed,
};
