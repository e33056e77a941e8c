//! The tool-use loop of an automation's LLM call: the model is offered the run's
//! tools, asks for some, gets their results, and so on until it answers without
//! asking (the run's response) or a limit stops it.
//!
//! Both HTTP APIs are spoken: OpenAI-compatible `tools` and `tool_calls` (each result
//! a `tool` message), and Anthropic's `tools` with `tool_use` blocks (the results
//! `tool_result` blocks of one user message). CLI providers run their own agent with
//! their own tools, so they are asked once, as without tools.
//!
//! Limits, over the whole loop: `max_rounds` replies asking for tools are answered,
//! and one more ask fails the run; before each request after the first, the
//! estimated tokens so far plus the request's must stay within `max_tokens`; the
//! run's own timeout covers the loop since it covers the run. The estimate is the
//! one of a single call ([`estimate_tokens`](crate::llm::estimate_tokens)) summed
//! over the requests: each request counts everything sent so far (the prompt, the
//! model's earlier replies and the tool results), as the APIs bill it.

use serde_json::{Map, Value, json};

use crate::llm::{Api, Llm, LlmError, LlmReply, ResolvedLlm};
use crate::tools::{ActionLog, ToolSpec, Toolbox, fed_back};

/// The limits of one loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Replies asking for tools that are answered.
    pub max_rounds: u32,
    /// `max_tokens_per_run`, over the whole loop.
    pub max_tokens: Option<u64>,
}

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    /// The API's id of the call, which its result names.
    id: String,
    name: String,
    /// The arguments, or their text when it is not JSON.
    arguments: Result<Value, String>,
}

/// One reply of the model.
#[derive(Debug)]
struct Turn {
    text: String,
    calls: Vec<Call>,
    /// The reply as it goes back into the conversation.
    message: Value,
    /// The tokens the server says the exchange used.
    reported: Option<u64>,
    /// The characters of the reply, for the estimate.
    chars: u64,
}

impl Llm {
    /// Sends `prompt` to the provider of `config` with the tools of `tools`, calls
    /// the tools the model asks for (each call recorded in `log`) and returns its
    /// final answer. Without tools, or with a CLI provider, this is
    /// [`Llm::complete`].
    ///
    /// Dropping the future cancels the request or the tool under way.
    pub async fn converse(
        &self,
        prompt: &str,
        config: &ResolvedLlm,
        tools: &dyn Toolbox,
        limits: Limits,
        log: &ActionLog,
    ) -> Result<LlmReply, LlmError> {
        let specs = tools.specs();
        let Some(api) = Llm::api(config).filter(|_| !specs.is_empty()) else {
            return self.complete(prompt, config).await;
        };
        let model = api.model(config)?;
        let mut messages = vec![json!({"role": "user", "content": prompt})];
        let mut sent = chars(prompt);
        let mut tokens: u64 = 0;
        let mut reported: Option<u64> = None;
        let mut rounds: u32 = 0;
        loop {
            let request = sent / 4;
            if rounds > 0
                && let Some(max) = limits.max_tokens
                && tokens.saturating_add(request) > max
            {
                return Err(LlmError::TokenLimit {
                    estimate: tokens.saturating_add(request),
                    max,
                    rounds,
                });
            }
            let body = request_body(api, &model, config.max_tokens, &messages, &specs);
            let reply = self.exchange(api, config, &body).await?;
            let turn = read_turn(api, &reply).map_err(|p| api.reply_error(config, &p))?;
            tokens = tokens.saturating_add(request + turn.chars / 4);
            reported = match (reported, turn.reported) {
                (Some(a), Some(b)) => Some(a.saturating_add(b)),
                (a, b) => a.or(b),
            };
            if turn.calls.is_empty() {
                return Ok(LlmReply {
                    text: turn.text,
                    tokens_estimate: tokens,
                    tokens_reported: reported,
                });
            }
            if rounds >= limits.max_rounds {
                return Err(LlmError::RoundLimit { rounds });
            }
            rounds += 1;
            sent += turn.chars;
            messages.push(turn.message);
            let mut results = Vec::with_capacity(turn.calls.len());
            for call in turn.calls {
                let outcome = log.call(tools, &call.name, call.arguments).await;
                let text = fed_back(&outcome);
                sent += chars(&text);
                results.push((call.id, text, outcome.is_err()));
            }
            messages.extend(result_messages(api, results));
        }
    }
}

fn chars(text: &str) -> u64 {
    u64::try_from(text.chars().count()).unwrap_or(u64::MAX)
}

/// The request of one round.
fn request_body(
    api: Api,
    model: &str,
    max_tokens: u32,
    messages: &[Value],
    specs: &[ToolSpec],
) -> Value {
    match api {
        Api::OpenAi => json!({
            "model": model,
            "messages": messages,
            "tools": specs.iter().map(|s| json!({
                "type": "function",
                "function": {"name": s.name, "description": s.description, "parameters": s.schema},
            })).collect::<Vec<_>>(),
        }),
        Api::Anthropic => json!({
            "model": model,
            "max_tokens": max_tokens,
            "messages": messages,
            "tools": specs.iter().map(|s| json!({
                "name": s.name, "description": s.description, "input_schema": s.schema,
            })).collect::<Vec<_>>(),
        }),
    }
}

/// The messages carrying the results of one round: `(call id, text, is an error)`.
fn result_messages(api: Api, results: Vec<(String, String, bool)>) -> Vec<Value> {
    match api {
        Api::OpenAi => results
            .into_iter()
            .map(|(id, text, _)| json!({"role": "tool", "tool_call_id": id, "content": text}))
            .collect(),
        Api::Anthropic => {
            let blocks: Vec<Value> = results
                .into_iter()
                .map(|(id, text, error)| {
                    let mut block =
                        json!({"type": "tool_result", "tool_use_id": id, "content": text});
                    if error {
                        block["is_error"] = Value::Bool(true);
                    }
                    block
                })
                .collect();
            vec![json!({"role": "user", "content": blocks})]
        }
    }
}

/// Reads one reply of `api`.
fn read_turn(api: Api, reply: &Value) -> Result<Turn, String> {
    match api {
        Api::OpenAi => {
            let message = reply
                .pointer("/choices/0/message")
                .and_then(Value::as_object)
                .ok_or("no `choices[0].message`")?;
            let calls = openai_calls(message)?;
            let text = match message.get("content") {
                Some(Value::String(text)) => text.clone(),
                None | Some(Value::Null) if !calls.is_empty() => String::new(),
                _ => return Err("no text at `choices[0].message.content`".to_owned()),
            };
            let mut kept = Map::new();
            kept.insert("role".to_owned(), Value::from("assistant"));
            kept.insert(
                "content".to_owned(),
                message.get("content").cloned().unwrap_or(Value::Null),
            );
            if let Some(tool_calls) = message.get("tool_calls").filter(|c| !c.is_null()) {
                kept.insert("tool_calls".to_owned(), tool_calls.clone());
            }
            let chars = chars(&text)
                + chars(
                    &kept
                        .get("tool_calls")
                        .map(Value::to_string)
                        .unwrap_or_default(),
                );
            Ok(Turn {
                text,
                calls,
                message: Value::Object(kept),
                reported: reply.pointer("/usage/total_tokens").and_then(Value::as_u64),
                chars,
            })
        }
        Api::Anthropic => {
            let blocks = reply
                .get("content")
                .and_then(Value::as_array)
                .ok_or("no `content` list")?;
            let mut text = String::new();
            let mut calls = Vec::new();
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => text.push_str(
                        block
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                    ),
                    Some("tool_use") => calls.push(Call {
                        id: string_at(block, "id")?,
                        name: string_at(block, "name")?,
                        arguments: Ok(block.get("input").cloned().unwrap_or_else(|| json!({}))),
                    }),
                    _ => {}
                }
            }
            let usage = |k: &str| {
                reply
                    .pointer(&format!("/usage/{k}"))
                    .and_then(Value::as_u64)
            };
            let reported = match (usage("input_tokens"), usage("output_tokens")) {
                (Some(i), Some(o)) => Some(i.saturating_add(o)),
                _ => None,
            };
            let chars = chars(&Value::Array(blocks.clone()).to_string());
            Ok(Turn {
                text,
                calls,
                message: json!({"role": "assistant", "content": blocks}),
                reported,
                chars,
            })
        }
    }
}

fn openai_calls(message: &Map<String, Value>) -> Result<Vec<Call>, String> {
    let Some(list) = message.get("tool_calls").filter(|c| !c.is_null()) else {
        return Ok(Vec::new());
    };
    let list = list.as_array().ok_or("`tool_calls` is not a list")?;
    list.iter()
        .map(|call| {
            let function = call
                .get("function")
                .ok_or("a tool call has no `function`")?;
            let text = function
                .get("arguments")
                .and_then(Value::as_str)
                .unwrap_or("{}");
            Ok(Call {
                id: string_at(call, "id")?,
                name: string_at(function, "name")?,
                arguments: serde_json::from_str::<Value>(text).map_err(|_| text.to_owned()),
            })
        })
        .collect()
}

fn string_at(value: &Value, key: &str) -> Result<String, String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("a tool call has no string `{key}`"))
}

#[cfg(test)]
#[path = "tool_loop_tests.rs"]
mod tests;
