//! [`MemoryIndex`] on PostgreSQL: `memory` and `memory_notes` of the shared database,
//! searched with full-text search (a `tsvector` of each entry, its heading weighing `A`
//! and its text `B`, ranked by `ts_rank`) where SQLite uses FTS5 and bm25.
//!
//! What both engines agree on: which entries a query finds (any word of it, stemmed by
//! the same English stemmer, every word kept: see the schema's version 3), and the
//! order where one entry is clearly more relevant (more of the words, or in its
//! heading). The scores differ: bm25 weighs a word by how rare it is in the whole index
//! and by the entry's length against the average, `ts_rank` by how often it occurs in
//! the entry, normalized here by the entry's length (`1 + log(length)`); so entries of
//! nearly equal relevance may come in another order (docs/postgres.md, "Memory").

use std::collections::HashMap;

use crate::errors::StoreError;
use crate::memory::{MemoryEntry, MemoryHit, MemoryIndex, Note, query_words};
use crate::pg::PgStore;

/// The memory index of a [`PgStore`] ([`PgStore::memory`]).
#[derive(Debug, Clone, Copy)]
pub struct PgMemory<'s> {
    store: &'s PgStore,
}

impl PgStore {
    /// The memory index in the database.
    pub fn memory(&self) -> PgMemory<'_> {
        PgMemory { store: self }
    }
}

/// A `tsquery` matching any word of `query` (words are letters and digits only, so
/// none is read as query syntax); `None` when it has no word.
fn tsquery(query: &str) -> Option<String> {
    let words: Vec<&str> = query_words(query).collect();
    (!words.is_empty()).then(|| words.join(" | "))
}

fn delete_note(
    tx: &mut postgres::Transaction<'_>,
    project_id: &str,
    source: &str,
) -> Result<(), postgres::Error> {
    tx.execute(
        "DELETE FROM memory WHERE project_id = $1 AND kind = 'note' AND source = $2",
        &[&project_id, &source],
    )?;
    tx.execute(
        "DELETE FROM memory_notes WHERE project_id = $1 AND path = $2",
        &[&project_id, &source],
    )?;
    Ok(())
}

impl MemoryIndex for PgMemory<'_> {
    fn upsert(
        &self,
        project_id: &str,
        source: &str,
        heading: &str,
        content: &str,
    ) -> Result<(), StoreError> {
        self.store.client().with("store a memory", |conn| {
            let mut tx = conn.transaction()?;
            tx.execute(
                "DELETE FROM memory
                 WHERE project_id = $1 AND kind = 'upsert' AND source = $2 AND heading = $3",
                &[&project_id, &source, &heading],
            )?;
            tx.execute(
                "INSERT INTO memory (project_id, kind, source, heading, content)
                 VALUES ($1, 'upsert', $2, $3, $4)",
                &[&project_id, &source, &heading, &content],
            )?;
            tx.commit()
        })
    }

    fn indexed_notes(&self, project_id: &str) -> Result<HashMap<String, i64>, StoreError> {
        let rows = self.store.client().with("read the indexed notes", |conn| {
            conn.query(
                "SELECT path, mtime_ns FROM memory_notes WHERE project_id = $1",
                &[&project_id],
            )
        })?;
        Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
    }

    fn update_notes(
        &self,
        project_id: &str,
        changed: &[Note],
        removed: &[String],
    ) -> Result<(), StoreError> {
        self.store.client().with("index notes", |conn| {
            let mut tx = conn.transaction()?;
            for note in changed {
                delete_note(&mut tx, project_id, &note.source)?;
                for section in &note.sections {
                    tx.execute(
                        "INSERT INTO memory (project_id, kind, source, heading, content)
                         VALUES ($1, 'note', $2, $3, $4)",
                        &[
                            &project_id,
                            &note.source,
                            &section.heading,
                            &section.content,
                        ],
                    )?;
                }
                tx.execute(
                    "INSERT INTO memory_notes (project_id, path, mtime_ns) VALUES ($1, $2, $3)",
                    &[&project_id, &note.source, &note.mtime_ns],
                )?;
            }
            for gone in removed {
                delete_note(&mut tx, project_id, gone)?;
            }
            tx.commit()
        })
    }

    fn get(
        &self,
        project_id: &str,
        source: &str,
        heading: &str,
    ) -> Result<Option<MemoryEntry>, StoreError> {
        let row = self.store.client().with("read a memory", |conn| {
            conn.query_opt(
                "SELECT source, heading, content FROM memory
                 WHERE project_id = $1 AND source = $2 AND heading = $3
                 ORDER BY seq DESC LIMIT 1",
                &[&project_id, &source, &heading],
            )
        })?;
        Ok(row.map(|row| MemoryEntry {
            source: row.get(0),
            heading: row.get(1),
            content: row.get(2),
        }))
    }

    fn search(
        &self,
        project_id: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<MemoryHit>, StoreError> {
        let Some(query) = tsquery(query) else {
            return Ok(Vec::new());
        };
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.store.client().with("search the memory", |conn| {
            // Weights {D, C, B, A}: text (B) half of a heading (A), as on SQLite.
            // Normalization 1: divided by 1 + the log of the entry's length.
            conn.query(
                "SELECT source, heading, content,
                        ts_rank('{0, 0, 0.5, 1.0}'::real[], words, query, 1)::double precision AS rank
                 FROM memory, to_tsquery('hookrig_english', $2) AS query
                 WHERE project_id = $1 AND words @@ query
                 ORDER BY rank DESC, seq
                 LIMIT $3",
                &[&project_id, &query, &limit],
            )
        })?;
        Ok(rows
            .iter()
            .map(|row| MemoryHit {
                source: row.get(0),
                heading: row.get(1),
                content: row.get(2),
                score: row.get(3),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_are_joined_so_tsquery_syntax_is_inert() {
        assert_eq!(
            tsquery("deploy -rollback \"x\" & y:* !z").as_deref(),
            Some("deploy | rollback | x | y | z")
        );
        assert_eq!(tsquery(" -- ** "), None);
    }
}
