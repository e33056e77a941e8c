//! A Claude Code plugin's `userConfig`: the options its manifest declares, with the
//! values the user gave in Claude Code's configuration dialog (`pluginConfigs.<id>.options`
//! of the user's `~/.claude/settings.json`; project files are not read for them, as
//! Claude Code does not read them there, so a repository cannot feed values into a
//! plugin's hooks) or else the option's `default`. Hooks get each value as
//! `CLAUDE_PLUGIN_OPTION_<KEY>` (the key in capitals), and an exec-form hook's
//! `${user_config.KEY}` is replaced by it; a shell-form command does not get the value,
//! as Claude Code refuses the placeholder there (the placeholder is left as written, with
//! a warning). Claude Code keeps sensitive options in the system
//! keychain (or its credentials file), which hookrig does not read: each is reported, and
//! its hooks get no variable for it. docs/dialects/claude.md gives the sources.

use std::path::Path;

use hookrig_core::{Diagnostic, Severity};
use hookrig_exec::CommandDef;
use serde_json::Value;

use super::loader::ClaudePlugin;
use crate::definition::HookDef;
use crate::loader::LoadContext;

/// The options of `plugin` that hookrig can give its hooks, as (key, value text), in
/// the manifest's order.
pub(crate) fn values(ctx: &mut LoadContext<'_>, plugin: &ClaudePlugin) -> Vec<(String, String)> {
    let manifest = plugin.root.join(".claude-plugin").join("plugin.json");
    // A manifest that is missing or broken is reported where its hooks are read.
    let Some(declared) = ctx
        .read(&manifest)
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|value| value.get("userConfig").cloned())
    else {
        return Vec::new();
    };
    let Value::Object(declared) = declared else {
        warn(
            ctx,
            &manifest,
            "`userConfig` is not an object; the plugin's options are not read".to_owned(),
        );
        return Vec::new();
    };
    let given = given(ctx, &plugin.id);
    let mut values = Vec::new();
    for (key, schema) in &declared {
        if !is_key(key) {
            warn(
                ctx,
                &manifest,
                format!(
                    "option `{key}` of `userConfig` is not a valid key (letters, digits and `_`, not starting with a digit); it is ignored"
                ),
            );
            continue;
        }
        if schema.get("sensitive") == Some(&Value::Bool(true)) {
            warn(
                ctx,
                &manifest,
                format!(
                    "option `{key}` of plugin `{}` is sensitive: Claude Code keeps its value in the system keychain or its credentials file, which hookrig does not read, so the plugin's hooks get no CLAUDE_PLUGIN_OPTION_{}",
                    plugin.id,
                    key.to_ascii_uppercase()
                ),
            );
            continue;
        }
        let value = given
            .as_ref()
            .and_then(|given| given.get(key))
            .or_else(|| schema.get("default"));
        if let Some(text) = value.and_then(text) {
            values.push((key.clone(), text));
        }
    }
    values
}

/// The hook environment of `values`.
pub(crate) fn environment(values: &[(String, String)]) -> Vec<(String, String)> {
    values
        .iter()
        .map(|(key, value)| {
            (
                format!("CLAUDE_PLUGIN_OPTION_{}", key.to_ascii_uppercase()),
                value.clone(),
            )
        })
        .collect()
}

/// Puts the values in place of `${user_config.KEY}` in an exec-form hook's program and
/// arguments. A shell-form command does not get them, as Claude Code refuses them there
/// (a value put into a shell line could run as code): its placeholder is left as
/// written, and reported, as a placeholder without a value is.
pub(crate) fn substitute(
    ctx: &mut LoadContext<'_>,
    def: &mut HookDef,
    plugin: &ClaudePlugin,
    values: &[(String, String)],
) {
    const PLACEHOLDER: &str = "${user_config.";
    let path = def.spec.source.path.clone();
    match &mut def.command {
        CommandDef::Exec { argv } => {
            for arg in argv.iter_mut().filter(|a| a.contains(PLACEHOLDER)) {
                for (key, value) in values {
                    *arg = arg.replace(&format!("{PLACEHOLDER}{key}}}"), value);
                }
            }
            if argv.iter().any(|a| a.contains(PLACEHOLDER)) {
                warn(
                    ctx,
                    &path,
                    format!(
                        "hook {} names a `${{user_config.…}}` option of plugin `{}` that has no value hookrig can read; the placeholder is left as written",
                        def.spec.name, plugin.id
                    ),
                );
            }
        }
        CommandDef::Shell { line, .. } if line.contains(PLACEHOLDER) => warn(
            ctx,
            &path,
            format!(
                "hook {}: Claude Code does not put `${{user_config.…}}` values in a shell-form command; the placeholder is left as written (use `args`, or read `$CLAUDE_PLUGIN_OPTION_<KEY>`)",
                def.spec.name
            ),
        ),
        CommandDef::Shell { .. } | CommandDef::Http { .. } => {}
    }
}

/// The options the user gave plugin `id`, from the user's settings file.
fn given(ctx: &mut LoadContext<'_>, id: &str) -> Option<serde_json::Map<String, Value>> {
    let settings = ctx.env.home.join(".claude").join("settings.json");
    // A settings file that does not parse is reported where its hooks are read.
    let value: Value = serde_json::from_str(&ctx.read(&settings)?).ok()?;
    match value.get("pluginConfigs")?.get(id)?.get("options")? {
        Value::Object(options) => Some(options.clone()),
        _ => None,
    }
}

/// A value as the hook's environment gets it: a string as it is, a number or a boolean
/// as JSON writes it, a list (an option with `multiple`) or an object as its JSON text;
/// `null` is no value.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

/// Whether `key` is a key Claude Code accepts: letters, digits and `_`, not starting
/// with a digit.
fn is_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn warn(ctx: &mut LoadContext<'_>, path: &Path, message: String) {
    ctx.diagnostics
        .push(Diagnostic::file(path, Severity::Warning, message));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values() {
        assert!(is_key("style_guide") && is_key("_x1") && !is_key("1x") && !is_key("a-b"));
        assert_eq!(text(&Value::from("a b")), Some("a b".to_owned()));
        assert_eq!(text(&Value::from(25)), Some("25".to_owned()));
        assert_eq!(
            text(&serde_json::json!(["a", "b"])),
            Some(r#"["a","b"]"#.to_owned())
        );
        assert_eq!(text(&Value::Null), None);
        assert_eq!(
            environment(&[("maxWords".to_owned(), "25".to_owned())]),
            [("CLAUDE_PLUGIN_OPTION_MAXWORDS".to_owned(), "25".to_owned())]
        );
    }
}
