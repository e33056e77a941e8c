//! The JSON Schema of the native `hooks.toml`, for editors and `hookrig schema`.

use serde_json::{Value, json};

/// The JSON Schema (draft 2020-12) of hookrig's native `hooks.toml`.
///
/// Written by hand next to the raw types of `native.rs` (a test checks that every key
/// the parser knows is described here): the raw types carry positions, which a schema
/// generator would describe wrongly.
pub fn native_schema() -> Value {
    let duration = json!({
        "type": "string",
        "pattern": "^([0-9]+(\\.[0-9]+)?\\s*(ns|us|µs|ms|s|m|min|h|d)\\s*)+$",
        "description": "A duration such as \"5s\", \"500ms\" or \"1m30s\"; \"0s\" means none."
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hookrig hooks.toml",
        "description": "Command hooks run by `hookrig emit`. Global: $XDG_CONFIG_HOME/hookrig/hooks.toml; project: .hookrig/hooks.toml.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "settings": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "timeout": duration_with(&duration, "Timeout of hooks that set none (default 30s)."),
                    "kill_grace": duration_with(&duration, "Time between SIGTERM and SIGKILL to a timed-out hook's process group (default 5s)."),
                    "engine": {"enum": ["auto", "on", "off"], "default": "auto", "description": "Whether emits go through a resident engine (your own file only; HOOKRIG_ENGINE wins): see docs/engine.md."},
                    "engine_idle": duration_with(&duration, "How long an engine started by `auto` waits for an emit before it exits (default 10m).")
                }
            },
            "hooks": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["name", "events"],
                    "oneOf": [
                        {"required": ["command"], "not": {"anyOf": [{"required": ["exec"]}, {"required": ["url"]}]}},
                        {"required": ["exec"], "not": {"anyOf": [{"required": ["command"]}, {"required": ["url"]}]}},
                        {"required": ["url"], "not": {"anyOf": [{"required": ["command"]}, {"required": ["exec"]}, {"required": ["env"]}]}}
                    ],
                    "dependentRequired": {"secret_env": ["url"], "headers": ["url"]},
                    "properties": {
                        "name": {"type": "string", "minLength": 1, "description": "Unique within the file."},
                        "events": {
                            "type": "array",
                            "minItems": 1,
                            "items": {"type": "string"},
                            "description": "Canonical event names or aliases (see `hookrig events`); any other name is a custom notify event."
                        },
                        "matcher": {"type": "string", "description": "Regex, unanchored, tested against the tool name."},
                        "command": {"type": "string", "minLength": 1, "description": "A shell line, run with `sh -c`; a leading relative script path is resolved against this file's directory."},
                        "exec": {
                            "type": "array",
                            "minItems": 1,
                            "items": {"type": "string"},
                            "description": "A program and its arguments, run without a shell."
                        },
                        "url": {
                            "type": "string",
                            "format": "uri",
                            "pattern": "^[hH][tT][tT][pP][sS]?://",
                            "description": "An http:// or https:// endpoint: the event JSON is POSTed to it and the response body is read as a native reply (see docs/webhooks.md)."
                        },
                        "secret_env": {
                            "type": "string",
                            "minLength": 1,
                            "description": "url hooks: the environment variable holding the key of the X-Hookrig-Signature HMAC-SHA256; the hook fails when it is not set."
                        },
                        "headers": {
                            "type": "object",
                            "additionalProperties": {"type": "string"},
                            "description": "url hooks: extra request headers."
                        },
                        "timeout": duration_with(&duration, "Kill the hook's process group (or abandon a url hook's request) after this long."),
                        "on_error": {"enum": ["allow", "deny"], "default": "allow", "description": "What a crash, timeout or malformed reply means."},
                        "mode": {"enum": ["sync", "async"], "default": "sync", "description": "async: not awaited; only on notify events, tool.after and message.after."},
                        "priority": {"type": "integer", "default": 100, "description": "Lower runs first."},
                        "enabled": {"type": "boolean", "default": true},
                        "shadow": {"type": "boolean", "default": false, "description": "Run on real events but never decide: the answer is recorded beside the real outcome (hookrig runs --shadow, hookrig why). Promote the hook by removing this."},
                        "side_effects": {"type": "boolean", "default": true, "description": "false declares that the hook only answers (writes nothing, calls nothing), so that hookrig replay may run it again on recorded events."},
                        "env": {"type": "object", "additionalProperties": {"type": "string"}},
                        "description": {"type": "string"},
                        "worker": {"type": "boolean", "default": false, "description": "Keep the command running and send it one JSON line per event (see docs/engine.md); not with url."},
                        "workers": {"type": "integer", "minimum": 1, "maximum": 64, "default": 1, "description": "How many workers of a worker hook answer at once."}
                    }
                }
            }
        }
    })
}

fn duration_with(duration: &Value, description: &str) -> Value {
    let mut value = duration.clone();
    value["description"] = Value::String(description.to_owned());
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_key_is_described() {
        let schema = native_schema();
        let text = schema.to_string();
        for key in super::super::loader::KNOWN_KEYS {
            assert!(
                text.contains(&format!("\"{key}\"")),
                "`{key}` is missing from the schema"
            );
        }
    }
}
