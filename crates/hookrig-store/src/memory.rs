//! A project's memory, which the `memory_search` context step searches: the
//! sections of the markdown notes under the project's notes directory, and what
//! `memory.upsert` events stored, in an FTS5 index ranked by bm25.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rusqlite::{Transaction, params};
use serde::{Deserialize, Serialize};

use crate::errors::StoreError;
use crate::store::Store;

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryHit {
    /// The note file (absolute path) or the source a `memory.upsert` named.
    pub source: String,
    /// The heading of the section; empty for text before a note's first heading.
    pub heading: String,
    /// The section's text.
    pub content: String,
    /// The bm25 relevance, negated so that higher is better.
    pub score: f64,
}

/// One section of a markdown note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSection {
    /// The heading's text, without the `#` marks; empty before the first heading.
    pub heading: String,
    /// The lines under the heading, up to the next heading of any level.
    pub content: String,
}

/// The most words of a query that are searched for: a query pasted from a long
/// step output would otherwise make a statement with thousands of terms.
const MAX_QUERY_TERMS: usize = 64;

/// Splits a markdown note at its ATX headings (`#` to `######` followed by a
/// space); headings inside fenced code blocks are text. Sections without text
/// are left out: a heading directly followed by a sub-heading is only structure.
pub fn split_markdown(text: &str) -> Vec<NoteSection> {
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

/// An FTS5 query matching any word of `query`, each word quoted so that no
/// character of the query is read as FTS5 syntax; `None` when it has no word.
fn match_expression(query: &str) -> Option<String> {
    let terms: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(MAX_QUERY_TERMS)
        .map(|word| format!("\"{word}\""))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
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

fn delete_note(tx: &Transaction<'_>, project_id: &str, source: &str) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM memory WHERE project_id = ?1 AND kind = 'note' AND source = ?2",
        params![project_id, source],
    )?;
    tx.execute(
        "DELETE FROM memory_notes WHERE project_id = ?1 AND path = ?2",
        params![project_id, source],
    )?;
    Ok(())
}

/// The `memory` index and the `memory_notes` it was built from, of a [`Store`].
#[derive(Debug, Clone, Copy)]
pub struct Memory<'s> {
    store: &'s Store,
}

impl<'s> Memory<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Stores `content` under (`project_id`, `source`, `heading`), replacing what
    /// was stored there before: what a `memory.upsert` event asks for.
    pub fn upsert(
        &self,
        project_id: &str,
        source: &str,
        heading: &str,
        content: &str,
    ) -> Result<(), StoreError> {
        let fail = self.store.fail("store a memory");
        let tx = self.store.conn().unchecked_transaction().map_err(fail)?;
        tx.execute(
            "DELETE FROM memory
             WHERE project_id = ?1 AND kind = 'upsert' AND source = ?2 AND heading = ?3",
            params![project_id, source, heading],
        )
        .map_err(fail)?;
        tx.execute(
            "INSERT INTO memory (project_id, kind, source, heading, content)
             VALUES (?1, 'upsert', ?2, ?3, ?4)",
            params![project_id, source, heading, content],
        )
        .map_err(fail)?;
        tx.commit().map_err(fail)
    }

    /// Brings the index of `project_id`'s notes up to date with the markdown files
    /// under `notes_dir`: files whose modification time changed since they were
    /// indexed are split again, removed files leave the index, unchanged ones cost a
    /// `stat`. A missing directory means no notes. Returns how many files were
    /// (re)indexed or removed.
    pub fn index_notes(&self, project_id: &str, notes_dir: &Path) -> Result<usize, StoreError> {
        let fail = self.store.fail("index notes");
        let files = note_files(notes_dir);
        let tx = self.store.conn().unchecked_transaction().map_err(fail)?;
        let indexed: HashMap<String, i64> = {
            let mut stmt = tx
                .prepare("SELECT path, mtime_ns FROM memory_notes WHERE project_id = ?1")
                .map_err(fail)?;
            stmt.query_map([project_id], |row| Ok((row.get(0)?, row.get(1)?)))
                .map_err(fail)?
                .collect::<rusqlite::Result<_>>()
                .map_err(fail)?
        };
        let mut changed = 0;
        let mut present = HashSet::new();
        for (file, mtime) in files {
            let source = file.to_string_lossy().into_owned();
            present.insert(source.clone());
            if indexed.get(&source) == Some(&mtime) {
                continue;
            }
            // A note that cannot be read now keeps what was indexed of it before.
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            delete_note(&tx, project_id, &source).map_err(fail)?;
            for section in split_markdown(&text) {
                tx.execute(
                    "INSERT INTO memory (project_id, kind, source, heading, content)
                     VALUES (?1, 'note', ?2, ?3, ?4)",
                    params![project_id, source, section.heading, section.content],
                )
                .map_err(fail)?;
            }
            tx.execute(
                "INSERT INTO memory_notes (project_id, path, mtime_ns) VALUES (?1, ?2, ?3)",
                params![project_id, source, mtime],
            )
            .map_err(fail)?;
            changed += 1;
        }
        for gone in indexed.keys().filter(|path| !present.contains(*path)) {
            delete_note(&tx, project_id, gone).map_err(fail)?;
            changed += 1;
        }
        tx.commit().map_err(fail)?;
        Ok(changed)
    }

    /// The `limit` sections of `project_id`'s memory that match `query` best, by
    /// bm25 (headings weigh twice as much as text). Any word of the query may match;
    /// a query without words finds nothing.
    pub fn search(
        &self,
        project_id: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<MemoryHit>, StoreError> {
        let Some(expression) = match_expression(query) else {
            return Ok(Vec::new());
        };
        let fail = self.store.fail("search the memory");
        let mut stmt = self
            .store
            .conn()
            .prepare(
                "SELECT source, heading, content, bm25(memory, 0.0, 0.0, 0.0, 2.0, 1.0) AS rank
                 FROM memory
                 WHERE memory MATCH ?1 AND project_id = ?2
                 ORDER BY rank, rowid
                 LIMIT ?3",
            )
            .map_err(fail)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        stmt.query_map(params![expression, project_id, limit], |row| {
            Ok(MemoryHit {
                source: row.get(0)?,
                heading: row.get(1)?,
                content: row.get(2)?,
                score: -row.get::<_, f64>(3)?,
            })
        })
        .map_err(fail)?
        .collect::<rusqlite::Result<_>>()
        .map_err(fail)
    }
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
    fn query_words_are_quoted_so_fts_syntax_is_inert() {
        assert_eq!(
            match_expression("deploy -rollback \"x\" AND: y*").as_deref(),
            Some(r#""deploy" OR "rollback" OR "x" OR "AND" OR "y""#)
        );
        assert_eq!(match_expression(" -- ** "), None);
    }

    fn open() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = Store::open(&dir.path().join("l.db")).expect("open");
        (dir, ledger)
    }

    #[test]
    fn ranks_by_bm25_within_the_project() {
        let (_dir, ledger) = open();
        ledger
            .memory()
            .upsert("p", "a", "Deploy", "the deploy runs make deploy twice")
            .expect("upsert");
        ledger
            .memory()
            .upsert(
                "p",
                "b",
                "Other",
                "unrelated text that mentions deploy once among many other words here",
            )
            .expect("upsert");
        ledger
            .memory()
            .upsert("q", "c", "Deploy", "deploy deploy deploy")
            .expect("upsert");
        let hits = ledger.memory().search("p", "deploy", 10).expect("search");
        let sources: Vec<&str> = hits.iter().map(|h| h.source.as_str()).collect();
        assert_eq!(sources, ["a", "b"], "best first, other projects left out");
        assert!(hits[0].score > hits[1].score);
        assert_eq!(
            ledger
                .memory()
                .search("p", "deploy", 1)
                .expect("search")
                .len(),
            1
        );
        assert!(
            ledger
                .memory()
                .search("p", "\"(", 5)
                .expect("search")
                .is_empty()
        );
    }

    #[test]
    fn upsert_replaces_the_same_source_and_heading() {
        let (_dir, ledger) = open();
        ledger
            .memory()
            .upsert("p", "s", "h", "old words")
            .expect("upsert");
        ledger
            .memory()
            .upsert("p", "s", "h", "new words")
            .expect("upsert");
        let hits = ledger.memory().search("p", "words", 10).expect("search");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].content, "new words");
    }

    #[test]
    fn notes_are_reindexed_only_when_they_change_and_leave_when_removed() {
        let (dir, ledger) = open();
        let notes = dir.path().join("notes");
        std::fs::create_dir_all(notes.join("sub")).expect("mkdir");
        std::fs::create_dir_all(notes.join(".hidden")).expect("mkdir");
        std::fs::write(notes.join("a.md"), "# Alpha\nzebra facts\n").expect("write");
        std::fs::write(notes.join("sub/b.md"), "# Beta\nmore zebra\n").expect("write");
        std::fs::write(notes.join(".hidden/c.md"), "# Gamma\nzebra\n").expect("write");
        std::fs::write(notes.join("d.txt"), "zebra\n").expect("write");
        assert_eq!(ledger.memory().index_notes("p", &notes).expect("index"), 2);
        assert_eq!(
            ledger.memory().index_notes("p", &notes).expect("index"),
            0,
            "unchanged"
        );
        assert_eq!(
            ledger
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
        assert_eq!(ledger.memory().index_notes("p", &notes).expect("index"), 2);
        assert!(
            ledger
                .memory()
                .search("p", "zebra", 10)
                .expect("search")
                .is_empty()
        );
        let lion = ledger.memory().search("p", "lion", 10).expect("search");
        assert_eq!(lion.len(), 1);
        assert_eq!(lion[0].heading, "Alpha");
        assert!(lion[0].source.ends_with("a.md"));

        // An upsert under the same source survives re-indexing of notes.
        ledger
            .memory()
            .upsert("p", &lion[0].source, "Alpha", "kept tiger")
            .expect("upsert");
        std::fs::remove_file(notes.join("a.md")).expect("rm");
        ledger.memory().index_notes("p", &notes).expect("index");
        assert_eq!(
            ledger
                .memory()
                .search("p", "tiger", 10)
                .expect("search")
                .len(),
            1
        );
        assert_eq!(
            ledger
                .memory()
                .index_notes("p", &dir.path().join("missing"))
                .expect("index"),
            0
        );
    }
}
