//! Reading config sources: regular files of bounded size, as text.

use std::io::ErrorKind;
use std::path::Path;

/// The largest config source hookrig reads (a `hooks.toml`, `config.toml`, hygge or
/// Claude Code settings file): 4 MiB. A config file is written by hand; one larger than
/// this is a mistake or an attack, and reading and parsing it on every emit would stall
/// the agent.
pub const MAX_SOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a config source as text (see [`read_source_bytes`]); bytes that are not UTF-8
/// are an `InvalidData` error without a position. Callers that report a position use
/// [`read_source_bytes`] and [`hookrig_core::Diagnostic::utf8`].
pub fn read_source(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_source_bytes(path)?)
        .map_err(|err| std::io::Error::new(ErrorKind::InvalidData, err))
}

/// Reads a config source: a regular file (a FIFO or a device such as `/dev/zero`, which
/// a repository can name with a symlink, would block or never end) of at most
/// [`MAX_SOURCE_BYTES`].
pub fn read_source_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;

    crate::consulted::note(path);
    // The dialects try the same files (Codex's config.toml by seven readers): a file
    // missing once is missing for the whole load without asking again.
    let meta = crate::consulted::looked_metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let too_large = || {
        std::io::Error::new(
            ErrorKind::InvalidData,
            format!(
                "the file is larger than {} MiB, the most a config file may hold",
                MAX_SOURCE_BYTES / (1024 * 1024)
            ),
        )
    };
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(too_large());
    }
    // Sized as the file was, read takes it in one call; grown from empty, it would
    // take a call per doubling from 32 bytes (the limit hides the size from
    // `read_to_end`).
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or_default());
    std::fs::File::open(path)?
        .take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}
