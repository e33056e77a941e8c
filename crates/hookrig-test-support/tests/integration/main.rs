//! Checks of the whole repository: its words and its dependency graph.

mod dependencies;
mod words;

use std::path::{Path, PathBuf};

/// The root of the workspace, two levels above this crate.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the crate is two levels below the workspace root")
        .to_owned()
}
