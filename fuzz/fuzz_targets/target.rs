//! Target selection: the first line is a target, the rest a JSON document it reads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcptest_core::select::Target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (target, doc) = text.split_once('\n').unwrap_or((text, "null"));
    let Ok(target) = Target::parse(target) else {
        return;
    };
    let Ok(root) = serde_json::from_str::<serde_json::Value>(doc) else {
        return;
    };
    let _ = target.select(&root);
    let _ = target.select_pointed(&root);
    let _ = target.resolve(&root);
});
