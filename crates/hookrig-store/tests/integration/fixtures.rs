//! Records and stores shared by the tests.

use std::path::PathBuf;

use hookrig_core::{Dialect, HookResult};
use hookrig_store::{
    AutomationRow, AutomationRun, EmitDecision, EmitRecord, Gate, HookRun, RunStatus, Store,
};
use serde_json::json;
use tempfile::TempDir;

/// A store in its own temp dir; the dir lives as long as the value.
pub(crate) struct TempStore {
    pub(crate) dir: TempDir,
    pub(crate) store: Store,
}

impl TempStore {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("ledger.db")).expect("open a fresh store");
        Self { dir, store }
    }

    pub(crate) fn path(&self) -> PathBuf {
        self.dir.path().join("ledger.db")
    }
}

/// An emit with every optional field empty and no hooks.
pub(crate) fn bare_emit(run_id: &str, started_at_ms: i64, event: &str) -> EmitRecord {
    EmitRecord {
        cwd: "/home/me/repo".to_owned(),
        session_id: "session-1".to_owned(),
        decision: EmitDecision::Allow,
        duration_ms: 3.25,
        payload_out: "{}".to_owned(),
        ..EmitRecord::running(run_id, started_at_ms, event, Dialect::Claude)
    }
}

/// A hook that matched, ran and allowed, with only the always-present fields set.
pub(crate) fn hook(name: &str, matched: bool) -> HookRun {
    HookRun {
        name: name.to_owned(),
        source: "/home/me/repo/.hookrig.toml".to_owned(),
        dialect: Dialect::Claude,
        matched,
        skip_reason: (!matched).then(|| "other event".to_owned()),
        result: if matched {
            HookResult::Allow
        } else {
            HookResult::Skipped
        },
        exit_code: None,
        duration_ms: None,
        reason: None,
        stderr: None,
        stdout: None,
        truncated: false,
        is_async: false,
        shadow: false,
    }
}

/// An emit that sets every field, with hooks covering each outcome shape:
/// a deny with all optional fields, a skipped hook with none, a timeout, and
/// an async hook.
pub(crate) fn full_emit() -> EmitRecord {
    EmitRecord {
        run_id: "0196f1c2-7b7e-7cc1-9b1a-3f0c4f4a2b10".to_owned(),
        started_at_ms: 1_747_000_000_123,
        event: "PreToolUse".to_owned(),
        dialect: Dialect::Claude,
        cwd: "/home/me/repo with spaces".to_owned(),
        session_id: "2f0c8d9e".to_owned(),
        agent: Some("claude-1".to_owned()),
        decision: EmitDecision::Deny,
        reason: Some("rm -rf is not allowed".to_owned()),
        decided_by: Some("no-rm".to_owned()),
        duration_ms: 12.625,
        payload_in: r#"{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#.to_owned(),
        payload_out: r#"{"decision":"block","reason":"rm -rf is not allowed"}"#.to_owned(),
        warnings: vec![
            "unknown key `tiemout` in /home/me/.config/hookrig/config.toml".to_owned(),
            "hook \"fmt\" printed non-JSON output: ignored".to_owned(),
        ],
        hooks: vec![
            HookRun {
                name: "no-rm".to_owned(),
                source: "/home/me/repo/.hookrig.toml".to_owned(),
                dialect: Dialect::Claude,
                matched: true,
                skip_reason: None,
                result: HookResult::Deny,
                exit_code: Some(2),
                duration_ms: Some(11.5),
                reason: Some("rm -rf is not allowed".to_owned()),
                stderr: Some("rm -rf is not allowed\n".to_owned()),
                stdout: Some("{\"decision\":\"block\"}\n".to_owned()),
                truncated: true,
                is_async: false,
                shadow: false,
            },
            HookRun {
                name: "lint".to_owned(),
                source: "/home/me/.config/hookrig/config.toml".to_owned(),
                dialect: Dialect::Claude,
                matched: false,
                skip_reason: Some("matcher did not match \"tool\"".to_owned()),
                result: HookResult::Skipped,
                exit_code: None,
                duration_ms: None,
                reason: None,
                stderr: None,
                stdout: None,
                truncated: false,
                is_async: false,
                shadow: false,
            },
            HookRun {
                name: "slow".to_owned(),
                source: "/home/me/repo/.hookrig.toml".to_owned(),
                dialect: Dialect::Claude,
                matched: true,
                skip_reason: None,
                result: HookResult::Timeout,
                exit_code: Some(-1),
                duration_ms: Some(5000.0),
                reason: None,
                stderr: Some(String::new()),
                stdout: None,
                truncated: false,
                is_async: false,
                shadow: false,
            },
            HookRun {
                name: "notify".to_owned(),
                source: "/home/me/repo/.hookrig.toml".to_owned(),
                dialect: Dialect::Claude,
                matched: true,
                skip_reason: None,
                result: HookResult::Allow,
                exit_code: Some(0),
                duration_ms: Some(0.5),
                reason: None,
                stderr: None,
                stdout: Some(String::new()),
                truncated: false,
                is_async: true,
                shadow: false,
            },
        ],
        by_engine: true,
    }
}

/// An enabled periodic automation `id` (every 2 s) of project `p`, as the run tests store
/// before their runs (the SQLite work file's runs refer to their automation).
pub(crate) fn automation(id: &str) -> AutomationRow {
    AutomationRow {
        id: id.to_owned(),
        project_id: "p".to_owned(),
        name: id.to_owned(),
        enabled: true,
        trigger: r#"{"type":"periodic","interval_seconds":2}"#.to_owned(),
        context_steps: "[]".to_owned(),
        prompt_template: String::new(),
        llm_config: None,
        cooldown_seconds: 0,
        max_tokens_per_run: None,
        source: None,
        created_at: 0.0,
        updated_at: 0.0,
        held: None,
        tools: None,
    }
}

/// A run of `automation_id` started at `started_at` (Unix seconds), still `running`.
pub(crate) fn run(id: &str, automation_id: &str, started_at: f64) -> AutomationRun {
    AutomationRun {
        id: id.to_owned(),
        automation_id: automation_id.to_owned(),
        project_id: "p".to_owned(),
        trigger_reason: "periodic".to_owned(),
        status: RunStatus::Running,
        event_data: Some(json!({"scheduled_at": started_at, "zeta": 1, "alpha": [1, 2]})),
        context_results: None,
        prompt_sent: None,
        llm_response: None,
        actions_taken: None,
        skipped_reason: None,
        tokens_used: 0,
        started_at,
        completed_at: None,
    }
}

/// A gate of node `node` at `now` that only a run in flight closes: no cooldown, no cap,
/// no period, a lease of 30 s.
pub(crate) fn gate(node: &str, now: f64) -> Gate<'_> {
    Gate {
        node,
        cooldown_seconds: 0.0,
        max_concurrent: 0,
        period: None,
        event: None,
        lease_seconds: 30.0,
        now,
    }
}
