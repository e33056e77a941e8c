//! `[store]` of `config.toml`: the PostgreSQL database several `hookrig serve` nodes
//! share (docs/postgres.md).
//!
//! The store holds the ledger and the plugin registry, whose packages run as the user's
//! own, so only the user's own files may name it. A project's `config.toml` comes with
//! a repository the user cloned: its `[store] url` is ignored with a warning, trusted or
//! not, since trusting a file's hooks is not handing it the place everything is recorded
//! and loaded from (docs/security.md, "Where the store is").

use hookrig_core::Level;
use serde::Deserialize;
use toml::Spanned;

use crate::lowering::Lowering;
use crate::settings_file::Sourced;

/// `[store]` as one file writes it.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawStore {
    url: Option<Spanned<String>>,
}

/// The keys of `[store]`, for the unknown-key check.
pub(crate) const KNOWN_KEYS: &[&str] = &["store", "url"];

/// The schemes of a PostgreSQL URL; the SQLite store needs no URL.
const SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];

/// The URL `[store]` of a file at `level` sets, checked; a project file's is ignored
/// with a warning at its place.
pub(crate) fn lower(
    lower: &mut Lowering<'_>,
    raw: Option<RawStore>,
    level: Level,
) -> Option<Sourced<String>> {
    let url = raw?.url?;
    let span = url.span();
    if level == Level::Project {
        lower.warning(
            span,
            "`[store] url` is ignored in a project's config.toml: a repository must not \
             choose the database hookrig records into and loads plugins from; set it in your \
             own $XDG_CONFIG_HOME/hookrig/config.toml, or pass --store to `hookrig serve`",
        );
        return None;
    }
    let text = url.get_ref().trim();
    if !SCHEMES.iter().any(|scheme| text.starts_with(scheme)) {
        lower.error(
            span,
            "`[store] url` must be a PostgreSQL URL (`postgres://user@host/db`, or \
             `postgresql://user@/db?host=/run/postgresql` for a Unix socket); leave it out \
             to keep the embedded SQLite store",
        );
        return None;
    }
    Some(lower.sourced(text.to_owned(), &span))
}

/// The PostgreSQL store the `[store] url` of the user's own
/// `config_home/hookrig/config.toml` names, read without loading anything else: what the
/// engine started for the user's emits records into, and what `hookrig runs` and the
/// agent commands read. `None` when the file, the table or the key is missing, or the
/// value is no `postgres://` or `postgresql://` URL (`hookrig validate` reports it). Only
/// the user's own file: a project's `config.toml` never names the store.
pub fn user_store_url(config_home: &std::path::Path) -> Option<String> {
    #[derive(Deserialize)]
    struct File {
        store: Option<Store>,
    }
    #[derive(Deserialize)]
    struct Store {
        url: Option<String>,
    }
    let path = config_home.join("hookrig").join("config.toml");
    let text = crate::source::read_source(&path).ok()?;
    let url = toml::from_str::<File>(&text).ok()?.store?.url?;
    SCHEMES
        .iter()
        .any(|scheme| url.starts_with(scheme))
        .then_some(url)
}
