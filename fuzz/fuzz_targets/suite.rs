//! A YAML suite: any bytes load to a suite or to an error that names a place in the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcptest_core::suite::Suite;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Suite::from_yaml_str("fuzz.yml", text) {
        Ok(suite) => {
            for agent in suite.filter("") {
                let _ = mcptest_core::suite::cell_label(agent);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
