//! The settings of a Claude Code settings file, beyond its `hooks`, that decide which
//! hooks run and how: `enabledPlugins` (which installed plugins' hooks run, read by
//! `plugins.rs`) and the HTTP hook allowlists `allowedHttpHookUrls` and
//! `httpHookAllowedEnvVars`, which apply to the Claude hooks of every file and plugin.
//! docs/dialects/claude.md gives Claude Code's rules and where they are documented.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookrig_config::Lowering;
use hookrig_core::{Diagnostic, Severity};
use hookrig_exec::CommandDef;
use serde_json::Value;
use serde_json::value::RawValue;

use super::loader::Layer;
use crate::claude::ClaudeProtocol;
use crate::loader::LoadContext;

/// What one settings file says beyond its hooks.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct FileSettings {
    /// `enabledPlugins`: each plugin id and whether the file turns it on, by id.
    pub(crate) enabled_plugins: BTreeMap<String, bool>,
    /// `allowedHttpHookUrls`, when the file sets it.
    pub(crate) http_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`, when the file sets it.
    pub(crate) http_env: Option<Vec<String>>,
    /// For a project file that is not trusted as it is now: why, and what to run. Its
    /// allowlists and its `false` entries are then ignored, and the plugins it turns on
    /// are loaded untrusted.
    pub(crate) untrusted: Option<String>,
}

impl FileSettings {
    /// Lowers the three settings of one file; a value of the wrong shape is reported
    /// at its place. A broken allowlist allows nothing, so that a typo never opens what
    /// the file meant to close.
    pub(crate) fn lower(
        file: &mut Lowering<'_>,
        enabled: Option<&RawValue>,
        urls: Option<&RawValue>,
        env: Option<&RawValue>,
    ) -> Self {
        let mut settings = FileSettings::default();
        if let Some(raw) = enabled {
            let at = file.offset_of(raw.get());
            match serde_json::from_str::<BTreeMap<String, Value>>(raw.get()) {
                Ok(map) => {
                    for (id, value) in map {
                        match value {
                            Value::Bool(on) => {
                                settings.enabled_plugins.insert(id, on);
                            }
                            // The extended form lists version constraints: the plugin
                            // is on.
                            Value::Array(_) => {
                                settings.enabled_plugins.insert(id, true);
                            }
                            _ => file.report(
                                Some(at),
                                Severity::Warning,
                                format!(
                                    "`enabledPlugins` entry `{id}` is neither true, false nor a list of versions; it is ignored"
                                ),
                            ),
                        }
                    }
                }
                Err(_) => file.report(
                    Some(at),
                    Severity::Warning,
                    "`enabledPlugins` is not an object; it is ignored",
                ),
            }
        }
        settings.http_urls = urls.map(|raw| string_list(file, raw, "allowedHttpHookUrls"));
        settings.http_env = env.map(|raw| string_list(file, raw, "httpHookAllowedEnvVars"));
        settings
    }

    /// Whether the file sets anything here that changes which of the user's own hooks
    /// run: a project file may do that only once it is trusted.
    pub(crate) fn is_set(&self) -> bool {
        !self.enabled_plugins.is_empty() || self.http_urls.is_some() || self.http_env.is_some()
    }

    /// Marks a project file that is not trusted as it is now (`hint` says why and what to
    /// run): its allowlists are ignored, with a warning each.
    pub(crate) fn distrust(&mut self, path: &Path, hint: String, sink: &mut Vec<Diagnostic>) {
        for (key, set) in [
            ("allowedHttpHookUrls", self.http_urls.take().is_some()),
            ("httpHookAllowedEnvVars", self.http_env.take().is_some()),
        ] {
            if set {
                sink.push(Diagnostic::file(
                    path,
                    Severity::Warning,
                    format!("`{key}` is ignored: {hint}"),
                ));
            }
        }
        if self.enabled_plugins.values().any(|on| !on) {
            sink.push(Diagnostic::file(
                path,
                Severity::Warning,
                format!(
                    "the plugins `enabledPlugins` turns off stay as your own settings say: {hint}"
                ),
            ));
        }
        self.untrusted = Some(hint);
    }
}

/// A list of strings; anything else is reported and read as the empty list.
fn string_list(file: &mut Lowering<'_>, raw: &RawValue, key: &str) -> Vec<String> {
    serde_json::from_str::<Vec<String>>(raw.get()).unwrap_or_else(|_| {
        let at = file.offset_of(raw.get());
        file.report(
            Some(at),
            Severity::Error,
            format!("`{key}` is not a list of strings; it is read as the empty list, which allows nothing"),
        );
        Vec::new()
    })
}

/// One settings file read in this load, with its layer.
#[derive(Debug, Clone)]
pub(crate) struct SettingsLayer {
    pub(crate) layer: Layer,
    pub(crate) path: PathBuf,
    pub(crate) settings: FileSettings,
}

/// Which Claude hooks the settings turned off, for the plugins' hooks loaded after
/// every file was read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Off {
    /// None.
    #[default]
    None,
    /// All but the managed ones (`disableAllHooks` outside the managed file,
    /// `allowManagedHooksOnly`): only plugins the managed file turns on keep their hooks.
    AllButManaged,
    /// Every Claude hook (`disableAllHooks` of the managed file).
    All,
}

/// What the settings files of one load said beyond their hooks.
#[derive(Debug, Default)]
pub(crate) struct Layers {
    /// Each file read, in the order read.
    pub(crate) files: Vec<SettingsLayer>,
    /// Which Claude hooks are off.
    pub(crate) off: Off,
}

impl Layers {
    /// The merged allowlist of one setting: `None` when no file that counts sets it, else
    /// every file's entries (Claude Code merges these arrays across its settings files).
    fn merged(&self, pick: impl Fn(&FileSettings) -> Option<&Vec<String>>) -> Option<Vec<String>> {
        let mut merged: Option<Vec<String>> = None;
        for file in &self.files {
            if let Some(list) = pick(&file.settings) {
                let all = merged.get_or_insert_with(Vec::new);
                for item in list {
                    if !all.contains(item) {
                        all.push(item.clone());
                    }
                }
            }
        }
        merged
    }
}

/// Applies the merged HTTP hook allowlists to every Claude hook loaded: an HTTP hook
/// whose URL no pattern of `allowedHttpHookUrls` matches is left out, with a warning,
/// and each hook's `allowedEnvVars` is narrowed to those `httpHookAllowedEnvVars` lists.
pub(crate) fn apply(ctx: &mut LoadContext<'_>) {
    let urls = ctx.claude.layers.merged(|s| s.http_urls.as_ref());
    let env = ctx.claude.layers.merged(|s| s.http_env.as_ref());
    if urls.is_none() && env.is_none() {
        return;
    }
    let mut refused = Vec::new();
    ctx.hooks.retain(|def| {
        let Some(ClaudeProtocol(_)) = def.protocol_as::<ClaudeProtocol>() else {
            return true;
        };
        let (Some(patterns), CommandDef::Http { url, .. }) = (&urls, &def.command) else {
            return true;
        };
        if patterns.iter().any(|pattern| url_matches(pattern, url)) {
            return true;
        }
        refused.push(def.diagnostic(
            Severity::Warning,
            format!(
                "hook {}: its URL `{url}` matches no pattern of `allowedHttpHookUrls` ({}); it is not run, as Claude Code does not run it",
                def.spec.name,
                if patterns.is_empty() {
                    "an empty list, which allows none".to_owned()
                } else {
                    patterns.join(", ")
                }
            ),
        ));
        false
    });
    ctx.diagnostics.extend(refused);
    let Some(env) = env else {
        return;
    };
    for def in &mut ctx.hooks {
        if !matches!(def.command, CommandDef::Http { .. }) {
            continue;
        }
        let Some(ClaudeProtocol(hook)) = def.protocol_as::<ClaudeProtocol>() else {
            continue;
        };
        if hook.allowed_env_vars.iter().all(|name| env.contains(name)) {
            continue;
        }
        let mut hook = hook.clone();
        hook.allowed_env_vars.retain(|name| env.contains(name));
        def.protocol = Arc::new(ClaudeProtocol(hook));
    }
}

/// Whether `url` matches an `allowedHttpHookUrls` pattern: the whole URL, where `*`
/// stands for any run of characters (none included) and every other character for
/// itself.
pub(crate) fn url_matches(pattern: &str, url: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = url.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        // No `*`: the pattern is the URL.
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use test_case::test_case;

    use super::*;

    #[test_case("https://hooks.example.com/*", "https://hooks.example.com/pre", true ; "prefix")]
    #[test_case("https://hooks.example.com/*", "https://hooks.example.com.evil.test/pre", false ; "not another host")]
    #[test_case("http://127.0.0.1:*/hook", "http://127.0.0.1:8080/hook", true ; "any port")]
    #[test_case("http://127.0.0.1:*/hook", "http://127.0.0.1:8080/hook/x", false ; "anchored at the end")]
    #[test_case("https://a.test/hook", "https://a.test/hook", true ; "exact")]
    #[test_case("https://a.test/hook", "https://a.test/hook2", false ; "exact only")]
    #[test_case("*", "http://anything/", true ; "star alone")]
    #[test_case("https://*.example.com/*", "https://api.example.com/v1", true ; "two stars")]
    #[test_case("https://*.example.com/*", "https://example.com/v1", false ; "two stars need their text")]
    #[test_case("a*a", "a", false ; "overlapping ends")]
    fn url_patterns(pattern: &str, url: &str, expected: bool) {
        assert_eq!(url_matches(pattern, url), expected);
    }

    fn lowered(text: &str) -> (FileSettings, Vec<String>) {
        #[derive(serde::Deserialize)]
        struct Raw<'a> {
            #[serde(borrow, rename = "enabledPlugins")]
            enabled: Option<&'a RawValue>,
            #[serde(borrow, rename = "allowedHttpHookUrls")]
            urls: Option<&'a RawValue>,
            #[serde(borrow, rename = "httpHookAllowedEnvVars")]
            env: Option<&'a RawValue>,
        }
        let mut sink = Vec::new();
        let path = Path::new("/p/settings.json");
        let mut file = Lowering::new(path, text, &mut sink);
        let raw: Raw<'_> = file.json(text, "").expect("json");
        let settings = FileSettings::lower(&mut file, raw.enabled, raw.urls, raw.env);
        (settings, sink.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn settings_are_lowered_and_bad_shapes_placed() {
        let (settings, diagnostics) = lowered(
            r#"{"enabledPlugins": {"a@m": true, "b@m": false, "c@m": ["~1.0"], "d@m": 3},
  "allowedHttpHookUrls": "https://x/*", "httpHookAllowedEnvVars": ["TOKEN"]}"#,
        );
        assert_eq!(
            settings.enabled_plugins.into_iter().collect::<Vec<_>>(),
            [
                ("a@m".to_owned(), true),
                ("b@m".to_owned(), false),
                ("c@m".to_owned(), true)
            ]
        );
        assert_eq!(settings.http_urls, Some(Vec::new()));
        assert_eq!(settings.http_env, Some(vec!["TOKEN".to_owned()]));
        assert_eq!(
            diagnostics,
            [
                "/p/settings.json:1:20: `enabledPlugins` entry `d@m` is neither true, false nor a list of versions; it is ignored",
                "/p/settings.json:2:26: `allowedHttpHookUrls` is not a list of strings; it is read as the empty list, which allows nothing",
            ]
        );
    }
}
