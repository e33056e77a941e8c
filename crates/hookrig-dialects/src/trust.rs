//! Trust: project hooks come with a repository, so they run only once the user has
//! approved them, and again only while they stay as approved.
//!
//! For each project hook the store keeps a SHA-256 of its definition (dialect, name,
//! events, matcher, command, environment, mode, timeout, failure policy) and of the
//! files its command names (its script, wherever it lies, with the dialect's variables
//! expanded). A hook whose hashes are missing from the store or differ from it is
//! untrusted: it is listed and reported, never run. User-level and managed hooks are the user's own and always trusted.

use std::path::{Path, PathBuf};

use hookrig_config::{
    Distrust, Environment, FileStamp, Project, ScriptText, TrustStore, TrustedHook, TrustedText,
    content_hash, load_or_warn, project_dir,
};

use hookrig_core::Diagnostic;
use hookrig_core::{EventName, Level, Payload};
use hookrig_exec::CommandDef;
use serde_json::json;

use crate::definition::HookDef;

/// The trust of hooks: what [`TrustStore`] says of a loaded hook.
pub trait HookTrust {
    /// Whether `hook` is trusted as it is now; `None` when it is (also when every
    /// project is trusted, `hookrig trust --any-project`).
    fn check(&self, hook: &HookDef, project: &Project) -> Option<Distrust>;

    /// Whether the store records `hook` as trusted as it is now, whatever the
    /// machine-wide switch says: what `hookrig trust` and an install carry over.
    fn check_recorded(&self, hook: &HookDef, project: &Project) -> Option<Distrust>;

    /// Records `hook` as trusted as it is now.
    fn trust(&mut self, hook: &HookDef, project: &Project, now_ms: i64);
}

impl HookTrust for TrustStore {
    fn check(&self, hook: &HookDef, project: &Project) -> Option<Distrust> {
        if self.any_project {
            return None;
        }
        self.check_recorded(hook, project)
    }

    fn check_recorded(&self, hook: &HookDef, project: &Project) -> Option<Distrust> {
        let Some(trusted) = self.hooks.get(&hook_key(hook)) else {
            return Some(Distrust::New);
        };
        if trusted.definition != definition_hash(hook) {
            return Some(Distrust::DefinitionChanged);
        }
        let script = script_hash(hook, project, &trusted.stamps).map(ScriptHash::named);
        if trusted.script != script {
            return Some(Distrust::ScriptChanged);
        }
        None
    }

    fn trust(&mut self, hook: &HookDef, project: &Project, now_ms: i64) {
        let (script, stamps) = match script_hash(hook, project, &[]) {
            Some(ScriptHash { file, hash, stamps }) => (Some((file, hash)), stamps),
            None => (None, Vec::new()),
        };
        self.hooks.insert(
            hook_key(hook),
            TrustedHook {
                source: hook.spec.source.path.clone(),
                name: trusted_name(hook).to_owned(),
                dialect: hook.protocol.dialect().as_str().to_owned(),
                definition: definition_hash(hook),
                script,
                trusted_at_ms: now_ms,
                stamps,
            },
        );
    }
}

/// Marks the project hooks of `hooks` that the store does not trust as they are now.
///
/// The store is read only when there are project hooks, so that emits in directories
/// without any pay nothing for it.
/// A store that cannot be read trusts nothing, with a warning.
pub(crate) fn apply(
    hooks: &mut [HookDef],
    env: &Environment,
    project: &Project,
    only_for: Option<&(EventName, Payload)>,
) -> Option<Diagnostic> {
    let concerned = |hook: &HookDef| {
        hook.spec.source.level == Level::Project
            && only_for.is_none_or(|(event, payload)| hook.spec.would_run(event, payload))
    };
    if env.trust_all || !hooks.iter().any(concerned) {
        return None;
    }
    let (store, problem) = load_or_warn(env, "project hook");
    for hook in hooks.iter_mut().filter(|h| concerned(h)) {
        if let Some(distrust) = store.check(hook, project) {
            let dir =
                project_dir(&hook.spec.source.path, project).unwrap_or_else(|| env.cwd.clone());
            let why = match distrust {
                Distrust::New => "it comes with the project and is not trusted yet",
                Distrust::DefinitionChanged => "its definition changed since it was trusted",
                Distrust::ScriptChanged => "its script changed since it was trusted",
            };
            hook.spec.untrusted = Some(format!(
                "{why}; review it, then run `hookrig trust {}`",
                dir.display()
            ));
        }
    }
    problem
}

/// The store key of a hook: where it was declared, in which dialect, under which name.
pub fn hook_key(hook: &HookDef) -> String {
    format!(
        "{}#{}#{}",
        hook.spec.source.path.display(),
        hook.protocol.dialect().as_str(),
        trusted_name(hook)
    )
}

/// The name a hook is trusted under: its own, or for a subscription of a JavaScript
/// plugin the plugin's (`ID:plugin`), since what the user approves is the plugin's
/// files, whichever handlers its code registers.
fn trusted_name(hook: &HookDef) -> &str {
    crate::hermit::plugin_subscription(hook).map_or(&hook.spec.name, |sub| &sub.plugin)
}

/// SHA-256 of everything that decides what a hook does: of its [`definition_document`].
pub fn definition_hash(hook: &HookDef) -> String {
    content_hash(definition_document(hook).as_bytes())
}

/// Everything that decides what a hook does, as the JSON text its trust hash is taken
/// of (compact, keys sorted).
///
/// Built from an explicit JSON document rather than `Debug` output, so that the hash
/// only changes when the definition does, not when a type's formatting does.
///
/// A subscription of a JavaScript plugin has the document of its plugin as one hook.
pub fn definition_document(hook: &HookDef) -> String {
    if let Some(sub) = crate::hermit::plugin_subscription(hook) {
        return sub.document.clone();
    }
    let spec = &hook.spec;
    let command = match &hook.command {
        CommandDef::Shell { line, .. } => json!({"shell": line}),
        CommandDef::Exec { argv } => json!({"exec": argv}),
        CommandDef::Http {
            url,
            headers,
            secret_env,
        } => {
            let mut command = json!({"http": url, "headers": headers});
            // Only when set, so that hooks without a secret keep the hash they were
            // trusted with before the field existed.
            if let Some(name) = secret_env {
                command["secret_env"] = json!(name);
            }
            command
        }
    };
    let document = json!({
        "dialect": hook.protocol.dialect().as_str(),
        "protocol": hook.protocol.definition(),
        "name": spec.name,
        "events": spec.events.iter().map(hookrig_core::EventName::as_str).collect::<Vec<_>>(),
        "matcher": spec.matcher.pattern(),
        "command": command,
        "env": hook.env,
        "mode": spec.mode.as_str(),
        "enabled": spec.enabled,
        "on_error": format!("{:?}", spec.on_error),
        "priority": spec.priority,
        "timeout_ms": spec.timeout.map(|t| t.as_millis()),
    });
    document.to_string()
}

/// The files a hook runs and their SHA-256.
///
/// Not only the program: `sh .hookrig/check.sh` and `python3 hooks/x.py` run a file
/// named by a later word, so every word of the command that names a file counts
/// (relative words are resolved against the project directory, where hooks of a project
/// normally run, and against the declaring file's directory). The dialect's variables
/// are expanded first, as the hook will see them (Claude Code's `$CLAUDE_PROJECT_DIR`,
/// x-code's `${pluginDir}`...), so `"$CLAUDE_PROJECT_DIR"/.claude/hook.sh` and `sh
/// ${pluginDir}/run.sh` hash their script. A file outside the project is hashed too:
/// the repository names it, so a change to it must be approved like one inside (except
/// the system's own programs, see [`system_file`]). The
/// first such file is named in the store; the hash covers all of them.
///
/// A file outside the project whose stamp is among `known` (and still matches) is not
/// read again: its stamped hash stands for it. Those files get a stamp in the answer.
fn script_hash(hook: &HookDef, project: &Project, known: &[FileStamp]) -> Option<ScriptHash> {
    let dir = project_dir(&hook.spec.source.path, project)?;
    let mut files = match script_files(hook, project)? {
        ScriptFiles::Found(files) => files,
        ScriptFiles::Missing(program) => {
            return Some(ScriptHash {
                file: program,
                hash: "missing".to_owned(),
                stamps: Vec::new(),
            });
        }
    };
    let mut stamps = Vec::new();
    let hashes: Vec<String> = files
        .iter()
        .map(|file| {
            if file.starts_with(&dir) {
                return read_hash(file);
            }
            let (hash, stamp) = outside_hash(file, known);
            stamps.extend(stamp);
            hash
        })
        .collect();
    // One file keeps its plain hash (so it can be checked by hand with sha256sum);
    // several are hashed together with their paths.
    let hash = if let [single] = hashes.as_slice() {
        single.clone()
    } else {
        let combined: Vec<String> = files
            .iter()
            .zip(&hashes)
            .map(|(file, hash)| format!("{}\0{hash}", file.display()))
            .collect();
        content_hash(combined.join("\0").as_bytes())
    };
    Some(ScriptHash {
        file: files.swap_remove(0),
        hash,
        stamps,
    })
}

/// What [`script_hash`] found: the first file named, the hash of them all, and the
/// stamps of those outside the project.
struct ScriptHash {
    file: PathBuf,
    hash: String,
    stamps: Vec<FileStamp>,
}

impl ScriptHash {
    /// The file and hash, as the store keeps them.
    fn named(self) -> (PathBuf, String) {
        (self.file, self.hash)
    }
}

/// The SHA-256 of `file`'s content, or `missing`.
fn read_hash(file: &Path) -> String {
    std::fs::read(file).map_or_else(|_| "missing".to_owned(), |bytes| content_hash(&bytes))
}

/// The hash of `file`, outside the project: its stamp's among `known` while the file
/// still matches it, else read (its metadata taken first, so that a write during the
/// read leaves a stamp that no longer matches), with the stamp to keep.
fn outside_hash(file: &Path, known: &[FileStamp]) -> (String, Option<FileStamp>) {
    let Ok(meta) = std::fs::metadata(file) else {
        return ("missing".to_owned(), None);
    };
    if let Some(stamp) = known
        .iter()
        .find(|stamp| stamp.path == file && stamp.matches(&meta))
    {
        return (stamp.hash.clone(), Some(stamp.clone()));
    }
    let read_at = std::time::SystemTime::now();
    let hash = read_hash(file);
    let stamp = FileStamp::of(file, &meta, hash.clone(), read_at);
    (hash, stamp)
}

/// The files a hook's command names (see [`script_hash`]).
enum ScriptFiles {
    /// The files found, the first the one the store names; never empty.
    Found(Vec<PathBuf>),
    /// None was found, and the program is this absolute path that does not exist yet.
    Missing(PathBuf),
}

/// The files a project hook's command names; `None` for a hook outside a project, an
/// HTTP hook, or a command that names no file.
fn script_files(hook: &HookDef, project: &Project) -> Option<ScriptFiles> {
    let dir = project_dir(&hook.spec.source.path, project)?;
    let words: Vec<String> = match &hook.command {
        CommandDef::Shell { line, script } => script
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .chain(shell_words(&expand_variables(line, hook, &dir)))
            .collect(),
        CommandDef::Exec { argv } => argv.clone(),
        CommandDef::Http { .. } => return None,
    };
    let source_dir = hook.spec.source.path.parent().unwrap_or(&dir);
    let mut files: Vec<PathBuf> = Vec::new();
    for word in words.iter().filter(|w| !w.is_empty()) {
        let word = Path::new(word);
        let candidates = if word.is_absolute() {
            vec![word.to_owned()]
        } else {
            vec![dir.join(word), source_dir.join(word)]
        };
        for candidate in candidates {
            if candidate.is_file()
                && !files.contains(&candidate)
                && (candidate.starts_with(&dir) || !system_file(&candidate, &dir))
            {
                files.push(candidate);
            }
        }
    }
    // The program itself may not exist yet (a script added later): it is named, and
    // hashes as missing, so that it changes when it appears.
    if files.is_empty() {
        let program = match &hook.command {
            CommandDef::Shell {
                script: Some(script),
                ..
            } => script.clone(),
            CommandDef::Exec { argv } => PathBuf::from(argv.first()?),
            _ => return None,
        };
        return program
            .is_absolute()
            .then_some(ScriptFiles::Missing(program));
    }
    Some(ScriptFiles::Found(files))
}

/// The text of `hook` as it is now, as `hookrig trust` records it beside the store: its
/// definition document and the script file its command names first (the one the store
/// names), capped at [`hookrig_config::SCRIPT_TEXT_CAP`].
///
/// Read only to record a trust or to show what changed since one; the check of an emit
/// reads the hashes alone.
pub fn trusted_text(hook: &HookDef, project: &Project) -> TrustedText {
    let script = script_files(hook, project).map(|files| match files {
        ScriptFiles::Found(files) => ScriptText::read(&files[0]),
        ScriptFiles::Missing(program) => ScriptText::read(&program),
    });
    TrustedText {
        definition: definition_document(hook),
        script,
    }
}

/// Whether `file`, outside the project, is the system's: owned by root while the
/// project is not. Neither the repository nor a hook running as its owner can change
/// such a file (`/usr/bin/python3`), and hashing large programs on every emit would cost
/// more than it proves.
fn system_file(file: &Path, project_dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let owner = |path: &Path| path.metadata().map(|m| m.uid()).ok();
    owner(file) == Some(0) && owner(project_dir).is_some_and(|uid| uid != 0)
}

/// `line` with the variables its dialect gives the hook replaced by their values, the
/// way `hookrig validate` reads them, with the project directory as the directory the
/// hook runs in (where the hooks of a project normally run).
fn expand_variables(line: &str, hook: &HookDef, project_dir: &Path) -> String {
    hook.protocol
        .line_variables(Some(project_dir))
        .unwrap_or_default()
        .iter()
        .fold(line.to_owned(), |line, (name, value)| {
            line.replace(name, value)
        })
}

/// The words of a shell line, roughly: split at blanks and at the characters that end a
/// word (`;`, `&`, `|`, `(`, `)`, `<`, `>`, `` ` ``) outside quotes, with quotes removed. The target of
/// an output redirection (`> log.txt`) is left out: the hook writes it, it does not run
/// it, so hashing it would untrust the hook on its first run.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut output_target = false;
    let mut quote = None;
    for c in line.chars().chain(std::iter::once(' ')) {
        if let Some(open) = quote {
            if c == open {
                quote = None;
            } else {
                word.push(c);
            }
        } else if c == '"' || c == '\'' {
            quote = Some(c);
        } else if c.is_whitespace() || ";&|()<>`".contains(c) {
            if !word.is_empty() {
                if !output_target {
                    words.push(std::mem::take(&mut word));
                }
                word.clear();
                output_target = false;
            }
            if c == '>' {
                output_target = true;
            }
        } else {
            word.push(c);
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use hookrig_core::Level;

    use super::*;

    fn hash_of(fields: &str) -> String {
        let text = format!("[[hooks]]\nname = \"w\"\nevents = [\"tool.after\"]\n{fields}\n");
        let (hooks, _) = crate::native::parse_native(
            Path::new("/p/.hookrig/hooks.toml"),
            &text,
            Level::Project,
            &mut Vec::new(),
        )
        .expect("valid");
        definition_hash(&hooks[0])
    }

    /// A project at `dir` with one native hook running `.hookrig/stamp.sh`.
    fn stamped_project(dir: &Path) -> (HookDef, Project) {
        let config = dir.join(".hookrig/hooks.toml");
        std::fs::create_dir_all(dir.join(".hookrig")).expect("mkdir");
        std::fs::write(dir.join(".hookrig/stamp.sh"), "#!/bin/sh\necho one\n").expect("write");
        let text = "[[hooks]]\nname = \"stamp\"\nevents = [\"tool.after\"]\ncommand = \"sh .hookrig/stamp.sh\"\n";
        let (mut hooks, _) =
            crate::native::parse_native(&config, text, Level::Project, &mut Vec::new())
                .expect("valid");
        let project = Project {
            root: Some(dir.to_owned()),
            walk: vec![dir.to_owned()],
        };
        (hooks.swap_remove(0), project)
    }

    #[test]
    fn the_text_recorded_is_the_hashed_definition_and_the_named_script() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (hook, project) = stamped_project(dir.path());
        let text = trusted_text(&hook, &project);
        assert_eq!(
            content_hash(text.definition.as_bytes()),
            definition_hash(&hook)
        );
        assert!(
            text.definition.contains("sh .hookrig/stamp.sh"),
            "{}",
            text.definition
        );
        let script = text.script.expect("the script is named");
        assert_eq!(script.path, dir.path().join(".hookrig/stamp.sh"));
        assert_eq!(script.text.as_deref(), Some("#!/bin/sh\necho one\n"));
    }

    // guards: trust is decided by the store's hashes alone: a recorded text that was
    // edited to match a changed script (or lost) neither trusts nor untrusts a hook
    #[test]
    fn the_recorded_text_never_decides_trust() {
        use hookrig_config::TrustedTexts;

        let dir = tempfile::tempdir().expect("temp dir");
        let (hook, project) = stamped_project(dir.path());
        let store_path = dir.path().join("state/trust.json");
        let texts = TrustedTexts::beside(&store_path);
        let mut store = TrustStore::default();
        store.trust(&hook, &project, 1);
        texts
            .record(&hook_key(&hook), &trusted_text(&hook, &project))
            .expect("record");
        assert_eq!(store.check(&hook, &project), None);

        // The recorded text lost, then garbled: still trusted.
        texts.forget(&hook_key(&hook)).expect("forget");
        assert_eq!(store.check(&hook, &project), None);
        std::fs::write(
            store_path
                .with_file_name("trusted-text")
                .join(format!("{}.json", content_hash(hook_key(&hook).as_bytes()))),
            "{garbage",
        )
        .expect("garble");
        assert_eq!(store.check(&hook, &project), None);

        // The script changes, and the recorded text is edited to say it was trusted so:
        // the hook is untrusted all the same.
        std::fs::write(
            dir.path().join(".hookrig/stamp.sh"),
            "#!/bin/sh\necho two\n",
        )
        .expect("change");
        texts
            .record(&hook_key(&hook), &trusted_text(&hook, &project))
            .expect("record the changed text");
        assert_eq!(store.check(&hook, &project), Some(Distrust::ScriptChanged));
    }

    // guards: the system's programs named by a project hook (`/bin/sh x.sh`) are not
    // hashed on every emit when the project is not root's; other outside files are.
    #[test]
    fn only_root_owned_files_outside_a_user_project_are_the_system_s() {
        use std::os::unix::fs::MetadataExt as _;
        let dir = tempfile::tempdir().expect("temp dir");
        let project = dir.path().join("project");
        std::fs::create_dir(&project).expect("mkdir");
        let mine = dir.path().join("mine.sh");
        std::fs::write(&mine, "true\n").expect("write");
        assert!(
            !system_file(&mine, &project),
            "a file of the project's owner"
        );
        let root_owned = Path::new("/bin/sh");
        if root_owned.metadata().is_ok_and(|m| m.uid() == 0) {
            // A project owned by someone else than root: possible to set up only as root.
            if std::os::unix::fs::chown(&project, Some(65534), Some(65534)).is_ok() {
                assert!(system_file(root_owned, &project));
                std::os::unix::fs::chown(&mine, Some(65534), Some(65534)).expect("chown");
                assert!(!system_file(&mine, &project));
            } else {
                assert!(project.metadata().expect("meta").uid() != 0);
                assert!(system_file(root_owned, &project));
            }
        }
    }

    // guards: a big program outside the project (`node hook.js` in a container where
    // everything is root's) is hashed when trusted, not on every emit after; a changed
    // one is read again.
    #[test]
    fn a_stamped_file_outside_the_project_is_not_read_again_until_it_changes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let project_dir = dir.path().join("project");
        std::fs::create_dir_all(project_dir.join(".hookrig")).expect("mkdir");
        let tool = dir.path().join("tool.sh");
        std::fs::write(&tool, "true\n").expect("write");
        let source = project_dir.join(".hookrig/hooks.toml");
        let text = format!(
            "[[hooks]]\nname = \"w\"\nevents = [\"tool.after\"]\ncommand = \"sh {}\"\n",
            tool.display()
        );
        let (hooks, _) =
            crate::native::parse_native(&source, &text, Level::Project, &mut Vec::new())
                .expect("valid");
        let project = Project {
            root: Some(project_dir.clone()),
            walk: vec![project_dir],
        };
        let hash = |known: &[FileStamp]| {
            script_hash(&hooks[0], &project, known)
                .expect("a script")
                .hash
        };
        let real = content_hash(b"true\n");
        assert_eq!(hash(&[]), real);

        // A file changed just now is not stamped: a write within the clock's tick could
        // keep its times.
        let (_, racy) = outside_hash(&tool, &[]);
        assert_eq!(racy, None, "a file changed just now got a stamp");

        // A stamp taken as if read later stands for the file, unread: its (made-up)
        // hash is the answer.
        let meta = std::fs::metadata(&tool).expect("meta");
        let later = std::time::SystemTime::now() + FileStamp::SETTLED * 2;
        let stamp = FileStamp::of(&tool, &meta, "stamped".to_owned(), later).expect("settled");
        assert_eq!(hash(std::slice::from_ref(&stamp)), "stamped");

        // A changed file no longer matches its stamp and is read again (its size
        // changes too, so that this does not hang on the clock's tick).
        std::fs::write(&tool, "false\n").expect("write");
        assert_eq!(hash(&[stamp]), content_hash(b"false\n"));
    }

    #[test]
    fn shell_words_lose_quotes_and_output_targets() {
        assert_eq!(
            shell_words(r#""$D"/a.sh arg;sh 'b c.sh'>>log.txt 2>&1 && ./d.sh <in.sh"#),
            ["$D/a.sh", "arg", "sh", "b c.sh", "2", "./d.sh", "in.sh"]
        );
    }

    #[test]
    fn the_hash_of_a_url_hook_covers_url_headers_and_secret_name() {
        let base = hash_of("url = \"http://127.0.0.1:1/a\"");
        let changed = [
            hash_of("url = \"http://127.0.0.1:1/b\""),
            hash_of("url = \"http://127.0.0.1:1/a\"\nheaders = { A = \"1\" }"),
            hash_of("url = \"http://127.0.0.1:1/a\"\nsecret_env = \"S1\""),
            hash_of("url = \"http://127.0.0.1:1/a\"\nsecret_env = \"S2\""),
        ];
        for (i, hash) in changed.iter().enumerate() {
            assert_ne!(&base, hash, "change {i} kept the hash");
        }
        assert_ne!(changed[2], changed[3]);
        assert_eq!(base, hash_of("url = \"http://127.0.0.1:1/a\""));
    }

    // guards: the protocol's part of the trust hash keeps the text it had when hooks
    // were first trusted (the `Debug` form of the dialect's run-time fields), so that
    // moving a dialect's types does not untrust every project hook.
    #[test]
    fn protocol_definitions_keep_the_text_hooks_were_trusted_with() {
        use std::path::PathBuf;

        use hookrig_config::HookPoint;

        use crate::protocol::DialectProtocol as _;
        use crate::{
            ClaudeHook, ClaudeProtocol, HenceHook, HenceProtocol, HyggeProtocol, NativeProtocol,
            XcodeHook, XcodeProtocol,
        };

        assert_eq!(NativeProtocol.definition(), "Native");
        assert_eq!(HyggeProtocol.definition(), "Hygge");
        let claude = ClaudeProtocol(ClaudeHook {
            event: "PreToolUse".to_owned(),
            project_dir: Some(PathBuf::from("/p")),
            allowed_env_vars: vec!["TOKEN".to_owned()],
            managed: false,
            condition: None,
            plugin: None,
        });
        assert_eq!(
            claude.definition(),
            r#"Claude(ClaudeHook { event: "PreToolUse", project_dir: Some("/p"), allowed_env_vars: ["TOKEN"], managed: false })"#
        );
        let xcode = XcodeProtocol(XcodeHook {
            plugin_id: "p@local".to_owned(),
            event: "PreToolUse".to_owned(),
            plugin_dir: PathBuf::from("/d"),
            data_dir: PathBuf::from("/data"),
            home: PathBuf::from("/h"),
            invalid_matcher: None,
        });
        assert_eq!(
            xcode.definition(),
            r#"Xcode(XcodeHook { plugin_id: "p@local", event: "PreToolUse", plugin_dir: "/d", data_dir: "/data", home: "/h", invalid_matcher: None })"#
        );
        let gemini = crate::GeminiProtocol(crate::GeminiHook {
            event: "BeforeTool".to_owned(),
            sequential: true,
        });
        assert_eq!(gemini.definition(), r#"Gemini { event: "BeforeTool" }"#);
        let hence = HenceProtocol(HenceHook {
            point: HookPoint::PostComplete,
        });
        assert_eq!(
            hence.definition(),
            "Hence(HenceHook { point: PostComplete })"
        );
        let cursor = crate::cursor::CursorProtocol(crate::cursor::CursorHook {
            event: "beforeShellExecution".to_owned(),
            dir: PathBuf::from("/p"),
            fail_closed: true,
            loop_limit: Some(5),
        });
        assert_eq!(
            cursor.definition(),
            r#"Cursor(CursorHook { event: "beforeShellExecution", dir: "/p", fail_closed: true, loop_limit: Some(5) })"#
        );
    }
}
