//! A YAML suite: any bytes load to a suite or to an error that names a place in the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcptest_core::suite::Suite;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(suite) = Suite::from_yaml_str("fuzz.yml", text) {
        for agent in suite.filter("") {
            let _ = mcptest_core::suite::cell_label(agent);
        }
    } else if let Err(e) = Suite::from_yaml_str("fuzz.yml", text) {
        let _ = e.to_string();
    }
});
