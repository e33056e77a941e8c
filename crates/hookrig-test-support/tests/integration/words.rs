//! The repository's code comments and docs explain behaviour in their own terms or point
//! to docs/ in this repository: they never cite planning documents kept outside it,
//! which a reader of the repository cannot open.

use std::fs;
use std::path::{Path, PathBuf};

use crate::workspace_root;

/// Phrases that cite documents outside the repository, matched case-insensitively.
const OUTSIDE_CITATIONS: &[&str] = &[
    "seeds/",
    "the seed",
    "seed's",
    "design.md",
    "conventions.md",
    "../shared",
    "reference/dialects.md",
    "reference/hosts.md",
    "hook engine",
    "'s documentation",
    "documentation order",
    "cli reference",
    "options reference",
    "docs.anthropic.com",
    "geminicli.com",
    "aider.chat",
    "openai/codex",
    "github.com/",
    "a later issue",
    "the plans issue",
    "(issue ",
    "/work/",
];

/// What is read: sources, manifests, docs and scripts. Snapshots are data, not words.
const EXTENSIONS: &[&str] = &["rs", "md", "toml", "sh", "json", "spl"];

/// Directories never read: build output, git's own files, snapshots.
const SKIPPED_DIRS: &[&str] = &["target", ".git", "snapshots"];

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name) {
                collect(&path, files);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            files.push(path);
        }
    }
}

// guards: comments and docs cited planning documents outside the repository ("the
// seed's message", "in the order of DESIGN.md"), other projects' documentation pages or
// the issues work was planned in, instead of saying what hookrig does.
#[test]
fn comments_and_docs_cite_nothing_outside_the_repository() {
    let root = workspace_root();
    let this_file = Path::new(file!())
        .file_name()
        .expect("this test's file name")
        .to_owned();
    let mut files = Vec::new();
    collect(&root, &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("README.md")),
        "the walk starts at the workspace root"
    );
    let mut found = Vec::new();
    for file in files {
        // This file names the phrases it looks for.
        if file.ends_with(Path::new("hookrig-test-support/tests/integration").join(&this_file)) {
            continue;
        }
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            for phrase in OUTSIDE_CITATIONS {
                if let Some(column) = lower.find(phrase) {
                    found.push(format!(
                        "{}:{}:{}: cites `{phrase}`: say the behaviour itself, or point to docs/",
                        file.strip_prefix(&root).unwrap_or(&file).display(),
                        number + 1,
                        column + 1
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
