//! A shared list that handlers, hooks and stubs append to and a test reads back.

use std::sync::{Arc, Mutex, PoisonError};

/// What was recorded, in the order it was pushed; clones share one list, so a clone can
/// move into a handler while the test keeps another.
#[derive(Debug)]
pub struct Recorder<T>(Arc<Mutex<Vec<T>>>);

impl<T> Default for Recorder<T> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

impl<T> Clone for Recorder<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T> Recorder<T> {
    /// Appends `entry`.
    pub fn push(&self, entry: impl Into<T>) {
        self.lock().push(entry.into());
    }

    /// Everything recorded so far, leaving the list empty.
    #[must_use]
    pub fn take(&self) -> Vec<T> {
        std::mem::take(&mut *self.lock())
    }

    /// How many entries were recorded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<T>> {
        // A handler that panicked while pushing must not hide what was recorded.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: Clone> Recorder<T> {
    /// A copy of everything recorded so far.
    #[must_use]
    pub fn entries(&self) -> Vec<T> {
        self.lock().clone()
    }
}
