//! Every matcher on arbitrary JSON: the input is `[matcher, actual]`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcptest_core::matchers::Matcher;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(pair)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let [spec, actual] = &pair[..] else {
        return;
    };
    let Ok(matcher) = serde_json::from_value::<Matcher>(spec.clone()) else {
        return;
    };
    if matcher.validate().is_ok() {
        let _ = matcher.check(actual);
    }
});
