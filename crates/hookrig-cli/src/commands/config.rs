//! `hookrig config show`: the merged `config.toml`, and the file and line every value
//! came from.

use std::fmt::Write as _;
use std::time::Duration;

use hookrig_config::{
    ConfigToml, DEFAULT_DEBOUNCE, DEFAULT_HOOK_TIMEOUT, DEFAULT_LLM_TIMEOUT,
    DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_TOKENS, DEFAULT_NOTES_DIR, DEFAULT_RUN_TIMEOUT,
    DEFAULT_TICK, HookSetting, NotifierConfig, Provider, ProvisionFile, Sourced,
};
use hookrig_runtime::Scope;
use serde_json::{Value, json};

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json, warn_all};

/// Loads the merged `config.toml` seen from the scope's working directory, printing its
/// warnings (unknown keys) on stderr. Errors stop the caller: exit 1 with every
/// `path:line:col: message`.
pub(crate) fn load(scope: &Scope) -> Result<ConfigToml, ExpectedError> {
    let mut warnings = Vec::new();
    let config = hookrig_config::load_config_toml(&scope.env, &mut warnings)?;
    warn_all(warnings);
    Ok(config)
}

pub(crate) fn show(scope: &Scope, json: bool) -> Result<u8, ExpectedError> {
    let config = load(scope)?;
    if json {
        print_json(&to_json(&config))?;
    } else {
        print(&to_text(&config))?;
    }
    Ok(exit_codes::PROCEED)
}

/// `# path:line`, the comment that says where a value came from.
fn from<T>(value: &Sourced<T>) -> String {
    format!("# {}:{}", value.source.display(), value.line)
}

/// A TOML string (TOML basic strings escape like JSON).
fn quote(text: &str) -> String {
    Value::from(text).to_string()
}

fn quote_all<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<_> = items.into_iter().map(quote).collect();
    format!("[{}]", items.join(", "))
}

/// The merged config as TOML a user could paste back, each value followed by a comment
/// naming its file and line (`# default` when no file sets it).
fn to_text(config: &ConfigToml) -> String {
    let mut out = String::new();
    if config.files.is_empty() {
        out.push_str("# no config.toml found; every value is the default\n");
    } else {
        out.push_str("# files, in merge order (a later one wins):\n");
        for file in &config.files {
            match config.untrusted.iter().find(|u| &u.path == file) {
                // Said here, beside the file, because the ignored values are simply
                // absent below and would otherwise look unset.
                Some(untrusted) => {
                    let _ = writeln!(
                        out,
                        "#   {}  (not trusted: {}; ignored: {}; review it, then run hookrig trust)",
                        file.display(),
                        untrusted.reason,
                        untrusted.ignored.join(", ")
                    );
                }
                None => {
                    let _ = writeln!(out, "#   {}", file.display());
                }
            }
        }
    }
    out.push_str("\n[settings]\n");
    match &config.hook_timeout {
        Some(timeout) => {
            let _ = writeln!(
                out,
                "hook_timeout = {}  {}",
                timeout.value.as_secs(),
                from(timeout)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "hook_timeout = {}  # default",
                DEFAULT_HOOK_TIMEOUT.as_secs()
            );
        }
    }
    match &config.plugin_path {
        Some(dirs) => {
            let dirs_text: Vec<String> =
                dirs.value.iter().map(|d| d.display().to_string()).collect();
            let text = quote_all(dirs_text.iter().map(String::as_str));
            let _ = writeln!(out, "plugin_path = {text}  {}", from(dirs));
        }
        None => out.push_str("plugin_path = []  # default\n"),
    }
    for provider in &config.providers {
        let _ = writeln!(out, "\n[[providers]]  {}", from(provider));
        provider_text(&mut out, &provider.value);
    }
    for agent in &config.agents {
        let _ = writeln!(out, "\n[[agents]]  {}", from(agent));
        let _ = writeln!(out, "name = {}", quote(&agent.value.name));
        let _ = writeln!(out, "provider = {}", quote(&agent.value.provider));
    }
    if !config.hooks.is_empty() {
        out.push_str("\n[hooks]\n");
        for (point, setting) in &config.hooks {
            let value = match &setting.value {
                HookSetting::Default => "true".to_owned(),
                HookSetting::Disabled => "false".to_owned(),
                HookSetting::Script(name) => quote(name),
            };
            let key = point.name().replace('-', "_");
            let _ = writeln!(out, "{key} = {value}  {}", from(setting));
        }
    }
    if !config.provision.is_empty() {
        out.push_str("\n[worktree.provision]\nfiles = [\n");
        for file in &config.provision {
            let ProvisionFile {
                from: src,
                to,
                mode,
            } = &file.value;
            let _ = writeln!(
                out,
                "  {{ from = {}, to = {}, mode = {} }},  {}",
                quote(src),
                quote(to),
                quote(mode.as_str()),
                from(file)
            );
        }
        out.push_str("]\n");
    }
    automation_text(&mut out, config);
    out
}

/// `"300s"`, or `"250ms"` when the duration is not whole seconds.
fn duration_text(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// `key = value  # path:line`, or `# default` with `default` when no file sets it.
fn line_of<T>(
    out: &mut String,
    key: &str,
    value: Option<&Sourced<T>>,
    render: impl Fn(&T) -> String,
    default: &str,
) {
    let _ = match value {
        Some(v) => writeln!(out, "{key} = {}  {}", render(&v.value), from(v)),
        None => writeln!(out, "{key} = {default}  # default"),
    };
}

fn automation_text(out: &mut String, config: &ConfigToml) {
    let a = &config.automation;
    let duration = |d: &Duration| quote(&duration_text(*d));
    out.push_str("\n[automation]\n");
    line_of(
        out,
        "enabled",
        a.enabled.as_ref(),
        ToString::to_string,
        "true",
    );
    line_of(
        out,
        "max_concurrent",
        a.max_concurrent.as_ref(),
        ToString::to_string,
        &DEFAULT_MAX_CONCURRENT.to_string(),
    );
    for (key, value, default) in [
        ("run_timeout", &a.run_timeout, DEFAULT_RUN_TIMEOUT),
        ("tick", &a.tick, DEFAULT_TICK),
        ("debounce", &a.debounce, DEFAULT_DEBOUNCE),
    ] {
        line_of(out, key, value.as_ref(), duration, &duration(&default));
    }
    line_of(
        out,
        "file_watcher",
        a.file_watcher.as_ref(),
        ToString::to_string,
        "true",
    );
    out.push_str("\n[automation.llm]\n");
    let l = &a.llm;
    if l.provider.is_none() {
        out.push_str(
            "# provider is not set: automations that reach the LLM step fail until it is\n",
        );
    }
    for (key, value) in [
        ("provider", &l.provider),
        ("model", &l.model),
        ("base_url", &l.base_url),
        ("api_key_env", &l.api_key_env),
    ] {
        if let Some(value) = value {
            let _ = writeln!(out, "{key} = {}  {}", quote(&value.value), from(value));
        }
    }
    line_of(
        out,
        "timeout",
        l.timeout.as_ref(),
        duration,
        &duration(&DEFAULT_LLM_TIMEOUT),
    );
    line_of(
        out,
        "max_tokens",
        l.max_tokens.as_ref(),
        ToString::to_string,
        &DEFAULT_MAX_TOKENS.to_string(),
    );
    for notifier in &config.notifiers {
        let NotifierConfig { kind, url, events } = &notifier.value;
        let _ = writeln!(out, "\n[[notifiers]]  {}", from(notifier));
        let _ = writeln!(out, "kind = {}", quote(kind.as_str()));
        let _ = writeln!(out, "url = {}", quote(url));
        if let Some(events) = events {
            let _ = writeln!(
                out,
                "events = {}",
                quote_all(events.iter().map(String::as_str))
            );
        }
    }
    out.push_str("\n[memory]\n");
    line_of(
        out,
        "notes_dir",
        config.memory.notes_dir.as_ref(),
        |d| quote(&d.display().to_string()),
        &quote(DEFAULT_NOTES_DIR),
    );
    if let Some(embeddings) = &config.memory.embeddings {
        let _ = writeln!(out, "\n[memory.embeddings]  {}", from(embeddings));
        let _ = writeln!(out, "base_url = {}", quote(&embeddings.value.base_url));
        let _ = writeln!(out, "model = {}", quote(&embeddings.value.model));
        if let Some(key) = &embeddings.value.api_key_env {
            let _ = writeln!(out, "api_key_env = {}", quote(key));
        }
    }
}

/// Seconds as a JSON number: whole seconds as an integer.
fn seconds_json(d: Duration) -> Value {
    if d.subsec_nanos() == 0 {
        Value::from(d.as_secs())
    } else {
        Value::from(d.as_secs_f64())
    }
}

fn automation_json(config: &ConfigToml) -> Value {
    let a = &config.automation;
    let l = &a.llm;
    let secs = |d: &Duration| seconds_json(*d);
    let string = |s: &String| Value::from(s.as_str());
    json!({
        "enabled": sourced_json(a.enabled.as_ref(), |b| json!(b), json!(true)),
        "max_concurrent": sourced_json(a.max_concurrent.as_ref(), |n| json!(n), json!(DEFAULT_MAX_CONCURRENT)),
        "run_timeout": sourced_json(a.run_timeout.as_ref(), secs, seconds_json(DEFAULT_RUN_TIMEOUT)),
        "tick": sourced_json(a.tick.as_ref(), secs, seconds_json(DEFAULT_TICK)),
        "debounce": sourced_json(a.debounce.as_ref(), secs, seconds_json(DEFAULT_DEBOUNCE)),
        "file_watcher": sourced_json(a.file_watcher.as_ref(), |b| json!(b), json!(true)),
        "llm": {
            "provider": sourced_json(l.provider.as_ref(), string, Value::Null),
            "model": sourced_json(l.model.as_ref(), string, Value::Null),
            "base_url": sourced_json(l.base_url.as_ref(), string, Value::Null),
            "api_key_env": sourced_json(l.api_key_env.as_ref(), string, Value::Null),
            "timeout": sourced_json(l.timeout.as_ref(), secs, seconds_json(DEFAULT_LLM_TIMEOUT)),
            "max_tokens": sourced_json(l.max_tokens.as_ref(), |n| json!(n), json!(DEFAULT_MAX_TOKENS)),
        },
    })
}

fn provider_text(out: &mut String, p: &Provider) {
    let _ = writeln!(out, "id = {}", quote(&p.id));
    let _ = writeln!(out, "name = {}", quote(&p.name));
    let _ = writeln!(out, "cli = {}", quote(&p.cli));
    let _ = writeln!(
        out,
        "version_args = {}",
        quote_all(p.version_args.iter().map(String::as_str))
    );
    for (key, flag) in [
        ("auto_approve_flag", &p.auto_approve_flag),
        ("initial_prompt_flag", &p.initial_prompt_flag),
        ("resume_flag", &p.resume_flag),
    ] {
        if let Some(flag) = flag {
            let _ = writeln!(out, "{key} = {}", quote(flag));
        }
    }
    let _ = writeln!(
        out,
        "use_keystroke_injection = {}",
        p.use_keystroke_injection
    );
    let _ = writeln!(out, "keystroke_delay_ms = {}", p.keystroke_delay_ms);
    let _ = writeln!(
        out,
        "default_args = {}",
        quote_all(p.default_args.iter().map(String::as_str))
    );
}

/// `{"value": V, "source": PATH, "line": N}`; a default has `source` and `line` null.
fn sourced_json<T>(
    value: Option<&Sourced<T>>,
    render: impl Fn(&T) -> Value,
    default: Value,
) -> Value {
    if let Some(s) = value {
        json!({"value": render(&s.value), "source": s.source, "line": s.line})
    } else {
        let mut entry = json!({"value": null, "source": null, "line": null});
        entry["value"] = default;
        entry
    }
}

pub(crate) fn provider_json(p: &Provider) -> Value {
    json!({
        "id": p.id,
        "name": p.name,
        "cli": p.cli,
        "version_args": p.version_args,
        "auto_approve_flag": p.auto_approve_flag,
        "initial_prompt_flag": p.initial_prompt_flag,
        "use_keystroke_injection": p.use_keystroke_injection,
        "keystroke_delay_ms": p.keystroke_delay_ms,
        "resume_flag": p.resume_flag,
        "default_args": p.default_args,
    })
}

fn to_json(config: &ConfigToml) -> Value {
    let hooks: serde_json::Map<String, Value> = config
        .hooks
        .iter()
        .map(|(point, setting)| {
            let value = match &setting.value {
                HookSetting::Default => Value::Bool(true),
                HookSetting::Disabled => Value::Bool(false),
                HookSetting::Script(name) => Value::from(name.as_str()),
            };
            (
                point.name().replace('-', "_"),
                sourced_json(Some(setting), |_| value.clone(), Value::Null),
            )
        })
        .collect();
    let notifiers: Vec<Value> = config
        .notifiers
        .iter()
        .map(|n| {
            sourced_json(
                Some(n),
                |n| json!({"kind": n.kind.as_str(), "url": n.url, "events": n.events}),
                Value::Null,
            )
        })
        .collect();
    let memory = json!({
        "notes_dir": sourced_json(
            config.memory.notes_dir.as_ref(),
            |d| json!(d),
            json!(DEFAULT_NOTES_DIR),
        ),
        "embeddings": config.memory.embeddings.as_ref().map(|e| sourced_json(
            Some(e),
            |e| json!({"base_url": e.base_url, "model": e.model, "api_key_env": e.api_key_env}),
            Value::Null,
        )),
    });
    let untrusted: Vec<Value> = config
        .untrusted
        .iter()
        .map(|u| json!({"path": u.path, "reason": u.reason, "ignored": u.ignored}))
        .collect();
    json!({
        "files": config.files,
        "untrusted": untrusted,
        "settings": {
            "hook_timeout": sourced_json(
                config.hook_timeout.as_ref(),
                |t| Value::from(t.as_secs()),
                Value::from(DEFAULT_HOOK_TIMEOUT.as_secs()),
            ),
            "plugin_path": sourced_json(config.plugin_path.as_ref(), |d| json!(d), json!([])),
        },
        "providers": config
            .providers
            .iter()
            .map(|p| sourced_json(Some(p), provider_json, Value::Null))
            .collect::<Vec<_>>(),
        "agents": config
            .agents
            .iter()
            .map(|a| sourced_json(
                Some(a),
                |a| json!({"name": a.name, "provider": a.provider}),
                Value::Null,
            ))
            .collect::<Vec<_>>(),
        "hooks": hooks,
        "worktree": {
            "provision": {
                "files": config
                    .provision
                    .iter()
                    .map(|f| sourced_json(
                        Some(f),
                        |f| json!({"from": f.from, "to": f.to, "mode": f.mode.as_str()}),
                        Value::Null,
                    ))
                    .collect::<Vec<_>>(),
            },
        },
        "automation": automation_json(config),
        "notifiers": notifiers,
        "memory": memory,
    })
}
