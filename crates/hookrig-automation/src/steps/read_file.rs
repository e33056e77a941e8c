//! `read_file`: the first lines of a file.
//!
//! Inputs: `path` (default `""`; relative to the workspace), `max_lines` (default
//! 500). Output: `content`, the lines joined with `\n` without trailing newlines.
//! Bytes that are not UTF-8 are replaced, not refused. Only regular files are
//! read, at most 16 MiB of them.

use std::io::BufRead;

use serde_json::{Map, Value};

use super::{StepEnv, count_field, resolve_path, str_field};

/// Lines read when `max_lines` is not given.
pub const DEFAULT_MAX_LINES: usize = 500;
/// The most bytes read, whatever the lines: a file of one endless line (a huge
/// minified bundle) must not fill memory.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

pub(crate) async fn run(step: &Value, env: &StepEnv) -> Result<Map<String, Value>, String> {
    let path = str_field(step, "path", "")?;
    let max_lines = count_field(step, "max_lines", DEFAULT_MAX_LINES)?;
    if path.is_empty() {
        return Err("`path` is empty".to_owned());
    }
    let resolved = resolve_path(&env.workspace, &path);
    let content = tokio::task::spawn_blocking(move || read_lines(&resolved, max_lines))
        .await
        .map_err(|error| format!("read_file stopped: {error}"))??;
    let mut result = Map::new();
    result.insert("content".to_owned(), Value::String(content));
    Ok(result)
}

/// Reads only as far as `max_lines` lines (and [`MAX_BYTES`]): a huge log costs
/// what is kept.
fn read_lines(path: &std::path::Path, max_lines: usize) -> Result<String, String> {
    use std::io::Read as _;
    let fail = |error: std::io::Error| format!("could not read {}: {error}", path.display());
    // Only regular files: a FIFO would block the open and `/dev/zero` never ends.
    let metadata = std::fs::metadata(path).map_err(fail)?;
    if !metadata.is_file() {
        return Err(format!(
            "could not read {}: not a regular file",
            path.display()
        ));
    }
    let file = std::fs::File::open(path).map_err(fail)?;
    let mut reader = std::io::BufReader::new(file.take(MAX_BYTES));
    let mut lines = Vec::new();
    let mut buffer = Vec::new();
    while lines.len() < max_lines {
        buffer.clear();
        if reader.read_until(b'\n', &mut buffer).map_err(fail)? == 0 {
            break;
        }
        let line = String::from_utf8_lossy(&buffer);
        let line = line.strip_suffix('\n').unwrap_or(&line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        lines.push(line.to_owned());
    }
    let mut content = lines.join("\n");
    content.truncate(content.trim_end_matches('\n').len());
    Ok(content)
}
