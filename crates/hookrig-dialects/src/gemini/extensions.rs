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
//! commands and environment are replaced as Gemini CLI replaces them, before hooks are
//! compared for duplicates. Its hooks are the user's own (the user installed the
//! extension): global hooks, named `gemini:extension-NAME:EVENT:N`.
//!
//! The system defaults, the user's and the system's settings decide which extensions
//! load (`admin.extensions.enabled`, `security.allowedExtensions`,
//! `security.blockGitExtensions`) and whether their settings are read
//! (`experimental.extensionConfig`): the variables of `~/.gemini/extensions/NAME/.env`
//! are replaced in its hooks, and the settings its manifest declares are added to their
//! environment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrig_config::consulted;
use hookrig_core::{Diagnostic, Severity};
use serde::Deserialize;
use serde_json::Value;

use super::loader::{
    Layer, blank_comments, load_file_with, system_defaults_path, system_settings_path,
};
use crate::loader::LoadContext;

/// Where the user's extensions are installed, below the home directory.
const EXTENSIONS_DIR: [&str; 2] = [".gemini", "extensions"];

/// The manifest of an extension.
const MANIFEST: &str = "gemini-extension.json";

/// How an extension was installed; a `link` points at its real folder.
const INSTALL_METADATA: &str = ".gemini-extension-install.json";

/// The enablement of every extension, per directory.
const ENABLEMENT: &str = "extension-enablement.json";

/// The file of an extension's settings that are not secrets, in its folder by name.
const SETTINGS_ENV: &str = ".env";

#[derive(Debug, Deserialize)]
struct Manifest {
    name: Option<String>,
    version: Option<Value>,
    /// The settings the extension asks for: each is given to its hooks as the variable
    /// `envVar`.
    #[serde(default)]
    settings: Option<Vec<Value>>,
}

/// What the settings files say about extensions (`admin.extensions.enabled`,
/// `security.allowedExtensions`, `security.blockGitExtensions`,
/// `experimental.extensionConfig`), the later file winning key by key.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Policy {
    /// `admin.extensions.enabled = false`: no extension loads.
    off: bool,
    /// `security.allowedExtensions`: when not empty, only extensions whose install
    /// source matches one of these regular expressions load. With the file that set it.
    allowed: Vec<String>,
    allowed_by: Option<PathBuf>,
    /// `security.blockGitExtensions`: extensions installed from git or a GitHub release
    /// do not load (unless `allowed` decides).
    block_git: bool,
    /// `experimental.extensionConfig`: extensions' settings are read.
    settings: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            off: false,
            allowed: Vec::new(),
            allowed_by: None,
            block_git: false,
            settings: true,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPolicy {
    admin: Option<RawAdmin>,
    security: Option<RawSecurity>,
    experimental: Option<RawExperimental>,
}

#[derive(Debug, Default, Deserialize)]
struct RawAdmin {
    extensions: Option<RawAdminExtensions>,
}

#[derive(Debug, Default, Deserialize)]
struct RawAdminExtensions {
    enabled: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSecurity {
    allowed_extensions: Option<Vec<String>>,
    block_git_extensions: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawExperimental {
    extension_config: Option<bool>,
}

/// The extension policy of the system defaults, the user's and the system's settings
/// files, in Gemini CLI's order of precedence. The project's file is not read: it comes
/// with the repository, which must not turn off the user's extensions nor decide what
/// their hooks see. A file that cannot be read or parsed says nothing (its error is
/// reported where its hooks are read).
fn policy(home: &Path) -> Policy {
    policy_of(&[
        system_defaults_path(),
        home.join(".gemini").join("settings.json"),
        system_settings_path(),
    ])
}

/// The extension policy of `files`, the later winning key by key.
fn policy_of(files: &[PathBuf]) -> Policy {
    let mut policy = Policy::default();
    for path in files {
        let Ok(text) = hookrig_config::read_source(path) else {
            continue;
        };
        let Ok(raw) = serde_json::from_str::<RawPolicy>(&blank_comments(&text)) else {
            continue;
        };
        if let Some(enabled) = raw.admin.and_then(|a| a.extensions).and_then(|e| e.enabled) {
            policy.off = !enabled;
        }
        if let Some(security) = raw.security {
            if let Some(allowed) = security.allowed_extensions {
                policy.allowed = allowed;
                policy.allowed_by = Some(path.to_owned());
            }
            if let Some(block) = security.block_git_extensions {
                policy.block_git = block;
            }
        }
        if let Some(on) = raw.experimental.and_then(|e| e.extension_config) {
            policy.settings = on;
        }
    }
    policy
}

/// Why an extension installed from `metadata` does not load under `policy`, or `None`
/// when it loads. `Err` is a pattern of `allowedExtensions` that is not a regular
/// expression.
fn refused(policy: &Policy, metadata: Option<&InstallMetadata>) -> Result<Option<String>, String> {
    if !policy.allowed.is_empty() {
        let Some(source) = metadata.and_then(|m| m.source.as_deref()) else {
            return Ok(Some(format!(
                "its {INSTALL_METADATA} is missing or has no `source`, which `security.allowedExtensions` needs"
            )));
        };
        for pattern in &policy.allowed {
            let regex = regex::Regex::new(pattern).map_err(|err| {
                format!(
                    "invalid regular expression {pattern:?} in `security.allowedExtensions`: {err}"
                )
            })?;
            if regex.is_match(source) {
                return Ok(None);
            }
        }
        return Ok(Some(format!(
            "its source {source:?} is not allowed by `security.allowedExtensions`"
        )));
    }
    let remote = metadata
        .and_then(|m| m.kind.as_deref())
        .is_some_and(|kind| kind == "git" || kind == "github-release");
    if remote && policy.block_git {
        return Ok(Some(
            "extensions from remote sources are turned off by `security.blockGitExtensions`"
                .to_owned(),
        ));
    }
    Ok(None)
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
    let policy = policy(&ctx.env.home);
    if policy.off {
        return;
    }
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
    for installed in folders {
        let metadata = install_metadata(ctx, &installed);
        match refused(&policy, metadata.as_ref()) {
            Ok(None) => {}
            // Left out without a warning: the settings say so on purpose, and Gemini CLI
            // only notes it in its debug log. A warning would be in every answer.
            Ok(Some(_)) => continue,
            Err(message) => {
                // Gemini CLI fails to load its extensions at all on such a pattern.
                let at = policy.allowed_by.clone().unwrap_or_else(|| dir.clone());
                ctx.diagnostics.push(Diagnostic::file(
                    &at,
                    Severity::Error,
                    format!("{message}; no extension is loaded"),
                ));
                return;
            }
        }
        let folder = metadata
            .as_ref()
            .and_then(linked_folder)
            .unwrap_or_else(|| installed.clone());
        let Some(manifest) = manifest(ctx, &folder) else {
            continue;
        };
        let name = manifest.name;
        let rules: Enablement = enablement
            .get(&name)
            .and_then(|rules| serde_json::from_value(rules.clone()).ok())
            .unwrap_or_default();
        if !enabled(&rules.overrides, &workspace) {
            continue;
        }
        let settings = if policy.settings {
            ctx.read(&dir.join(&name).join(SETTINGS_ENV))
                .map(|text| dotenv(&text))
                .unwrap_or_default()
        } else {
            BTreeMap::new()
        };
        let variables = Variables {
            extension: folder.to_string_lossy().into_owned(),
            workspace: workspace.to_string_lossy().into_owned(),
            custom: settings.clone(),
        };
        // Each setting the manifest declares and the user gave a value reaches the
        // extension's hooks as its variable, over the hook's own `env`.
        let hook_env: Vec<(String, String)> = manifest
            .settings
            .iter()
            .filter_map(|var| settings.get(var).map(|value| (var.clone(), value.clone())))
            .collect();
        let hooks_file = folder.join("hooks").join("hooks.json");
        let (first_hook, first_shadowed) = (ctx.hooks.len(), ctx.shadowed.len());
        load_file_with(ctx, &hooks_file, Layer::Extension, &|text: &str| {
            variables.hydrate(text)
        });
        let label = format!("gemini:extension-{name}:");
        for def in &mut ctx.hooks[first_hook..] {
            rename(&mut ctx.gemini, &mut def.spec.name, &label);
            for (var, value) in &hook_env {
                def.env.retain(|(name, _)| name != var);
                def.env.push((var.clone(), value.clone()));
            }
        }
        for shadowed in &mut ctx.shadowed[first_shadowed..] {
            let mut name = shadowed.hook.spec.name.clone();
            if let Some(rest) = name.strip_prefix(Layer::Extension.prefix()) {
                name = format!("{label}{rest}");
            }
            shadowed.hook.spec.name = name;
        }
    }
}

/// The lines `NAME=VALUE` of an extension's `.env`, read as the `dotenv` package reads
/// them: blank lines and `#` comments skipped, an optional `export `, a value in single
/// or double quotes taken as quoted (`\n` in double quotes a newline), an unquoted one
/// trimmed and cut at ` #`.
fn dotenv(text: &str) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() {
            continue;
        }
        let value = value.trim();
        let quoted = |q: char| {
            value
                .strip_prefix(q)
                .and_then(|rest| rest.rfind(q).map(|end| &rest[..end]))
        };
        let value = if let Some(inner) = quoted('"') {
            inner.replace("\\n", "\n")
        } else if let Some(inner) = quoted('\'').or_else(|| quoted('`')) {
            inner.to_owned()
        } else {
            value
                .split(" #")
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        vars.insert(key.to_owned(), value);
    }
    vars
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

/// How the extension in `folder` was installed; `None` when there is no readable
/// record of it.
fn install_metadata(ctx: &mut LoadContext<'_>, folder: &Path) -> Option<InstallMetadata> {
    let text = ctx.read(&folder.join(INSTALL_METADATA))?;
    serde_json::from_str(&text).ok()
}

/// Where a linked extension really is: the `source` of its install metadata when its
/// type is `link`.
fn linked_folder(metadata: &InstallMetadata) -> Option<PathBuf> {
    (metadata.kind.as_deref() == Some("link"))
        .then(|| metadata.source.clone())
        .flatten()
        .map(PathBuf::from)
}

/// An extension's manifest as hookrig needs it.
struct Loaded {
    name: String,
    /// The `envVar` of each setting it declares.
    settings: Vec<String>,
}

/// The extension's name and settings from its manifest; `None` (the extension is
/// skipped, as Gemini CLI skips it) when the manifest is missing, is not JSON or lacks
/// `name` or `version`.
fn manifest(ctx: &mut LoadContext<'_>, folder: &Path) -> Option<Loaded> {
    let text = ctx.read(&folder.join(MANIFEST))?;
    let manifest: Manifest = serde_json::from_str(&text).ok()?;
    manifest.version.as_ref()?;
    let name = manifest.name.filter(|name| !name.is_empty())?;
    let settings = manifest
        .settings
        .unwrap_or_default()
        .iter()
        .filter_map(|setting| setting.get("envVar").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    Some(Loaded { name, settings })
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

/// The values of the variables Gemini CLI replaces in an extension's hooks: its own
/// four and the extension's settings.
struct Variables {
    extension: String,
    workspace: String,
    /// The extension's settings, by variable name.
    custom: BTreeMap<String, String>,
}

impl Variables {
    /// `text` with each `${NAME}` of a known variable replaced, in one pass (a value is
    /// never read again for variables); an unknown `${NAME}` is left to the shell.
    fn hydrate(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                return out;
            };
            let name = &after[..end];
            match self.value(name) {
                Some(value) => out.push_str(value),
                None => out.push_str(&rest[start..start + end + 3]),
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }

    fn value(&self, name: &str) -> Option<&str> {
        // The settings come after the four in Gemini CLI's context, so a setting of the
        // same name wins.
        if let Some(value) = self.custom.get(name) {
            return Some(value.as_str());
        }
        match name {
            "extensionPath" => Some(self.extension.as_str()),
            "workspacePath" => Some(self.workspace.as_str()),
            "/" | "pathSeparator" => Some("/"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    fn metadata(kind: &str, source: &str) -> InstallMetadata {
        InstallMetadata {
            kind: Some(kind.to_owned()),
            source: Some(source.to_owned()),
        }
    }

    #[test_case(&[], false, Some(("git", "https://git.example.com/a/b")), None ; "no policy loads everything")]
    #[test_case(&[], true, Some(("git", "https://git.example.com/a/b")), Some("blockGitExtensions") ; "git blocked")]
    #[test_case(&[], true, Some(("github-release", "https://git.example.com/a/b")), Some("blockGitExtensions") ; "release blocked")]
    #[test_case(&[], true, Some(("local", "/src/ext")), None ; "a local one is not remote")]
    #[test_case(&[], true, None, None ; "no metadata is not remote")]
    #[test_case(&["git\\.example\\.com/a/"], false, Some(("git", "https://git.example.com/a/b")), None ; "allowed by an unanchored regex")]
    #[test_case(&["^/src/"], true, Some(("git", "/src/ext")), None ; "allowed wins over the git block")]
    #[test_case(&["^/src/"], false, Some(("local", "/other/ext")), Some("not allowed") ; "not allowed")]
    #[test_case(&["^/src/"], false, None, Some("missing") ; "allowed needs the metadata")]
    fn extension_policy(
        allowed: &[&str],
        block_git: bool,
        installed: Option<(&str, &str)>,
        expected: Option<&str>,
    ) {
        let policy = Policy {
            allowed: allowed.iter().map(|p| (*p).to_owned()).collect(),
            block_git,
            ..Policy::default()
        };
        let metadata = installed.map(|(kind, source)| metadata(kind, source));
        let got = refused(&policy, metadata.as_ref()).expect("valid patterns");
        match (got, expected) {
            (None, None) => {}
            (Some(why), Some(part)) => assert!(why.contains(part), "{why}"),
            (got, expected) => panic!("got {got:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn an_invalid_allowed_pattern_is_an_error() {
        let policy = Policy {
            allowed: vec!["(".to_owned()],
            ..Policy::default()
        };
        let err = refused(&policy, Some(&metadata("local", "/x"))).expect_err("invalid");
        assert!(err.contains("allowedExtensions"), "{err}");
    }

    #[test_case(&[], &Policy::default() ; "no file")]
    #[test_case(&[("user", r#"{"admin": {"extensions": {"enabled": false}}}"#)], &Policy { off: true, ..Policy::default() } ; "admin turns extensions off")]
    #[test_case(&[("defaults", r#"{"security": {"blockGitExtensions": true}}"#), ("user", r#"{"security": {"blockGitExtensions": false}}"#)], &Policy::default() ; "the user overrides the defaults")]
    #[test_case(&[("user", r#"{"security": {"blockGitExtensions": false}}"#), ("system", r#"{"security": {"blockGitExtensions": true}} // comment"#)], &Policy { block_git: true, ..Policy::default() } ; "the system overrides the user")]
    #[test_case(&[("user", r#"{"experimental": {"extensionConfig": false}}"#)], &Policy { settings: false, ..Policy::default() } ; "settings turned off")]
    #[test_case(&[("user", "{broken")], &Policy::default() ; "a broken file says nothing")]
    fn policies(files: &[(&str, &str)], expected: &Policy) {
        let dir = tempfile::tempdir().expect("tempdir");
        let order = ["defaults", "user", "system"];
        let paths: Vec<PathBuf> = order
            .iter()
            .map(|which| dir.path().join(format!("{which}.json")))
            .collect();
        for (which, text) in files {
            std::fs::write(dir.path().join(format!("{which}.json")), text).expect("write");
        }
        assert_eq!(&policy_of(&paths), expected);
    }

    #[test]
    fn the_last_allowed_list_is_kept_with_its_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let user = dir.path().join("user.json");
        std::fs::write(&user, r#"{"security": {"allowedExtensions": ["^/src/"]}}"#).expect("write");
        let got = policy_of(&[dir.path().join("defaults.json"), user.clone()]);
        assert_eq!(got.allowed, ["^/src/"]);
        assert_eq!(got.allowed_by, Some(user));
    }

    #[test]
    fn dotenv_lines_are_read_as_dotenv_reads_them() {
        let text = "# a comment\n\nA=1\nexport B = two words # note\nC=\"quoted # kept\\nnext\"\nD='single'\nbroken\n=nokey\n";
        let vars = dotenv(text);
        assert_eq!(
            vars,
            BTreeMap::from([
                ("A".to_owned(), "1".to_owned()),
                ("B".to_owned(), "two words".to_owned()),
                ("C".to_owned(), "quoted # kept\nnext".to_owned()),
                ("D".to_owned(), "single".to_owned()),
            ])
        );
    }

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
            custom: BTreeMap::from([("API_URL".to_owned(), "${extensionPath}".to_owned())]),
        };
        assert_eq!(
            vars.hydrate("${API_URL} ${unclosed"),
            "${extensionPath} ${unclosed",
            "a value is not read again; an unclosed variable is left as written"
        );
        assert_eq!(
            vars.hydrate("${extensionPath}${/}hooks${pathSeparator}a.sh ${workspacePath} ${HOME}"),
            "/x/ext/hooks/a.sh /w ${HOME}"
        );
    }
}
