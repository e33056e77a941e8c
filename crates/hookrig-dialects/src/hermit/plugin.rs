//! OpenHermit's JavaScript plugins: a registered package directory with `manifest.json`
//! (and no x-code `plugin.json`) whose entry exports `register(ctx)`.
//!
//! Such a package runs in hookrig's plugin host (`plugin_host.js`, embedded in the
//! binary and written once to the user's data directory) under Node.js, as a persistent
//! worker: the host loads the plugin, calls `register(ctx)` and answers events over the
//! worker protocol. Each of the plugin's subscriptions is an entry of the chain of its
//! own (`<id>:<event>@v1`, at the subscription's priority), built from the plugin's
//! description ([`super::description`]); the entries share the plugin's one worker per
//! agent. A plugin that is not described (its code may not run yet, or describing it
//! failed) is one hook, `<id>:plugin`, listening to every OpenHermit event and running
//! its handlers in their own order.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_config::{JsonKey, consulted};
use hookrig_core::{Diagnostic, HookSpec, Level, Matcher, Mode, OnError, Severity, Source};
use hookrig_exec::CommandDef;
use serde_json::{Map, Value, json};

use super::description::{self, Described, Subscription};
use super::events::EVENTS;
use super::subscription::{PluginSubscription, SubscriptionProtocol};
use crate::definition::{HookDef, Settings};
use crate::loader::LoadContext;
use crate::native::NativeProtocol;
use crate::xcode::{JsonFile, Package, push_package, read_json};

/// The manifest of a JavaScript plugin.
pub(crate) const MANIFEST: &str = "manifest.json";

/// The plugin host's source, shipped inside the binary so that an installed hookrig
/// needs no file beside it.
const HOST: &str = include_str!("plugin_host.js");

/// The manifest fields hookrig reads.
const FIELDS: &[&str] = &[
    "id",
    "name",
    "version",
    "description",
    "kind",
    "entry",
    "failureMode",
    "priority",
    "timeout",
    "typescriptLoader",
];

/// The most files of a registered plugin's directory the digest reads; a directory with
/// more (a vendored dependency tree) is digested by its first ones in name order. The
/// digest of a registered plugin only decides when a fresh worker starts.
const MAX_DIGESTED: usize = 512;

/// The most files of a project plugin's directory the digest reads. Its digest is what
/// the user trusts, so it covers every file, `node_modules` and hidden ones included (a
/// changed dependency runs as surely as a changed entry); a directory with more is not
/// loaded rather than trusted in part.
const MAX_TRUSTED: usize = 20_000;

/// How to run a JavaScript plugin's host outside the engine, for the one-shot questions
/// of `hookrig plugins show` (`--describe`) and `hookrig plugins call` (`--call=TOOL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginHost {
    /// `node`, its options, the host file, the plugin directory and its digest.
    pub argv: Vec<String>,
    /// What the host reads from its environment (`HOOKRIG_PLUGIN_*`).
    pub env: Vec<(String, String)>,
    /// The manifest's `timeout` for one answer.
    pub timeout: Duration,
    /// Where the description of the plugin's files as they are now is cached (named by
    /// their digest and the host's).
    pub cache: PathBuf,
    /// The plugin as one worker hook, `ID:plugin`, whose pool every entry of its chain
    /// reaches: what calls its tools in that pool (a plugin may add tools and subscribe
    /// to nothing, and so have no entry).
    pub worker: Option<PluginWorker>,
}

/// A JavaScript plugin as one worker hook (see [`PluginHost::worker`]).
#[derive(Debug, Clone)]
pub struct PluginWorker(pub HookDef);

/// Two are equal when they are the same hook with the same definition.
impl PartialEq for PluginWorker {
    fn eq(&self, other: &Self) -> bool {
        self.0.spec.source.path == other.0.spec.source.path
            && self.0.spec.name == other.0.spec.name
            && crate::trust::definition_document(&self.0)
                == crate::trust::definition_document(&other.0)
    }
}

impl Eq for PluginWorker {}

/// What a valid manifest says.
struct Manifest {
    name: String,
    version: Option<String>,
    description: Option<String>,
    entry: Option<String>,
    fail: bool,
    priority: i32,
    timeout: Option<Duration>,
    ts_loader: Option<String>,
}

/// Loads the JavaScript plugin registered as `id` in `dir`: one worker hook, and the
/// package record. An invalid manifest keeps it out, reported at its field.
pub(crate) fn load(ctx: &mut LoadContext<'_>, id: &str, dir: &Path) {
    load_at(ctx, id, dir, Level::Global);
}

/// Loads the JavaScript plugin of a project, `.hookrig/plugins/ID/manifest.json`: one
/// worker hook of the project level, which runs only once `hookrig trust` has approved
/// it; its definition carries a digest of every file of the directory, so that any
/// change asks for trust again.
pub(crate) fn load_project(ctx: &mut LoadContext<'_>, dir: &Path) {
    let id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    load_at(ctx, &id, dir, Level::Project);
}

fn load_at(ctx: &mut LoadContext<'_>, id: &str, dir: &Path, level: Level) {
    let Some(file) = read_json(ctx, &dir.join(MANIFEST)) else {
        return;
    };
    let Some(manifest) = read_manifest(ctx, &file, id) else {
        return;
    };
    let Some(mut one_shot) = host_command(ctx, id, dir, level, &manifest) else {
        return;
    };
    let (argv, env) = (one_shot.argv.clone(), one_shot.env.clone());
    let plugin = HookDef {
        spec: HookSpec {
            name: format!("{id}:plugin"),
            events: EVENTS
                .iter()
                .map(|e| crate::events::resolve(e.canonical))
                .collect(),
            matcher: Matcher::Any,
            priority: manifest.priority,
            mode: Mode::Sync,
            enabled: true,
            // `failureMode: 'fail'` aborts: the failure the host answers denies.
            on_error: if manifest.fail {
                OnError::Deny
            } else {
                OnError::Allow
            },
            source: Source {
                path: file.path.clone(),
                dialect: hookrig_core::Dialect::Hermit,
                level,
            },
            description: manifest.description.clone(),
            timeout: manifest.timeout.or(Settings::default().timeout),
            group: None,
            matcher_field: None,
            untrusted: None,
            shadow: false,
            // What a plugin's handlers do besides answering is not declared.
            side_effects: true,
        },
        command: CommandDef::Exec { argv },
        env,
        protocol: Arc::new(NativeProtocol),
        declared_at: None,
        workers: Some(1),
    };
    match subscriptions(ctx, id, level, &plugin, &one_shot) {
        Some(subscriptions) => ctx.hooks.extend(entries(id, &plugin, &subscriptions)),
        None => ctx.hooks.push(plugin.clone()),
    }
    one_shot.worker = Some(PluginWorker(plugin));
    // A project plugin is not a registered package: it has no id of the registry's,
    // no enablement, and nothing `plugins show` would find.
    if level == Level::Project {
        return;
    }
    push_package(
        ctx,
        Package {
            id: id.to_owned(),
            name: manifest.name,
            version: manifest.version,
            description: manifest.description,
            dir: dir.to_owned(),
            manifest: file.path.clone(),
            commands: Vec::new(),
            validators: Vec::new(),
            formatters: Vec::new(),
            webhooks: Vec::new(),
            host: Some(one_shot),
        },
    );
}

/// The subscriptions of the plugin whose host is `host`, from the cached description of
/// its files, else from a description taken now when its code may run (a registered
/// plugin is the user's own; a project plugin only once trusted as it is). `None` when
/// it is not described: a project plugin not trusted (it is reported as such, and its
/// code never runs), or one whose description failed (a warning says so, and what the
/// chain does then).
fn subscriptions(
    ctx: &mut LoadContext<'_>,
    id: &str,
    level: Level,
    plugin: &HookDef,
    host: &PluginHost,
) -> Option<Vec<Subscription>> {
    let consequence = format!(
        "until it is described, its handlers run as one hook, `{id}:plugin`, at the manifest's priority {}, in their own order rather than interleaved with the other hooks by their priorities",
        plugin.spec.priority
    );
    // A hang at load is kept with the files' description, so that every load does not
    // wait for it on top of the worker.
    let again = match level {
        Level::Global => format!("`hookrig plugins show {id}` or an edit of its files"),
        Level::Project => "an edit of its files".to_owned(),
    };
    let hung = |described: &Described| {
        format!(
            "plugin {id} cannot be described: {} (kept for its files as they are, so that each load does not wait for it: {again} describes it again, as does deleting {}); {consequence}",
            described.error.as_deref().unwrap_or("no answer"),
            host.cache.display()
        )
    };
    let message = match description::cached(host) {
        Some(described) if described.loaded => return Some(described.subscriptions),
        Some(described) => hung(&described),
        None if level == Level::Project && !trusted(ctx, plugin) => return None,
        None => match description::describe(host, &ctx.env.cwd) {
            Ok(described) if described.loaded => return Some(described.subscriptions),
            Ok(described) if described.timed_out => hung(&described),
            // The worker will fail to load the same way, and answer every event with
            // that failure, its stack in the hook run's record.
            Ok(described) => format!(
                "plugin {id} cannot be described: {}; `{id}:plugin` answers every event with that failure (see `hookrig plugins show {id}` for the stack); {consequence}; the next load describes it again",
                described.error.as_deref().unwrap_or("it did not load")
            ),
            Err(why) => format!(
                "plugin {id} cannot be described: {why}; {consequence}; the next load describes it again"
            ),
        },
    };
    ctx.diagnostics.push(Diagnostic::file(
        &plugin.spec.source.path,
        Severity::Warning,
        message,
    ));
    None
}

/// Whether the project plugin `plugin` (as one hook) is trusted as its files are now,
/// so that its code may run to describe it.
fn trusted(ctx: &LoadContext<'_>, plugin: &HookDef) -> bool {
    use crate::trust::HookTrust as _;
    if ctx.env.trust_all {
        return true;
    }
    let (store, _) = hookrig_config::load_or_warn(ctx.env, "project hook");
    store.check(plugin, ctx.project).is_none()
}

/// One chain entry per subscription, in the plugin's registration order (the
/// dispatcher orders them by priority, then by that order): each on its one event at
/// its own priority, named `ID:EVENT@vN` (`:2`, `:3`... for a second and third handler
/// of one event), and answered by the plugin's workers with that handler alone.
fn entries(id: &str, plugin: &HookDef, subscriptions: &[Subscription]) -> Vec<HookDef> {
    let mut ordered: Vec<&Subscription> = subscriptions.iter().collect();
    ordered.sort_by_key(|s| s.index);
    let document = crate::trust::definition_document(plugin);
    let mut seen: Vec<&str> = Vec::with_capacity(ordered.len());
    let mut entries: Vec<HookDef> = Vec::with_capacity(ordered.len());
    for sub in ordered {
        let earlier = seen.iter().filter(|e| **e == sub.event).count();
        seen.push(&sub.event);
        let mut entry = plugin.clone();
        entry.spec.name = match earlier {
            0 => format!("{id}:{}", sub.event),
            n => format!("{id}:{}:{}", sub.event, n + 1),
        };
        entry.spec.events = vec![crate::events::resolve(&sub.event)];
        entry.spec.priority = sub.chain_priority();
        entry.protocol = Arc::new(SubscriptionProtocol(PluginSubscription {
            plugin: plugin.spec.name.clone(),
            handler: sub.index,
            document: document.clone(),
        }));
        entries.push(entry);
    }
    entries
}

/// The plugin host's command for the plugin `id` in `dir`: `node`, the host file
/// (written when missing), the directory and its digest, and what the host reads from
/// its environment. `None`, reported, when the host cannot be written or a project
/// plugin's directory is too large to hash.
fn host_command(
    ctx: &mut LoadContext<'_>,
    id: &str,
    dir: &Path,
    level: Level,
    manifest: &Manifest,
) -> Option<PluginHost> {
    let (host, host_digest) = match host_file(&ctx.env.data_home) {
        Ok(host) => host,
        Err(err) => {
            ctx.diagnostics.push(Diagnostic::file(
                dir,
                Severity::Error,
                format!("cannot write the plugin host: {err}; package {id} is not loaded"),
            ));
            return None;
        }
    };
    let mut argv = vec!["node".to_owned()];
    if let Some(loader) = &manifest.ts_loader {
        argv.push("--import".to_owned());
        argv.push(loader.clone());
    }
    argv.push(host.display().to_string());
    argv.push(dir.display().to_string());
    // The digest is part of the hook's definition, so that an edit to the plugin's
    // files starts fresh workers for the next event.
    let digest = match level {
        Level::Global => digest(dir, MAX_DIGESTED, false),
        Level::Project => digest(dir, MAX_TRUSTED, true),
    };
    let Some(digest) = digest else {
        ctx.diagnostics.push(Diagnostic::file(
            dir,
            Severity::Error,
            format!(
                "more than {MAX_TRUSTED} files: too many to hash for trust; project plugin {id} is not loaded (register it with `hookrig plugins register` to run it as your own)"
            ),
        ));
        return None;
    };
    argv.push(format!("--digest={digest}"));
    let cache = description::cache_file(&ctx.env.state_home, id, &digest, &host_digest);

    let mut env = vec![
        ("HOOKRIG_PLUGIN_ID".to_owned(), id.to_owned()),
        ("HOOKRIG_PLUGIN_EVENTS".to_owned(), catalog()),
        (
            "HOOKRIG_PLUGIN_FAILURE_MODE".to_owned(),
            if manifest.fail { "fail" } else { "skip" }.to_owned(),
        ),
    ];
    if let Some(entry) = &manifest.entry {
        env.push(("HOOKRIG_PLUGIN_ENTRY".to_owned(), entry.clone()));
    }
    if let Some(loader) = &manifest.ts_loader {
        env.push(("HOOKRIG_PLUGIN_TS_LOADER".to_owned(), loader.clone()));
    }
    // Only when it is not the default, so that a plugin trusted before subscriptions
    // took it as theirs keeps the definition it was trusted with.
    if manifest.priority != HookSpec::DEFAULT_PRIORITY {
        env.push((
            "HOOKRIG_PLUGIN_PRIORITY".to_owned(),
            manifest.priority.to_string(),
        ));
    }
    let timeout = manifest
        .timeout
        .or(Settings::default().timeout)
        .unwrap_or(Duration::from_secs(30));
    Some(PluginHost {
        argv,
        env,
        timeout,
        cache,
        worker: None,
    })
}

/// OpenHermit's catalog for the host: canonical name to its name, version and shape.
fn catalog() -> String {
    let events: Map<String, Value> = EVENTS
        .iter()
        .map(|e| {
            (
                e.canonical.to_owned(),
                json!({"name": e.name, "version": e.version, "shape": e.bus.as_str()}),
            )
        })
        .collect();
    Value::Object(events).to_string()
}

/// Reads the manifest's fields; every problem is an error at its field (unknown fields
/// are warnings), and any error keeps the plugin out.
fn read_manifest(ctx: &mut LoadContext<'_>, file: &JsonFile, id: &str) -> Option<Manifest> {
    let mut problems: Vec<(&str, String)> = Vec::new();
    let Some(object) = file.value.as_object() else {
        file.lowering(&mut ctx.diagnostics).report(
            Some(0),
            Severity::Error,
            format!("the manifest must be a JSON object; package {id} is not loaded"),
        );
        return None;
    };
    let text = |key: &'static str, problems: &mut Vec<(&str, String)>| match object.get(key) {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.push((key, format!("{key} must be a string, not {other}")));
            None
        }
    };
    if let Some(own) = text("id", &mut problems)
        && own != id
    {
        problems.push((
            "id",
            format!("id {own:?} differs from the id the package is registered under, {id:?}"),
        ));
    }
    if let Some(kind) = text("kind", &mut problems)
        && kind != "js"
    {
        problems.push((
            "kind",
            format!("kind {kind:?} is not a kind hookrig runs; a manifest.json plugin is \"js\""),
        ));
    }
    let entry = text("entry", &mut problems);
    if let Some(entry) = &entry
        && !inside(entry)
    {
        problems.push((
            "entry",
            format!("entry {entry:?} must be a relative path inside the plugin"),
        ));
    }
    let fail = match text("failureMode", &mut problems).as_deref() {
        None | Some("skip") => false,
        Some("fail") => true,
        Some(other) => {
            problems.push((
                "failureMode",
                format!("failureMode {other:?} is neither \"skip\" nor \"fail\""),
            ));
            false
        }
    };
    let (priority, timeout) = order_and_timeout(object, &mut problems);
    let manifest = Manifest {
        name: text("name", &mut problems).unwrap_or_else(|| id.to_owned()),
        version: text("version", &mut problems),
        description: text("description", &mut problems),
        entry,
        fail,
        priority,
        timeout,
        ts_loader: text("typescriptLoader", &mut problems),
    };
    for key in object.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        let at = file.key_offset(&[JsonKey::Key(key)]);
        file.lowering(&mut ctx.diagnostics).report(
            at,
            Severity::Warning,
            format!("unknown field `{key}` is ignored"),
        );
    }
    if problems.is_empty() {
        return Some(manifest);
    }
    for (key, message) in problems {
        let at = file.key_offset(&[JsonKey::Key(key)]).or(Some(0));
        file.lowering(&mut ctx.diagnostics).report(
            at,
            Severity::Error,
            format!("{message}; package {id} is not loaded"),
        );
    }
    None
}

/// The manifest's `priority` and `timeout` (milliseconds).
fn order_and_timeout(
    object: &Map<String, Value>,
    problems: &mut Vec<(&str, String)>,
) -> (i32, Option<Duration>) {
    let priority = match object.get("priority") {
        None => HookSpec::DEFAULT_PRIORITY,
        Some(value) => value
            .as_i64()
            .and_then(|p| i32::try_from(p).ok())
            .unwrap_or_else(|| {
                problems.push((
                    "priority",
                    format!("priority must be an integer, not {value}"),
                ));
                HookSpec::DEFAULT_PRIORITY
            }),
    };
    let timeout = object.get("timeout").and_then(|value| {
        let ms = value.as_u64().filter(|ms| *ms > 0);
        if ms.is_none() {
            problems.push((
                "timeout",
                format!("timeout must be a positive number of milliseconds, not {value}"),
            ));
        }
        ms.map(Duration::from_millis)
    });
    (priority, timeout)
}

/// Whether `path` is relative and stays inside the plugin.
fn inside(path: &str) -> bool {
    let path = Path::new(path);
    !path.as_os_str().is_empty()
        && path.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        })
}

/// The plugin host's file under `data_home`, written when it is not there yet. Its name
/// carries a digest of its content, so that two hookrig versions never run each other's
/// host, and a file is never rewritten while a worker may be reading it.
fn host_file(data_home: &Path) -> std::io::Result<(PathBuf, String)> {
    let hash = hookrig_config::content_hash(HOST.as_bytes());
    let dir = data_home.join("hookrig").join("plugin-host");
    let file = dir.join(format!("plugin-host-{}.js", &hash[..16]));
    let short = hash[..16].to_owned();
    if std::fs::read(&file).is_ok_and(|bytes| bytes == HOST.as_bytes()) {
        return Ok((file, short));
    }
    std::fs::create_dir_all(&dir)?;
    // Written beside, then renamed: a worker starting at the same time reads the whole
    // file or none.
    let partial = dir.join(format!(
        ".plugin-host-{}.{}",
        &hash[..16],
        std::process::id()
    ));
    std::fs::write(&partial, HOST)?;
    std::fs::rename(&partial, &file)?;
    Ok((file, short))
}

/// The digest of a package directory that the operator signs in the shared plugin
/// registry and a node compares its own copy with (docs/postgres.md, "Plugins"): the
/// one a project plugin is trusted by, over every file (hidden ones, `node_modules`
/// and what links lead to included), in full. `None` when the directory has more than
/// 20,000 files.
pub fn package_digest(dir: &Path) -> Option<String> {
    content_digest(dir, MAX_TRUSTED, true)
}

/// [`content_digest`], shortened to what tells one worker pool from another.
fn digest(dir: &Path, max: usize, whole: bool) -> Option<String> {
    content_digest(dir, max, whole).map(|digest| digest[..16].to_owned())
}

/// A digest of the plugin directory's files (names and contents), each noted for the
/// config cache: at most `max` files, `node_modules` and hidden entries left out unless
/// `whole`. `None` when `whole` and the directory has more than `max` files.
fn content_digest(dir: &Path, max: usize, whole: bool) -> Option<String> {
    let mut files = Vec::new();
    collect(dir, &mut files, max + 1, whole);
    if whole && files.len() > max {
        return None;
    }
    files.sort();
    let mut all = Vec::new();
    for file in files.iter().take(max) {
        consulted::note(file);
        all.extend_from_slice(file.to_string_lossy().as_bytes());
        all.push(0);
        if let Ok(target) = std::fs::read_link(file) {
            all.extend_from_slice(target.to_string_lossy().as_bytes());
            all.push(0);
        }
        all.extend_from_slice(&std::fs::read(file).unwrap_or_default());
        all.push(0);
    }
    Some(hookrig_config::content_hash(&all))
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>, max: usize, whole: bool) {
    let Ok(entries) = consulted::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if files.len() >= max || (!whole && (name.starts_with('.') || name == "node_modules")) {
            continue;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => collect(&path, files, max, whole),
            // What a link leads to runs as surely as a file: a trusted digest follows
            // it (a cycle ends at `max`), and notes where it points.
            Ok(kind) if kind.is_symlink() && whole => {
                if consulted::is_dir(&path) {
                    collect(&path, files, max, whole);
                } else {
                    files.push(path);
                }
            }
            Ok(kind) if kind.is_file() => files.push(path),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use hookrig_config::Environment;
    use test_case::test_case;

    use super::*;
    use crate::xcode::{PackageCheck, PackageRef, check_package};

    fn check(manifest: &str) -> (tempfile::TempDir, PackageCheck) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonical");
        let dir = root.join("gate");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(MANIFEST), manifest).expect("write");
        std::fs::write(dir.join("index.js"), "export function register() {}\n").expect("write");
        let home = root.join("home");
        let env = Environment {
            config_home: home.join(".config"),
            state_home: home.join(".local/state"),
            data_home: home.join(".local/share"),
            xcode_home: home.join(".x-code"),
            home,
            cwd: root.clone(),
            trust_all: false,
        };
        let package = PackageRef {
            id: "gate".to_owned(),
            path: dir,
        };
        let check = check_package(&env, &package);
        (tmp, check)
    }

    fn errors(check: &PackageCheck) -> Vec<String> {
        check
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| {
                let text = d.to_string();
                text[text.find("manifest.json").unwrap_or(0)..].to_owned()
            })
            .collect()
    }

    /// The plugin as one worker hook, as the check loaded it (its chain holds it, or
    /// its entries when Node.js could describe it here).
    fn unit(check: &PackageCheck) -> HookDef {
        let host = check
            .package
            .as_ref()
            .and_then(|p| p.host.as_ref())
            .expect("a JavaScript plugin");
        host.worker.as_ref().expect("its worker hook").0.clone()
    }

    #[test]
    fn a_manifest_json_package_is_one_worker_hook_running_the_plugin_host() {
        let (tmp, check) = check(r#"{"name": "policy", "version": "0.1.0", "timeout": 1500}"#);
        assert_eq!(errors(&check), Vec::<String>::new());
        let hook = &unit(&check);
        let package = check.package.expect("a package");
        assert_eq!(
            (package.name.as_str(), package.version.as_deref()),
            ("policy", Some("0.1.0"))
        );
        assert_eq!(hook.spec.name, "gate:plugin");
        assert_eq!(hook.workers, Some(1));
        assert_eq!(hook.spec.on_error, OnError::Allow);
        assert_eq!(hook.spec.timeout, Some(Duration::from_millis(1500)));
        assert!(hook.spec.events.iter().any(|e| e.as_str() == "tool.before"));
        let CommandDef::Exec { argv } = &hook.command else {
            panic!("an exec hook");
        };
        assert_eq!(argv[0], "node");
        let host = std::fs::read_to_string(&argv[1]).expect("the host is written");
        assert_eq!(host, HOST);
        assert!(argv[1].starts_with(&tmp.path().canonicalize().expect("c").display().to_string()));
        let events: Value = serde_json::from_str(
            &hook
                .env
                .iter()
                .find(|(k, _)| k == "HOOKRIG_PLUGIN_EVENTS")
                .expect("the catalog")
                .1,
        )
        .expect("JSON");
        assert_eq!(
            events["tool.before"],
            json!({"name": "tool.before", "version": "v1", "shape": "veto"})
        );
        assert_eq!(events["prompt.submit"]["name"], "session.message.received");
    }

    #[test]
    fn failure_mode_fail_makes_a_failing_plugin_deny() {
        let (_tmp, check) = check(r#"{"failureMode": "fail"}"#);
        assert_eq!(unit(&check).spec.on_error, OnError::Deny);
    }

    fn subscription(event: &str, priority: i32, index: u32) -> Subscription {
        serde_json::from_value(json!({
            "event": event, "shape": "veto", "priority": priority, "index": index
        }))
        .expect("a subscription")
    }

    #[test]
    fn each_subscription_is_an_entry_at_its_priority_sharing_the_plugins_trust() {
        let (_tmp, check) = check(r#"{"failureMode": "fail"}"#);
        let plugin = unit(&check);
        // As the host describes them: in the order they run (priority, registration).
        let described = [
            subscription("tool.before@v1", 1, 2),
            subscription("tool.before@v1", 10, 0),
            subscription("session.message.received@v1", 100, 1),
        ];
        let entries = entries("gate", &plugin, &described);
        let seen: Vec<(&str, Vec<&str>, i32)> = entries
            .iter()
            .map(|e| {
                (
                    e.spec.name.as_str(),
                    e.spec
                        .events
                        .iter()
                        .map(hookrig_core::EventName::as_str)
                        .collect(),
                    e.spec.priority,
                )
            })
            .collect();
        // In registration order, so that ties of priority keep it.
        assert_eq!(
            seen,
            [
                ("gate:tool.before@v1", vec!["tool.before"], 10),
                (
                    "gate:session.message.received@v1",
                    vec!["prompt.submit"],
                    100
                ),
                ("gate:tool.before@v1:2", vec!["tool.before"], 1),
            ]
        );
        for (entry, handler) in entries.iter().zip([0, 1, 2]) {
            let sub = crate::plugin_subscription(entry).expect("a subscription entry");
            assert_eq!((sub.plugin.as_str(), sub.handler), ("gate:plugin", handler));
            assert_eq!(entry.spec.on_error, OnError::Deny);
            assert_eq!(entry.workers, Some(1));
            // Trusted as the plugin is: one key, one definition, for every entry.
            assert_eq!(crate::hook_key(entry), crate::hook_key(&plugin));
            assert_eq!(
                crate::definition_hash(entry),
                crate::definition_hash(&plugin)
            );
        }
    }

    #[test_case(r#"{"id": "other"}"#, r#"manifest.json:1:8: id "other" differs from the id the package is registered under, "gate"; package gate is not loaded"#; "id")]
    #[test_case(r#"{"kind": "wasm"}"#, r#"manifest.json:1:10: kind "wasm" is not a kind hookrig runs; a manifest.json plugin is "js"; package gate is not loaded"#; "kind")]
    #[test_case(r#"{"entry": "../x.js"}"#, r#"manifest.json:1:11: entry "../x.js" must be a relative path inside the plugin; package gate is not loaded"#; "entry")]
    #[test_case(r#"{"timeout": 0}"#, "manifest.json:1:13: timeout must be a positive number of milliseconds, not 0; package gate is not loaded"; "timeout")]
    #[test_case(r#"{"priority": "high"}"#, r#"manifest.json:1:14: priority must be an integer, not "high"; package gate is not loaded"#; "priority")]
    #[test_case("[1]", "manifest.json:1:1: the manifest must be a JSON object; package gate is not loaded"; "not an object")]
    fn an_invalid_field_keeps_the_plugin_out_at_its_position(manifest: &str, error: &str) {
        let (_tmp, check) = check(manifest);
        assert_eq!(errors(&check), [error]);
        assert!(check.hooks.is_empty());
        assert!(check.package.is_none());
    }
}
