//! The connection of a [`PgStore`](crate::PgStore): one `postgres::Client` behind a
//! mutex, reconnected when the server closed it.
//!
//! The store's interface is synchronous, as SQLite's is, and `hookrig serve` calls it
//! from tokio tasks. The blocking `postgres` client drives its own small runtime, which
//! tokio refuses to start on a thread already inside a runtime; so a call made from
//! inside one runs on a scoped thread of its own, which borrows what the call needs and
//! ends with it. Outside a runtime (the CLI, the tests, `spawn_blocking`) the call runs
//! where it is, and costs nothing more than the round trip.

use std::sync::{Mutex, PoisonError};

use crate::errors::StoreError;

/// How long a connection may take to open when the URL says nothing
/// (`connect_timeout`): an unreachable host must fail an emit's ledger, not hang it for
/// the system's TCP timeout.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// One connection to the database, shared by the store's handles.
pub(crate) struct Client {
    config: postgres::Config,
    /// The URL without its password, for messages.
    database: String,
    /// `None` only while the client is dropped.
    connection: Mutex<Option<postgres::Client>>,
}

impl Drop for Client {
    fn drop(&mut self) {
        // Closing the connection blocks on the client's runtime too.
        let connection = self
            .connection
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        off_runtime(move || drop(connection));
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("database", &self.database)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects to `url` (`postgres://user@host/db`, `postgresql://user@/db?host=/socket/dir`
    /// or the `key=value` form).
    pub(crate) fn connect(url: &str) -> Result<Client, StoreError> {
        let database = redact(url);
        let fail = |source| StoreError::Postgres {
            database: database.clone(),
            action: "connect",
            source,
        };
        let mut config: postgres::Config = url.parse().map_err(fail)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let client = off_runtime(|| config.connect(postgres::NoTls)).map_err(fail)?;
        Ok(Client {
            config,
            database,
            connection: Mutex::new(Some(client)),
        })
    }

    /// How to connect: for the connections that listen beside this one.
    pub(crate) fn config(&self) -> &postgres::Config {
        &self.config
    }

    /// The database, as its URL without the password.
    pub(crate) fn database(&self) -> &str {
        &self.database
    }

    /// Turns a PostgreSQL error met while doing `action` into [`StoreError::Postgres`].
    pub(crate) fn fail(&self, action: &'static str) -> impl Fn(postgres::Error) -> StoreError + '_ {
        move |source| StoreError::Postgres {
            database: self.database.clone(),
            action,
            source,
        }
    }

    /// Runs `call` with the connection (a new one when the server closed the last), off
    /// any tokio runtime (see the module's docs).
    pub(crate) fn with<T: Send>(
        &self,
        action: &'static str,
        call: impl FnOnce(&mut postgres::Client) -> Result<T, postgres::Error> + Send,
    ) -> Result<T, StoreError> {
        // A call that panicked left nothing half done that the server would not roll
        // back: the connection is still usable.
        let mut guard = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let slot: &mut Option<postgres::Client> = &mut guard;
        off_runtime(|| {
            let client = match slot {
                Some(client) if !client.is_closed() => client,
                _ => slot.insert(self.config.connect(postgres::NoTls)?),
            };
            call(client)
        })
        .map_err(self.fail(action))
    }
}

/// Runs `work` on this thread, or on a scoped thread when this one is inside a tokio
/// runtime (where the blocking client would panic).
pub(crate) fn off_runtime<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return work();
    }
    std::thread::scope(|scope| match scope.spawn(work).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// `url` without the password of its user, if it has one.
pub(crate) fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        // The `key=value` form: drop a `password=` pair.
        return url
            .split_whitespace()
            .filter(|pair| !pair.starts_with("password="))
            .collect::<Vec<_>>()
            .join(" ");
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((user, _password)) => {
                format!("{}{user}:***{}", &url[..scheme_end], &rest[at..])
            }
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_left_out_of_messages() {
        assert_eq!(
            redact("postgres://app:s3cret@db.example:5432/hookrig"),
            "postgres://app:***@db.example:5432/hookrig"
        );
        assert_eq!(
            redact("postgresql://app@/hookrig?host=/run/postgresql"),
            "postgresql://app@/hookrig?host=/run/postgresql"
        );
        assert_eq!(
            redact("host=db user=app password=s3cret dbname=hookrig"),
            "host=db user=app dbname=hookrig"
        );
    }

    #[test]
    fn work_inside_a_runtime_runs_off_it() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let inside = runtime
            .block_on(async { off_runtime(|| tokio::runtime::Handle::try_current().is_ok()) });
        assert!(!inside, "the work ran where no runtime is entered");
    }
}
