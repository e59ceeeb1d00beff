//! The mock's tools file: any bytes load or fail with the reason; every tool of a loaded file
//! answers a call with no arguments and with arbitrary ones.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcptest_mock::ToolsFile;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match ToolsFile::from_yaml_str("tools.yml", text) {
        Ok(file) => {
            for tool in &file.tools {
                let _ = file.call(&tool.name, None);
                let _ = file.call(&tool.name, Some(&json!({"q": "x", "n": 1, "a": [null]})));
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
