//! `list_files`: the files of a directory.
//!
//! Inputs: `path` (default `"."`, takes placeholders, relative to the project
//! root; a path made by placeholders must stay inside the workspace), `recursive` (default false), `extensions` (e.g. `[".md"]`, default
//! all; the dot is optional and case does not matter), `max_files` (default
//! 200). Hidden files and directories (names starting with `.`) are skipped;
//! entries are visited in name order, so the first `max_files` are always the
//! same ones. Output: `files` (`{path, size, mtime}`), `count`, `directory`
//! (resolved), `content` (the paths, one per line).

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde_json::{Map, Value, json};

use super::{StepEnv, bool_field, confined_path, count_field, object, render, str_field};

/// Files listed when `max_files` is not given.
pub const DEFAULT_MAX_FILES: usize = 200;

pub(crate) async fn run(
    step: &Value,
    earlier: &[Value],
    env: &StepEnv,
) -> Result<Map<String, Value>, String> {
    let written = str_field(step, "path", ".")?;
    let path = render(&written, earlier, env);
    let recursive = bool_field(step, "recursive", false)?;
    let max_files = count_field(step, "max_files", DEFAULT_MAX_FILES)?;
    let extensions = match step.get("extensions") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(|ext| ext.trim_start_matches('.').to_lowercase())
                    .ok_or_else(|| "`extensions` must be a list of strings".to_owned())
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`extensions` must be a list of strings".to_owned()),
    };
    let directory = confined_path(env, &env.workspace, "path", &written, &path)?;
    let walked = directory.clone();
    let files =
        tokio::task::spawn_blocking(move || list(&walked, recursive, &extensions, max_files))
            .await
            .map_err(|error| format!("list_files stopped: {error}"))??;
    let content = files
        .iter()
        .filter_map(|file| file["path"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let count = files.len();
    Ok(object(json!({
        "files": files,
        "count": count,
        "directory": directory.to_string_lossy(),
        "content": content,
    })))
}

fn list(
    directory: &Path,
    recursive: bool,
    extensions: &[String],
    max_files: usize,
) -> Result<Vec<Value>, String> {
    let metadata = std::fs::metadata(directory)
        .map_err(|error| format!("could not list {}: {error}", directory.display()))?;
    if !metadata.is_dir() {
        return Err(format!("{} is not a directory", directory.display()));
    }
    let mut files = Vec::new();
    walk(directory, recursive, extensions, max_files, &mut files);
    Ok(files)
}

/// Depth first in name order, stopping at `max_files`. Unreadable subdirectories
/// are passed over; symbolic links to files count as files, links to directories
/// are not followed (no loops).
fn walk(
    dir: &Path,
    recursive: bool,
    extensions: &[String],
    max_files: usize,
    files: &mut Vec<Value>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<(String, PathBuf, std::fs::FileType)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().ok()?;
            (!name.starts_with('.')).then(|| (name, entry.path(), kind))
        })
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, path, kind) in entries {
        if files.len() >= max_files {
            return;
        }
        if kind.is_dir() {
            if recursive {
                walk(&path, recursive, extensions, max_files, files);
            }
            continue;
        }
        let Ok(metadata) = std::fs::metadata(&path) else {
            continue;
        };
        if !metadata.is_file() || !wanted(&path, extensions) {
            continue;
        }
        let mtime = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
            .map_or(0.0, |since| since.as_secs_f64());
        files.push(json!({
            "path": path.to_string_lossy(),
            "size": metadata.len(),
            "mtime": mtime,
        }));
    }
}

fn wanted(path: &Path, extensions: &[String]) -> bool {
    extensions.is_empty()
        || path
            .extension()
            .map(|ext| ext.to_string_lossy().to_lowercase())
            .is_some_and(|ext| extensions.contains(&ext))
}
