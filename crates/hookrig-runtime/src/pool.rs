//! Store connections kept open between emits: opening the SQLite file (WAL, pragmas,
//! schema check) costs more than the emit's own writes, and a resident engine makes
//! many emits into the same few files.

use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use hookrig_store::{Store, StoreError};

/// How many idle connections are kept, in all.
const KEPT: usize = 8;

/// Idle connections, most recently returned last.
static IDLE: Mutex<Vec<Store>> = Mutex::new(Vec::new());

/// A connection to the store at one path, back to the idle ones when dropped.
#[derive(Debug)]
pub struct Connection(Option<Store>);

/// A connection to the store at `path`: an idle one when there is one, else a new one.
pub(crate) fn open(path: &Path) -> Result<Connection, StoreError> {
    let kept = {
        let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
        idle.iter()
            .rposition(|store| store.path() == path)
            .map(|at| idle.swap_remove(at))
    };
    match kept {
        Some(store) => Ok(Connection(Some(store))),
        None => Ok(Connection(Some(Store::open_ledger(path)?))),
    }
}

impl Deref for Connection {
    type Target = Store;

    fn deref(&self) -> &Store {
        self.0
            .as_ref()
            .expect("a connection holds its store until dropped")
    }
}

impl DerefMut for Connection {
    fn deref_mut(&mut self) -> &mut Store {
        self.0
            .as_mut()
            .expect("a connection holds its store until dropped")
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(store) = self.0.take() {
            let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
            if idle.len() >= KEPT {
                idle.remove(0);
            }
            idle.push(store);
        }
    }
}
