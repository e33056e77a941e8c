//! When the shared plugin registry changed: a node keeps what it read of `plugins` and
//! `agent_plugins` between emits, and reads them again only after a change
//! (docs/postgres.md, "Plugins").
//!
//! Every statement that writes either table notifies [`REGISTRY_CHANNEL`] (a trigger of
//! schema version 11), in the writer's transaction: PostgreSQL delivers it when that
//! commits, to every connection listening then. [`RegistryChanges`] listens on a
//! connection of its own and counts what it hears; a reader keeps what it read under the
//! count it saw before reading, and what it kept is good while the count is the same.
//!
//! A notification is lost for a connection that is not listening when it is sent. So
//! while the listener is not connected the count is `None` and nothing may be kept; once
//! connected again it takes a new value, so that what was kept before the outage is
//! read again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use crate::errors::StoreError;
use crate::pg::PgStore;

/// The channel a change of the plugin registry is notified on.
pub const REGISTRY_CHANNEL: &str = "hookrig_plugins";

/// How long the listener waits for a notification before it looks whether it should
/// stop.
const POLL: Duration = Duration::from_millis(200);

/// How long the listener waits between attempts to connect again.
const RETRY: Duration = Duration::from_secs(1);

/// How long the listening connection may be silent before the system asks the server
/// whether it is still there, how often it asks then, and how many unanswered questions
/// end it: a connection cut without a word (a network that drops everything) is known
/// lost within about 20 s, rather than the system's two hours, and what was kept is read
/// again.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(3);
const KEEPALIVE_RETRIES: u32 = 3;

/// Counts the changes of the plugin registry of one database, on a connection and a
/// thread of its own. Dropping it stops the thread within a fraction of a second.
#[derive(Debug)]
pub struct RegistryChanges {
    state: Arc<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The count of changes heard; 0 while not listening (it starts at 1 once
    /// listening, and takes a new value each time it listens again).
    count: AtomicU64,
    stop: AtomicBool,
}

impl Drop for RegistryChanges {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
    }
}

impl RegistryChanges {
    /// Starts listening to the registry of `store`'s database, on a connection of its
    /// own opened on the listener's thread: [`RegistryChanges::count`] is `None` until it
    /// listens. `lost` is told each time the connection is lost (once per outage) and
    /// `back` each time it listens again.
    pub fn start(
        store: &PgStore,
        lost: impl Fn(&StoreError) + Send + 'static,
        back: impl Fn() + Send + 'static,
    ) -> Result<RegistryChanges, StoreError> {
        let mut config = store.client().config().clone();
        // Named, so that an operator can tell it in `pg_stat_activity`.
        config
            .application_name("hookrig plugins")
            .keepalives(true)
            .keepalives_idle(KEEPALIVE_IDLE)
            .keepalives_interval(KEEPALIVE_INTERVAL)
            .keepalives_retries(KEEPALIVE_RETRIES);
        let state = Arc::new(State::default());
        let listen = Listen {
            config,
            database: store.database().to_owned(),
            state: Arc::clone(&state),
        };
        std::thread::Builder::new()
            .name("hookrig-plugins".to_owned())
            .spawn(move || listen.run(&lost, &back))
            .map_err(StoreError::Thread)?;
        Ok(RegistryChanges { state })
    }

    /// The count of changes heard so far, `None` while not listening. What a reader
    /// read after it took the count is good while the count is the same.
    pub fn count(&self) -> Option<u64> {
        match self.state.count.load(Ordering::SeqCst) {
            0 => None,
            count => Some(count),
        }
    }
}

/// The listener's thread.
struct Listen {
    config: postgres::Config,
    database: String,
    state: Arc<State>,
}

impl Listen {
    fn run(self, lost: &dyn Fn(&StoreError), back: &dyn Fn()) {
        let mut count = 0;
        // Whether the outage under way was told: the first attempt that fails is.
        let mut told = false;
        while !self.state.stop.load(Ordering::SeqCst) {
            let mut conn = match self.listening() {
                Ok(conn) => conn,
                Err(err) => {
                    if !std::mem::replace(&mut told, true) {
                        lost(&err);
                    }
                    std::thread::sleep(RETRY);
                    continue;
                }
            };
            // Listening from now on: a new count, so that nothing kept under an earlier
            // one (before an outage, when changes went unheard) is used again.
            count += 1;
            self.state.count.store(count, Ordering::SeqCst);
            if std::mem::take(&mut told) {
                back();
            }
            let failure = loop {
                if self.state.stop.load(Ordering::SeqCst) {
                    return;
                }
                let next = conn.notifications().timeout_iter(POLL).next();
                match next {
                    Ok(Some(_)) => {
                        count += 1;
                        self.state.count.store(count, Ordering::SeqCst);
                    }
                    Ok(None) if conn.is_closed() => {
                        break StoreError::PostgresClosed {
                            database: self.database.clone(),
                        };
                    }
                    Ok(None) => {}
                    Err(source) => {
                        break StoreError::Postgres {
                            database: self.database.clone(),
                            action: "listen for changes of the plugin registry",
                            source,
                        };
                    }
                }
            };
            // Nothing heard from now until listening again: nothing may be kept.
            self.state.count.store(0, Ordering::SeqCst);
            told = true;
            lost(&failure);
        }
    }

    fn listening(&self) -> Result<postgres::Client, StoreError> {
        let fail = |source| StoreError::Postgres {
            database: self.database.clone(),
            action: "listen for changes of the plugin registry",
            source,
        };
        let mut client = self.config.connect(postgres::NoTls).map_err(fail)?;
        client
            .batch_execute(&format!("LISTEN {REGISTRY_CHANNEL}"))
            .map_err(fail)?;
        Ok(client)
    }
}
