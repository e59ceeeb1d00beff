//! `validate_trace` on arbitrary calls and expectations: `{"calls": [...], "expected": {...}}`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcptest_core::eval::{ExpectedTrace, validate_trace};
use mcptest_core::trace::ToolCall;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(calls) = serde_json::from_value::<Vec<ToolCall>>(v["calls"].clone()) else {
        return;
    };
    let Ok(expected) = serde_json::from_value::<ExpectedTrace>(v["expected"].clone()) else {
        return;
    };
    if let Ok(report) = validate_trace(&calls, &expected) {
        let _ = format!("{report:?}");
    }
});
