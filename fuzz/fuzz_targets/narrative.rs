//! `check_narrative` on arbitrary text and calls: the text, a NUL byte, then the calls as a
//! JSON array (no calls when absent or unreadable).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcptest_core::eval::{NarrativeConfig, check_narrative};
use mcptest_core::trace::ToolCall;

fuzz_target!(|data: &[u8]| {
    let (text, calls) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b"[]"[..]),
    };
    let text = String::from_utf8_lossy(text);
    let calls: Vec<ToolCall> = serde_json::from_slice(calls).unwrap_or_default();
    let report = check_narrative(&text, &calls, &NarrativeConfig::default());
    assert!((0.0..=1.0).contains(&report.divergence_score));
    assert_eq!(report.recorded_calls, calls.len());
});
