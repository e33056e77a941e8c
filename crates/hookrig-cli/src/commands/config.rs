//! `hookrig config show`: the merged `config.toml`, and the file and line every value
//! came from.

use std::fmt::Write as _;
use std::path::Path;

use hookrig_config::{
    ConfigToml, DEFAULT_HOOK_TIMEOUT, Environment, HookSetting, Provider, ProvisionFile, Sourced,
};
use serde_json::{Value, json};

use crate::engine;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

/// Loads the merged `config.toml` seen from `cwd`, printing its warnings (unknown keys)
/// on stderr. Errors stop the caller: exit 1 with every `path:line:col: message`.
pub(crate) fn load(cwd: Option<&Path>) -> Result<ConfigToml, ExpectedError> {
    let env = Environment::from_process(engine::working_dir(cwd)?)?;
    let mut warnings = Vec::new();
    let config = hookrig_config::load_config_toml(&env, &mut warnings)?;
    for warning in warnings {
        eprintln!("hookrig: warning: {warning}");
    }
    Ok(config)
}

pub(crate) fn show(cwd: Option<&Path>, json: bool) -> Result<u8, ExpectedError> {
    let config = load(cwd)?;
    if json {
        let mut text = serde_json::to_string_pretty(&to_json(&config)).unwrap_or_default();
        text.push('\n');
        print(&text)?;
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
            let _ = writeln!(out, "#   {}", file.display());
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
    out
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
    json!({
        "files": config.files,
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
    })
}
