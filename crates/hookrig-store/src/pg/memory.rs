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

/// Indexes each section of `note` as a row of `memory`.
fn insert_sections(
    tx: &mut postgres::Transaction<'_>,
    project_id: &str,
    note: &Note,
) -> Result<(), postgres::Error> {
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
    Ok(())
}

/// A note of the shared index as the node that wrote it last read it: what
/// [`PgMemory::offer_note`] compares a node's own copy with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedNote {
    /// The SHA-256 (hex) of the file it was indexed from; empty for a note written before
    /// the index was shared (or copied by `store migrate`).
    pub digest: String,
    /// That file's modification time, in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// The node that wrote it (host and notes directory); empty as `digest` is.
    pub writer: String,
}

/// What [`PgMemory::offer_note`] did with a node's copy of a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// The index had no such note, or an older one that differs: this copy is it now.
    Written,
    /// The index holds the same content already (from any node): nothing written.
    Same,
    /// The index holds other content from a file modified later than this copy's (a
    /// node with a newer checkout): it is kept.
    Older,
}

impl PgMemory<'_> {
    /// The notes of `project_id` in the shared index, by their path under the notes
    /// directory.
    pub fn shared_notes(
        &self,
        project_id: &str,
    ) -> Result<HashMap<String, SharedNote>, StoreError> {
        let rows = self.store.client().with("read the indexed notes", |conn| {
            conn.query(
                "SELECT path, digest, mtime_ns, writer FROM memory_notes WHERE project_id = $1",
                &[&project_id],
            )
        })?;
        Ok(rows
            .iter()
            .map(|row| {
                let note = SharedNote {
                    digest: row.get(1),
                    mtime_ns: row.get(2),
                    writer: row.get(3),
                };
                (row.get(0), note)
            })
            .collect())
    }

    /// Offers a node's copy of a note to the shared index (`note.source` is its path
    /// under the notes directory, `digest` the file's SHA-256): it replaces the index's
    /// sections of the note when the content differs and its file was modified later
    /// than the copy indexed (so that nodes whose checkouts differ do not take turns
    /// rewriting it), recording `writer`. Decided under a lock on the note, so that two
    /// nodes offering at once leave one copy.
    pub fn offer_note(
        &self,
        project_id: &str,
        note: &Note,
        digest: &str,
        writer: &str,
    ) -> Result<Offered, StoreError> {
        self.store.client().with("index a note", |conn| {
            let mut tx = conn.transaction()?;
            lock_note(&mut tx, project_id, &note.source)?;
            let indexed = tx.query_opt(
                "SELECT digest, mtime_ns FROM memory_notes WHERE project_id = $1 AND path = $2",
                &[&project_id, &note.source],
            )?;
            if let Some(row) = indexed {
                let (indexed_digest, indexed_mtime): (String, i64) = (row.get(0), row.get(1));
                if indexed_digest == digest {
                    return Ok(Offered::Same);
                }
                // A note indexed before the index was shared has no digest: any node's
                // copy replaces it.
                if !indexed_digest.is_empty() && indexed_mtime >= note.mtime_ns {
                    return Ok(Offered::Older);
                }
            }
            delete_note(&mut tx, project_id, &note.source)?;
            insert_sections(&mut tx, project_id, note)?;
            tx.execute(
                "INSERT INTO memory_notes (project_id, path, mtime_ns, digest, writer)
                 VALUES ($1, $2, $3, $4, $5)",
                &[&project_id, &note.source, &note.mtime_ns, &digest, &writer],
            )?;
            tx.commit()?;
            Ok(Offered::Written)
        })
    }

    /// Takes the note `path` out of the shared index if `writer` wrote it last, or if
    /// nobody is recorded as its writer: a node whose checkout lacks a note that another
    /// node indexed cannot tell a deleted note from one it has not pulled yet. Returns
    /// whether it was taken out.
    pub fn withdraw_note(
        &self,
        project_id: &str,
        path: &str,
        writer: &str,
    ) -> Result<bool, StoreError> {
        self.store.client().with("index notes", |conn| {
            let mut tx = conn.transaction()?;
            lock_note(&mut tx, project_id, path)?;
            let owned = tx
                .query_opt(
                    "SELECT 1 FROM memory_notes
                     WHERE project_id = $1 AND path = $2 AND (writer = $3 OR writer = '')",
                    &[&project_id, &path, &writer],
                )?
                .is_some();
            if owned {
                delete_note(&mut tx, project_id, path)?;
            }
            tx.commit()?;
            Ok(owned)
        })
    }
}

/// Serializes the writes of one note across nodes until the transaction ends.
fn lock_note(
    tx: &mut postgres::Transaction<'_>,
    project_id: &str,
    path: &str,
) -> Result<(), postgres::Error> {
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended($1 || chr(10) || $2, 7))",
        &[&project_id, &path],
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
                insert_sections(&mut tx, project_id, note)?;
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
