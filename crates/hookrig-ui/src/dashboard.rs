//! The dashboard's state and its router: which page answers which path, and the one
//! gate (the token) every request goes through.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::middleware;
use axum::response::Redirect;
use axum::routing::{get, post};
use hookrig_automation::SharedDefinitions;
use hookrig_runtime::Scope;
use hookrig_store::{AgentsAt, Ledger, LedgerAt, PgStore, RegistryKey};

use crate::errors::UiError;
use crate::{agents, assets, auth, automations, hooks, live, plans, run, runs};

/// What the pages read: the scope `hookrig serve` runs in (its project, store and plan),
/// the token, and the serve socket through which automations are fired.
#[derive(Debug, Clone)]
pub struct Dashboard {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    scope: Scope,
    token: String,
    csrf: String,
    socket: Option<PathBuf>,
    live: live::Feed,
    /// Where the pages read the ledger; `None` when this serve records none.
    ledger: Option<LedgerAt>,
    /// The PostgreSQL ledger's store, once a page opened it: its one connection serves
    /// every page (opening one costs a round trip and the schema's check).
    shared: Mutex<Option<Arc<PgStore>>>,
    /// The shared automations as last read, with the key they were verified with: kept
    /// between looks, so that an open page's look costs one short query (the revision)
    /// until the table or the key changes.
    definitions: Mutex<Option<Arc<SharedDefinitions>>>,
}

impl Dashboard {
    /// A dashboard of `scope`, opened with `token`, firing automations through the serve
    /// listening on `socket` (in a process of their own when `None`).
    pub fn new(scope: Scope, token: String, socket: Option<PathBuf>) -> Dashboard {
        let csrf = auth::csrf_token(&token);
        let ledger = ledger_of(&scope);
        let live = live::Feed::new(ledger.clone());
        Dashboard {
            inner: Arc::new(Inner {
                scope,
                token,
                csrf,
                socket,
                live,
                ledger,
                shared: Mutex::new(None),
                definitions: Mutex::new(None),
            }),
        }
    }

    /// The router of every page, behind the token.
    pub fn router(&self) -> Router {
        let pages = Router::new()
            .route("/", get(|| async { Redirect::to("/runs") }))
            .route("/runs", get(runs::page))
            .route("/runs/{id}", get(run::page))
            .route("/hooks", get(hooks::page))
            .route("/hooks/trust", post(hooks::trust))
            .route("/live", get(live::page))
            .route("/live/stream", get(live::stream))
            .route("/automations", get(automations::page))
            .route("/automations/stream", get(automations::stream))
            .route("/automations/{id}", get(automations::detail))
            .route("/automations/{id}/stream", get(automations::runs_stream))
            .route("/automations/{id}/fire", post(automations::fire))
            .route("/automations/{id}/enable", post(automations::enable))
            .route("/automations/{id}/disable", post(automations::disable))
            .route("/plans", get(plans::page))
            .route("/plans/stream", get(plans::stream))
            .route("/plans/dag.svg", get(plans::dag))
            .route("/agents", get(agents::page))
            .route("/agents/stream", get(agents::stream))
            .route("/agents/{id}/log", get(agents::log))
            .route("/agents/{id}/log/stream", get(agents::log_stream))
            .route("/agents/{id}/stop", post(agents::stop))
            .route_layer(middleware::from_fn_with_state(self.clone(), auth::gate));
        Router::new()
            .merge(pages)
            .route("/assets/{file}", get(assets::file))
            .with_state(self.clone())
    }

    pub(crate) fn scope(&self) -> &Scope {
        &self.inner.scope
    }

    pub(crate) fn token(&self) -> &str {
        &self.inner.token
    }

    /// The token each form carries back.
    pub(crate) fn csrf(&self) -> &str {
        &self.inner.csrf
    }

    pub(crate) fn socket(&self) -> Option<&PathBuf> {
        self.inner.socket.as_ref()
    }

    pub(crate) fn feed(&self) -> &live::Feed {
        &self.inner.live
    }

    /// Runs `read` on the ledger (opened for reading, as `hookrig runs` opens it) on a
    /// thread of the blocking pool: neither SQLite nor the database must hold up the
    /// pages being served.
    pub(crate) async fn with_ledger<T: Send + 'static>(
        &self,
        read: impl FnOnce(&dyn Ledger) -> Result<T, UiError> + Send + 'static,
    ) -> Result<T, UiError> {
        let dashboard = self.clone();
        blocking(move || dashboard.read_ledger(read)).await
    }

    /// Runs `read` on the ledger, on this thread (one the blocking pool lent): the
    /// SQLite file opened for this read, or the PostgreSQL store every page shares.
    pub(crate) fn read_ledger<T>(
        &self,
        read: impl FnOnce(&dyn Ledger) -> Result<T, UiError>,
    ) -> Result<T, UiError> {
        match &self.inner.ledger {
            None => Err(UiError::NotFound("this serve records no ledger".to_owned())),
            Some(LedgerAt::Sqlite(path)) => read(&hookrig_runtime::ledger::open_for_reading(path)?),
            Some(LedgerAt::Postgres(url)) => read(self.shared_store(url)?.as_ref()),
        }
    }

    /// Where the agents the agents page lists are recorded: the shared store (every
    /// machine's agents), else the scope's store file.
    pub(crate) fn agents_at(&self) -> AgentsAt {
        match shared_store(self.scope()) {
            Some(url) => AgentsAt::Postgres(url),
            None => AgentsAt::Sqlite(self.scope().store.clone()),
        }
    }

    /// The PostgreSQL store the automations of this dashboard's serve are shared on (the
    /// operator's `--store` or `HOOKRIG_STORE_URL`, else the user's own `[store] url`,
    /// as for `hookrig serve`), opened on first use; `None` without one.
    pub(crate) fn automations_store(&self) -> Result<Option<Arc<PgStore>>, UiError> {
        shared_store(self.scope())
            .map(|url| self.shared_store(&url))
            .transpose()
    }

    /// The automations of [`Dashboard::automations_store`], as the key now in this
    /// machine's `registry.key` verifies them; `None` without a shared store. The key
    /// file is read at each call, so a key copied to the machine counts on the next look.
    pub(crate) fn shared_definitions(&self) -> Result<Option<Arc<SharedDefinitions>>, UiError> {
        let Some(store) = self.automations_store()? else {
            return Ok(None);
        };
        let key = RegistryKey::load(&RegistryKey::path(&self.scope().env.config_home))?;
        let mut kept = self
            .inner
            .definitions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(definitions) = &*kept
            && definitions.reads(&store, key.as_ref())
        {
            return Ok(Some(Arc::clone(definitions)));
        }
        let definitions = Arc::new(SharedDefinitions::new(store, key));
        *kept = Some(Arc::clone(&definitions));
        Ok(Some(definitions))
    }

    /// This machine's ledger file when the ledger is shared and the file exists: the
    /// emits answered with no engine are recorded there (docs/postgres.md, "Reading the
    /// ledger").
    pub(crate) fn local_ledger(&self) -> Option<PathBuf> {
        matches!(self.inner.ledger, Some(LedgerAt::Postgres(_)))
            .then(|| self.scope().ledger().map(PathBuf::from))
            .flatten()
            .filter(|path| path.exists())
    }

    /// The PostgreSQL store at `url`, opened on first use (when this machine's emits
    /// left `running` by a process that died are marked `interrupted`). A database that
    /// cannot be reached fails the page, and the next page tries again.
    fn shared_store(&self, url: &str) -> Result<Arc<PgStore>, UiError> {
        let mut shared = self
            .inner
            .shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(store) = &*shared {
            return Ok(Arc::clone(store));
        }
        let store = Arc::new(PgStore::open(url)?);
        if let Err(err) = Ledger::interrupt_abandoned(store.as_ref()) {
            tracing::debug!("dashboard: {err}");
        }
        *shared = Some(Arc::clone(&store));
        Ok(store)
    }
}

/// Where the dashboard of `scope` reads the ledger: the PostgreSQL database its serve
/// records into (the operator's `--store` or `HOOKRIG_STORE_URL`, else the user's own
/// `[store] url`), else the scope's ledger file; `None` with `--no-ledger`.
fn ledger_of(scope: &Scope) -> Option<LedgerAt> {
    let path = scope.ledger()?;
    Some(match shared_store(scope) {
        Some(url) => LedgerAt::Postgres(url),
        None => LedgerAt::Sqlite(path.to_owned()),
    })
}

/// The PostgreSQL store of the dashboard of `scope`: the operator's `--store` or
/// `HOOKRIG_STORE_URL`, else the user's own `[store] url`.
fn shared_store(scope: &Scope) -> Option<String> {
    scope
        .store_url
        .clone()
        .or_else(|| hookrig_runtime::ledger::user_database(&scope.env.config_home))
}

/// Runs `work` on the blocking pool.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, UiError> + Send + 'static,
) -> Result<T, UiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| UiError::Internal(err.to_string()))?
}

/// Serves `dashboard` on `listener` until the task is dropped.
pub async fn serve(listener: tokio::net::TcpListener, dashboard: Dashboard) -> std::io::Result<()> {
    axum::serve(listener, dashboard.router()).await
}

/// Serves `dashboard` on `listener` from a thread of its own with its own runtime, so
/// that a caller with a runtime of its own (the automation server) is not slowed by the
/// pages; returns the address served. The thread ends with the process.
pub fn spawn(listener: std::net::TcpListener, dashboard: Dashboard) -> std::io::Result<SocketAddr> {
    let address = listener.local_addr()?;
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(4)
        .thread_name("hookrig-ui")
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("hookrig-ui".to_owned())
        .spawn(move || {
            runtime.block_on(async move {
                match tokio::net::TcpListener::from_std(listener) {
                    Ok(listener) => {
                        if let Err(err) = serve(listener, dashboard).await {
                            tracing::warn!("dashboard: {err}");
                        }
                    }
                    Err(err) => tracing::warn!("dashboard: {err}"),
                }
            });
        })?;
    Ok(address)
}

#[cfg(test)]
mod tests {
    use hookrig_runtime::{ScopeArgs, SharedStore};
    use hookrig_test_support::TestDatabase;

    use super::*;

    // guards: an open page's looks reuse the shared definitions read last (one short
    // query each while nothing changes), and a key copied to the machine makes new ones
    #[test]
    fn the_shared_definitions_are_kept_until_the_key_changes() {
        let Some(db) = TestDatabase::create("ui_definitions_kept") else {
            return;
        };
        let dir = tempfile::tempdir().expect("a temporary directory");
        let config = dir.path().join("home/.config");
        let var = |name: &str| match name {
            "HOME" => Some(dir.path().join("home").into()),
            "XDG_CONFIG_HOME" => Some(config.clone().into()),
            _ => None,
        };
        let scope = Scope::resolve_with(
            ScopeArgs {
                cwd: Some(dir.path().to_owned()),
                store: Some(dir.path().join("ledger.db")),
                shared_store: SharedStore::Operator(Some(db.url().to_owned())),
                ..ScopeArgs::default()
            },
            var,
        )
        .expect("a scope");
        let dashboard = Dashboard::new(scope, "token".to_owned(), None);
        let look = || {
            dashboard
                .shared_definitions()
                .expect("read")
                .expect("a shared store")
        };

        let first = look();
        assert!(Arc::ptr_eq(&first, &look()), "kept while nothing changed");
        RegistryKey::load_or_create(&RegistryKey::path(&config)).expect("a key");
        let keyed = look();
        assert!(!Arc::ptr_eq(&first, &keyed), "made anew for the new key");
        assert!(Arc::ptr_eq(&keyed, &look()), "and kept again");
    }
}
