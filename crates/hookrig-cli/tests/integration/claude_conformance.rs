//! Claude Code conformance: for each case, what Claude Code sends (`hookrig emit
//! --dialect claude` reads it on stdin), what each of the project's Claude hooks replies
//! (exit code, stdout, stderr: real scripts), and the exact answer Claude Code must
//! receive. The rules and their sources are in docs/dialects/claude.md.

use hookrig_test_support::TestEnv;
use serde_json::{Value, json};
use test_case::test_case;

use crate::harness::{emit, quoted, test_env};

/// One hook's reply: exit code, stdout, stderr.
type HookReply = (i32, &'static str, &'static str);

const PRE: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"toolu_1"}"#;
const PERMISSION: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"npm test"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],"behavior":"allow","destination":"localSettings"}]}"#;
const POST: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"},"tool_use_id":"toolu_1"}"#;
const POST_MCP: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"PostToolUse","tool_name":"mcp__fs__read","tool_input":{"path":"a"},"tool_response":{"text":"a"},"tool_use_id":"toolu_1"}"#;
const POST_FAILURE: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_1","error":"exit 1","is_interrupt":false}"#;
const PROMPT: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"deploy"}"#;
const STOP: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}"#;
const SUBAGENT_STOP: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"SubagentStop","stop_hook_active":false,"agent_type":"reviewer","agent_transcript_path":"/a.jsonl"}"#;
const SESSION_START: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"SessionStart","source":"startup"}"#;
const SUBAGENT_START: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"reviewer"}"#;
const NOTIFICATION: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"Notification","message":"needs you","title":"Claude","notification_type":"permission_prompt"}"#;
const PRE_COMPACT: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":""}"#;
const SESSION_END: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"SessionEnd","reason":"logout"}"#;
const PRE_MODEL: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"PreModelSwitch","from_model":"claude-sonnet-4-5","to_model":"claude-opus-4-5","requested_model":"opus","source":"command","context_tokens":120000,"prompt_cache_warm":true}"#;
const POST_MODEL: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"PostModelSwitch","from_model":"claude-sonnet-4-5","to_model":"claude-opus-4-5","source":"auto"}"#;
const CONFIG_CHANGE: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"ConfigChange","source":"user_settings","file_path":"/h/.claude/settings.json"}"#;
const CWD_CHANGED: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"CwdChanged","old_cwd":"/a","new_cwd":"/b"}"#;
const FILE_CHANGED: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"FileChanged","file_path":"/b/.envrc","event":"change"}"#;
const STOP_FAILURE: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"StopFailure","error":"rate_limit"}"#;
const PERMISSION_DENIED: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_1","reason":"auto mode"}"#;
const TASK_COMPLETED: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"TaskCompleted","task_id":"t1"}"#;

/// Writes each reply as one project Claude hook of the input's event, asks hookrig as
/// Claude Code would, and returns the answer.
fn answer(input: &str, replies: &[HookReply]) -> Value {
    let env = test_env();
    let event = event_of(input);
    let handlers: Vec<Value> = replies
        .iter()
        .enumerate()
        .map(|(i, (code, stdout, stderr))| {
            let out = env.write_file(format!("replies/{i}.out"), stdout);
            let err = env.write_file(format!("replies/{i}.err"), stderr);
            let script = env.write_script(
                format!("bin/hook{i}.sh"),
                &format!(
                    "cat > /dev/null\ncat {}\ncat {} >&2\nexit {code}\n",
                    quoted(&out),
                    quoted(&err)
                ),
            );
            json!({"type": "command", "command": quoted(&script)})
        })
        .collect();
    settings(&env, &json!({"hooks": {event: [{"hooks": handlers}]}}));
    ask(&env, input)
}

fn event_of(input: &str) -> String {
    let input: Value = serde_json::from_str(input).expect("the case's input is JSON");
    input["hook_event_name"]
        .as_str()
        .expect("a hook_event_name")
        .to_owned()
}

fn settings(env: &TestEnv, value: &Value) {
    let path = env.project().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&path, serde_json::to_string_pretty(value).expect("json")).expect("write");
}

/// `hookrig emit --dialect claude` with `input` (its `CWD` the project), as Claude Code
/// runs it: the answer is always exit 0 with one JSON object.
fn ask(env: &TestEnv, input: &str) -> Value {
    let input = input.replace("CWD", &env.project().display().to_string());
    let out = emit(env, &["--dialect", "claude"], &input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.outcome
}

/// The arguments of an emit answering another host whose one hook is hookrig (Codex,
/// whose input and answers match Claude Code's on these events). Claude Code runs its
/// plugins' hooks itself beside hookrig's entry, so an emit answering Claude Code leaves
/// them out; one answering another host runs them.
const OTHER_HOST: &[&str] = &["--dialect", "codex"];

/// [`ask`], answering [`OTHER_HOST`].
fn ask_other(env: &TestEnv, input: &str) -> Value {
    let input = input.replace("CWD", &env.project().display().to_string());
    let out = emit(env, OTHER_HOST, &input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.outcome
}

const ALLOW: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe"}}"#;
const ASK: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#;
const DEFER: &str =
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}"#;
const DENY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"never"}}"#;

// PreToolUse: permissionDecision kept as given, and folded deny > defer > ask > allow.
// guards: an explicit allow dropped, so Claude Code asked the user anyway
#[test_case(PRE, &[(0, ALLOW, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "safe"}}) ; "pre explicit allow")]
#[test_case(PRE, &[(0, r#"{"decision":"approve","reason":"fine"}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}) ; "pre legacy approve is allow")]
#[test_case(PRE, &[(0, r#"{"decision":"block","reason":"no"}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}) ; "pre legacy block is deny")]
#[test_case(PRE, &[(0, DENY, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "never"}}) ; "pre deny")]
#[test_case(PRE, &[(0, ASK, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}) ; "pre ask")]
#[test_case(PRE, &[(0, DEFER, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}) ; "pre defer")]
#[test_case(PRE, &[(2, "ignored", "no rm -rf\n")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}}) ; "pre exit 2 denies with stderr")]
#[test_case(PRE, &[(0, ALLOW, ""), (0, ASK, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}) ; "pre ask over allow")]
#[test_case(PRE, &[(0, ASK, ""), (0, DEFER, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}) ; "pre defer over ask")]
#[test_case(PRE, &[(0, DEFER, ""), (0, ALLOW, ""), (0, DENY, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "never"}}) ; "pre deny over all")]
#[test_case(PRE, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -ri /tmp/x"}}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "rm -ri /tmp/x"}}}) ; "pre updated input with allow")]
#[test_case(PRE, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?","updatedInput":{"command":"rm -ri /tmp/x"}}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?", "updatedInput": {"command": "rm -ri /tmp/x"}}}) ; "pre updated input with ask")]
#[test_case(PRE, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"prefer trash"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "prefer trash"}}) ; "pre additional context")]
#[test_case(PRE, &[(0, "not json, debug output", "")], &json!({}) ; "pre plain text is nothing")]
#[test_case(PRE, &[(0, "{not json", "")], &json!({}) ; "pre text that does not end with a brace is plain text")]
// JSON on every exit code: stdout that starts with `{` and ends with `}` is JSON; JSON
// Claude Code cannot read is a non-blocking error, never plain text.
#[test_case(PRE, &[(0, r#"{"decision": }"#, "")],
    &json!({"systemMessage": "hook claude:project:PreToolUse:1: stdout is not valid JSON: expected value at line 1 column 14"}) ; "pre invalid json is a non-blocking error")]
#[test_case(PROMPT, &[(0, r#"{"context": nope}"#, "")],
    &json!({"systemMessage": "hook claude:project:UserPromptSubmit:1: stdout is not valid JSON: expected ident at line 1 column 14"}) ; "prompt invalid json is not context")]
// guards: JSON of a hook that exits 2 dropped, or allowed to undo the block
#[test_case(PRE, &[(2, ALLOW, "no rm -rf\n")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}}) ; "pre exit 2 blocks whatever the json says")]
#[test_case(PRE, &[(2, DENY, "stderr reason\n")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "never"}}) ; "pre exit 2 reason is the json's blocking reason")]
#[test_case(PRE, &[(2, r#"{"systemMessage":"logged"}"#, "no\n")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}, "systemMessage": "logged"}) ; "pre exit 2 json is still read")]
#[test_case(PRE, &[(1, DENY, "oops")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "never"}}) ; "pre exit 1 with json is decided by the json")]
#[test_case(PRE, &[(1, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}"#, "oops")],
    &json!({"systemMessage": "hook claude:project:PreToolUse:1: unknown permissionDecision `maybe` (expected allow, deny, ask or defer)"}) ; "pre exit 1 with json of the wrong schema is a non-blocking error")]
#[test_case(NOTIFICATION, &[(2, "", "ignored\n")], &json!({}) ; "notification exit 2 is ignored")]
// `continue: false` + `stopReason` on every event, never a deny or a block.
// guards: `continue: false` turned into a deny of the tool call
#[test_case(PRE, &[(0, r#"{"continue":false,"stopReason":"budget spent"}"#, "")],
    &json!({"continue": false, "stopReason": "budget spent"}) ; "pre continue false")]
// guards: `continue: false` on Stop turned into a block, which keeps Claude working
#[test_case(STOP, &[(0, r#"{"continue":false,"stopReason":"all done"}"#, "")],
    &json!({"continue": false, "stopReason": "all done"}) ; "stop continue false")]
#[test_case(PROMPT, &[(0, r#"{"continue":false,"stopReason":"paused"}"#, "")],
    &json!({"continue": false, "stopReason": "paused"}) ; "prompt continue false")]
#[test_case(POST, &[(0, r#"{"continue":false}"#, "")],
    &json!({"continue": false}) ; "post continue false without reason")]
#[test_case(PRE, &[(0, r#"{"systemMessage":"careful","suppressOutput":true}"#, "")],
    &json!({"systemMessage": "careful", "suppressOutput": true}) ; "pre system message and suppress output")]
// Exit codes other than 0 and 2 are non-blocking errors: the action goes on.
#[test_case(PRE, &[(1, "", "oops")],
    &json!({"systemMessage": "hook claude:project:PreToolUse:1 exited 1: oops"}) ; "pre exit 1 is non-blocking")]
// PermissionRequest: the decision object; exit 2 is not honoured there (the permission
// flow goes on unchanged, Claude Code shows its dialog).
// guards: PermissionRequest decisions ignored
#[test_case(PERMISSION, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"npm test -- --ci"},"updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],"behavior":"allow","destination":"session"}]}}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "npm test -- --ci"}, "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}], "behavior": "allow", "destination": "session"}]}}}) ; "permission allow")]
#[test_case(PERMISSION, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on CI","interrupt":true}}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not on CI", "interrupt": true}}}) ; "permission deny")]
#[test_case(PERMISSION, &[(2, "", "denied by policy\n")], &json!({}) ; "permission exit 2 is not honoured")]
#[test_case(PERMISSION, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#, ""), (0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}}) ; "permission deny over allow")]
#[test_case(PERMISSION, &[(0, "", "")], &json!({}) ; "permission no answer shows the dialog")]
// PostToolUse: block + reason, context, replaced output; exit 2 is feedback to Claude.
#[test_case(POST, &[(0, r#"{"decision":"block","reason":"lint failed"}"#, "")],
    &json!({"decision": "block", "reason": "lint failed"}) ; "post block")]
#[test_case(POST, &[(2, "", "lint failed\n")],
    &json!({"decision": "block", "reason": "lint failed"}) ; "post exit 2 is feedback to claude")]
#[test_case(POST, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"2 warnings"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "2 warnings"}}) ; "post additional context")]
#[test_case(POST, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"[redacted]"}}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"stdout": "[redacted]"}}}) ; "post updated tool output")]
#[test_case(POST_MCP, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"text":"[redacted]"}}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": {"text": "[redacted]"}}}) ; "post updated mcp tool output")]
#[test_case(POST_FAILURE, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"run make clean first"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "run make clean first"}}) ; "post failure additional context")]
#[test_case(POST_FAILURE, &[(2, "", "flaky test\n")],
    &json!({"decision": "block", "reason": "flaky test"}) ; "post failure exit 2 is feedback to claude")]
// UserPromptSubmit: plain stdout is context; exit 2 and block reject the prompt.
#[test_case(PROMPT, &[(0, "branch: main\n", "")],
    &json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "branch: main"}}) ; "prompt plain text is context")]
#[test_case(PROMPT, &[(2, "", "no deploys on friday\n")],
    &json!({"decision": "block", "reason": "no deploys on friday"}) ; "prompt exit 2 blocks")]
#[test_case(PROMPT, &[(0, r#"{"decision":"block","reason":"secret in prompt"}"#, "")],
    &json!({"decision": "block", "reason": "secret in prompt"}) ; "prompt block")]
#[test_case(PROMPT, &[(0, "a\n", ""), (0, r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"b"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "a\n\nb"}}) ; "prompt context of every hook")]
// Stop and SubagentStop: a block keeps Claude working, with no warning beside it.
// guards: a misleading "deny ignored on notify event" systemMessage beside a Stop block
#[test_case(STOP, &[(2, "", "tests still fail\n")],
    &json!({"decision": "block", "reason": "tests still fail"}) ; "stop exit 2 blocks")]
#[test_case(STOP, &[(0, r#"{"decision":"block","reason":"run the tests"}"#, "")],
    &json!({"decision": "block", "reason": "run the tests"}) ; "stop block")]
// guards: a Stop hook's additionalContext (Claude Code's "Stop hook feedback") dropped
#[test_case(STOP, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"also update the changelog"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "also update the changelog"}}) ; "stop additional context")]
#[test_case(SUBAGENT_STOP, &[(0, r#"{"decision":"block","reason":"review incomplete"}"#, "")],
    &json!({"decision": "block", "reason": "review incomplete"}) ; "subagent stop block")]
#[test_case(PRE_COMPACT, &[(2, "", "not now\n")],
    &json!({"decision": "block", "reason": "not now"}) ; "pre compact exit 2 blocks")]
#[test_case(TASK_COMPLETED, &[(2, "", "tests missing\n")],
    &json!({"decision": "block", "reason": "tests missing"}) ; "task completed exit 2 blocks")]
// SessionStart, SubagentStart: context; exit 2 is shown to the user only.
#[test_case(SESSION_START, &[(0, "on branch main\n", "")],
    &json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "on branch main"}}) ; "session start plain text is context")]
#[test_case(SESSION_START, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "ctx"}}) ; "session start additional context")]
#[test_case(SESSION_START, &[(2, "", "could not fetch\n")],
    &json!({"systemMessage": "hook claude:project:SessionStart:1: could not fetch"}) ; "session start exit 2 is for the user only")]
#[test_case(SUBAGENT_START, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"be brief"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "be brief"}}) ; "subagent start additional context")]
#[test_case(NOTIFICATION, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"Notification","additionalContext":"user is away"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "Notification", "additionalContext": "user is away"}}) ; "notification additional context")]
#[test_case(SESSION_END, &[(2, "", "x")],
    &json!({"systemMessage": "hook claude:project:SessionEnd:1: x"}) ; "session end cannot be blocked")]
// PreModelSwitch: exit 2, `decision: "block"` and a deny block the switch; ask and an
// explicit allow reach Claude Code as `permissionDecision`; there is no defer.
#[test_case(PRE_MODEL, &[(2, "", "cache is warm\n")],
    &json!({"decision": "block", "reason": "cache is warm"}) ; "model switch exit 2 blocks")]
#[test_case(PRE_MODEL, &[(0, r#"{"decision":"block","reason":"not now"}"#, "")],
    &json!({"decision": "block", "reason": "not now"}) ; "model switch block")]
#[test_case(PRE_MODEL, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"deny","permissionDecisionReason":"too expensive"}}"#, "")],
    &json!({"decision": "block", "reason": "too expensive"}) ; "model switch deny")]
#[test_case(PRE_MODEL, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"ask","permissionDecisionReason":"rebuild the cache?"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "ask", "permissionDecisionReason": "rebuild the cache?"}}) ; "model switch ask")]
#[test_case(PRE_MODEL, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"allow"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "allow"}}) ; "model switch explicit allow")]
#[test_case(PRE_MODEL, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"defer"}}"#, "")],
    &json!({"systemMessage": "hook claude:project:PreModelSwitch:1: unknown permissionDecision `defer` (expected allow, deny or ask)"}) ; "model switch has no defer")]
#[test_case(PRE_MODEL, &[(1, "", "oops")],
    &json!({"systemMessage": "hook claude:project:PreModelSwitch:1 exited 1: oops"}) ; "model switch exit 1 is non-blocking")]
// PostModelSwitch: plain stdout and additionalContext are context; it cannot be blocked.
#[test_case(POST_MODEL, &[(0, "now on opus\n", "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PostModelSwitch", "additionalContext": "now on opus"}}) ; "post model switch plain text is context")]
#[test_case(POST_MODEL, &[(2, "", "noted\n")],
    &json!({"systemMessage": "hook claude:project:PostModelSwitch:1: noted"}) ; "post model switch cannot be blocked")]
// What an event does not take is dropped, as Claude Code drops it.
// guards: a `systemMessage` or `continue: false` passed on where Claude Code discards it
#[test_case(CONFIG_CHANGE, &[(0, r#"{"continue":false,"systemMessage":"m","decision":"block","reason":"r"}"#, "")],
    &json!({"decision": "block", "reason": "r"}) ; "config change discards message and continue")]
#[test_case(CWD_CHANGED, &[(0, r#"{"continue":false,"stopReason":"x","systemMessage":"moved"}"#, "")],
    &json!({"systemMessage": "moved"}) ; "cwd changed discards continue")]
#[test_case(SESSION_END, &[(0, r#"{"systemMessage":"bye","continue":false}"#, "")],
    &json!({}) ; "session end discards its json")]
#[test_case(STOP_FAILURE, &[(0, r#"{"systemMessage":"m","continue":false,"terminalSequence":"\u0007"}"#, "")],
    &json!({"terminalSequence": "\u{7}"}) ; "stop failure keeps only the terminal sequence")]
#[test_case(NOTIFICATION, &[(0, r#"{"systemMessage":"x","continue":false,"terminalSequence":"\u001b]9;done\u0007"}"#, "")],
    &json!({"terminalSequence": "\u{1b}]9;done\u{7}"}) ; "notification discards message and continue but not the terminal sequence")]
#[test_case(STOP, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"Stop","permissionDecision":"deny","permissionDecisionReason":"no"}}"#, "")],
    &json!({}) ; "stop takes no permission decision")]
#[test_case(PRE, &[(0, r#"{"terminalSequence":"\u001b]0;a\u0007"}"#, ""), (0, r#"{"terminalSequence":"\u0007"}"#, "")],
    &json!({"terminalSequence": "\u{1b}]0;a\u{7}\u{7}"}) ; "terminal sequences of every hook")]
// Fields Claude Code reads itself are passed on where the event takes them.
#[test_case(PERMISSION_DENIED, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}"#, ""), (0, "", "")],
    &json!({"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}}) ; "permission denied retry")]
#[test_case(SESSION_START, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","watchPaths":["/p/.envrc"],"sessionTitle":"fix login"}}"#, ""), (0, r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","watchPaths":["/p/.env","/p/.envrc"],"sessionTitle":"other"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": ["/p/.envrc", "/p/.env"], "sessionTitle": "fix login"}}) ; "session start watch paths of every hook and the first title")]
#[test_case(FILE_CHANGED, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"FileChanged","watchPaths":["/b/.env"],"sessionTitle":"x"}}"#, "")],
    &json!({"hookSpecificOutput": {"hookEventName": "FileChanged", "watchPaths": ["/b/.env"]}}) ; "file changed watch paths")]
fn conformance(input: &str, replies: &[HookReply], expected: &Value) {
    assert_eq!(&answer(input, replies), expected);
}

// guards: fields Claude Code did not send added to a hook's input (`permission_mode`
// on SessionStart, an empty `tool_use_id` on PermissionRequest)
#[test_case(PERMISSION ; "permission request")]
#[test_case(SESSION_START ; "session start")]
#[test_case(POST_FAILURE ; "post tool use failure")]
#[test_case(PRE ; "pre tool use")]
#[test_case(SUBAGENT_STOP ; "subagent stop")]
#[test_case(PRE_MODEL ; "pre model switch")]
fn hooks_receive_exactly_what_claude_sent(input: &str) {
    let env = test_env();
    let seen = env.project().join("seen.json");
    let script = env.write_script("bin/dump.sh", &format!("cat > {}\n", quoted(&seen)));
    settings(
        &env,
        &json!({"hooks": {event_of(input): [{"hooks": [{"type": "command", "command": quoted(&script)}]}]}}),
    );
    ask(&env, input);
    let sent: Value =
        serde_json::from_str(&input.replace("CWD", &env.project().display().to_string()))
            .expect("json");
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).expect("the hook ran")).expect("json");
    assert_eq!(seen, sent);
}

// guards: a `[[ ... ]]` guard written for bash silently passing under dash
#[test]
fn command_hooks_run_with_bash() {
    let env = test_env();
    settings(
        &env,
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "input=$(cat); if [[ \"$input\" == *'rm -rf'* ]]; then echo 'no rm -rf' >&2; exit 2; fi"}]}]}}),
    );
    assert_eq!(
        ask(&env, PRE),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}})
    );
}

// guards: the hooks reference's own example, an exec-form hook whose program is
// `${CLAUDE_PROJECT_DIR}/...`, failing to start (no shell reads the placeholder)
#[test]
fn the_project_dir_placeholder_is_put_in_an_exec_form_command() {
    let env = test_env();
    env.write_script(
        ".claude/hooks/block-rm.sh",
        "grep -q 'rm -rf' && { echo 'Destructive command blocked by hook' >&2; exit 2; }\nexit 0\n",
    );
    settings(
        &env,
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "if": "Bash(rm *)", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", "args": []}]}]}}),
    );
    assert_eq!(
        ask(&env, PRE),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "Destructive command blocked by hook"}})
    );
}

// guards: the per-hook `if` permission rule ignored, so the hook ran on every call
#[test]
fn the_if_rule_filters_tool_calls() {
    let env = test_env();
    let log = env.project().join("ran.log");
    let script = env.write_script(
        "bin/guard.sh",
        &format!(
            "echo ran >> {}\necho 'no force push' >&2\nexit 2\n",
            quoted(&log)
        ),
    );
    settings(
        &env,
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": quoted(&script), "if": "Bash(git push *)"}]}]}}),
    );
    assert_eq!(ask(&env, PRE), json!({}));
    assert!(
        !log.exists(),
        "the hook ran for a call its rule does not match"
    );
    let push = PRE.replace("rm -rf /", "git push --force origin main");
    assert_eq!(
        ask(&env, &push),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no force push"}})
    );
}

// guards: a matcher on an event that has none warned about on every Stop
#[test]
fn a_matcher_on_an_event_without_one_is_ignored_silently() {
    let env = test_env();
    let log = env.project().join("ran.log");
    let script = env.write_script("bin/log.sh", &format!("echo ran >> {}\n", quoted(&log)));
    settings(
        &env,
        &json!({"hooks": {"Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": quoted(&script)}]}]}}),
    );
    assert_eq!(ask(&env, STOP), json!({}));
    assert!(log.exists(), "the hook runs on every Stop");
}

// examples/claude-guard: Claude Code's settings with a guard that denies `rm -rf` and a
// context hook, answered through `emit --dialect claude` as its README says.
#[test]
fn the_claude_guard_example() {
    let env = test_env();
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/claude-guard");
    crate::harness::copy_tree(&example, &env.project());
    let payload = |name: &str| {
        std::fs::read_to_string(example.join("payloads").join(format!("{name}.json")))
            .expect("the example's payload")
    };
    assert_eq!(
        ask(&env, &payload("rm-rf")),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "rm -rf is not allowed here; remove the files one by one"}})
    );
    assert_eq!(ask(&env, &payload("rm-file")), json!({}));
    assert_eq!(ask(&env, &payload("ls")), json!({}));
    let rules = "Project rules: never delete files recursively; run the tests before you stop.";
    assert_eq!(
        ask(&env, &payload("session-start")),
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": rules}})
    );
    assert_eq!(
        ask(&env, &payload("prompt")),
        json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": rules}})
    );
}

// Settings: `allowManagedHooksOnly` of the managed file leaves the user's, the
// project's and the local hooks out, and says so.
#[test]
fn allow_managed_hooks_only() {
    let env = test_env();
    let log = env.project().join("ran.log");
    let script = env.write_script("bin/log.sh", &format!("echo \"$1\" >> {}\n", quoted(&log)));
    let hook = |label: &str| json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": format!("{} {label}", quoted(&script))}]}]}});
    let write = |path: std::path::PathBuf, value: &Value| {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, value.to_string()).expect("write");
    };
    write(env.home().join(".claude/settings.json"), &hook("user"));
    write(
        env.project().join(".claude/settings.json"),
        &hook("project"),
    );
    write(
        env.project().join(".claude/settings.local.json"),
        &hook("local"),
    );
    let mut managed = hook("managed");
    managed["allowManagedHooksOnly"] = json!(true);
    write(env.claude_managed_settings_path(), &managed);

    let out = emit(
        &env,
        &["PreToolUse"],
        r#"{"tool":{"name":"Bash","input":{"command":"ls"}}}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&log).expect("ran"), "managed\n");
    for file in ["settings.json", "settings.local.json"] {
        assert!(
            out.has_warning(&format!("{file}: the hooks of this file are not run")),
            "{:?}",
            out.warnings()
        );
    }
}

// guards: prompt, agent and mcp_tool handlers dropped without a word
#[test]
fn handlers_hookrig_cannot_run_are_reported_by_list_and_validate() {
    let env = test_env();
    settings(
        &env,
        &json!({"hooks": {"Stop": [{"hooks": [
            {"type": "prompt", "prompt": "is the work done?"},
            {"type": "agent", "prompt": "check the tests"},
            {"type": "mcp_tool", "server": "memory", "tool": "save"}
        ]}]}}),
    );
    for command in ["list", "validate"] {
        let output = crate::harness::hookrig(&env, &[command]);
        let text = format!(
            "{}{}",
            crate::harness::text(&output.stdout),
            crate::harness::text(&output.stderr)
        );
        for kind in ["prompt", "agent", "mcp_tool"] {
            assert!(
                text.contains(&format!(
                    "`type: \"{kind}\"` hooks are not supported by hookrig: "
                )),
                "{command}: {text}"
            );
        }
    }
}

// guards: an async Claude hook killed about 2 s after the emit answered, whatever its
// own timeout: through the resident engine it runs to its own (docs/engine.md)
#[test]
fn an_async_hook_runs_past_the_answer_through_the_engine() {
    let env = test_env();
    let done = env.project().join("async-done");
    let script = env.write_script(
        "bin/slow.sh",
        &format!("cat > /dev/null\nsleep 3\necho done > {}\n", quoted(&done)),
    );
    settings(
        &env,
        &json!({"hooks": {"PostToolUse": [{"hooks": [
            {"type": "command", "command": quoted(&script), "async": true}]}]}}),
    );
    let serve = crate::serve::Serve::start(&env);
    let mut command = env.command(["emit", "--dialect", "claude"]);
    command.env("HOOKRIG_ENGINE", "on");
    let input = POST.replace("CWD", &env.project().display().to_string());
    let output = hookrig_test_support::run_with_input(
        command,
        input.as_bytes(),
        hookrig_test_support::HANG_LIMIT,
    );
    assert_eq!(
        crate::harness::code(&output),
        0,
        "{}",
        crate::harness::text(&output.stderr)
    );
    assert_eq!(crate::harness::text(&output.stdout), "{}\n");
    crate::serve::wait_for("the async hook to finish in the engine", || {
        done.exists().then_some(())
    });
    serve.stop_cleanly();
}

/// Installs a Claude Code plugin as Claude Code does: its files in the plugin cache
/// (`hooks/hooks.json` holding `hooks`, plus `files`), and a record of the installation
/// at `install_path` (the cache directory when `None`) in `installed_plugins.json`.
fn install_plugin(
    env: &TestEnv,
    id: &str,
    hooks: &Value,
    files: &[(&str, &str)],
    install_path: Option<std::path::PathBuf>,
) -> std::path::PathBuf {
    let (name, marketplace) = id.split_once('@').expect("name@marketplace");
    let root = install_path.unwrap_or_else(|| {
        env.home()
            .join(".claude/plugins/cache")
            .join(marketplace)
            .join(name)
            .join("1.0.0")
    });
    let write = |path: std::path::PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    };
    write(root.join("hooks/hooks.json"), &hooks.to_string());
    for (file, text) in files {
        let path = write(root.join(file), text);
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
    }
    let record_path = env.home().join(".claude/plugins/installed_plugins.json");
    let mut record: Value = std::fs::read_to_string(&record_path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| json!({"version": 2, "plugins": {}}));
    record["plugins"][id] = json!([{"scope": "user", "installPath": root, "version": "1.0.0"}]);
    write(record_path, &record.to_string());
    root
}

fn user_settings(env: &TestEnv, value: &Value) {
    let path = env.home().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&path, value.to_string()).expect("write");
}

/// The hooks file of a plugin whose `PreToolUse` guard (shell form) denies with exit 2
/// after writing what it saw to `seen`, beside an exec-form hook that logs its argument.
fn guard_plugin(env: &TestEnv, id: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let seen = env.project().join(format!("{id}.seen"));
    let guard = format!(
        "#!/bin/sh\ncat > /dev/null\necho \"$CLAUDE_PLUGIN_ROOT|$CLAUDE_PLUGIN_DATA|$1\" >> {}\necho 'no rm -rf' >&2\nexit 2\n",
        quoted(&seen)
    );
    let log = format!(
        "#!/bin/sh\ncat > /dev/null\necho \"exec $1\" >> {}\n",
        quoted(&seen)
    );
    let root = install_plugin(
        env,
        id,
        &json!({"description": "a guard", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}\"/scripts/guard.sh shell"},
            {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/log.sh", "args": ["${CLAUDE_PLUGIN_DATA}"]}
        ]}]}}),
        &[("scripts/guard.sh", &guard), ("scripts/log.sh", &log)],
        None,
    );
    (root, seen)
}

const DENIED: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm -rf"}}"#;

// Plugins: the hooks of an installed plugin the user's settings turn on run, with
// `${CLAUDE_PLUGIN_ROOT}` in the command and `CLAUDE_PLUGIN_ROOT` and
// `CLAUDE_PLUGIN_DATA` in the environment; the data directory is made on first use.
#[test]
fn an_installed_plugin_s_hooks_run_with_its_directories() {
    let env = test_env();
    let (root, seen) = guard_plugin(&env, "guard@tools");
    user_settings(&env, &json!({"enabledPlugins": {"guard@tools": true}}));
    let expected: Value = serde_json::from_str(DENIED).expect("json");
    assert_eq!(ask_other(&env, PRE), expected);
    let data = env.home().join(".claude/plugins/data/guard-tools");
    let seen = std::fs::read_to_string(&seen).expect("the plugin's hooks ran");
    let mut lines: Vec<&str> = seen.lines().collect();
    lines.sort_unstable();
    let mut expected_lines = [
        format!("exec {}", data.display()),
        format!("{}|{}|shell", root.display(), data.display()),
    ];
    expected_lines.sort_unstable();
    assert_eq!(lines, expected_lines);
    assert!(data.is_dir(), "the data directory is created on first use");

    // `list` and `explain` show each hook with its plugin and file.
    for args in [
        &["list"][..],
        &["explain", "PreToolUse", "--tool", "Bash"][..],
    ] {
        let listed = crate::harness::hookrig(&env, args);
        let listed = crate::harness::text(&listed.stdout);
        for needle in [
            "claude:plugin:guard@tools:PreToolUse:1".to_owned(),
            "claude:plugin:guard@tools:PreToolUse:2".to_owned(),
            root.join("hooks/hooks.json").display().to_string(),
        ] {
            assert!(listed.contains(&needle), "{args:?}: {needle} in {listed}");
        }
    }

    // Turned off by the local file (local over user): nothing runs.
    std::fs::create_dir_all(env.project().join(".claude")).expect("mkdir");
    std::fs::write(
        env.project().join(".claude/settings.local.json"),
        r#"{"enabledPlugins": {"guard@tools": false}}"#,
    )
    .expect("write");
    assert_eq!(ask_other(&env, PRE), json!({}));
}

// guards: a plugin's hook run twice once hookrig is Claude Code's one hook (Claude Code
// runs its plugins' hooks itself, beside hookrig's entry)
#[test]
fn an_emit_answering_claude_code_leaves_its_plugins_hooks_to_it() {
    let env = test_env();
    let (_, seen) = guard_plugin(&env, "guard@tools");
    user_settings(&env, &json!({"enabledPlugins": {"guard@tools": true}}));
    assert_eq!(ask(&env, PRE), json!({}));
    assert!(
        !seen.exists(),
        "hookrig ran a plugin hook Claude Code runs itself"
    );
    let expected: Value = serde_json::from_str(DENIED).expect("json");
    assert_eq!(
        ask_other(&env, PRE)["hookSpecificOutput"],
        expected["hookSpecificOutput"]
    );
    assert!(
        seen.exists(),
        "another host's emit runs Claude Code's plugins' hooks"
    );
}

// guards: a repository that turns on a plugin the user installed (but did not turn on)
// running its hooks before `hookrig trust`, and a repository shipping the plugin's
// directory itself
#[test]
fn a_repository_that_enables_a_plugin_runs_none_of_its_hooks_before_trust() {
    let env = test_env();
    let (_, seen) = guard_plugin(&env, "guard@tools");
    let shipped = env.project().join(".claude/shipped");
    let evil_log = env.project().join("evil.log");
    install_plugin(
        &env,
        "evil@repo",
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
            "command": format!("echo ran >> {}", quoted(&evil_log))}]}]}}),
        &[],
        Some(shipped),
    );
    settings(
        &env,
        &json!({"enabledPlugins": {"guard@tools": true, "evil@repo": true}}),
    );
    let input = PRE.replace("CWD", &env.project().display().to_string());
    let ask_untrusted = || {
        let out = crate::harness::emit_untrusted(&env, OTHER_HOST, &input);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.outcome
    };
    let before = ask_untrusted();
    assert!(!seen.exists(), "a plugin hook ran before trust: {before}");
    assert!(before["hookSpecificOutput"].is_null(), "{before}");

    let trusted = env.run_untrusted(["trust"], b"");
    assert_eq!(
        crate::harness::code(&trusted),
        0,
        "{}",
        crate::harness::text(&trusted.stderr)
    );
    let after = ask_untrusted();
    let expected: Value = serde_json::from_str(DENIED).expect("json");
    assert_eq!(after["hookSpecificOutput"], expected["hookSpecificOutput"]);
    assert!(seen.exists(), "the trusted plugin's hooks ran");
    assert!(
        !evil_log.exists(),
        "a plugin directory inside the repository ran"
    );
    assert!(
        after["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("outside") && m.contains("evil@repo")),
        "{after}"
    );
}

// Settings: `allowedHttpHookUrls` (merged across files, `*` a wildcard) refuses an HTTP
// hook whose URL no pattern matches; `httpHookAllowedEnvVars` narrows the variables a
// hook's headers may read to those both lists name.
#[test]
fn http_hook_allowlists() {
    use hookrig_test_support::{HttpStub, Reply};

    let env = test_env();
    let stub = HttpStub::replying(Reply::json(200, DENY));
    let hooks = json!({"PreToolUse": [{"hooks": [{"type": "http", "url": format!("{}/hook", stub.url()),
        "headers": {"X-A": "$HOOK_A", "X-B": "${HOOK_B}"}, "allowedEnvVars": ["HOOK_A", "HOOK_B"]}]}]});
    user_settings(
        &env,
        &json!({"hooks": hooks, "allowedHttpHookUrls": ["https://hooks.example.com/*"],
            "httpHookAllowedEnvVars": ["HOOK_A"]}),
    );
    let ask_with_vars = || {
        let mut command = env.command(["emit", "--dialect", "claude"]);
        command.env("HOOK_A", "a").env("HOOK_B", "b");
        let input = PRE.replace("CWD", &env.project().display().to_string());
        let output = hookrig_test_support::run_with_input(
            command,
            input.as_bytes(),
            hookrig_test_support::HANG_LIMIT,
        );
        assert_eq!(crate::harness::code(&output), 0);
        serde_json::from_slice::<Value>(&output.stdout).expect("json")
    };
    let refused = ask_with_vars();
    assert_eq!(stub.count(), 0, "a refused HTTP hook was sent the event");
    assert!(refused["hookSpecificOutput"].is_null(), "{refused}");
    assert!(
        refused["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("matches no pattern of `allowedHttpHookUrls`")),
        "{refused}"
    );

    // The project's own list adds to the user's (Claude Code merges the arrays).
    settings(
        &env,
        &json!({"allowedHttpHookUrls": [format!("{}/*", stub.url())]}),
    );
    let allowed = ask_with_vars();
    let expected: Value = serde_json::from_str(DENY).expect("json");
    assert_eq!(allowed, expected);
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("x-a"), Some("a"));
    assert_eq!(requests[0].header("x-b"), Some(""));
}

// `CLAUDE_ENV_FILE`: Claude Code gives it to its hook (hookrig) on `SessionStart`; what
// the hooks hookrig runs append there reaches Claude Code as Claude Code reads it, in
// the file it named, whether the emit answers itself or through the resident engine.
#[test]
fn what_session_start_hooks_write_to_claude_env_file_reaches_claude() {
    let env = test_env();
    let script = env.write_script(
        "bin/env.sh",
        "cat > /dev/null\necho \"export FROM_HOOK=$1\" >> \"$CLAUDE_ENV_FILE\"\n",
    );
    settings(
        &env,
        &json!({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": format!("{} one", quoted(&script))},
            {"type": "command", "command": format!("{} two", quoted(&script))}]}]}}),
    );
    let input = SESSION_START.replace("CWD", &env.project().display().to_string());
    let mut engine = None;
    for through_engine in [false, true] {
        let file = env.project().join(format!("env-{through_engine}.sh"));
        let mut command = env.command(["emit", "--dialect", "claude"]);
        command.env("CLAUDE_ENV_FILE", &file);
        if through_engine {
            engine = Some(crate::serve::Serve::start(&env));
            command.env("HOOKRIG_ENGINE", "on");
        }
        let output = hookrig_test_support::run_with_input(
            command,
            input.as_bytes(),
            hookrig_test_support::HANG_LIMIT,
        );
        assert_eq!(
            crate::harness::code(&output),
            0,
            "{}",
            crate::harness::text(&output.stderr)
        );
        let mut lines: Vec<String> = std::fs::read_to_string(&file)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect();
        lines.sort_unstable();
        assert_eq!(
            lines,
            ["export FROM_HOOK=one", "export FROM_HOOK=two"],
            "through the engine: {through_engine}"
        );
    }
    if let Some(serve) = engine {
        serve.stop_cleanly();
    }
}

// Plugins: the manifest's `hooks` (paths inside the plugin, or an inline object) add to
// `hooks/hooks.json`; a broken or missing file is reported and the rest still run.
#[test]
fn a_plugin_s_manifest_hooks_add_to_its_hooks_file() {
    let env = test_env();
    let log = env.project().join("ran.log");
    let hook = |label: &str| {
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
            "command": format!("echo {label} >> {}", quoted(&log))}]}]}})
    };
    let listed = install_plugin(
        &env,
        "listed@tools",
        &json!({}),
        &[
            ("hooks/hooks.json", r#"{"hooks": {"PreToolUse": [,]}}"#),
            ("extra/hooks.json", &hook("extra").to_string()),
            (
                ".claude-plugin/plugin.json",
                r#"{"name": "listed", "hooks": ["./extra/hooks.json", "./missing.json"]}"#,
            ),
        ],
        None,
    );
    let mut inline = hook("inline");
    inline["name"] = json!("inline");
    install_plugin(
        &env,
        "inline@tools",
        &json!({}),
        &[(".claude-plugin/plugin.json", &inline.to_string())],
        None,
    );
    user_settings(
        &env,
        &json!({"enabledPlugins": {"listed@tools": true, "inline@tools": true}}),
    );
    let out = emit(
        &env,
        &["PreToolUse"],
        r#"{"tool":{"name":"Bash","input":{"command":"ls"}}}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut ran: Vec<String> = std::fs::read_to_string(&log)
        .expect("the plugins' hooks ran")
        .lines()
        .map(str::to_owned)
        .collect();
    ran.sort_unstable();
    assert_eq!(ran, ["extra", "inline"]);
    let broken = format!("{}:1:", listed.join("hooks/hooks.json").display());
    assert!(out.has_warning(&broken), "{:?}", out.warnings());
    assert!(out.has_warning("missing.json"), "{:?}", out.warnings());
}

// A `PreModelSwitch` hook that Claude Code cancels at its timeout blocks the switch; on
// the other events a timed-out hook decides nothing.
#[test]
fn a_model_switch_hook_that_times_out_blocks_the_switch() {
    let env = test_env();
    let script = env.write_script("bin/slow.sh", "cat > /dev/null\nsleep 5\n");
    settings(
        &env,
        &json!({"hooks": {"PreModelSwitch": [{"matcher": "claude-opus-4-5", "hooks": [
            {"type": "command", "command": quoted(&script), "timeout": 0.3}]}]}}),
    );
    assert_eq!(
        ask(&env, PRE_MODEL),
        json!({"decision": "block", "reason": "hook claude:project:PreModelSwitch:1 timed out after 300ms"})
    );
    // The matcher tests the model switched to.
    let other = PRE_MODEL.replace(
        "\"to_model\":\"claude-opus-4-5\"",
        "\"to_model\":\"claude-haiku-4-5\"",
    );
    assert_eq!(ask(&env, &other), json!({}));
}

// guards: a `PreModelSwitch` HTTP hook that timed out let the switch through
#[test]
fn a_model_switch_http_hook_that_times_out_blocks_the_switch() {
    let env = test_env();
    let stub = hookrig_test_support::HttpStub::replying(
        hookrig_test_support::Reply::new(200, "").after(std::time::Duration::from_secs(3)),
    );
    let url = format!("{}/switch", stub.url());
    settings(
        &env,
        &json!({"hooks": {"PreModelSwitch": [{"hooks": [{"type": "http", "url": url, "timeout": 0.3}]}]}}),
    );
    assert_eq!(
        ask(&env, PRE_MODEL),
        json!({"decision": "block", "reason": format!("hook claude:project:PreModelSwitch:1: POST {url}: timed out after 300ms")})
    );
}

/// How Claude Code reads an HTTP hook's answer, and what it must receive: a 2xx with JSON
/// is read as a command's JSON output, an empty 2xx is success, and a 2xx with plain
/// text, another status, a refused connection and a timeout are non-blocking errors.
#[test_case(Some(hookrig_test_support::Reply::json(200, DENY)),
    &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "never"}}) ; "json body")]
#[test_case(Some(hookrig_test_support::Reply::new(200, "")), &json!({}) ; "empty body")]
#[test_case(Some(hookrig_test_support::Reply::new(200, "all good")),
    &json!({"systemMessage": "hook claude:project:PreToolUse:1: POST URL: the response body is plain text, not JSON output (a non-blocking error, as in Claude Code)"}) ; "plain text body")]
#[test_case(Some(hookrig_test_support::Reply::new(500, DENY)),
    &json!({"systemMessage": "hook claude:project:PreToolUse:1: POST URL: HTTP 500"}) ; "server error")]
#[test_case(Some(hookrig_test_support::Reply::new(200, DENY).after(std::time::Duration::from_secs(3))),
    &json!({"systemMessage": "hook claude:project:PreToolUse:1: POST URL: timed out after 500ms"}) ; "timeout")]
#[test_case(None, &json!({"systemMessage": "REFUSED"}) ; "connection refused")]
fn http_hook_answers(reply: Option<hookrig_test_support::Reply>, expected: &Value) {
    let env = test_env();
    let stub = reply.map(hookrig_test_support::HttpStub::replying);
    let url = stub
        .as_ref()
        .map_or_else(hookrig_test_support::refused_url, |stub| {
            format!("{}/hook", stub.url())
        });
    settings(
        &env,
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": url, "timeout": 0.5}]}]}}),
    );
    let answer = ask(&env, PRE);
    if expected["systemMessage"] == "REFUSED" {
        let message = answer["systemMessage"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!("hook claude:project:PreToolUse:1: POST {url}: ")),
            "{answer}"
        );
        assert_eq!(
            answer.as_object().map(serde_json::Map::len),
            Some(1),
            "{answer}"
        );
        return;
    }
    let expected = serde_json::to_string(expected)
        .expect("json")
        .replace("URL", &url);
    assert_eq!(
        answer,
        serde_json::from_str::<Value>(&expected).expect("json")
    );
}

const WORKTREE_CREATE: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"WorktreeCreate","name":"feature-x"}"#;
const WORKTREE_REMOVE: &str = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"CWD","hook_event_name":"WorktreeRemove","worktree_path":"/w/feature-x"}"#;

/// `hookrig emit --dialect claude` for a worktree event, answered as Claude Code reads a
/// command hook there: exit code, stdout, stderr.
fn ask_worktree(input: &str, replies: &[HookReply]) -> (i32, String, String) {
    let env = test_env();
    let event = event_of(input);
    let handlers: Vec<Value> = replies
        .iter()
        .enumerate()
        .map(|(i, (code, stdout, stderr))| {
            let out = env.write_file(format!("replies/{i}.out"), stdout);
            let err = env.write_file(format!("replies/{i}.err"), stderr);
            let script = env.write_script(
                format!("bin/hook{i}.sh"),
                &format!(
                    "cat > /dev/null\ncat {}\ncat {} >&2\nexit {code}\n",
                    quoted(&out),
                    quoted(&err)
                ),
            );
            json!({"type": "command", "command": quoted(&script)})
        })
        .collect();
    settings(&env, &json!({"hooks": {event: [{"hooks": handlers}]}}));
    let input = input.replace("CWD", &env.project().display().to_string());
    let output = env.run(["emit", "--dialect", "claude"], input.as_bytes());
    (
        crate::harness::code(&output),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

// WorktreeCreate: the hook creates the worktree and prints its path (the last non-empty
// line of stdout); any non-zero exit fails the creation. WorktreeRemove: a non-zero exit
// fails the removal; its JSON is discarded.
// guards: the worktree path a WorktreeCreate hook printed not passed on
#[test_case(WORKTREE_CREATE, &[(0, "creating\n/w/feature-x\n\n", "")], (0, "/w/feature-x\n", "") ; "create prints the path")]
#[test_case(WORKTREE_CREATE, &[(0, "", ""), (0, "/w/b\n", "")], (0, "/w/b\n", "") ; "create the path of the hook that printed one")]
#[test_case(WORKTREE_CREATE, &[(1, "/w/feature-x\n", "disk full\n")], (2, "", "disk full\n") ; "create exit 1 fails")]
#[test_case(WORKTREE_CREATE, &[(0, "", "")], (2, "", "no WorktreeCreate hook printed the path of a worktree\n") ; "create without a path fails")]
#[test_case(WORKTREE_CREATE, &[(0, r#"{"hookSpecificOutput":{"hookEventName":"WorktreeCreate","worktreePath":"/w/json"},"systemMessage":"dropped"}"#, "")], (0, "/w/json\n", "") ; "create json worktree path")]
#[test_case(WORKTREE_REMOVE, &[(0, r#"{"systemMessage":"dropped"}"#, "")], (0, "", "") ; "remove succeeds")]
#[test_case(WORKTREE_REMOVE, &[(1, "", "busy\n")], (2, "", "busy\n") ; "remove exit 1 fails")]
fn worktree_events(input: &str, replies: &[HookReply], expected: (i32, &str, &str)) {
    let (code, stdout, stderr) = ask_worktree(input, replies);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), expected);
}

// A plugin's `userConfig`: the values the user gave (`pluginConfigs` of the user's
// settings) or the defaults reach its hooks as `CLAUDE_PLUGIN_OPTION_<KEY>` and, in exec
// form, in place of `${user_config.KEY}`; a sensitive option, kept by Claude Code in the
// keychain, is reported; a project file's `pluginConfigs` is not read.
// guards: a plugin's hooks run without the options the user configured
#[test]
fn a_plugin_s_options_reach_its_hooks() {
    let env = test_env();
    let seen = env.project().join("options.seen");
    let show = format!(
        "#!/bin/sh\ncat > /dev/null\necho \"$1|$CLAUDE_PLUGIN_OPTION_STYLE|$CLAUDE_PLUGIN_OPTION_MAX_WORDS|${{CLAUDE_PLUGIN_OPTION_TOKEN-unset}}\" >> {}\n",
        quoted(&seen)
    );
    let root = install_plugin(
        &env,
        "docs@tools",
        &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/show.sh", "args": ["${user_config.style}"]}
        ]}]}}),
        &[("show.sh", &show)],
        None,
    );
    std::fs::create_dir_all(root.join(".claude-plugin")).expect("mkdir");
    let manifest = json!({"name": "docs", "userConfig": {
        "style": {"type": "string", "title": "Style", "default": "plain"},
        "max_words": {"type": "number", "title": "Max words", "default": 25},
        "token": {"type": "string", "title": "Token", "sensitive": true}
    }});
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        manifest.to_string(),
    )
    .expect("write");
    user_settings(
        &env,
        &json!({"enabledPlugins": {"docs@tools": true},
            "pluginConfigs": {"docs@tools": {"options": {"max_words": 40}}}}),
    );
    // The project's file cannot set a plugin's options.
    settings(
        &env,
        &json!({"pluginConfigs": {"docs@tools": {"options": {"style": "from the repository"}}}}),
    );
    let answer = ask_other(&env, PRE);
    assert_eq!(
        std::fs::read_to_string(&seen).expect("the hook ran"),
        "plain|plain|40|unset\n"
    );
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("option `token` of plugin `docs@tools` is sensitive"),
        "{answer}"
    );
}

/// Writes a skills-directory plugin `name` in `skills` whose `PreToolUse` hook logs
/// `label` to `log` and denies with exit 2.
fn skills_dir_plugin(skills: &std::path::Path, name: &str, label: &str, log: &std::path::Path) {
    let root = skills.join(name);
    std::fs::create_dir_all(root.join(".claude-plugin")).expect("mkdir");
    std::fs::create_dir_all(root.join("hooks")).expect("mkdir");
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        json!({"name": name}).to_string(),
    )
    .expect("write");
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
        "command": format!("echo {label} \"$CLAUDE_PLUGIN_ROOT\" >> {}; echo 'no rm -rf' >&2; exit 2", quoted(log))}]}]}});
    std::fs::write(root.join("hooks/hooks.json"), hooks.to_string()).expect("write");
}

// Skills-directory plugins: loaded with no install record, the user's as the user's own
// hooks, the project's once trusted; `enabledPlugins` can turn one off.
// guards: a `<name>@skills-dir` plugin's hooks never run through hookrig
#[test]
fn skills_directory_plugins_run_without_an_install_record() {
    let env = test_env();
    let log = env.project().join("skills.log");
    let user_skills = env.home().join(".claude/skills");
    skills_dir_plugin(&user_skills, "mine", "user", &log);
    skills_dir_plugin(
        &env.project().join(".claude/skills"),
        "theirs",
        "project",
        &log,
    );
    // A plain skill (no manifest) is not a plugin.
    std::fs::create_dir_all(user_skills.join("plain")).expect("mkdir");
    std::fs::write(user_skills.join("plain/SKILL.md"), "# plain\n").expect("write");
    settings(&env, &json!({}));
    let input = PRE.replace("CWD", &env.project().display().to_string());
    let ask_untrusted = || {
        let out = crate::harness::emit_untrusted(&env, OTHER_HOST, &input);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.outcome
    };
    let expected: Value = serde_json::from_str(DENIED).expect("json");
    let before = ask_untrusted();
    assert_eq!(before["hookSpecificOutput"], expected["hookSpecificOutput"]);
    let ran = std::fs::read_to_string(&log).expect("the user's plugin ran");
    assert_eq!(
        ran,
        format!("user {}\n", user_skills.join("mine").display()),
        "the project's plugin ran before trust"
    );

    let trusted = env.run_untrusted(["trust"], b"");
    assert_eq!(crate::harness::code(&trusted), 0);
    std::fs::remove_file(&log).expect("rm");
    ask_untrusted();
    let mut ran: Vec<String> = std::fs::read_to_string(&log)
        .expect("ran")
        .lines()
        .map(|l| l.split(' ').next().unwrap_or_default().to_owned())
        .collect();
    ran.sort();
    assert_eq!(ran, ["project", "user"]);

    // The user's settings turn the user's plugin off.
    user_settings(&env, &json!({"enabledPlugins": {"mine@skills-dir": false}}));
    std::fs::remove_file(&log).expect("rm");
    ask_untrusted();
    assert_eq!(
        std::fs::read_to_string(&log)
            .expect("ran")
            .lines()
            .collect::<Vec<_>>(),
        [format!(
            "project {}",
            env.project().join(".claude/skills/theirs").display()
        )]
    );
}

// The matcher of the events the reference gives one beyond the tool events: the field
// it tests, as Claude Code sends it.
// guards: a matcher on ConfigChange or StopFailure ignored, so the hook ran on every one
#[test_case("ConfigChange", "project_settings", "source", "user_settings" ; "config change source")]
#[test_case("StopFailure", "rate_limit", "error", "overloaded" ; "stop failure error type")]
#[test_case("Setup", "init", "trigger", "maintenance" ; "setup trigger")]
#[test_case("InstructionsLoaded", "session_start", "load_reason", "compact" ; "instructions loaded load reason")]
#[test_case("DirectoryAdded", "slash_command", "source", "register_repo_root" ; "directory added source")]
#[test_case("UserPromptExpansion", "deploy", "command_name", "review" ; "prompt expansion command name")]
#[test_case("Elicitation", "github", "mcp_server_name", "jira" ; "elicitation server")]
#[test_case("PostModelSwitch", "claude-opus-4-5", "to_model", "claude-haiku-4-5" ; "post model switch model")]
#[test_case("FileChanged", ".env", "file_path", "/b/.env.local" ; "file changed name, exact")]
fn matchers_test_the_event_s_field(event: &str, matcher: &str, field: &str, other: &str) {
    let env = test_env();
    let log = env.project().join("ran.log");
    let script = env.write_script(
        "bin/log.sh",
        &format!("cat > /dev/null\necho ran >> {}\n", quoted(&log)),
    );
    settings(
        &env,
        &json!({"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": quoted(&script)}]}]}}),
    );
    let input = |value: &str| {
        json!({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "CWD",
            "hook_event_name": event, field: value})
        .to_string()
    };
    ask(&env, &input(other));
    assert!(!log.exists(), "the hook ran for {field} {other}");
    ask(&env, &input(matcher));
    assert!(log.exists(), "the hook did not run for {field} {matcher}");
}

// guards: a FileChanged matcher is a list of file names compared with the changed file's
// name (not a regex over its path), and a StopFailure matcher a list of exact values
#[test_case("FileChanged", ".envrc|.env", "file_path", &["/b/.envrc", "/b/c/.env"], &["/b/.envrc.bak", "/b/x.env", "/b/.env/y"] ; "file changed names")]
#[test_case("StopFailure", "rate_limit|overloaded", "error", &["rate_limit", "overloaded"], &["rate_limit_exceeded", "rate"] ; "stop failure values")]
fn literal_list_matchers_compare_whole_values(
    event: &str,
    matcher: &str,
    field: &str,
    matching: &[&str],
    other: &[&str],
) {
    let env = test_env();
    let log = env.project().join("ran.log");
    let script = env.write_script(
        "bin/log.sh",
        &format!("cat > /dev/null\necho ran >> {}\n", quoted(&log)),
    );
    settings(
        &env,
        &json!({"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": quoted(&script)}]}]}}),
    );
    let input = |value: &str| {
        json!({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "CWD",
            "hook_event_name": event, field: value})
        .to_string()
    };
    for value in other {
        ask(&env, &input(value));
    }
    assert!(!log.exists(), "the hook ran for a {field} not in {matcher}");
    for value in matching {
        ask(&env, &input(value));
    }
    let runs = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(runs.lines().count(), matching.len(), "{field}: {runs}");
}
