//! What x-code itself records about its plugins, so that hookrig runs the plugins x-code
//! would run: the version installed of each (`$X_CODE_HOME/plugins/installed_plugins.json`)
//! and whether it is enabled (`enabledPlugins` in `$X_CODE_HOME/settings.json` and in a
//! project's `.x-code/settings.local.json`).
//!
//! x-code ignores a broken file of either kind silently; hookrig ignores it too (running
//! what x-code would run), but says so in a warning.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use hookrig_config::Lowering;

use crate::loader::LoadContext;
use hookrig_core::{Diagnostic, Severity};

/// One record of x-code's `installed_plugins.json`: the plugin lives in
/// `cache/<marketplace>/<name>/<version>/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Installed {
    /// The marketplace directory (`local` for direct installs).
    pub(crate) marketplace: String,
    /// The plugin's name.
    pub(crate) name: String,
    /// The version directory x-code runs.
    pub(crate) version: String,
}

/// Reads x-code's install record in `plugins` (`$X_CODE_HOME/plugins`). `None` when there
/// is no record: x-code then runs nothing from its cache. A record that cannot be read
/// is reported and counts as empty, as x-code treats it; a broken entry is reported
/// and left out.
pub(crate) fn installed(ctx: &mut LoadContext<'_>, plugins: &Path) -> Option<Vec<Installed>> {
    let path = plugins.join("installed_plugins.json");
    let text = ctx.read(&path)?;
    let Some(value) = parse(ctx, &path, &text) else {
        return Some(Vec::new());
    };
    let Some(records) = value.get("plugins").and_then(Value::as_array) else {
        warn(
            ctx,
            &path,
            "`plugins` is not an array; x-code runs none of its installed plugins, and neither does hookrig".to_owned(),
        );
        return Some(Vec::new());
    };
    let mut found = Vec::new();
    for (index, record) in records.iter().enumerate() {
        let field = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        let (Some(marketplace), Some(name), Some(version)) =
            (field("marketplace"), field("name"), field("version"))
        else {
            warn(
                ctx,
                &path,
                format!(
                    "plugins[{index}] needs string `marketplace`, `name` and `version`; it is not loaded"
                ),
            );
            continue;
        };
        // The three become path components: none may climb out of the cache.
        if let Some(bad) = [&marketplace, &name, &version]
            .into_iter()
            .find(|part| !safe_component(part))
        {
            warn(
                ctx,
                &path,
                format!("plugins[{index}]: {bad:?} cannot be a directory name; it is not loaded"),
            );
            continue;
        }
        found.push(Installed {
            marketplace,
            name,
            version,
        });
    }
    Some(found)
}

/// Whether `part` names one directory entry: not empty, not `.` or `..`, no separator.
fn safe_component(part: &str) -> bool {
    !part.is_empty() && part != "." && part != ".." && !part.contains(['/', '\\', ':', '\0'])
}

/// x-code's enabled state: `enabledPlugins` maps of plugin ids to booleans; a plugin
/// no file mentions is enabled.
#[derive(Debug, Default)]
pub(crate) struct Enabled {
    user: HashMap<String, bool>,
    project: HashMap<String, bool>,
    project_file: Option<PathBuf>,
}

impl Enabled {
    /// Reads the user's `settings.json` in `xcode_home` (reporting its problems when
    /// `report_user`), and with `project_file` the project's `.x-code/settings.local.json`.
    pub(crate) fn read(
        ctx: &mut LoadContext<'_>,
        xcode_home: &Path,
        project_file: Option<PathBuf>,
        report_user: bool,
    ) -> Self {
        let user_file = xcode_home.join("settings.json");
        let user = if report_user {
            enabled_map(ctx, &user_file)
        } else {
            // Read (and listed among the files read) by the global pass already.
            let (reported, read) = (ctx.diagnostics.len(), ctx.files.len());
            let map = enabled_map(ctx, &user_file);
            ctx.diagnostics.truncate(reported);
            ctx.files.truncate(read);
            map
        };
        let project = project_file
            .as_deref()
            .map(|file| enabled_map(ctx, file))
            .unwrap_or_default();
        Self {
            user,
            project,
            project_file,
        }
    }

    /// Whether one of the user's own plugins is enabled: only the user's settings
    /// count. A repository's `settings.local.json` could otherwise switch off the
    /// user's guard plugins just by being cloned.
    pub(crate) fn global(&self, id: &str) -> bool {
        self.user.get(id).copied().unwrap_or(true)
    }

    /// Whether a plugin the project ships (`.x-code/plugins/`) is enabled: the project's
    /// settings first, then the user's, as x-code reads them.
    pub(crate) fn project(&self, id: &str) -> bool {
        self.project
            .get(id)
            .or_else(|| self.user.get(id))
            .copied()
            .unwrap_or(true)
    }

    /// Warns about each entry of the project's settings that would switch one of the
    /// user's own plugins (`global_ids`) on or off: it is ignored.
    pub(crate) fn report_ignored(&self, ctx: &mut LoadContext<'_>, global_ids: &[String]) {
        let Some(file) = &self.project_file else {
            return;
        };
        let mut ignored: Vec<(&String, bool)> = self
            .project
            .iter()
            .filter(|(id, on)| global_ids.contains(id) && **on != self.global(id))
            .map(|(id, on)| (id, *on))
            .collect();
        ignored.sort();
        for (id, on) in ignored {
            let what = if on { "enable" } else { "disable" };
            warn(
                ctx,
                file,
                format!(
                    "enabledPlugins: `{id}` is one of your own plugins; a project cannot {what} it, so this entry is ignored (use your own settings.json)"
                ),
            );
        }
    }
}

/// The `enabledPlugins` map of a settings file (empty when there is none); entries that
/// are not booleans are reported and ignored.
fn enabled_map(ctx: &mut LoadContext<'_>, path: &Path) -> HashMap<String, bool> {
    let mut map = HashMap::new();
    let Some(text) = ctx.read(path) else {
        return map;
    };
    let Some(value) = parse(ctx, path, &text) else {
        return map;
    };
    let Some(enabled) = value.get("enabledPlugins") else {
        return map;
    };
    let Some(enabled) = enabled.as_object() else {
        warn(
            ctx,
            path,
            "`enabledPlugins` is not an object; it is ignored".to_owned(),
        );
        return map;
    };
    for (id, on) in enabled {
        match on.as_bool() {
            Some(on) => {
                map.insert(id.clone(), on);
            }
            None => warn(
                ctx,
                path,
                format!("enabledPlugins: `{id}` is not true or false; it is ignored"),
            ),
        }
    }
    map
}

/// Parses `text` as JSON; an error is reported at its line and column.
fn parse(ctx: &mut LoadContext<'_>, path: &Path, text: &str) -> Option<Value> {
    match serde_json::from_str(text) {
        Ok(value) => Some(value),
        Err(err) => {
            let offset = hookrig_core::json_offset(text, err.line(), err.column());
            Lowering::new(path, text, &mut ctx.diagnostics).report(
                offset,
                Severity::Warning,
                format!("invalid JSON: {err}; x-code ignores this file, and so does hookrig"),
            );
            None
        }
    }
}

fn warn(ctx: &mut LoadContext<'_>, path: &Path, message: String) {
    ctx.diagnostics
        .push(Diagnostic::file(path, Severity::Warning, message));
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use test_case::test_case;

    use super::safe_component;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// Loads a world whose x-code home holds `record` as its install record, with one
    /// cached plugin `p@m` 1.0.0 and one `q@m` 1.0.0; returns the plugin ids loaded and
    /// the warnings.
    fn load_with_record(record: &str) -> (Vec<String>, Vec<String>) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("home");
        let xcode_home = home.join(".x-code");
        for name in ["p", "q"] {
            write(
                &xcode_home.join(format!("plugins/cache/m/{name}/1.0.0/plugin.json")),
                &format!(
                    r#"{{"name": "{name}", "hooks": {{"PreToolUse": [{{"command": "true"}}]}}}}"#
                ),
            );
        }
        write(&xcode_home.join("plugins/installed_plugins.json"), record);
        let env = hookrig_config::Environment {
            config_home: home.join(".config"),
            state_home: home.join(".local/state"),
            data_home: home.join(".local/share"),
            xcode_home,
            home: home.clone(),
            cwd: tmp.path().to_owned(),
            trust_all: true,
        };
        let config = crate::load(&env, &crate::LoadOptions::default()).expect("loads");
        let ids = config.hooks.iter().map(|h| h.spec.name.clone()).collect();
        let warnings = config
            .warnings
            .iter()
            .map(|w| w.to_string().replace(&home.display().to_string(), "~"))
            .collect();
        (ids, warnings)
    }

    // guards: a broken install record is reported with its position, and runs what
    // x-code would run (nothing), not every directory of the cache
    #[test]
    fn a_broken_record_loads_nothing_and_says_where() {
        let (ids, warnings) = load_with_record("{\n  \"plugins\": [,]\n}\n");
        assert!(ids.is_empty(), "{ids:?}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0]
                .starts_with("~/.x-code/plugins/installed_plugins.json:2:15: invalid JSON: "),
            "{warnings:?}"
        );
    }

    // guards: an install record cannot point hookrig outside x-code's cache
    #[test]
    fn records_are_checked_one_by_one() {
        let (ids, warnings) = load_with_record(
            r#"{"plugins": [
                {"name": "p", "marketplace": "m", "version": "1.0.0"},
                {"name": "q", "marketplace": "m", "version": "../../../../etc"},
                {"name": "q", "marketplace": "m"}
            ]}"#,
        );
        assert_eq!(ids, ["p@m:PreToolUse:0"]);
        assert_eq!(
            warnings,
            [
                "~/.x-code/plugins/installed_plugins.json: plugins[1]: \"../../../../etc\" cannot be a directory name; it is not loaded",
                "~/.x-code/plugins/installed_plugins.json: plugins[2] needs string `marketplace`, `name` and `version`; it is not loaded",
            ]
        );
    }

    #[test_case("market", true)]
    #[test_case("1.2.0", true)]
    #[test_case("", false)]
    #[test_case(".", false)]
    #[test_case("..", false)]
    #[test_case("../x", false)]
    #[test_case("a/b", false)]
    fn components(part: &str, safe: bool) {
        assert_eq!(safe_component(part), safe);
    }
}
