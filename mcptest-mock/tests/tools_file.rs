//! The tools file: the shipped example loads, answers are chosen as documented, and every
//! mistake is a load error at its line and column with what to do.

mod common;

use mcptest_mock::{Annotations, ToolResult, ToolsFile};
use serde_json::json;

fn load(text: &str) -> ToolsFile {
    ToolsFile::from_yaml_str("t.yml", text).unwrap_or_else(|e| panic!("{e}"))
}

/// The load error's lines (`t.yml:L:C: message`).
fn errors(text: &str) -> Vec<String> {
    match ToolsFile::from_yaml_str("t.yml", text) {
        Ok(f) => panic!("loaded: {f:?}"),
        Err(e) => e.to_string().lines().map(str::to_string).collect(),
    }
}

fn one_error(text: &str) -> String {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:#?}");
    e[0].clone()
}

#[test]
fn the_example_loads_and_answers() {
    let file = ToolsFile::load(common::examples_tools()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file.server.name, "weather-and-docs");
    assert_eq!(file.tools.len(), 5);
    assert_eq!(file.resources.len(), 2);
    let w = file
        .call(
            "get_weather",
            Some(&json!({"city": "Sacramento", "units": "F"})),
        )
        .unwrap();
    assert_eq!(w.structured_content.unwrap()["temperature"], 88);
    let w = file
        .call("get_weather", Some(&json!({"city": "Sacramento"})))
        .unwrap();
    assert_eq!(w.structured_content.unwrap()["temperature"], 31);
    assert!(
        file.call("get_weather", Some(&json!({"city": "Lima"})))
            .unwrap()
            .is_error
    );
    let t = file
        .call("create_ticket", Some(&json!({"title": "abc"})))
        .unwrap();
    assert_eq!(
        t.structured_content,
        Some(json!({"id": "T-1042", "status": "open"}))
    );
    assert_eq!(t.joined_text(), r#"{"id":"T-1042","status":"open"}"#);
}

#[test]
fn the_first_matching_answer_wins_and_when_is_a_subset() {
    let f = load(
        r#"
tools:
  - name: t
    input_schema:
      type: object
      properties: { a: {}, b: {}, tags: { type: array } }
    answers:
      - when: { a: 1, b: { x: [2, 3] } }
        text: nested
      - when: { a: 1 }
        text: a is one
      - when: { tags: [red, blue] }
        text: tagged
      - text: default
"#,
    );
    let answer = |args| f.call("t", Some(&args)).unwrap().joined_text();
    assert_eq!(
        answer(json!({"a": 1.0, "b": {"x": [3, 2, 4], "y": 0}})),
        "nested"
    );
    assert_eq!(answer(json!({"a": 1, "b": {"x": [3]}})), "a is one");
    assert_eq!(answer(json!({"a": true})), "default", "1 is not true");
    assert_eq!(answer(json!({"a": "1"})), "default", "1 is not \"1\"");
    assert_eq!(answer(json!({"tags": ["blue", "green", "red"]})), "tagged");
    assert_eq!(answer(json!({"tags": ["red"]})), "default");
    assert_eq!(f.call("t", None).unwrap().joined_text(), "default");
}

#[test]
fn without_a_default_an_unmatched_call_gets_an_error_result() {
    let f = load("tools:\n  - name: t\n    answers:\n      - when: {a: 1}\n        text: one\n");
    let r = f.call("t", Some(&json!({"a": 2}))).unwrap();
    assert!(r.is_error);
    assert_eq!(
        r.joined_text(),
        "no answer of tool `t` matches the arguments {\"a\":2}; the tools file needs an answer \
         without `when:` as the default"
    );
}

#[test]
fn every_kind_of_content() {
    let f = load(
        r#"
tools:
  - name: t
    answers:
      - when: { k: text }
        text: hello
      - when: { k: json }
        json: { n: 1, list: [a, b] }
      - when: { k: both }
        text: summary
        json: { n: 2 }
      - when: { k: error }
        error: it broke
      - when: { k: structured_error }
        json: { code: E42 }
        is_error: true
      - when: { k: blocks }
        content:
          - plain text block
          - { type: image, data: iVBORw0KGgo=, mimeType: image/png }
          - { type: audio, data: UklGRg==, mimeType: audio/wav }
          - { type: resource_link, uri: "file:///a.txt", name: a.txt }
          - { type: resource, resource: { uri: "file:///b.txt", text: bee } }
      - text: 42
"#,
    );
    let r = |k: &str| f.call("t", Some(&json!({"k": k}))).unwrap();
    assert_eq!(r("text"), ToolResult::text("hello"));
    let j = r("json");
    assert_eq!(
        j.structured_content,
        Some(json!({"n": 1, "list": ["a", "b"]}))
    );
    assert_eq!(j.joined_text(), r#"{"n":1,"list":["a","b"]}"#);
    assert!(!j.is_error);
    let both = r("both");
    assert_eq!(both.joined_text(), "summary");
    assert_eq!(both.structured_content, Some(json!({"n": 2})));
    assert_eq!(r("error"), ToolResult::error("it broke"));
    let se = r("structured_error");
    assert!(se.is_error);
    assert_eq!(se.structured_content, Some(json!({"code": "E42"})));
    let blocks = r("blocks").content;
    let kinds: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["text", "image", "audio", "resource_link", "resource"]
    );
    assert_eq!(r("other").joined_text(), "42");
    assert_eq!(
        r("json").to_json(),
        json!({"content": [{"type": "text", "text": "{\"n\":1,\"list\":[\"a\",\"b\"]}"}],
               "structuredContent": {"n": 1, "list": ["a", "b"]}, "isError": false})
    );
}

#[test]
fn arguments_failing_the_schema_get_an_error_result_that_says_why() {
    let f = load(
        r#"
tools:
  - name: t
    input_schema:
      type: object
      properties:
        n: { type: integer, minimum: 1 }
        s: { type: string }
      required: [n]
    result: { text: ok }
"#,
    );
    let r = f.call("t", Some(&json!({"n": 0, "s": 5}))).unwrap();
    assert!(r.is_error);
    let t = r.joined_text();
    assert!(t.starts_with("invalid arguments for tool `t`: "), "{t}");
    assert!(t.contains("at /n: 0 is less than the minimum of 1"), "{t}");
    assert!(t.contains("at /s: 5 is not of type \"string\""), "{t}");
    let r = f.call("t", None).unwrap();
    assert_eq!(
        r.joined_text(),
        "invalid arguments for tool `t`: at (root): \"n\" is a required property"
    );
    assert_eq!(
        f.call("t", Some(&json!({"n": 3}))).unwrap().joined_text(),
        "ok"
    );
}

#[test]
fn unknown_tools_name_the_known_ones() {
    let f = load(
        "tools:\n  - name: search\n    result: {text: x}\n  - name: fetch\n    result: {text: y}\n",
    );
    let e = f.call("serach", None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown tool `serach`; did you mean `search`?; this server's tools are: search, fetch"
    );
    let empty = load("tools: []\n");
    assert_eq!(
        empty.call("x", None).unwrap_err().to_string(),
        "unknown tool `x`; this server has no tools"
    );
}

#[test]
fn syntax_and_shape_errors_point_at_their_line_and_column() {
    assert_eq!(
        one_error(""),
        "t.yml:1:1: the tools file is empty; start it with `tools:` and a list of tools \
         (examples/tools.yml shows the format)"
    );
    assert_eq!(
        one_error("tools: [\n"),
        "t.yml:1:8: invalid YAML: unclosed bracket '['"
    );
    assert_eq!(
        one_error("tools:\n  - name: a\n    result: {text: \"x}\n"),
        "t.yml:3:20: invalid YAML: unclosed quote"
    );
    assert_eq!(
        one_error("server: {name: x}\n"),
        "t.yml:1:1: the tools file has no `tools:` list; add one (an empty list `tools: []` \
         serves no tools)"
    );
    assert_eq!(
        one_error("tools: {name: a}\n"),
        "t.yml:1:8: `tools:` is a list of tools (each `- name: ...`), found a map"
    );
    assert_eq!(
        one_error("tool:\n  - name: a\n"),
        "t.yml:1:1: unknown key `tool` in the tools file; did you mean `tools`?"
    );
    assert_eq!(
        one_error("tools: []\nresources: [{uri: a}]\n"),
        "t.yml:2:13: this resource has no `text:`; add its text"
    );
}

#[test]
fn tool_mistakes_are_all_reported_with_what_to_do() {
    let text = "\
tools:
  - name: a
    inputSchema: {type: object}
    result: {text: hi}
  - name: b
    descripton: x
    result: {text: hi}
  - name: a
    result: {text: again}
  - description: nameless
    result: {text: x}
  - name: c
  - name: d
    result: {text: x}
    answers: [{text: y}]
  - name: e
    input_schema: {type: string}
    result: {text: x}
  - name: f
    input_schema: {type: object, properties: {n: {type: nope}}}
    result: {text: x}
";
    let e = errors(text);
    assert_eq!(
        e,
        [
            "t.yml:3:5: unknown key `inputSchema` in a tool; write `input_schema` (tools files \
             spell keys in snake_case)",
            "t.yml:6:5: unknown key `descripton` in a tool; did you mean `description`?",
            "t.yml:8:5: a second tool named `a` (the first is at 2:5); tool names are unique: \
             rename or remove one",
            "t.yml:10:5: this tool has no `name:`; add one",
            "t.yml:12:5: tool `c` has no answer; add `result:` (one answer to every call) or \
             `answers:` (answers chosen by the arguments)",
            "t.yml:15:5: tool `d` has both `result:` (at 14:5) and `answers:`; keep `result:` \
             for one answer to every call, or move it into `answers:` as the last entry",
            "t.yml:17:19: `input_schema` describes an object (MCP tools take and give named \
             values); add `type: object` to it",
            "t.yml:20:19: `input_schema` is not a valid JSON Schema: \"nope\" is not valid \
             under any of the schemas listed in the 'anyOf' keyword; fix the schema",
        ],
        "{e:#?}"
    );
}

#[test]
fn answer_mistakes_are_reported_with_what_to_do() {
    let e = errors(
        "\
tools:
  - name: t
    input_schema:
      type: object
      properties: { city: { type: string } }
    answers:
      - text: default
      - when: { city: Paris }
        text: never
      - when: { ctiy: Rome }
        text: typo
      - when: [city]
        text: x
      - {}
      - text: a
        error: b
      - json: [1, 2]
      - error: x
        is_error: false
      - content: [{type: image, data: abc}]
      - is_error: yes
        text: x
",
    );
    assert_eq!(
        e,
        [
            "t.yml:8:9: this answer is never chosen: the answer at 7:9 has no `when:` and \
             matches every call; move the default answer last",
            "t.yml:10:17: `when:` names `ctiy`, which is not an argument of tool `t` (not in its \
             input_schema's properties), so this answer would never be chosen; did you mean \
             `city`?",
            "t.yml:12:15: `when:` is a map of the arguments this answer is for (e.g. `when: \
             {city: Paris}`), found a list",
            "t.yml:14:9: an answer of tool `t` says nothing to send; give it `text:`, `json:`, \
             `content:` or `error:`",
            "t.yml:16:9: `error:` is the error's text already; drop `text:` or write `text:` \
             with `is_error: true`",
            "t.yml:17:15: `json:` is structured content, a JSON object; found a list. Wrap the \
             value in a key, e.g. `json: {items: [...]}`",
            "t.yml:19:19: `error:` makes an error result; remove `is_error: false`",
            "t.yml:20:19: not an MCP content block: missing field `mimeType`; write blocks as \
             MCP sends them, e.g. `{type: text, text: hi}`, `{type: image, data: <base64>, \
             mimeType: image/png}` or `{type: resource_link, uri: ..., name: ...}`",
            "t.yml:21:19: `is_error` is true or false, found a string",
        ],
        "{e:#?}"
    );
    assert_eq!(
        one_error("tools:\n  - name: t\n    result:\n      when: {a: 1}\n      text: x\n"),
        "t.yml:4:7: `when:` chooses among `answers:`; `result:` answers every call. Write \
         `answers:` with a `when:` per answer"
    );
    assert_eq!(
        one_error("tools:\n  - name: t\n    answers: []\n"),
        "t.yml:3:14: tool `t` has an empty `answers:` list; add at least one answer"
    );
}

#[test]
fn an_output_schema_binds_every_answer_that_is_not_an_error() {
    let e = errors(
        "\
tools:
  - name: t
    output_schema:
      type: object
      properties: { temp: { type: number } }
      required: [temp]
    answers:
      - when: { a: 1 }
        json: { temp: 20 }
      - when: { a: 2 }
        json: { temp: warm }
      - when: { a: 3 }
        text: no json
      - error: errors need not fit
",
    );
    assert_eq!(
        e,
        [
            "t.yml:10:9: this answer's `json:` does not fit tool `t`'s output_schema: at /temp: \
             \"warm\" is not of type \"number\"",
            "t.yml:12:9: tool `t` declares an `output_schema`, so every answer that is not an \
             error carries `json:` (structured content) that fits it",
        ],
        "{e:#?}"
    );
}

#[test]
fn duplicate_keys_and_hostile_files_are_errors() {
    assert_eq!(
        one_error("tools:\n  - name: a\n    name: b\n    result: {text: x}\n"),
        "t.yml:3:5: duplicate key `name` in a tool (first written at 2:5); keep one"
    );
    let deep = format!("tools: {}1{}\n", "[".repeat(200), "]".repeat(200));
    assert!(one_error(&deep).contains("nests deeper than 32 levels"));
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
                e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n\
                tools: [*f]\n";
    let e = errors(bomb);
    assert!(!e.is_empty());
    let big = format!(
        "tools: []\n# {}\n",
        "x".repeat(mcptest_mock::MAX_TOOLS_FILE_BYTES)
    );
    assert!(one_error(&big).contains("more than the 16777216"));
    assert!(one_error("a: 1\n---\nb: 2\n").contains("one YAML document"));
}

#[test]
fn annotations_load_with_their_mcp_names() {
    let f = load(
        r#"
tools:
  - name: lookup
    annotations:
      title: Look up
      readOnlyHint: true
      destructiveHint: false
      idempotentHint: true
      openWorldHint: false
    result: { text: hi }
  - name: plain
    result: { text: hi }
"#,
    );
    assert_eq!(
        f.tools[0].annotations,
        Some(Annotations {
            title: Some("Look up".into()),
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: Some(false),
        })
    );
    assert_eq!(f.tools[1].annotations, None);
}

#[test]
fn annotation_mistakes_are_load_errors_with_what_to_do() {
    assert_eq!(
        one_error(
            "tools:\n  - name: lookup\n    annotations:\n      readonlyHint: true\n    \
             result: {text: hi}\n"
        ),
        "t.yml:4:7: unknown key `readonlyHint` in the `annotations:` of tool `lookup`; did you \
         mean `readOnlyHint`?"
    );
    assert_eq!(
        one_error(
            "tools:\n  - name: lookup\n    annotations: {read_only_hint: true}\n    \
             result: {text: hi}\n"
        ),
        "t.yml:3:19: unknown key `read_only_hint` in the `annotations:` of tool `lookup`; \
         write `readOnlyHint` (annotations keep MCP's camelCase names)"
    );
    assert_eq!(
        one_error(
            "tools:\n  - name: lookup\n    annotations:\n      readOnlyHint: \"true\"\n    \
             result: {text: hi}\n"
        ),
        "t.yml:4:21: `readOnlyHint` is true or false, found a string; write `readOnlyHint: \
         true` or `readOnlyHint: false` (unquoted)"
    );
    let e = errors(
        "tools:\n  - name: lookup\n    annotations:\n      destructiveHint: 1\n      \
         title: [x]\n      sideEffects: none\n    result: {text: hi}\n",
    );
    assert_eq!(e.len(), 3, "{e:#?}");
    assert!(e[0].starts_with("t.yml:4:24: `destructiveHint` is true or false, found an integer"));
    assert!(e[1].starts_with("t.yml:5:14: `title` in `annotations:` is a string, found a list"));
    assert!(
        e[2].starts_with(
            "t.yml:6:7: unknown key `sideEffects` in the `annotations:` of tool `lookup`; \
             the keys are `title`, `readOnlyHint`,"
        ),
        "{e:#?}"
    );
    assert_eq!(
        one_error("tools:\n  - name: lookup\n    annotations: true\n    result: {text: hi}\n"),
        "t.yml:3:18: the `annotations:` of tool `lookup` is a map of keys (`title`, `readOnlyHint`, \
         `destructiveHint`, `idempotentHint`, `openWorldHint`), found a boolean `true`"
    );
}
