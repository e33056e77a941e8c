//! The project's markdown notes, as the `memory_search` step indexes them: the files
//! under the notes directory, each split at its headings into the sections the store's
//! memory index searches.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use hookrig_store::{Note, NoteSection, Store, StoreError};

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
}
