//! A project's memory, which the `memory_search` context step searches: the
//! sections of the markdown notes under the project's notes directory, and what
//! `memory.upsert` events stored, in an FTS5 index ranked by bm25. [`MemoryIndex`] is
//! the interface of both engines: [`Memory`] here, and `PgMemory` (`pg/memory.rs`),
//! PostgreSQL's full-text search ranked by `ts_rank`, which the conformance suite holds
//! to the same results.
//!
//! The store only stores and searches: which files are notes and how a note is split
//! into sections is the memory step's business (hookrig-automation), which hands over
//! [`Note`]s.

use std::collections::HashMap;

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
    /// The relevance, higher is better: bm25 negated on SQLite, `ts_rank` on
    /// PostgreSQL (the two scales are not comparable).
    pub score: f64,
}

/// One entry of the memory, read by its place rather than found by a search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// The note file (absolute path) or the source a `memory.upsert` named.
    pub source: String,
    /// The heading of the section; empty for text before a note's first heading.
    pub heading: String,
    /// The section's text.
    pub content: String,
}

/// One section of a note: what the index searches and a hit returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSection {
    /// The heading's text, without its markup; empty for text before the first heading.
    pub heading: String,
    /// The text under the heading.
    pub content: String,
}

/// A note file to index, as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The file, as an absolute path: the `source` of its hits.
    pub source: String,
    /// Its modification time in nanoseconds since the Unix epoch: the next index leaves
    /// it alone while this stays the same.
    pub mtime_ns: i64,
    /// Its sections.
    pub sections: Vec<NoteSection>,
}

/// A project's memory, on either engine: what `memory.upsert` stored and the sections
/// of its notes, searched by relevance.
pub trait MemoryIndex {
    /// Stores `content` under (`project_id`, `source`, `heading`), replacing what
    /// was stored there before: what a `memory.upsert` event asks for.
    fn upsert(
        &self,
        project_id: &str,
        source: &str,
        heading: &str,
        content: &str,
    ) -> Result<(), StoreError>;

    /// The notes of `project_id` in the index, each with the modification time (in
    /// nanoseconds) its file had when it was indexed.
    fn indexed_notes(&self, project_id: &str) -> Result<HashMap<String, i64>, StoreError>;

    /// In one transaction: replaces what the index holds of each note of `changed` with
    /// its sections, and takes the notes `removed` out of the index. What
    /// `memory.upsert` stored under the same source is kept.
    fn update_notes(
        &self,
        project_id: &str,
        changed: &[Note],
        removed: &[String],
    ) -> Result<(), StoreError>;

    /// The entry of `project_id`'s memory stored under `source` and `heading`: what a
    /// `memory.upsert` with them stored, or that section of the note file `source`.
    /// When both hold one (or a note repeats a heading), the one written last.
    fn get(
        &self,
        project_id: &str,
        source: &str,
        heading: &str,
    ) -> Result<Option<MemoryEntry>, StoreError>;

    /// The `limit` sections of `project_id`'s memory that match `query` best (headings
    /// weigh twice as much as text), ties in the order they were written. Any word of
    /// the query may match, in any form the English stemmer gives the same stem
    /// (`deploys` finds `deploying`); a query without words finds nothing.
    fn search(
        &self,
        project_id: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<MemoryHit>, StoreError>;
}

/// The most words of a query that are searched for: a query pasted from a long
/// step output would otherwise make a statement with thousands of terms.
const MAX_QUERY_TERMS: usize = 64;

/// The words of a query: its runs of letters and digits, at most [`MAX_QUERY_TERMS`].
pub(crate) fn query_words(query: &str) -> impl Iterator<Item = &str> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(MAX_QUERY_TERMS)
}

/// An FTS5 query matching any word of `query`, each word quoted so that no
/// character of the query is read as FTS5 syntax; `None` when it has no word.
fn match_expression(query: &str) -> Option<String> {
    let terms: Vec<String> = query_words(query)
        .map(|word| format!("\"{word}\""))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
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

    /// The notes of `project_id` in the index, each with the modification time (in
    /// nanoseconds) its file had when it was indexed.
    pub fn indexed_notes(&self, project_id: &str) -> Result<HashMap<String, i64>, StoreError> {
        self.store
            .conn()
            .prepare_cached("SELECT path, mtime_ns FROM memory_notes WHERE project_id = ?1")
            .and_then(|mut stmt| {
                stmt.query_map([project_id], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .map_err(self.store.fail("read the indexed notes"))
    }

    /// In one transaction: replaces what the index holds of each note of `changed` with
    /// its sections, and takes the notes `removed` out of the index. What
    /// `memory.upsert` stored under the same source is kept.
    pub fn update_notes(
        &self,
        project_id: &str,
        changed: &[Note],
        removed: &[String],
    ) -> Result<(), StoreError> {
        let fail = self.store.fail("index notes");
        let tx = self.store.conn().unchecked_transaction().map_err(fail)?;
        for note in changed {
            delete_note(&tx, project_id, &note.source).map_err(fail)?;
            for section in &note.sections {
                tx.execute(
                    "INSERT INTO memory (project_id, kind, source, heading, content)
                     VALUES (?1, 'note', ?2, ?3, ?4)",
                    params![project_id, note.source, section.heading, section.content],
                )
                .map_err(fail)?;
            }
            tx.execute(
                "INSERT INTO memory_notes (project_id, path, mtime_ns) VALUES (?1, ?2, ?3)",
                params![project_id, note.source, note.mtime_ns],
            )
            .map_err(fail)?;
        }
        for gone in removed {
            delete_note(&tx, project_id, gone).map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }

    /// The entry of `project_id`'s memory stored under `source` and `heading`: what a
    /// `memory.upsert` with them stored, or that section of the note file `source`.
    /// When both hold one (or a note repeats a heading), the one written last.
    pub fn get(
        &self,
        project_id: &str,
        source: &str,
        heading: &str,
    ) -> Result<Option<MemoryEntry>, StoreError> {
        use rusqlite::OptionalExtension as _;
        self.store
            .conn()
            .prepare_cached(
                "SELECT source, heading, content FROM memory
                 WHERE project_id = ?1 AND source = ?2 AND heading = ?3
                 ORDER BY rowid DESC LIMIT 1",
            )
            .and_then(|mut stmt| {
                stmt.query_row(params![project_id, source, heading], |row| {
                    Ok(MemoryEntry {
                        source: row.get(0)?,
                        heading: row.get(1)?,
                        content: row.get(2)?,
                    })
                })
                .optional()
            })
            .map_err(self.store.fail("read a memory"))
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

impl MemoryIndex for Memory<'_> {
    fn upsert(
        &self,
        project_id: &str,
        source: &str,
        heading: &str,
        content: &str,
    ) -> Result<(), StoreError> {
        Memory::upsert(self, project_id, source, heading, content)
    }

    fn indexed_notes(&self, project_id: &str) -> Result<HashMap<String, i64>, StoreError> {
        Memory::indexed_notes(self, project_id)
    }

    fn update_notes(
        &self,
        project_id: &str,
        changed: &[Note],
        removed: &[String],
    ) -> Result<(), StoreError> {
        Memory::update_notes(self, project_id, changed, removed)
    }

    fn get(
        &self,
        project_id: &str,
        source: &str,
        heading: &str,
    ) -> Result<Option<MemoryEntry>, StoreError> {
        Memory::get(self, project_id, source, heading)
    }

    fn search(
        &self,
        project_id: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<MemoryHit>, StoreError> {
        Memory::search(self, project_id, query, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(heading: &str, content: &str) -> NoteSection {
        NoteSection {
            heading: heading.to_owned(),
            content: content.to_owned(),
        }
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
    fn get_reads_one_entry_by_source_and_heading_in_its_project() {
        let (_dir, store) = open();
        let memory = store.memory();
        memory
            .upsert("p", "ops", "deploys", "never on a friday")
            .expect("upsert");
        memory
            .upsert("p", "ops", "deploys", "never on a friday or a monday")
            .expect("replace");
        memory
            .upsert("p", "ops", "", "the ops notes")
            .expect("upsert");
        memory
            .upsert("q", "ops", "deploys", "any day")
            .expect("upsert");
        memory
            .update_notes("p", &[note("/n/a.md", 1, &[("Alpha", "zebra")])], &[])
            .expect("index");
        let entry = |source: &str, heading: &str| {
            memory
                .get("p", source, heading)
                .expect("read")
                .map(|e| e.content)
        };
        assert_eq!(
            entry("ops", "deploys").as_deref(),
            Some("never on a friday or a monday")
        );
        assert_eq!(entry("ops", "").as_deref(), Some("the ops notes"));
        assert_eq!(entry("/n/a.md", "Alpha").as_deref(), Some("zebra"));
        assert_eq!(entry("ops", "Deploys"), None, "the heading is exact");
        assert_eq!(entry("nothing", "deploys"), None);
        assert_eq!(
            memory.get("q", "ops", "deploys").expect("read"),
            Some(MemoryEntry {
                source: "ops".to_owned(),
                heading: "deploys".to_owned(),
                content: "any day".to_owned()
            }),
            "another project's entry is its own"
        );
    }

    fn note(source: &str, mtime_ns: i64, sections: &[(&str, &str)]) -> Note {
        Note {
            source: source.to_owned(),
            mtime_ns,
            sections: sections
                .iter()
                .map(|(heading, content)| section(heading, content))
                .collect(),
        }
    }

    #[test]
    fn notes_are_replaced_and_removed_whole_and_upserts_stay() {
        let (_dir, store) = open();
        let memory = store.memory();
        memory
            .update_notes(
                "p",
                &[
                    note(
                        "/n/a.md",
                        1,
                        &[("Alpha", "zebra facts"), ("", "intro zebra")],
                    ),
                    note("/n/b.md", 2, &[("Beta", "more zebra")]),
                ],
                &[],
            )
            .expect("index");
        memory
            .update_notes("q", &[note("/n/a.md", 9, &[("Other", "zebra")])], &[])
            .expect("another project");
        assert_eq!(memory.search("p", "zebra", 10).expect("search").len(), 3);
        assert_eq!(
            memory.indexed_notes("p").expect("read"),
            HashMap::from([("/n/a.md".to_owned(), 1), ("/n/b.md".to_owned(), 2)])
        );

        memory
            .upsert("p", "/n/b.md", "Beta", "kept tiger")
            .expect("upsert");
        memory
            .update_notes(
                "p",
                &[note("/n/a.md", 3, &[("Alpha", "lion facts")])],
                &["/n/b.md".to_owned()],
            )
            .expect("reindex");
        assert!(memory.search("p", "zebra", 10).expect("search").is_empty());
        let lion = memory.search("p", "lion", 10).expect("search");
        assert_eq!((lion.len(), lion[0].heading.as_str()), (1, "Alpha"));
        assert_eq!(
            memory.search("p", "tiger", 10).expect("search").len(),
            1,
            "an upsert under a removed note's source stays"
        );
        assert_eq!(
            memory.indexed_notes("p").expect("read"),
            HashMap::from([("/n/a.md".to_owned(), 3)])
        );
        assert_eq!(memory.search("q", "zebra", 10).expect("search").len(), 1);
    }
}
