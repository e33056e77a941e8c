//! Configuration for hookrig: finding config files, parsing them into raw layers with
//! positions, and lowering them into validated hook definitions. Errors and warnings
//! read `path:line:col: message`.
//!
//! ```no_run
//! use hookrig_config::{Environment, load};
//!
//! let env = Environment::from_process(std::env::current_dir()?)?;
//! let config = load(&env)?;
//! for hook in &config.hooks {
//!     println!("{} from {}", hook.spec.name, hook.spec.source.path.display());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod definition;
mod environment;
mod errors;
mod loader;
mod native;

pub use definition::{CommandDef, HookDef, LoadedConfig, Settings};
pub use environment::{Environment, Project, find_project};
pub use errors::{ConfigError, Diagnostic, Severity};
pub use loader::load;
pub use native::{parse_duration, parse_native};
