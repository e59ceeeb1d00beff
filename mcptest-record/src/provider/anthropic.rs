//! The Anthropic Messages API (`POST /v1/messages`, `anthropic-version: 2023-06-01`).
//!
//! A reply's `content` blocks are appended to the conversation as they came (text, thinking,
//! server tool blocks and all), so a continued request is exactly what the API expects. Every
//! `tool_use` block is a call; several in one reply are parallel calls, answered in one user
//! message of `tool_result` blocks, in the same order. A call's `caller` (a call made from
//! model-written code) is kept as it came, and the reply's `container` id is sent back.

use super::{Answer, Reply, Stop, ToolUse, Usage};
use mcptest_core::trace::Turn;
use serde_json::{Map, Value, json};

/// The `anthropic-version` header every request carries.
pub const API_VERSION: &str = "2023-06-01";

pub(crate) fn parse_reply(body: &Value) -> Result<Reply, String> {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or("it has no `content` array")?;
    let stop_reason = body
        .get("stop_reason")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let stop = match stop_reason.as_str() {
        "end_turn" | "stop_sequence" => Stop::EndTurn,
        "tool_use" => Stop::ToolUse,
        "pause_turn" => Stop::PauseTurn,
        "max_tokens" | "model_context_window_exceeded" => Stop::MaxTokens,
        _ => Stop::Other,
    };
    let mut tool_uses = Vec::new();
    for (i, block) in content.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let id = block
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("content[{i}] is a tool_use block without an `id`"))?;
        let name = block
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("content[{i}] is a tool_use block without a `name`"))?;
        let input = match block.get("input") {
            Some(v @ Value::Object(_)) => Ok(v.clone()),
            None | Some(Value::Null) => Ok(json!({})),
            Some(other) => Err((other.to_string(), "the input is not a JSON object".into())),
        };
        tool_uses.push(ToolUse {
            id: id.to_string(),
            wire_name: name.to_string(),
            input,
            caller: block.get("caller").filter(|c| !c.is_null()).cloned(),
        });
    }
    let usage = body.get("usage");
    let count = |k: &str| {
        usage
            .and_then(|u| u.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let container = match body.get("container") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(c) => c.get("id").and_then(Value::as_str).map(str::to_string),
        None => None,
    };
    Ok(Reply {
        message: json!({"role": "assistant", "content": content}),
        turn: Turn {
            role: "assistant".into(),
            content: Value::Array(content.clone()),
            extra: Map::new(),
        },
        tool_uses,
        stop,
        stop_reason,
        usage: Usage {
            input: count("input_tokens"),
            output: count("output_tokens"),
            cache_creation: count("cache_creation_input_tokens"),
            cache_read: count("cache_read_input_tokens"),
        },
        container,
    })
}

pub(crate) fn answer_messages(answers: &[Answer]) -> (Vec<Value>, Vec<Turn>) {
    let blocks: Vec<Value> = answers.iter().map(result_block).collect();
    let message = json!({"role": "user", "content": blocks});
    let turn = Turn {
        role: "user".into(),
        content: Value::Array(blocks),
        extra: Map::new(),
    };
    (vec![message], vec![turn])
}

fn result_block(a: &Answer) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), Value::String(a.id.clone()));
    let all_text = a
        .content
        .iter()
        .all(|b| b.get("type").and_then(Value::as_str) == Some("text"));
    if a.content.is_empty() {
        if let Some(s) = &a.structured {
            block.insert("content".into(), Value::String(s.to_string()));
        }
    } else if all_text {
        block.insert(
            "content".into(),
            Value::String(super::content_as_text(&a.content, None)),
        );
    } else {
        block.insert(
            "content".into(),
            Value::Array(a.content.iter().map(content_block).collect()),
        );
    }
    if a.is_error {
        block.insert("is_error".into(), Value::Bool(true));
    }
    Value::Object(block)
}

/// An MCP content block as a Messages API block: text and images map over; anything else is
/// given as the text of its JSON.
fn content_block(b: &Value) -> Value {
    match b.get("type").and_then(Value::as_str) {
        Some("text") => json!({"type": "text", "text": b.get("text").cloned().unwrap_or_default()}),
        Some("image") => json!({"type": "image", "source": {
            "type": "base64",
            "media_type": b.get("mimeType").cloned().unwrap_or_else(|| "image/png".into()),
            "data": b.get("data").cloned().unwrap_or_default(),
        }}),
        _ => json!({"type": "text", "text": b.to_string()}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_parallel_calls_caller_and_cache_usage() {
        let body = json!({
            "content": [
                {"type": "text", "text": "Both at once."},
                {"type": "tool_use", "id": "t1", "name": "w__get", "input": {"city": "Oslo"}},
                {"type": "tool_use", "id": "t2", "name": "w__get", "input": {"city": "Rome"},
                 "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}}
            ],
            "stop_reason": "tool_use",
            "container": {"id": "container_1"},
            "usage": {"input_tokens": 10, "output_tokens": 5,
                      "cache_creation_input_tokens": 3, "cache_read_input_tokens": 2}
        });
        let r = parse_reply(&body).unwrap();
        assert_eq!(r.stop, Stop::ToolUse);
        assert_eq!(r.tool_uses.len(), 2);
        assert_eq!(
            r.tool_uses[1].caller.as_ref().unwrap()["tool_id"],
            "srvtoolu_1"
        );
        assert_eq!(r.usage.total(), 20);
        assert_eq!(r.container.as_deref(), Some("container_1"));
    }

    #[test]
    fn results_go_back_in_one_message() {
        let answers = [
            Answer {
                id: "t1".into(),
                is_error: false,
                content: vec![json!({"type": "text", "text": "sunny"})],
                structured: None,
            },
            Answer {
                id: "t2".into(),
                is_error: true,
                content: vec![json!({"type": "text", "text": "timed out"})],
                structured: None,
            },
        ];
        let (msgs, turns) = answer_messages(&answers);
        assert_eq!(msgs.len(), 1);
        assert_eq!(turns.len(), 1);
        assert_eq!(
            msgs[0]["content"],
            json!([
                {"type": "tool_result", "tool_use_id": "t1", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "timed out", "is_error": true}
            ])
        );
    }
}
