//! The edit of one JSON hooks file (Claude Code's and Gemini CLI's `settings.json`,
//! Cursor's and Codex's `hooks.json`) and of its sidecar, as text in and text out.
//!
//! The file is edited through a formatting-preserving syntax tree: only the arrays of
//! the events that change are rewritten, and every other byte (other settings, comments,
//! indentation, the order of keys) stays as it was. A file that does not parse, or whose
//! `hooks` have a shape the host would reject, is refused with the position of the
//! problem before anything is changed.

use std::path::Path;

use jsonc_parser::ParseOptions;
use jsonc_parser::ast;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::{Map, Value};

use super::{InstallError, JsonHooks};

/// The result of an install into one file: the new texts, and how many handlers moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edited {
    /// The file as it is to be written.
    pub(crate) file: String,
    /// The sidecar as it is to be written; `None` when nothing moved into it and it is to
    /// stay as it is (or absent).
    pub(crate) sidecar: Option<String>,
    /// How many of the user's handlers moved.
    pub(crate) moved: usize,
}

/// The parser's rules of a host: strict JSON, with comments where the host strips them.
fn options(hooks: &JsonHooks) -> ParseOptions {
    ParseOptions {
        allow_comments: hooks.comments,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// A refusal of `path` at byte `offset` of `text`.
fn refused(path: &Path, text: &str, offset: usize, message: impl Into<String>) -> InstallError {
    let (line, col) = hookrig_core::line_col(text, offset);
    let message: String = message.into();
    // The parser's messages start with a capital; hookrig's errors do not.
    let mut chars = message.chars();
    let message = chars
        .next()
        .map(|first| first.to_lowercase().chain(chars).collect())
        .unwrap_or_default();
    InstallError::Refused {
        path: path.to_owned(),
        line,
        col,
        message,
    }
}

/// Checks that `text` parses as the host reads it and that its `hooks` have the host's
/// shape; the error names the first problem's position.
fn validate(path: &Path, text: &str, hooks: &JsonHooks) -> Result<(), InstallError> {
    let parsed = jsonc_parser::parse_to_ast(
        text,
        &jsonc_parser::CollectOptions::default(),
        &options(hooks),
    )
    .map_err(|err| refused(path, text, err.range().start, err.kind().to_string()))?;
    let Some(root) = parsed.value else {
        // An empty file (or only whitespace and comments) is an empty object to hookrig,
        // which then writes its entries into it.
        return Ok(());
    };
    let ast::Value::Object(root) = root else {
        return Err(refused(path, text, 0, "the settings must be a JSON object"));
    };
    let Some(prop) = root.get("hooks") else {
        return Ok(());
    };
    let ast::Value::Object(events) = &prop.value else {
        return Err(refused(
            path,
            text,
            value_start(&prop.value),
            "`hooks` must be an object of events",
        ));
    };
    for event in &events.properties {
        let name = event.name.as_str();
        if hooks.setting_keys.contains(&name) {
            continue;
        }
        let ast::Value::Array(entries) = &event.value else {
            return Err(refused(
                path,
                text,
                value_start(&event.value),
                format!("the hooks of `{name}` must be a list"),
            ));
        };
        for entry in &entries.elements {
            let ast::Value::Object(entry) = entry else {
                return Err(refused(
                    path,
                    text,
                    value_start(entry),
                    format!("each entry of `{name}` must be an object"),
                ));
            };
            if !hooks.grouped {
                continue;
            }
            let Some(handlers) = entry.get("hooks") else {
                continue;
            };
            let ast::Value::Array(handlers) = &handlers.value else {
                return Err(refused(
                    path,
                    text,
                    value_start(&handlers.value),
                    format!("the `hooks` of a group of `{name}` must be a list"),
                ));
            };
            if let Some(bad) = handlers
                .elements
                .iter()
                .find(|h| !matches!(h, ast::Value::Object(_)))
            {
                return Err(refused(
                    path,
                    text,
                    value_start(bad),
                    format!("each hook of a group of `{name}` must be an object"),
                ));
            }
        }
    }
    Ok(())
}

/// Where a value starts in the text.
fn value_start(value: &ast::Value<'_>) -> usize {
    use jsonc_parser::common::Ranged as _;
    value.range().start
}

/// The parsed tree of `text`, validated; an empty text is an empty object.
fn tree(path: &Path, text: &str, hooks: &JsonHooks) -> Result<CstRootNode, InstallError> {
    validate(path, text, hooks)?;
    let root = CstRootNode::parse(text, &options(hooks))
        .map_err(|err| refused(path, text, err.range().start, err.kind().to_string()))?;
    Ok(root)
}

/// The `hooks` object of a tree as serde values, event by event, in file order.
fn events_of(root: &CstRootNode) -> Vec<(String, Value)> {
    let Some(hooks) = root.object_value().and_then(|o| o.object_value("hooks")) else {
        return Vec::new();
    };
    hooks
        .properties()
        .into_iter()
        .filter_map(|prop| {
            let name = prop.decoded_name()?;
            let value = prop.value()?.to_serde_value()?;
            Some((name, value))
        })
        .collect()
}

/// Whether a handler object is hookrig's own entry: a command that calls `hookrig emit`,
/// or an HTTP hook that posts to a resident engine's `/emit/` ingress.
pub(crate) fn is_hookrig_handler(handler: &Value) -> bool {
    let Some(handler) = handler.as_object() else {
        return false;
    };
    if let Some(url) = handler.get("url").and_then(Value::as_str) {
        return hookrig_exec::CommandDef::Http {
            url: url.to_owned(),
            headers: Vec::new(),
            secret_env: None,
        }
        .calls_hookrig_emit();
    }
    let Some(command) = handler.get("command").and_then(Value::as_str) else {
        return false;
    };
    let command = match handler.get("args").and_then(Value::as_array) {
        Some(args) => hookrig_exec::CommandDef::Exec {
            argv: std::iter::once(command.to_owned())
                .chain(args.iter().filter_map(|a| a.as_str().map(str::to_owned)))
                .collect(),
        },
        None => hookrig_exec::CommandDef::Shell {
            line: command.to_owned(),
            script: None,
        },
    };
    command.calls_hookrig_emit()
}

/// The handlers of one entry of an event: the group's `hooks` (grouped formats), or
/// the entry itself (Cursor's flat lists).
fn handlers_of<'v>(entry: &'v Value, hooks: &JsonHooks) -> Vec<&'v Value> {
    if hooks.grouped {
        entry
            .get("hooks")
            .and_then(Value::as_array)
            .map(|h| h.iter().collect())
            .unwrap_or_default()
    } else {
        vec![entry]
    }
}

/// An event's entries split into hookrig's handlers and the user's entries (for a
/// grouped format, each group with only its non-hookrig handlers; a group left with none
/// is dropped). A handler for which `off(group, handler)` holds (its 0-based place in
/// `entries`) is one the user turned off in the host, and gets `"enabled": false`.
fn split(
    entries: &[Value],
    hooks: &JsonHooks,
    off: &dyn Fn(usize, usize) -> bool,
) -> (usize, Vec<Value>) {
    let mut ours = 0;
    let mut theirs = Vec::new();
    for (g, entry) in entries.iter().enumerate() {
        if hooks.grouped {
            let handlers = handlers_of(entry, hooks);
            let kept: Vec<Value> = handlers
                .iter()
                .enumerate()
                .filter(|(_, h)| !is_hookrig_handler(h))
                .map(|(h, handler)| {
                    let mut handler = (*handler).clone();
                    if off(g, h)
                        && let Some(object) = handler.as_object_mut()
                    {
                        object.insert("enabled".to_owned(), Value::Bool(false));
                    }
                    handler
                })
                .collect();
            ours += handlers.len() - kept.len();
            if kept.is_empty() && !handlers.is_empty() {
                continue;
            }
            let mut group = entry.clone();
            if let Some(object) = group.as_object_mut()
                && object.contains_key("hooks")
            {
                object.insert("hooks".to_owned(), Value::Array(kept));
            }
            theirs.push(group);
        } else if is_hookrig_handler(entry) {
            ours += 1;
        } else {
            theirs.push(entry.clone());
        }
    }
    (ours, theirs)
}

/// An event's entries with only hookrig's handlers (a group left with none dropped).
fn only_hookrig(entries: &[Value], hooks: &JsonHooks) -> Vec<Value> {
    entries
        .iter()
        .filter_map(|entry| {
            if !hooks.grouped {
                return is_hookrig_handler(entry).then(|| entry.clone());
            }
            let ours: Vec<Value> = handlers_of(entry, hooks)
                .into_iter()
                .filter(|h| is_hookrig_handler(h))
                .cloned()
                .collect();
            if ours.is_empty() {
                return None;
            }
            let mut group = entry.clone();
            if let Some(object) = group.as_object_mut() {
                object.insert("hooks".to_owned(), Value::Array(ours));
            }
            Some(group)
        })
        .collect()
}

/// How many handlers the entries hold.
fn count(entries: &[Value], hooks: &JsonHooks) -> usize {
    entries.iter().map(|e| handlers_of(e, hooks).len()).sum()
}

/// hookrig's entry of `event` in the host's shape: a group holding the handler, or the
/// handler itself.
fn our_entry(hooks: &JsonHooks, handler: Value) -> Value {
    if hooks.grouped {
        serde_json::json!({ "hooks": [handler] })
    } else {
        handler
    }
}

/// The `timeout` hookrig's entry of `event` needs, in the host's unit, when the host's
/// default is not enough: `handlers` (every hook hookrig will run for the event from
/// this level's files) run one after another, each to its own timeout or the host's
/// default, and hookrig needs a moment more to start and answer. `None` when no hook is
/// moved or the host's default already covers them, so that the entry stays as short
/// as it was.
fn entry_timeout(hooks: &JsonHooks, event: &str, handlers: &[&Value]) -> Option<u64> {
    if handlers.is_empty() {
        return None;
    }
    let default = (hooks.default_timeout)(event);
    let total: f64 = handlers
        .iter()
        .map(|h| {
            h.get("timeout")
                .and_then(Value::as_f64)
                .filter(|t| t.is_finite() && *t > 0.0)
                .unwrap_or(default)
        })
        .sum::<f64>()
        + hooks.timeout_margin;
    if total <= default {
        return None;
    }
    // Rounded up to a whole number of the host's unit (Codex reads only integers); a
    // sum too large for a duration is written as the largest integer.
    Some(
        std::time::Duration::try_from_secs_f64(total).map_or(u64::MAX, |d| {
            d.as_secs().saturating_add(u64::from(d.subsec_nanos() > 0))
        }),
    )
}

/// What hookrig writes into a file, and what it knows of the hooks it moves.
pub(crate) struct Writing<'a> {
    /// hookrig's handler of an event.
    pub(crate) entry: &'a dyn Fn(&str) -> Value,
    /// The handlers of the host's other files at this level that hookrig's entry also
    /// runs (Codex's `config.toml`), event by event, for the entry's timeout.
    pub(crate) extra: &'a [(String, Value)],
    /// Whether the user turned off, in the host, the handler of an event at a place
    /// (its group's and its own 0-based index in the file).
    pub(crate) off: &'a dyn Fn(&str, usize, usize) -> bool,
}

/// Installs hookrig into the file `text` (`None`: it does not exist): every event of the
/// host gets hookrig's one entry (`writing.entry(event)` is its handler), and every
/// other handler of those events moves into the sidecar (`sidecar`, `None` when it does
/// not exist), appended after what it already holds.
///
/// Events the host does not have are left alone: hookrig is not called for them, so their
/// hooks stay where the host runs them.
pub(crate) fn install(
    path: &Path,
    text: Option<&str>,
    sidecar_path: &Path,
    sidecar: Option<&str>,
    hooks: &JsonHooks,
    writing: &Writing<'_>,
) -> Result<Edited, InstallError> {
    let Writing { entry, extra, off } = *writing;
    let root = tree(path, text.unwrap_or(""), hooks)?;
    let side_root = sidecar.map(|s| tree(sidecar_path, s, hooks)).transpose()?;
    let side_events = side_root.as_ref().map(events_of).unwrap_or_default();
    let present = events_of(&root);
    let mut changes: Vec<(String, Option<Value>)> = Vec::new();
    let mut moved: Vec<(String, Vec<Value>)> = Vec::new();
    let mut moved_count = 0;
    for event in (hooks.events)() {
        let current = present.iter().find(|(name, _)| name == event);
        let entries = current
            .and_then(|(_, value)| value.as_array().cloned())
            .unwrap_or_default();
        let (_, theirs) = split(&entries, hooks, &|g, h| off(event, g, h));
        let already = side_events
            .iter()
            .find(|(name, _)| name == event)
            .and_then(|(_, value)| value.as_array().cloned())
            .unwrap_or_default();
        // The entry's timeout is worked out from every hook it will run, those moved
        // before and those moving now, so that it is the same on every install while
        // nothing changes.
        let run: Vec<&Value> = already
            .iter()
            .chain(&theirs)
            .flat_map(|e| handlers_of(e, hooks))
            .chain(extra.iter().filter(|(e, _)| e == event).map(|(_, h)| h))
            .collect();
        if hooks.role == super::Role::MovesOnly {
            // The file's hooks move out, hookrig's own handlers (if someone put them
            // there) stay, and an event left with none loses its key.
            if !theirs.is_empty() {
                moved_count += count(&theirs, hooks);
                moved.push((event.to_owned(), theirs));
                let ours = only_hookrig(&entries, hooks);
                changes.push((
                    event.to_owned(),
                    (!ours.is_empty()).then_some(Value::Array(ours)),
                ));
            }
            continue;
        }
        if run.is_empty() && hooks.only_with_hooks.contains(&event) {
            // No hook to run: the host keeps doing it itself, and an entry of hookrig's
            // left from an install when there were hooks goes.
            if current.is_some() {
                changes.push((event.to_owned(), None));
            }
            continue;
        }
        let mut handler = entry(event);
        if let Some(timeout) = entry_timeout(hooks, event, &run)
            && let Some(object) = handler.as_object_mut()
        {
            object.insert("timeout".to_owned(), Value::from(timeout));
        }
        let desired = Value::Array(vec![our_entry(hooks, handler)]);
        match current {
            Some((_, value)) if *value == desired => {}
            Some(_) => {
                if !theirs.is_empty() {
                    moved_count += count(&theirs, hooks);
                    moved.push((event.to_owned(), theirs));
                }
                changes.push((event.to_owned(), Some(desired)));
            }
            None => changes.push((event.to_owned(), Some(desired))),
        }
    }
    let file = if changes.is_empty() {
        text.unwrap_or("").to_owned()
    } else {
        apply(&root, text.is_none(), hooks, &changes)
    };
    let sidecar = if moved.is_empty() {
        None
    } else {
        Some(append_to_sidecar(side_root.as_ref(), hooks, &moved))
    };
    Ok(Edited {
        file,
        sidecar,
        moved: moved_count,
    })
}

/// Removes hookrig's entries from the file `text` and puts the sidecar's hooks back
/// after whatever the file's events hold now; returns the new text and how many
/// handlers came back. An event left with no entry loses its key.
pub(crate) fn uninstall(
    path: &Path,
    text: Option<&str>,
    sidecar_path: &Path,
    sidecar: Option<&str>,
    hooks: &JsonHooks,
) -> Result<(String, usize), InstallError> {
    let root = tree(path, text.unwrap_or(""), hooks)?;
    let side = sidecar
        .map(|s| tree(sidecar_path, s, hooks))
        .transpose()?
        .map(|r| events_of(&r))
        .unwrap_or_default();
    let present = events_of(&root);
    let mut changes: Vec<(String, Option<Value>)> = Vec::new();
    let mut restored = 0;
    for (event, value) in &present {
        if hooks.setting_keys.contains(&event.as_str()) {
            continue;
        }
        let entries = value.as_array().cloned().unwrap_or_default();
        let (ours, mut theirs) = split(&entries, hooks, &|_, _| false);
        let back = side
            .iter()
            .find(|(name, _)| name == event)
            .and_then(|(_, v)| v.as_array().cloned())
            .map(|back| restore_state(back, hooks))
            .unwrap_or_default();
        if ours == 0 && back.is_empty() {
            continue;
        }
        restored += count(&back, hooks);
        theirs.extend(back);
        changes.push((
            event.clone(),
            (!theirs.is_empty()).then_some(Value::Array(theirs)),
        ));
    }
    for (event, value) in &side {
        if hooks.setting_keys.contains(&event.as_str())
            || present.iter().any(|(name, _)| name == event)
        {
            continue;
        }
        let back = restore_state(value.as_array().cloned().unwrap_or_default(), hooks);
        if back.is_empty() {
            continue;
        }
        restored += count(&back, hooks);
        changes.push((event.clone(), Some(Value::Array(back))));
    }
    if changes.is_empty() {
        return Ok((text.unwrap_or("").to_owned(), 0));
    }
    Ok((apply(&root, text.is_none(), hooks, &changes), restored))
}

/// The entries of a sidecar going back into the host's file, without the
/// `"enabled": false` install carried into them (for a host that keeps that state itself,
/// by the hook's place, which is the hook's again once it is back).
fn restore_state(mut entries: Vec<Value>, hooks: &JsonHooks) -> Vec<Value> {
    if !hooks.carries_state {
        return entries;
    }
    for entry in &mut entries {
        let handlers = if hooks.grouped {
            entry.get_mut("hooks").and_then(Value::as_array_mut)
        } else {
            None
        };
        for handler in handlers.into_iter().flatten() {
            if let Some(object) = handler.as_object_mut()
                && object.get("enabled") == Some(&Value::Bool(false))
            {
                object.remove("enabled");
            }
        }
    }
    entries
}

/// The sidecar with `moved` appended, event by event: a new sidecar is written in full
/// (pretty, with the host's preamble such as Cursor's `version`), an existing one edited
/// in place.
fn append_to_sidecar(
    root: Option<&CstRootNode>,
    hooks: &JsonHooks,
    moved: &[(String, Vec<Value>)],
) -> String {
    let Some(root) = root else {
        let mut document = Map::new();
        for (key, value) in hooks.preamble {
            document.insert((*key).to_owned(), Value::from(*value));
        }
        let events: Map<String, Value> = moved
            .iter()
            .map(|(event, entries)| (event.clone(), Value::Array(entries.clone())))
            .collect();
        document.insert("hooks".to_owned(), Value::Object(events));
        return pretty(&Value::Object(document));
    };
    let present = events_of(root);
    let changes: Vec<(String, Option<Value>)> = moved
        .iter()
        .map(|(event, entries)| {
            let mut all = present
                .iter()
                .find(|(name, _)| name == event)
                .and_then(|(_, v)| v.as_array().cloned())
                .unwrap_or_default();
            all.extend(entries.iter().cloned());
            (event.clone(), Some(Value::Array(all)))
        })
        .collect();
    apply(root, false, hooks, &changes)
}

/// JSON as hookrig writes a new file: two-space indentation and a final newline.
fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value always serializes");
    text.push('\n');
    text
}

/// `root` with each event of `changes` set to its value (`None`: removed), new events
/// appended to `hooks` (created after the existing keys when missing). A file that did
/// not exist (`new`) is written whole instead, with the host's preamble.
fn apply(
    root: &CstRootNode,
    new: bool,
    hooks: &JsonHooks,
    changes: &[(String, Option<Value>)],
) -> String {
    if new {
        let mut document = Map::new();
        for (key, value) in hooks.preamble {
            document.insert((*key).to_owned(), Value::from(*value));
        }
        let events: Map<String, Value> = changes
            .iter()
            .filter_map(|(event, value)| Some((event.clone(), value.clone()?)))
            .collect();
        document.insert("hooks".to_owned(), Value::Object(events));
        return pretty(&Value::Object(document));
    }
    let events: CstObject = root.object_value_or_set().object_value_or_set("hooks");
    for (event, value) in changes {
        match (events.get(event), value) {
            (Some(prop), Some(value)) => prop.set_value(cst_value(value)),
            (Some(prop), None) => prop.remove(),
            (None, Some(value)) => {
                events.append(event, cst_value(value));
            }
            (None, None) => {}
        }
    }
    root.to_string()
}

/// A serde value as the syntax tree's input.
fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}

/// The file's content as a value, for comparing two texts by meaning (`None` when it
/// does not parse).
pub(crate) fn meaning(text: &str, hooks: &JsonHooks) -> Option<Value> {
    let root = CstRootNode::parse(text, &options(hooks)).ok()?;
    match root.value() {
        Some(value) => value.to_serde_value(),
        None => Some(Value::Object(Map::new())),
    }
}

/// The places of hookrig's handlers in the file: the event, the 0-based index of the
/// group and of the handler in it (a flat format's handlers are their own group, at
/// index 0). Nothing when the file does not parse: install then refuses it anyway.
pub(crate) fn hookrig_places(text: &str, hooks: &JsonHooks) -> Vec<(String, usize, usize)> {
    let Ok(root) = CstRootNode::parse(text, &options(hooks)) else {
        return Vec::new();
    };
    let mut places = Vec::new();
    for (event, value) in events_of(&root) {
        if hooks.setting_keys.contains(&event.as_str()) {
            continue;
        }
        let entries = value.as_array().map(Vec::as_slice).unwrap_or_default();
        for (g, entry) in entries.iter().enumerate() {
            if !hooks.grouped {
                if is_hookrig_handler(entry) {
                    places.push((event.clone(), g, 0));
                }
                continue;
            }
            for (h, handler) in handlers_of(entry, hooks).into_iter().enumerate() {
                if is_hookrig_handler(handler) {
                    places.push((event.clone(), g, h));
                }
            }
        }
    }
    places
}

/// Whether the file holds hookrig's entry for any event, and the commands of those
/// entries (for `doctor`); `None` when it does not parse.
pub(crate) fn hookrig_handlers(text: &str, hooks: &JsonHooks) -> Option<Vec<Value>> {
    let root = CstRootNode::parse(text, &options(hooks)).ok()?;
    Some(
        events_of(&root)
            .iter()
            .filter(|(name, _)| !hooks.setting_keys.contains(&name.as_str()))
            .filter_map(|(_, value)| value.as_array().cloned())
            .flat_map(|entries| {
                entries
                    .iter()
                    .flat_map(|e| {
                        handlers_of(e, hooks)
                            .into_iter()
                            .cloned()
                            .collect::<Vec<_>>()
                    })
                    .collect::<Vec<_>>()
            })
            .filter(is_hookrig_handler)
            .collect(),
    )
}
