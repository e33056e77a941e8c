//! The merged `config.toml` in effect ([`Effective`]) written back as TOML, each value
//! with the file and line it came from: the config's own keys and quoting, kept beside
//! the types they describe.

use std::fmt::Write as _;

use serde_json::Value;

use crate::{Effective, Provider, Seconds, Setting};

/// `# path:line`, the comment that says where a value came from; `# default`.
fn from<T>(setting: &Setting<T>) -> String {
    match (&setting.source, setting.line) {
        (Some(source), Some(line)) => format!("# {}:{line}", source.display()),
        _ => "# default".to_owned(),
    }
}

/// A TOML string (TOML basic strings escape like JSON).
fn quote(text: &str) -> String {
    Value::from(text).to_string()
}

fn quote_all<T: AsRef<str>>(items: &[T]) -> String {
    let items: Vec<_> = items.iter().map(|item| quote(item.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

/// `"300s"`, or `"250ms"` when the duration is not whole seconds.
fn duration(Seconds(d): &Seconds) -> String {
    quote(&if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    })
}

/// `key = value  # path:line` (or `# default`).
fn line<T>(out: &mut String, key: &str, setting: &Setting<T>, render: impl Fn(&T) -> String) {
    let _ = writeln!(out, "{key} = {}  {}", render(&setting.value), from(setting));
}

impl Effective {
    /// The config as TOML a user could paste back, each value followed by a comment
    /// naming its file and line (`# default` when no file sets it): what `hookrig config
    /// show` prints.
    pub fn annotated_toml(&self) -> String {
        annotated(self)
    }
}

fn annotated(config: &Effective) -> String {
    let mut out = String::new();
    if config.files.is_empty() {
        out.push_str("# no config.toml found; every value is the default\n");
    } else {
        out.push_str("# files, in merge order (a later one wins):\n");
        for file in &config.files {
            let _ = match config.untrusted.iter().find(|u| &u.path == file) {
                // Said here, beside the file, because the ignored values are simply
                // absent below and would otherwise look unset.
                Some(untrusted) => writeln!(
                    out,
                    "#   {}  (not trusted: {}; ignored: {}; review it, then run hookrig trust)",
                    file.display(),
                    untrusted.reason,
                    untrusted.ignored.join(", ")
                ),
                None => writeln!(out, "#   {}", file.display()),
            };
        }
    }
    let settings = &config.settings;
    out.push_str("\n[settings]\n");
    line(
        &mut out,
        "hook_timeout",
        &settings.hook_timeout,
        u64::to_string,
    );
    line(&mut out, "plugin_path", &settings.plugin_path, |dirs| {
        let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        quote_all(&dirs)
    });
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
            // `true`, `false` or the script's name: TOML writes them as JSON does.
            line(&mut out, &point.key(), setting, |value| {
                serde_json::to_string(value).expect("a hook setting serializes")
            });
        }
    }
    let files = &config.worktree.provision.files;
    if !files.is_empty() {
        out.push_str("\n[worktree.provision]\nfiles = [\n");
        for file in files {
            let f = &file.value;
            let _ = writeln!(
                out,
                "  {{ from = {}, to = {}, mode = {} }},  {}",
                quote(&f.from),
                quote(&f.to),
                quote(f.mode.as_str()),
                from(file)
            );
        }
        out.push_str("]\n");
    }
    automation_text(&mut out, config);
    out
}

fn automation_text(out: &mut String, config: &Effective) {
    let a = &config.automation;
    out.push_str("\n[automation]\n");
    line(out, "enabled", &a.enabled, bool::to_string);
    line(out, "max_concurrent", &a.max_concurrent, u32::to_string);
    line(out, "run_timeout", &a.run_timeout, duration);
    line(out, "tick", &a.tick, duration);
    line(out, "debounce", &a.debounce, duration);
    line(out, "file_watcher", &a.file_watcher, bool::to_string);
    out.push_str("\n[automation.llm]\n");
    let l = &a.llm;
    if l.provider.is_default() {
        out.push_str(
            "# provider is not set: automations that reach the LLM step fail until it is\n",
        );
    }
    for (key, setting) in [
        ("provider", &l.provider),
        ("model", &l.model),
        ("base_url", &l.base_url),
        ("api_key_env", &l.api_key_env),
    ] {
        if let Some(value) = &setting.value {
            let _ = writeln!(out, "{key} = {}  {}", quote(value), from(setting));
        }
    }
    line(out, "timeout", &l.timeout, duration);
    line(out, "max_tokens", &l.max_tokens, u32::to_string);
    for notifier in &config.notifiers {
        let n = &notifier.value;
        let _ = writeln!(out, "\n[[notifiers]]  {}", from(notifier));
        let _ = writeln!(out, "kind = {}", quote(n.kind.as_str()));
        let _ = writeln!(out, "url = {}", quote(&n.url));
        if let Some(events) = &n.events {
            let _ = writeln!(out, "events = {}", quote_all(events));
        }
    }
    out.push_str("\n[memory]\n");
    line(out, "notes_dir", &config.memory.notes_dir, |d| {
        quote(&d.display().to_string())
    });
    if let Some(embeddings) = &config.memory.embeddings {
        let e = &embeddings.value;
        let _ = writeln!(out, "\n[memory.embeddings]  {}", from(embeddings));
        let _ = writeln!(out, "base_url = {}", quote(&e.base_url));
        let _ = writeln!(out, "model = {}", quote(&e.model));
        if let Some(key) = &e.api_key_env {
            let _ = writeln!(out, "api_key_env = {}", quote(key));
        }
    }
}

fn provider_text(out: &mut String, p: &Provider) {
    let _ = writeln!(out, "id = {}", quote(&p.id));
    let _ = writeln!(out, "name = {}", quote(&p.name));
    let _ = writeln!(out, "cli = {}", quote(&p.cli));
    let _ = writeln!(out, "version_args = {}", quote_all(&p.version_args));
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
    let _ = writeln!(out, "default_args = {}", quote_all(&p.default_args));
}

#[cfg(test)]
mod tests {
    use crate::ConfigToml;

    #[test]
    fn with_no_file_every_value_is_the_default() {
        // guards: `hookrig config show` with no config.toml says so and still writes
        // every section a user could paste back
        let text = ConfigToml::default().effective().annotated_toml();
        assert!(text.starts_with("# no config.toml found; every value is the default\n"));
        for section in [
            "\n[settings]\n",
            "\n[automation]\n",
            "\n[automation.llm]\n",
            "\n[memory]\n",
        ] {
            assert!(text.contains(section), "{section} missing from:\n{text}");
        }
        assert!(text.contains("hook_timeout = "), "{text}");
        assert!(text.contains("  # default\n"), "{text}");
    }
}
