//! Interned names: each distinct name gets a dense `u32` id, in order of first
//! appearance, and its text is stored once in one buffer.
//!
//! Large plans do not fit in the cache, and a `String` per name or per occurrence
//! scatters them over the heap: here every lookup hashes the name once and compares it
//! against one place in one buffer, and rehashing reads only that buffer.

use std::hash::BuildHasher as _;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

/// A dense id (of a name, a literal or a rule) from a count.
pub(crate) fn id(n: usize) -> u32 {
    // Every id stands for at least a few bytes of the plan held in memory: 2^32 of them
    // cannot exist.
    u32::try_from(n).expect("a theory has fewer than 2^32 names and rules")
}

/// Names (atoms or rule labels), numbered in the order they first appear. The text of
/// every name is stored once, in one buffer; the table holds ids and hashes the names
/// they point to, so there is neither a `String` per name nor a second copy as a key.
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    text: String,
    /// Where each name ends in `text` (it starts where the previous one ends).
    ends: Vec<usize>,
    table: HashTable<u32>,
    hasher: foldhash::fast::FixedState,
}

fn name_at<'a>(text: &'a str, ends: &[usize], i: u32) -> &'a str {
    let i = i as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &text[start..ends[i]]
}

impl Names {
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn name(&self, i: u32) -> &str {
        name_at(&self.text, &self.ends, i)
    }

    pub(crate) fn get(&self, name: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(name);
        self.table.find(hash, |&i| self.name(i) == name).copied()
    }

    /// The id of `name`, new or not: one hash and one probe.
    pub(crate) fn intern(&mut self, name: &str) -> u32 {
        let hash = self.hasher.hash_one(name);
        let Names {
            text,
            ends,
            table,
            hasher,
        } = self;
        let entry = table.entry(
            hash,
            |&i| name_at(text, ends, i) == name,
            |&i| hasher.hash_one(name_at(text, ends, i)),
        );
        match entry {
            Entry::Occupied(found) => *found.get(),
            Entry::Vacant(vacant) => {
                let new = id(ends.len());
                vacant.insert(new);
                text.push_str(name);
                ends.push(text.len());
                new
            }
        }
    }

    /// Makes room for `additional` names of `bytes` bytes in all.
    pub(crate) fn reserve(&mut self, additional: usize, bytes: usize) {
        let Names {
            text,
            ends,
            table,
            hasher,
        } = self;
        text.reserve(bytes);
        ends.reserve(additional);
        table.reserve(additional, |&i| hasher.hash_one(name_at(text, ends, i)));
    }
}

/// Strings numbered in the order they are pushed, stored in one buffer, without a
/// table to find them by text: for names that are only ever read by number, such as
/// the label of each rule.
#[derive(Debug, Clone, Default)]
pub(crate) struct Texts {
    text: String,
    /// Where each string ends in `text` (it starts where the previous one ends).
    ends: Vec<usize>,
}

impl Texts {
    pub(crate) fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    pub(crate) fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Makes room for `additional` strings of `bytes` bytes in all.
    pub(crate) fn reserve(&mut self, additional: usize, bytes: usize) {
        self.text.reserve(bytes);
        self.ends.reserve(additional);
    }
}
