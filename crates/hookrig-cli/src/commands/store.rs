//! `hookrig store status|migrate`: the store's engine, schema, rows and nodes, and the
//! copy of the SQLite store into a PostgreSQL one (hookrig-store's `status` and
//! `migrate`; docs/postgres.md).

use clap::{Args, Subcommand};

use hookrig_store::RegistryKey;

use crate::cli::{JsonArg, StoreArg};
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::json_or_text;
use crate::scope::{Flags, Top};

/// `hookrig store`'s subcommands.
#[derive(Debug, Args)]
pub(crate) struct StoreArgs {
    #[command(subcommand)]
    pub(crate) command: StoreCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum StoreCommand {
    /// The store's engine, schema version, rows per table, and the nodes that ran
    /// automations on it with their last heartbeat.
    Status {
        #[command(flatten)]
        store: StoreArg,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Copy the SQLite store's automations, their runs, fired periods and nodes (and the
    /// other tables the database shares) into a PostgreSQL store, then check that every
    /// row is there. Rows the database holds already are
    /// kept, so running it again finishes a copy cut short.
    Migrate {
        /// The PostgreSQL store (`postgres://user@host/db`).
        #[arg(long, value_name = "URL")]
        to: String,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// An operator's own command: `status` takes the store from `--store` or
/// `HOOKRIG_STORE_URL` as `serve` does; `migrate` copies the SQLite store of `--ledger`.
pub(crate) fn run(top: &Top, args: &StoreArgs) -> Result<u8, ExpectedError> {
    match &args.command {
        StoreCommand::Status { store, json } => {
            let scope = top.scope(Flags::default().operator(store))?;
            let config = crate::commands::config::load(&scope)?;
            let url = scope.shared_store(&config);
            let status = hookrig_store::status(url.as_deref(), &scope.store)?;
            json_or_text(json.json, &status, ToString::to_string)?;
        }
        StoreCommand::Migrate { to, json } => {
            let scope = top.scope(Flags::default())?;
            // The automations copied are the operator's own, signed so that the nodes
            // run them (docs/postgres.md, "The automations").
            let key = RegistryKey::load_or_create(&RegistryKey::path(&scope.env.config_home))?;
            let migration = hookrig_store::migrate(&scope.store, to, Some(&key))?;
            json_or_text(json.json, &migration, ToString::to_string)?;
        }
    }
    Ok(exit_codes::PROCEED)
}
