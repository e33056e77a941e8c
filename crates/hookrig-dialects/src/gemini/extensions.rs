//! The hooks of installed Gemini CLI extensions: `~/.gemini/extensions/<dir>/`, each
//! with its `gemini-extension.json` and, when it has hooks, `hooks/hooks.json` (the
//! `hooks` object of a settings file). docs/dialects/gemini.md gives the source of each
//! rule.
//!
//! An extension is read when its manifest names it (`name`, `version`) and it is enabled
//! for the working directory by `~/.gemini/extensions/extension-enablement.json` (enabled
//! unless the last override that matches the directory starts with `!`). A linked
//! extension (`.gemini-extension-install.json` of type `link`) is read where it links
//! to. `${extensionPath}`, `${workspacePath}`, `${/}` and `${pathSeparator}` in its hooks'
//! commands and environment are replaced as Gemini CLI replaces them. Its hooks are the
//! user's own (the user installed the extension): global hooks, named
//! `gemini:extension-NAME:EVENT:N`.

use std::path::{Path, PathBuf};

use hookrig_config::consulted;
use hookrig_exec::CommandDef;
use serde::Deserialize;
use serde_json::Value;

use super::loader::{Layer, load_file};
use crate::loader::LoadContext;

/// Where the user's extensions are installed, below the home directory.
const EXTENSIONS_DIR: [&str; 2] = [".gemini", "extensions"];

/// The manifest of an extension.
const MANIFEST: &str = "gemini-extension.json";

/// How an extension was installed; a `link` points at its real folder.
const INSTALL_METADATA: &str = ".gemini-extension-install.json";

/// The enablement of every extension, per directory.
const ENABLEMENT: &str = "extension-enablement.json";

#[derive(Debug, Deserialize)]
struct Manifest {
    name: Option<String>,
    version: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct InstallMetadata {
    #[serde(rename = "type")]
    kind: Option<String>,
    source: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Enablement {
    #[serde(default)]
    overrides: Vec<String>,
}

/// Loads the hooks of every enabled extension, in the order of their folder names.
pub(crate) fn load_extensions(ctx: &mut LoadContext<'_>) {
    let dir = EXTENSIONS_DIR
        .iter()
        .fold(ctx.env.home.clone(), |dir, part| dir.join(part));
    // Listed and tested through `consulted`, as every loader reads its sources, so that
    // the resident engine's kept load is read again once an extension is installed,
    // removed or linked (the folder's times change).
    let Ok(entries) = consulted::read_dir(&dir) else {
        return;
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| consulted::is_dir(path))
        .collect();
    folders.sort();
    let enablement: serde_json::Map<String, Value> = ctx
        .read(&dir.join(ENABLEMENT))
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let workspace = ctx.env.cwd.clone();
    for folder in folders {
        let folder = linked_folder(ctx, &folder).unwrap_or(folder);
        let Some(name) = manifest_name(ctx, &folder) else {
            continue;
        };
        let rules: Enablement = enablement
            .get(&name)
            .and_then(|rules| serde_json::from_value(rules.clone()).ok())
            .unwrap_or_default();
        if !enabled(&rules.overrides, &workspace) {
            continue;
        }
        let hooks_file = folder.join("hooks").join("hooks.json");
        let (first_hook, first_shadowed) = (ctx.hooks.len(), ctx.shadowed.len());
        load_file(ctx, &hooks_file, Layer::Extension);
        let variables = Variables {
            extension: folder.to_string_lossy().into_owned(),
            workspace: workspace.to_string_lossy().into_owned(),
        };
        let label = format!("gemini:extension-{name}:");
        for def in &mut ctx.hooks[first_hook..] {
            rename(&mut ctx.gemini, &mut def.spec.name, &label);
            variables.hydrate_command(&mut def.command);
            for (_, value) in &mut def.env {
                *value = variables.hydrate(value);
            }
        }
        for shadowed in &mut ctx.shadowed[first_shadowed..] {
            let mut name = shadowed.hook.spec.name.clone();
            if let Some(rest) = name.strip_prefix(Layer::Extension.prefix()) {
                name = format!("{label}{rest}");
            }
            shadowed.hook.spec.name = name;
            variables.hydrate_command(&mut shadowed.hook.command);
        }
    }
}

/// Gives a hook loaded as `gemini:extension:...` its extension's name, in the hook and
/// in the Gemini state's records of it.
fn rename(state: &mut super::State, name: &mut String, label: &str) {
    let Some(rest) = name.strip_prefix(Layer::Extension.prefix()) else {
        return;
    };
    let renamed = format!("{label}{rest}");
    state.rename(name, &renamed);
    *name = renamed;
}

/// Where a linked extension really is: the `source` of its install metadata when its
/// type is `link`.
fn linked_folder(ctx: &mut LoadContext<'_>, folder: &Path) -> Option<PathBuf> {
    let text = ctx.read(&folder.join(INSTALL_METADATA))?;
    let metadata: InstallMetadata = serde_json::from_str(&text).ok()?;
    (metadata.kind.as_deref() == Some("link"))
        .then_some(metadata.source)
        .flatten()
        .map(PathBuf::from)
}

/// The extension's name from its manifest; `None` (the extension is skipped, as Gemini
/// CLI skips it) when the manifest is missing, is not JSON or lacks `name` or `version`.
fn manifest_name(ctx: &mut LoadContext<'_>, folder: &Path) -> Option<String> {
    let text = ctx.read(&folder.join(MANIFEST))?;
    let manifest: Manifest = serde_json::from_str(&text).ok()?;
    manifest.version.as_ref()?;
    manifest.name.filter(|name| !name.is_empty())
}

/// Whether an extension is enabled in `workspace`: enabled by default; the last override
/// that matches the directory decides, a `!` disabling. An override is a directory, with
/// a trailing `*` for its subdirectories too.
fn enabled(overrides: &[String], workspace: &Path) -> bool {
    let path = with_slashes(&workspace.to_string_lossy());
    let mut enabled = true;
    for rule in overrides {
        let (disable, rule) = match rule.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, rule.as_str()),
        };
        let matches = match rule.strip_suffix('*') {
            Some(base) => path.starts_with(&with_slashes(base)) || with_slashes(base) == path,
            None => with_slashes(rule) == path,
        };
        if matches {
            enabled = !disable;
        }
    }
    enabled
}

/// A directory with one leading and one trailing slash, as Gemini CLI compares them.
fn with_slashes(dir: &str) -> String {
    let mut dir = dir.replace('\\', "/");
    if !dir.starts_with('/') {
        dir.insert(0, '/');
    }
    if !dir.ends_with('/') {
        dir.push('/');
    }
    dir
}

/// The values of the variables Gemini CLI replaces in an extension's hooks.
struct Variables {
    extension: String,
    workspace: String,
}

impl Variables {
    fn hydrate(&self, text: &str) -> String {
        text.replace("${extensionPath}", &self.extension)
            .replace("${workspacePath}", &self.workspace)
            .replace("${/}", "/")
            .replace("${pathSeparator}", "/")
    }

    fn hydrate_command(&self, command: &mut CommandDef) {
        if let CommandDef::Shell { line, .. } = command {
            *line = self.hydrate(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enablement_follows_the_last_matching_override() {
        let w = Path::new("/home/u/code/app");
        assert!(enabled(&[], w));
        assert!(!enabled(&["!/home/u/*".to_owned()], w));
        assert!(enabled(
            &["!/home/u/*".to_owned(), "/home/u/code/app/".to_owned()],
            w
        ));
        assert!(!enabled(&["!/home/u/code/app/".to_owned()], w));
        assert!(
            enabled(&["!/home/u/code/".to_owned()], w),
            "not its subdirectories"
        );
        assert!(!enabled(&["!/home/u/code/*".to_owned()], w));
    }

    #[test]
    fn variables_are_replaced_as_gemini_replaces_them() {
        let vars = Variables {
            extension: "/x/ext".to_owned(),
            workspace: "/w".to_owned(),
        };
        assert_eq!(
            vars.hydrate("${extensionPath}${/}hooks${pathSeparator}a.sh ${workspacePath} ${HOME}"),
            "/x/ext/hooks/a.sh /w ${HOME}"
        );
    }
}
