//! `hookrig trust`: approve the hooks, automation files, config.toml files and plan
//! validators a project brings, as they are now.

use std::fmt::Write;
use std::path::Path;

use hookrig_config::{Environment, Project, TrustStore, find_project, trust_store_path};
use hookrig_core::Level;
use hookrig_dialects::{HookTrust as _, LoadOptions, LoadedConfig};

use crate::engine;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

pub(crate) fn run(dir: Option<&Path>, list: bool, revoke: bool) -> Result<u8, ExpectedError> {
    let env = Environment::from_process(engine::working_dir(dir)?)?;
    let path = trust_store_path(&env);
    if list {
        return print_list(&TrustStore::load(&path)?);
    }
    let project = find_project(&env);
    if revoke {
        // The repository root, or the directory itself outside a repository: the top
        // of a walk without `.git` is `/`, and revoking under it would revoke every
        // project's trust.
        let top = project.root.clone().unwrap_or_else(|| env.cwd.clone());
        let removed = TrustStore::update(&path, |store| {
            Ok::<_, ExpectedError>(store.revoke_under(&top))
        })?;
        print(&format!(
            "revoked trust in {removed} hook{} under {}\n",
            if removed == 1 { "" } else { "s" },
            top.display()
        ))?;
        return Ok(exit_codes::PROCEED);
    }

    // Load without HOOKRIG_TRUST_ALL's shortcut so that every project hook is seen.
    let env = Environment {
        trust_all: true,
        ..env
    };
    let config = hookrig_dialects::load(&env, &LoadOptions::default())?;
    // A file skipped for an error is not trusted: say so, so that it is fixed and
    // trusted again.
    engine::report_skipped(&config);
    let now = hookrig_store::now_ms();
    // The whole read-modify-write holds the store's lock, so that a concurrent trust or
    // revoke is neither lost nor undone.
    let (text, count) = TrustStore::update(&path, |store| {
        Ok::<_, ExpectedError>(trust_project(store, &env, &project, &config, now))
    })?;
    let mut text = text;
    if count == 0 {
        text.push_str("no project hooks to trust\n");
    }
    print(&text)?;
    Ok(exit_codes::PROCEED)
}

/// Records everything the project brings as trusted as it is now; returns what to print
/// and how many items it trusted.
fn trust_project(
    store: &mut TrustStore,
    env: &Environment,
    project: &Project,
    config: &LoadedConfig,
    now: i64,
) -> (String, usize) {
    let mut text = String::new();
    let mut count = 0;
    for def in config
        .hooks
        .iter()
        .filter(|d| d.spec.source.level == Level::Project)
    {
        let changed = store.check(def, project).is_some();
        store.trust(def, project, now);
        count += 1;
        let _ = writeln!(
            text,
            "{} {} ({}, {})",
            if changed {
                "trusted"
            } else {
                "already trusted"
            },
            def.spec.name,
            def.dialect(),
            def.spec.source.path.display()
        );
    }
    // The project's automation files (`hookrig serve`) come with the repository too:
    // one `hookrig trust` approves everything the project brings.
    let root = project.root.clone().unwrap_or_else(|| env.cwd.clone());
    for id in hookrig_automation::definition::trust_project_automations(store, &root, now) {
        count += 1;
        let _ = writeln!(text, "trusted automation {id}");
    }
    // So do its config.toml files (providers, notifiers, plugin_path...) and plan
    // validators, trusted by their content.
    for (file, level, _) in hookrig_config::config_toml_paths(env) {
        if level != Level::Project {
            continue;
        }
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        count += 1;
        let changed = store.trust_file("config", &file, &bytes, now);
        let _ = writeln!(
            text,
            "{} config {}",
            if changed {
                "trusted"
            } else {
                "already trusted"
            },
            file.display()
        );
    }
    count += trust_claude_settings(env, store, now, &mut text);
    for (name, file) in hookrig_config::project_validators(project) {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        count += 1;
        let changed = store.trust_file("validator", &file, &bytes, now);
        let _ = writeln!(
            text,
            "{} validator {name} ({})",
            if changed {
                "trusted"
            } else {
                "already trusted"
            },
            file.display()
        );
    }
    (text, count)
}

/// Trusts the project's Claude Code settings files that set `disableAllHooks`, which
/// counts only once trusted (it would turn off the user's own hooks); returns how many.
fn trust_claude_settings(
    env: &Environment,
    store: &mut TrustStore,
    now: i64,
    text: &mut String,
) -> usize {
    let mut count = 0;
    for file in hookrig_dialects::claude_settings_to_trust(env) {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        count += 1;
        let changed = store.trust_file("claude", &file, &bytes, now);
        let _ = writeln!(
            text,
            "{} Claude Code settings {}",
            if changed {
                "trusted"
            } else {
                "already trusted"
            },
            file.display()
        );
    }
    count
}

fn print_list(store: &TrustStore) -> Result<u8, ExpectedError> {
    if store.hooks.is_empty() {
        print("(no trusted project hooks)\n")?;
        return Ok(exit_codes::PROCEED);
    }
    let rows: Vec<[String; 3]> = store
        .hooks
        .values()
        .map(|h| {
            [
                h.name.clone(),
                h.dialect.clone(),
                h.source.display().to_string(),
            ]
        })
        .collect();
    print(&super::list::table(&["NAME", "DIALECT", "SOURCE"], &rows))?;
    Ok(exit_codes::PROCEED)
}
