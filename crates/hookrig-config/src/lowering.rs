//! The lowering toolkit: what every config loader uses to turn a parsed file into
//! validated values, with errors and warnings placed in the file.

use std::ops::Range;
use std::time::Duration;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Parses a duration such as `5s`, `250ms` or `1m30s`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text.trim()).map_err(|err| err.to_string())
}

/// toml's messages end with a newline and sometimes a period; ours do neither.
pub fn toml_message(err: &toml::de::Error) -> String {
    err.message().trim().trim_end_matches('.').to_owned()
}

/// The keys of a path reported by `serde_ignored`, without the wrappers serde adds.
pub fn segments(path: &serde_ignored::Path<'_>) -> Vec<String> {
    let mut out = match path {
        serde_ignored::Path::Root => return Vec::new(),
        serde_ignored::Path::Seq { parent, .. }
        | serde_ignored::Path::Map { parent, .. }
        | serde_ignored::Path::Some { parent }
        | serde_ignored::Path::NewtypeStruct { parent }
        | serde_ignored::Path::NewtypeVariant { parent } => segments(parent),
    };
    match path {
        serde_ignored::Path::Seq { index, .. } => out.push(index.to_string()),
        serde_ignored::Path::Map { key, .. } if !key.starts_with("$__") => out.push(key.clone()),
        _ => {}
    }
    out
}

/// The span of the key at `keys` in the document.
pub fn span_of(root: &DeTable<'_>, keys: &[String]) -> Option<Range<usize>> {
    let (first, rest) = keys.split_first()?;
    let (key, value) = root.get_key_value(first.as_str())?;
    if rest.is_empty() {
        return Some(key.span());
    }
    span_in(value, rest)
}

fn span_in(value: &Spanned<DeValue<'_>>, keys: &[String]) -> Option<Range<usize>> {
    match value.get_ref() {
        DeValue::Table(table) => span_of(table, keys),
        DeValue::Array(array) => {
            let (index, rest) = keys.split_first()?;
            let item = array.get(index.parse::<usize>().ok()?)?;
            if rest.is_empty() {
                Some(item.span())
            } else {
                span_in(item, rest)
            }
        }
        _ => None,
    }
}

/// The candidate closest to `word`, when one is close enough to be a likely typo.
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}
