//! OpenAI-compatible chat completions (`POST {base}/chat/completions`), which local model
//! servers speak too.
//!
//! A call's `function.arguments` is a JSON *string* that may not parse: the raw string and
//! the parse error are kept, the call is not sent to its server, and the model is told why.
//! Tool results go back as one `tool` message per call, in order; such a message has no
//! error flag, so an error result's text starts with `error: `.

use super::{Answer, Reply, Stop, ToolUse, Usage};
use mcptest_core::trace::Turn;
use serde_json::{Map, Value, json};

pub(crate) fn parse_reply(body: &Value) -> Result<Reply, String> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("it has no `choices`")?;
    let message = choice
        .get("message")
        .ok_or("its first choice has no `message`")?;
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .map(str::to_string);
    let calls: Vec<Value> = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut tool_uses = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        let id = c
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("tool_calls[{i}] has no `id`"))?;
        let f = c.get("function");
        let name = f
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| format!("tool_calls[{i}] has no `function.name`"))?;
        let input = match f.and_then(|f| f.get("arguments")) {
            None | Some(Value::Null) => Ok(json!({})),
            Some(Value::String(raw)) if raw.trim().is_empty() => Ok(json!({})),
            Some(Value::String(raw)) => match serde_json::from_str::<Value>(raw) {
                Ok(v @ Value::Object(_)) => Ok(v),
                Ok(_) => Err((
                    raw.clone(),
                    "the arguments are not a JSON object".to_string(),
                )),
                Err(e) => Err((
                    raw.clone(),
                    format!("the arguments are not valid JSON: {e}"),
                )),
            },
            // Some servers send an object where the API has a string.
            Some(v @ Value::Object(_)) => Ok(v.clone()),
            Some(other) => Err((
                other.to_string(),
                "the arguments are not a JSON object".to_string(),
            )),
        };
        tool_uses.push(ToolUse {
            id: id.to_string(),
            wire_name: name.to_string(),
            input,
            caller: None,
        });
    }
    let stop_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let stop = match stop_reason.as_str() {
        "length" => Stop::MaxTokens,
        _ if !tool_uses.is_empty() => Stop::ToolUse,
        "stop" | "" => Stop::EndTurn,
        _ => Stop::Other,
    };
    let usage = body.get("usage");
    let count = |k: &str| {
        usage
            .and_then(|u| u.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let cached = usage
        .and_then(|u| u.get("prompt_tokens_details"))
        .and_then(|d| d.get("cached_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let prompt = count("prompt_tokens");
    let mut appended = Map::new();
    appended.insert("role".into(), "assistant".into());
    appended.insert(
        "content".into(),
        text.clone().map(Value::String).unwrap_or(Value::Null),
    );
    let mut extra = Map::new();
    if !calls.is_empty() {
        appended.insert("tool_calls".into(), Value::Array(calls.clone()));
        extra.insert("tool_calls".into(), Value::Array(calls));
    }
    Ok(Reply {
        message: Value::Object(appended),
        turn: Turn {
            role: "assistant".into(),
            content: Value::String(text.unwrap_or_default()),
            extra,
        },
        tool_uses,
        stop,
        stop_reason,
        usage: Usage {
            input: prompt.saturating_sub(cached),
            output: count("completion_tokens"),
            cache_creation: 0,
            cache_read: cached.min(prompt),
        },
        container: None,
    })
}

pub(crate) fn answer_messages(answers: &[Answer]) -> (Vec<Value>, Vec<Turn>) {
    let mut messages = Vec::with_capacity(answers.len() + 1);
    let mut turns = Vec::with_capacity(answers.len() + 1);
    // Chat completions take only text in a tool message: an image a tool returned is named
    // there, and sent as an image part of one user message after the reply's tool messages.
    let mut images: Vec<Value> = Vec::new();
    for a in answers {
        let mut parts = Vec::with_capacity(a.content.len());
        for block in &a.content {
            match image_url(block) {
                Some(url) => {
                    // Each image adds a label and the image: two parts.
                    let n = images.len() / 2 + 1;
                    let label = format!("Image {n} (returned by tool call {}):", a.id);
                    images.push(json!({"type": "text", "text": label}));
                    images.push(json!({"type": "image_url", "image_url": {"url": url}}));
                    let mime = block.get("mimeType").and_then(Value::as_str);
                    parts.push(format!(
                        "[image {n}: {}, sent in the next message]",
                        mime.unwrap_or("image/png")
                    ));
                }
                None => parts.push(super::content_as_text(std::slice::from_ref(block), None)),
            }
        }
        let mut text = if parts.is_empty() {
            super::content_as_text(&[], a.structured.as_ref())
        } else {
            parts.join("\n")
        };
        if a.is_error {
            text = format!("error: {text}");
        }
        messages.push(json!({"role": "tool", "tool_call_id": a.id, "content": text}));
        let mut extra = Map::new();
        extra.insert("tool_call_id".into(), Value::String(a.id.clone()));
        turns.push(Turn {
            role: "tool".into(),
            content: Value::String(text),
            extra,
        });
    }
    if !images.is_empty() {
        let content = Value::Array(images);
        messages.push(json!({"role": "user", "content": content}));
        let mut extra = Map::new();
        extra.insert("images_from_tools".into(), Value::Bool(true));
        turns.push(Turn {
            role: "user".into(),
            content,
            extra,
        });
    }
    (messages, turns)
}

/// A data URL for an MCP image block (`{"type": "image", "data": BASE64, "mimeType": ...}`).
fn image_url(block: &Value) -> Option<String> {
    if block.get("type").and_then(Value::as_str) != Some("image") {
        return None;
    }
    let data = block.get("data")?.as_str()?;
    let mime = block
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("image/png");
    Some(format!("data:{mime};base64,{data}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_arguments_keep_raw_and_error() {
        let body = json!({"choices": [{"finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "w__get", "arguments": "{\"city\": \"Oslo\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "w__get", "arguments": "{city: Oslo"}}
            ]}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20,
                      "prompt_tokens_details": {"cached_tokens": 40}}});
        let r = parse_reply(&body).unwrap();
        assert_eq!(r.stop, Stop::ToolUse);
        assert_eq!(r.tool_uses[0].input, Ok(json!({"city": "Oslo"})));
        let (raw, why) = r.tool_uses[1].input.clone().unwrap_err();
        assert_eq!(raw, "{city: Oslo");
        assert!(why.contains("not valid JSON"), "{why}");
        assert_eq!(r.usage.total(), 120);
        assert_eq!(r.usage.cache_read, 40);
    }

    #[test]
    fn images_are_image_parts_of_a_message_after_the_tool_messages() {
        let png = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
        let (msgs, turns) = answer_messages(&[
            Answer {
                id: "c1".into(),
                is_error: false,
                content: vec![json!({"type": "text", "text": "a chart"}), png.clone()],
                structured: None,
            },
            Answer {
                id: "c2".into(),
                is_error: false,
                content: vec![json!({"type": "text", "text": "no image"})],
                structured: None,
            },
        ]);
        assert_eq!(msgs.len(), 3);
        assert_eq!(
            msgs[0],
            json!({"role": "tool", "tool_call_id": "c1",
                   "content": "a chart\n[image 1: image/png, sent in the next message]"})
        );
        assert_eq!(msgs[1]["content"], "no image");
        assert_eq!(
            msgs[2],
            json!({"role": "user", "content": [
                {"type": "text", "text": "Image 1 (returned by tool call c1):"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
            ]})
        );
        assert!(!msgs[0]["content"].as_str().unwrap().contains("iVBOR"));
        assert_eq!(turns.len(), 3);
        assert_eq!(turns[2].extra["images_from_tools"], true);
    }

    #[test]
    fn one_tool_message_per_result() {
        let (msgs, _) = answer_messages(&[Answer {
            id: "c1".into(),
            is_error: true,
            content: vec![json!({"type": "text", "text": "nope"})],
            structured: None,
        }]);
        assert_eq!(
            msgs,
            vec![json!({"role": "tool", "tool_call_id": "c1", "content": "error: nope"})]
        );
    }
}
