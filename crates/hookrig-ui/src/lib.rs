//! The web dashboard of hookrig: what the ledger, the config, the automations, the plan
//! and the agents hold, as pages in a browser, served by `hookrig serve --ui ADDR` and
//! opened by `hookrig ui`.
//!
//! The pages are HTML rendered on the server ([maud] templates, checked when this crate
//! compiles) with one small script of our own for the live parts (server-sent events);
//! everything is embedded in the binary, nothing is fetched from elsewhere. The dashboard
//! renders what the libraries return (`hookrig_runtime::list`, `explain`, the ledger's
//! emits, `hookrig_plan`'s board, `hookrig_agents`' records); it decides nothing itself,
//! and an action it offers is one the command line has.
//!
//! Every request needs the engine's HTTP token (the one `hookrig serve --print-token`
//! prints), carried once in the link `hookrig ui` opens and then in a cookie the browser
//! sends only to this origin; every action is a POST carrying a CSRF token derived from
//! it.
//!
//! Main types: [`Dashboard`] (what the pages read, and the router), [`serve`].
//!
//! ```no_run
//! # async fn run(scope: hookrig_runtime::Scope) -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let dashboard = hookrig_ui::Dashboard::new(scope, "token".to_owned(), None);
//! hookrig_ui::serve(listener, dashboard).await
//! # }
//! ```

mod address;
mod agents;
mod assets;
mod auth;
mod automations;
mod dashboard;
mod diff;
mod errors;
mod hooks;
mod layout;
mod live;
mod plans;
mod run;
mod runs;

pub use address::{address_path, record_address, running, url};
pub use dashboard::{Dashboard, serve, spawn};
pub use errors::UiError;
