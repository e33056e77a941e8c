//! The edit of Codex's `config.toml`: the arrays of its `[hooks]` tables that name an
//! event move into `config.hookrig.toml` beside it (and back on uninstall). The file is
//! edited in place: every other table and key (`[hooks.state]` among them), every
//! comment and the formatting stay as they were. A file that does not parse, or whose
//! `hooks` or events have another shape than Codex reads, is refused with the position.
//!
//! The user's `config.toml` also keeps Codex's state of each hook by its place
//! (`[hooks.state."PATH:EVENT:GROUP:HANDLER"]`): the keys naming the places hookrig's
//! entries take over move into the sidecar's `[hooks.state]` too, and come back on
//! uninstall (docs/dialects/codex.md).

use std::path::Path;

use toml_edit::{ArrayOfTables, DocumentMut, Item, Key, Table};

use super::InstallError;

/// The result of an install into one `config.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edited {
    /// The file as it is to be written (`""` for a file that does not exist and stays so).
    pub(crate) file: String,
    /// The sidecar as it is to be written; `None` when nothing moved.
    pub(crate) sidecar: Option<String>,
    /// How many handlers moved.
    pub(crate) moved: usize,
}

/// A refusal of `path` at byte `offset` of `text`.
fn refused(path: &Path, text: &str, offset: usize, message: &str) -> InstallError {
    let (line, col) = hookrig_core::line_col(text, offset);
    InstallError::Refused {
        path: path.to_owned(),
        line,
        col,
        message: message.trim().to_owned(),
    }
}

/// `text` parsed, with its `[hooks]` events checked against Codex's shape.
fn parse(path: &Path, text: &str, events: &[&str]) -> Result<DocumentMut, InstallError> {
    // Parsed as a document that keeps the spans, for the places of the problems, then
    // made editable.
    let doc = toml_edit::Document::parse(text)
        .map_err(|err| refused(path, text, err.span().map_or(0, |s| s.start), err.message()))?;
    if let Some(hooks) = doc.get("hooks") {
        check_hooks(path, text, hooks, events)?;
    }
    Ok(doc.into_mut())
}

/// Checks that `hooks` is a table whose events are arrays of tables.
fn check_hooks(path: &Path, text: &str, hooks: &Item, events: &[&str]) -> Result<(), InstallError> {
    let at = |item: &Item| item.span().map_or(0, |s| s.start);
    let Some(table) = hooks.as_table_like() else {
        return Err(refused(path, text, at(hooks), "`hooks` must be a table"));
    };
    for (event, item) in table.iter() {
        if !events.contains(&event) {
            continue;
        }
        let groups_ok = match item {
            Item::ArrayOfTables(_) => true,
            Item::Value(toml_edit::Value::Array(array)) => {
                array.iter().all(toml_edit::Value::is_inline_table)
            }
            _ => false,
        };
        if !groups_ok {
            return Err(refused(
                path,
                text,
                at(item),
                &format!("`hooks.{event}` must be an array of tables"),
            ));
        }
    }
    Ok(())
}

/// The groups of one event's item, as tables with no place of their own in the
/// document they came from (so that they print after the tables already there).
fn groups(item: Item) -> Vec<Table> {
    let Ok(array) = item.into_array_of_tables() else {
        return Vec::new();
    };
    array
        .into_iter()
        .map(|mut table| {
            forget_positions(&mut table);
            table
        })
        .collect()
}

fn forget_positions(table: &mut Table) {
    table.set_position(None);
    for (_, item) in table.iter_mut() {
        match item {
            Item::Table(inner) => forget_positions(inner),
            Item::ArrayOfTables(array) => {
                for inner in array.iter_mut() {
                    forget_positions(inner);
                }
            }
            _ => {}
        }
    }
}

/// How many handlers the groups hold.
fn count(groups: &[Table]) -> usize {
    groups
        .iter()
        .map(|g| match g.get("hooks") {
            Some(Item::ArrayOfTables(a)) => a.len(),
            Some(Item::Value(toml_edit::Value::Array(a))) => a.len(),
            _ => 0,
        })
        .sum()
}

/// Appends `groups` to `event` of the document's `[hooks]` (created when missing).
fn append(doc: &mut DocumentMut, event: &str, groups: Vec<Table>) {
    let hooks = doc.entry("hooks").or_insert_with(|| {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    });
    let Some(hooks) = hooks.as_table_like_mut() else {
        return;
    };
    let item = hooks
        .entry(event)
        .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
    if !item.is_array_of_tables() {
        let taken = std::mem::replace(item, Item::None);
        *item = Item::ArrayOfTables(ArrayOfTables::from_iter(self::groups(taken)));
    }
    if let Item::ArrayOfTables(array) = item {
        for group in groups {
            array.push(group);
        }
    }
}

/// Sets `enabled = false` on the handlers of `groups` the user turned off in Codex
/// (`off(group, handler)`, their places in the file they come from), whose state Codex
/// keeps by that place.
fn mark_turned_off(groups: &mut [Table], off: &dyn Fn(usize, usize) -> bool) {
    for (g, group) in groups.iter_mut().enumerate() {
        let Some(Item::ArrayOfTables(handlers)) = group.get_mut("hooks") else {
            continue;
        };
        for (h, handler) in handlers.iter_mut().enumerate() {
            if off(g, h) {
                handler.insert("enabled", toml_edit::value(false));
            }
        }
    }
}

/// Takes the `enabled = false` install set away from the handlers of `groups`.
fn unmark(groups: &mut [Table]) {
    for group in groups {
        let Some(Item::ArrayOfTables(handlers)) = group.get_mut("hooks") else {
            continue;
        };
        for handler in handlers.iter_mut() {
            if handler.get("enabled").and_then(Item::as_bool) == Some(false) {
                handler.remove("enabled");
            }
        }
    }
}

/// Takes every event array out of the document's `[hooks]`, in file order; a `[hooks]`
/// left empty goes too.
fn take_events(doc: &mut DocumentMut, events: &[&str]) -> Vec<(String, Vec<Table>)> {
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) else {
        return Vec::new();
    };
    let names: Vec<String> = hooks
        .iter()
        .map(|(k, _)| k.to_owned())
        .filter(|k| events.contains(&k.as_str()))
        .collect();
    let mut taken = Vec::new();
    for name in names {
        if let Some(item) = hooks.remove(&name) {
            taken.push((name, groups(item)));
        }
    }
    if hooks.is_empty() {
        doc.remove("hooks");
    }
    taken
}

/// The `[hooks.state]` table of a document, for editing.
fn state_table(doc: &mut DocumentMut) -> Option<&mut dyn toml_edit::TableLike> {
    doc.get_mut("hooks")?
        .as_table_like_mut()?
        .get_mut("state")?
        .as_table_like_mut()
}

/// Removes `[hooks.state]` when it is left empty, then `[hooks]` when it is.
fn drop_empty_state(doc: &mut DocumentMut) {
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) else {
        return;
    };
    if hooks
        .get("state")
        .and_then(Item::as_table_like)
        .is_some_and(toml_edit::TableLike::is_empty)
    {
        hooks.remove("state");
    }
    if hooks.is_empty() {
        doc.remove("hooks");
    }
}

/// Takes out of `[hooks.state]` the keys for which `which` holds (compared as Codex
/// compares them, trimmed), with their tables as written.
fn take_state(doc: &mut DocumentMut, which: &dyn Fn(&str) -> bool) -> Vec<(Key, Item)> {
    let Some(state) = state_table(doc) else {
        return Vec::new();
    };
    let keys: Vec<String> = state
        .iter()
        .map(|(k, _)| k.to_owned())
        .filter(|k| which(k.trim()))
        .collect();
    let taken = keys
        .iter()
        .filter_map(|k| {
            let key = state.get_key_value(k)?.0.clone();
            Some((key, state.remove(k)?))
        })
        .collect();
    drop_empty_state(doc);
    taken
}

/// Puts state keys into the document's `[hooks.state]` (created when missing), each
/// replacing a key of the same name.
fn put_state(doc: &mut DocumentMut, keys: Vec<(Key, Item)>) {
    if keys.is_empty() {
        return;
    }
    let implicit = || {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    };
    let Some(hooks) = doc
        .entry("hooks")
        .or_insert_with(implicit)
        .as_table_like_mut()
    else {
        return;
    };
    let Some(state) = hooks
        .entry("state")
        .or_insert(implicit())
        .as_table_like_mut()
    else {
        return;
    };
    for (key, mut item) in keys {
        // Printed after the tables already there, not at the place they had in the
        // file they come from.
        if let Item::Table(table) = &mut item {
            forget_positions(table);
        }
        state.remove(key.get());
        state.entry_format(&key).or_insert(item);
    }
}

/// Moves the event arrays of `[hooks]` in `text` into the sidecar, and the keys of
/// `[hooks.state]` named in `state` (the state of the hooks whose places hookrig's
/// entries take over, in the user's `config.toml`).
pub(crate) fn install(
    path: &Path,
    text: Option<&str>,
    sidecar_path: &Path,
    sidecar: Option<&str>,
    events: &[&str],
    off: &dyn Fn(&str, usize, usize) -> bool,
    state: &[String],
) -> Result<Edited, InstallError> {
    let Some(text) = text else {
        if let Some(sidecar) = sidecar {
            parse(sidecar_path, sidecar, events)?;
        }
        return Ok(Edited {
            file: String::new(),
            sidecar: None,
            moved: 0,
        });
    };
    let mut doc = parse(path, text, events)?;
    let mut side = parse(sidecar_path, sidecar.unwrap_or(""), events)?;
    let taken = take_events(&mut doc, events);
    let states = take_state(&mut doc, &|key| state.iter().any(|s| s == key));
    if taken.is_empty() && states.is_empty() {
        return Ok(Edited {
            file: text.to_owned(),
            sidecar: None,
            moved: 0,
        });
    }
    let mut moved = 0;
    for (event, mut groups) in taken {
        moved += count(&groups);
        mark_turned_off(&mut groups, &|g, h| off(&event, g, h));
        append(&mut side, &event, groups);
    }
    put_state(&mut side, states);
    let mut side = side.to_string();
    if sidecar.is_none() {
        // A new sidecar starts with the moved tables, not with the blank line that stood
        // before them in config.toml.
        side = side.trim_start().to_owned();
    }
    Ok(Edited {
        file: doc.to_string(),
        sidecar: Some(side),
        moved,
    })
}

/// What uninstall does to the `[hooks.state]` of the user's `config.toml`.
pub(crate) struct GiveBack<'a> {
    /// The keys of the places hookrig's entries hold now: Codex's state of hookrig's
    /// entries, which go.
    pub(crate) drop: Vec<String>,
    /// Whether a key kept in the sidecar is given back at this level (it names a place
    /// of this level's hooks file).
    pub(crate) names: &'a dyn Fn(&str) -> bool,
}

/// Puts the sidecar's event arrays back into `[hooks]` of `text`, after what each event
/// holds there now, and with `state` the `[hooks.state]` keys install kept; returns the
/// new text, how many handlers came back, and what stays in the sidecar (`None`: it
/// goes): only keys install kept for another level.
pub(crate) fn uninstall(
    path: &Path,
    text: Option<&str>,
    sidecar_path: &Path,
    sidecar: Option<&str>,
    events: &[&str],
    state: Option<&GiveBack<'_>>,
) -> Result<(String, usize, Option<String>), InstallError> {
    let mut doc = parse(path, text.unwrap_or(""), events)?;
    if let Some(state) = state {
        take_state(&mut doc, &|key| state.drop.iter().any(|d| d == key));
    }
    let Some(sidecar) = sidecar else {
        let file = if text.is_some() {
            doc.to_string()
        } else {
            String::new()
        };
        return Ok((file, 0, None));
    };
    let mut side = parse(sidecar_path, sidecar, events)?;
    let taken = take_events(&mut side, events);
    let mut restored = 0;
    for (event, mut groups) in taken {
        restored += count(&groups);
        unmark(&mut groups);
        append(&mut doc, &event, groups);
    }
    let mut rest = None;
    if let Some(state) = state {
        let given = take_state(&mut side, state.names);
        put_state(&mut doc, given);
        if state_table(&mut side).is_some_and(|t| !t.is_empty()) {
            rest = Some(side.to_string());
        }
    }
    Ok((doc.to_string(), restored, rest))
}

/// The handlers of the `[hooks]` event arrays of `text`, event by event, as JSON values
/// (for the timeout of hookrig's entry); nothing when it does not parse, since install
/// then refuses the file anyway.
pub(crate) fn handlers(text: &str, events: &[&str]) -> Vec<(String, serde_json::Value)> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Vec::new();
    };
    let Some(hooks) = table.get("hooks").and_then(toml::Value::as_table) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (event, groups) in hooks {
        if !events.contains(&event.as_str()) {
            continue;
        }
        let groups = groups.as_array().map(Vec::as_slice).unwrap_or_default();
        for group in groups {
            let handlers = group
                .get("hooks")
                .and_then(toml::Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            for handler in handlers {
                if let Ok(value) = serde_json::to_value(handler) {
                    found.push((event.clone(), value));
                }
            }
        }
    }
    found
}

/// The file's content as a value, for comparing two texts by meaning.
pub(crate) fn meaning(text: &str) -> Option<toml::Table> {
    toml::from_str(text).ok()
}
