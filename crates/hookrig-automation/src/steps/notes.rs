//! The project's markdown notes, as the `memory_search` step indexes them: the files
//! under the notes directory, each split at its headings into the sections the store's
//! memory index searches. A node's own store indexes them by absolute path and
//! modification time ([`index`]); the index a shared store holds for every node, by
//! their path under the notes directory and their content ([`index_shared`]).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use hookrig_store::{Note, NoteSection, Offered, PgStore, Store, StoreError};
use sha2::{Digest as _, Sha256};

/// Brings the store's index of `project_id`'s notes up to date with the markdown files
/// under `notes_dir`: files whose modification time changed since they were indexed are
/// split again, removed files leave the index, unchanged ones cost a `stat`. A missing
/// directory means no notes. Returns how many files were (re)indexed or removed.
pub(crate) fn index(
    store: &Store,
    project_id: &str,
    notes_dir: &Path,
) -> Result<usize, StoreError> {
    let memory = store.memory();
    let indexed = memory.indexed_notes(project_id)?;
    let mut changed = Vec::new();
    let mut present = HashSet::new();
    for (file, mtime_ns) in note_files(notes_dir) {
        let source = file.to_string_lossy().into_owned();
        present.insert(source.clone());
        if indexed.get(&source) == Some(&mtime_ns) {
            continue;
        }
        // A note that cannot be read now keeps what was indexed of it before.
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        changed.push(Note {
            source,
            mtime_ns,
            sections: split_markdown(&String::from_utf8_lossy(&bytes)),
        });
    }
    let removed: Vec<String> = indexed
        .into_keys()
        .filter(|path| !present.contains(path))
        .collect();
    memory.update_notes(project_id, &changed, &removed)?;
    Ok(changed.len() + removed.len())
}

/// Who writes a node's notes into the shared index: its machine and notes directory, the
/// same across restarts, so that a node knows the notes it wrote itself.
pub(crate) fn writer(notes_dir: &Path) -> String {
    format!("{}:{}", crate::server::host_name(), notes_dir.display())
}

/// Offers the markdown files under `notes_dir` to the shared index of `project_id`, as
/// `writer` (docs/postgres.md, "Memory"): each under its path relative to `notes_dir`,
/// so that the nodes' checkouts, wherever they are, index one copy. A note replaces the
/// index's copy only when its content differs and its file was modified later; a note
/// missing here is taken out only if this node wrote it last (another node's checkout
/// may be ahead of this one), and so are the notes indexed by absolute path before the
/// index was shared. A note this node wrote and has not touched since costs a `stat`;
/// one another node wrote is read and hashed. Returns how many notes were written or
/// taken out.
pub(crate) fn index_shared(
    store: &PgStore,
    project_id: &str,
    notes_dir: &Path,
    writer: &str,
) -> Result<usize, StoreError> {
    let memory = store.memory();
    let indexed = memory.shared_notes(project_id)?;
    let mut changed = 0;
    let mut present = HashSet::new();
    for (file, mtime_ns) in note_files(notes_dir) {
        let key = shared_key(&file, notes_dir);
        present.insert(key.clone());
        let known = indexed.get(&key);
        if known.is_some_and(|note| note.writer == writer && note.mtime_ns == mtime_ns) {
            continue;
        }
        // A note that cannot be read now leaves the index's copy as it is.
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let digest = sha256_hex(&bytes);
        if known.is_some_and(|note| note.digest == digest) {
            continue;
        }
        let note = Note {
            source: key,
            mtime_ns,
            sections: split_markdown(&String::from_utf8_lossy(&bytes)),
        };
        if memory.offer_note(project_id, &note, &digest, writer)? == Offered::Written {
            changed += 1;
        }
    }
    for (key, note) in indexed {
        let mine = note.writer == writer || note.writer.is_empty();
        if mine && !present.contains(&key) && memory.withdraw_note(project_id, &key, writer)? {
            changed += 1;
        }
    }
    Ok(changed)
}

/// The key of `file` in the shared index: its path under `notes_dir`, `/`-separated.
fn shared_key(file: &Path, notes_dir: &Path) -> String {
    let relative = file.strip_prefix(notes_dir).unwrap_or(file);
    relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The SHA-256 of `bytes`, in lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// Splits a markdown note at its ATX headings (`#` to `######` followed by a
/// space); headings inside fenced code blocks are text. Sections without text
/// are left out: a heading directly followed by a sub-heading is only structure.
pub(crate) fn split_markdown(text: &str) -> Vec<NoteSection> {
    let mut sections = Vec::new();
    let mut heading = String::new();
    let mut lines: Vec<&str> = Vec::new();
    let mut fence: Option<&str> = None;
    let mut flush = |heading: &str, lines: &mut Vec<&str>| {
        let content = lines.join("\n").trim().to_owned();
        if !content.is_empty() {
            sections.push(NoteSection {
                heading: heading.to_owned(),
                content,
            });
        }
        lines.clear();
    };
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            lines.push(line);
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            lines.push(line);
            continue;
        }
        if let Some(title) = atx_heading(line) {
            flush(&heading, &mut lines);
            title.clone_into(&mut heading);
        } else {
            lines.push(line);
        }
    }
    flush(&heading, &mut lines);
    sections
}

/// The text of an ATX heading line, if `line` is one.
fn atx_heading(line: &str) -> Option<&str> {
    // Up to three spaces of indentation; four make a code block.
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.len() - rest.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    // A closing sequence of `#` is not part of the heading, but the `#` of `C#` is.
    let title = after.trim();
    let stripped = title.trim_end_matches('#');
    Some(if stripped.is_empty() || stripped.ends_with([' ', '\t']) {
        stripped.trim_end()
    } else {
        title
    })
}

/// The markdown files under `dir`, with their modification times in nanoseconds.
/// Hidden files and directories are skipped, symbolic links are not followed into
/// directories, and unreadable directories are passed over.
fn note_files(dir: &Path) -> Vec<(PathBuf, i64)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            let is_markdown = path.extension().is_some_and(|ext| {
                ext.eq_ignore_ascii_case("md") || ext.eq_ignore_ascii_case("markdown")
            });
            // `metadata` follows a link to a file: a linked note is a note.
            let Ok(metadata) = std::fs::metadata(&path) else {
                continue;
            };
            if is_markdown && metadata.is_file() {
                let mtime = metadata
                    .modified()
                    .ok()
                    .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |since| {
                        i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
                    });
                found.push((path, mtime));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use indoc::indoc;

    use super::*;

    fn section(heading: &str, content: &str) -> NoteSection {
        NoteSection {
            heading: heading.to_owned(),
            content: content.to_owned(),
        }
    }

    fn open() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("l.db")).expect("open");
        (dir, store)
    }

    #[test]
    fn splits_at_headings_of_any_level_outside_code_fences() {
        let note = indoc! {"
            intro text

            # Deploy
            run make deploy
            ## Rollback ##
            ```sh
            # not a heading
            git revert
            ```
            ### Empty
            #### Tail
            last
            #hashtag is text
        "};
        assert_eq!(
            split_markdown(note),
            vec![
                section("", "intro text"),
                section("Deploy", "run make deploy"),
                section("Rollback", "```sh\n# not a heading\ngit revert\n```"),
                section("Tail", "last\n#hashtag is text"),
            ]
        );
    }

    #[test]
    fn notes_are_reindexed_only_when_they_change_and_leave_when_removed() {
        let (dir, store) = open();
        let notes = dir.path().join("notes");
        std::fs::create_dir_all(notes.join("sub")).expect("mkdir");
        std::fs::create_dir_all(notes.join(".hidden")).expect("mkdir");
        std::fs::write(notes.join("a.md"), "# Alpha\nzebra facts\n").expect("write");
        std::fs::write(notes.join("sub/b.md"), "# Beta\nmore zebra\n").expect("write");
        std::fs::write(notes.join(".hidden/c.md"), "# Gamma\nzebra\n").expect("write");
        std::fs::write(notes.join("d.txt"), "zebra\n").expect("write");
        assert_eq!(index(&store, "p", &notes).expect("index"), 2);
        assert_eq!(index(&store, "p", &notes).expect("index"), 0, "unchanged");
        assert_eq!(
            store
                .memory()
                .search("p", "zebra", 10)
                .expect("search")
                .len(),
            2
        );

        // A new mtime is what marks a change; set one explicitly rather than sleeping.
        std::fs::write(notes.join("a.md"), "# Alpha\nlion facts\n").expect("write");
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(notes.join("a.md"))
            .and_then(|f| f.set_modified(later))
            .expect("set mtime");
        std::fs::remove_file(notes.join("sub/b.md")).expect("rm");
        assert_eq!(index(&store, "p", &notes).expect("index"), 2);
        assert!(
            store
                .memory()
                .search("p", "zebra", 10)
                .expect("search")
                .is_empty()
        );
        let lion = store.memory().search("p", "lion", 10).expect("search");
        assert_eq!(lion.len(), 1);
        assert_eq!(lion[0].heading, "Alpha");
        assert!(lion[0].source.ends_with("a.md"));

        // An upsert under the same source survives re-indexing of notes.
        store
            .memory()
            .upsert("p", &lion[0].source, "Alpha", "kept tiger")
            .expect("upsert");
        std::fs::remove_file(notes.join("a.md")).expect("rm");
        index(&store, "p", &notes).expect("index");
        assert_eq!(
            store
                .memory()
                .search("p", "tiger", 10)
                .expect("search")
                .len(),
            1
        );
        assert_eq!(
            index(&store, "p", &dir.path().join("missing")).expect("index"),
            0
        );
    }

    /// Sets `file`'s modification time `secs` seconds from now: what marks a newer copy,
    /// set explicitly rather than waited for.
    fn set_mtime(file: &Path, secs: u64) {
        let at = std::time::SystemTime::now() + std::time::Duration::from_secs(secs);
        std::fs::File::options()
            .write(true)
            .open(file)
            .and_then(|f| f.set_modified(at))
            .expect("set mtime");
    }

    /// Two checkouts of one project, each with its notes directory, on one database.
    struct TwoNodes {
        _dir: tempfile::TempDir,
        a: PathBuf,
        b: PathBuf,
        store: PgStore,
    }

    impl TwoNodes {
        fn new(db: &hookrig_test_support::TestDatabase) -> TwoNodes {
            let dir = tempfile::tempdir().expect("temp dir");
            let (a, b) = (dir.path().join("a/notes"), dir.path().join("b/notes"));
            std::fs::create_dir_all(&a).expect("mkdir");
            std::fs::create_dir_all(&b).expect("mkdir");
            let store = PgStore::open(db.url()).expect("open the database");
            TwoNodes {
                _dir: dir,
                a,
                b,
                store,
            }
        }

        fn index(&self, notes: &Path) -> usize {
            index_shared(&self.store, "p", notes, &writer(notes)).expect("index")
        }

        fn search(&self, query: &str) -> Vec<(String, String)> {
            use hookrig_store::MemoryIndex as _;
            self.store
                .memory()
                .search("p", query, 10)
                .expect("search")
                .into_iter()
                .map(|hit| (hit.source, hit.content))
                .collect()
        }
    }

    // guards: two nodes indexing the same notes from checkouts at different paths keep
    // one copy of each note in the shared index, and a node with an older copy does not
    // overwrite a newer one
    #[test]
    fn two_checkouts_share_one_copy_of_each_note_and_the_newer_file_wins() {
        let Some(db) = hookrig_test_support::TestDatabase::create("shared_notes") else {
            return;
        };
        let nodes = TwoNodes::new(&db);
        for notes in [&nodes.a, &nodes.b] {
            std::fs::create_dir_all(notes.join("ops")).expect("mkdir");
            std::fs::write(notes.join("ops/deploy.md"), "# Deploy\nrun zebra deploy\n")
                .expect("write");
        }
        assert_eq!(nodes.index(&nodes.a), 1);
        assert_eq!(
            nodes.index(&nodes.b),
            0,
            "the same content is not written again"
        );
        assert_eq!(
            nodes.search("zebra"),
            vec![("ops/deploy.md".to_owned(), "run zebra deploy".to_owned())],
            "one copy, keyed by its path under the notes directory"
        );

        // B edits the note: its newer file replaces A's copy.
        std::fs::write(nodes.b.join("ops/deploy.md"), "# Deploy\nrun lion deploy\n")
            .expect("write");
        set_mtime(&nodes.b.join("ops/deploy.md"), 5);
        assert_eq!(nodes.index(&nodes.b), 1);
        // A still has the old content, in an older file: it does not take the note back.
        assert_eq!(nodes.index(&nodes.a), 0);
        assert_eq!(
            nodes.search("deploy"),
            vec![("ops/deploy.md".to_owned(), "run lion deploy".to_owned())]
        );
        // A pulls another edit later: its file is newer now, and its content wins.
        std::fs::write(
            nodes.a.join("ops/deploy.md"),
            "# Deploy\nrun tiger deploy\n",
        )
        .expect("write");
        set_mtime(&nodes.a.join("ops/deploy.md"), 10);
        assert_eq!(nodes.index(&nodes.a), 1);
        assert_eq!(nodes.index(&nodes.b), 0);
        assert_eq!(
            nodes.search("deploy"),
            vec![("ops/deploy.md".to_owned(), "run tiger deploy".to_owned())]
        );
        let written = nodes.store.memory().shared_notes("p").expect("notes");
        assert_eq!(
            written["ops/deploy.md"].writer,
            writer(&nodes.a),
            "the writer is recorded"
        );
    }

    // guards: a note missing from one checkout leaves the shared index only when the node
    // that wrote it last no longer has it, and notes indexed by absolute path before the
    // index was shared are replaced
    #[test]
    fn a_note_leaves_the_shared_index_only_when_its_writer_no_longer_has_it() {
        use hookrig_store::MemoryIndex as _;
        let Some(db) = hookrig_test_support::TestDatabase::create("shared_notes_gone") else {
            return;
        };
        let nodes = TwoNodes::new(&db);
        std::fs::write(nodes.b.join("new.md"), "# New\nokapi facts\n").expect("write");
        assert_eq!(nodes.index(&nodes.b), 1);
        // A's checkout does not have it yet (B is ahead): A leaves it alone.
        assert_eq!(nodes.index(&nodes.a), 0);
        assert_eq!(nodes.search("okapi").len(), 1);
        // B deletes it: it leaves the index.
        std::fs::remove_file(nodes.b.join("new.md")).expect("rm");
        assert_eq!(nodes.index(&nodes.b), 1);
        assert!(nodes.search("okapi").is_empty());

        // A note indexed by absolute path, as a node's own index (or `store migrate`)
        // wrote it before the index was shared, gives way to its shared copy.
        let file = nodes.a.join("old.md");
        std::fs::write(&file, "# Old\nwombat facts\n").expect("write");
        let leftover = Note {
            source: file.display().to_string(),
            mtime_ns: 1,
            sections: split_markdown("# Old\nwombat facts\n"),
        };
        nodes
            .store
            .memory()
            .update_notes("p", &[leftover], &[])
            .expect("write the old index");
        assert_eq!(
            nodes.index(&nodes.a),
            2,
            "old.md written, its absolute twin removed"
        );
        assert_eq!(
            nodes.search("wombat"),
            vec![("old.md".to_owned(), "wombat facts".to_owned())]
        );
    }
}
