//! A cassette file: any bytes load to a cassette or to an error, and a loaded cassette
//! serializes and loads again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcptest_core::trace::Cassette;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Cassette::count_runs(text);
    if let Ok(cassette) = Cassette::from_json_str("fuzz.json", text) {
        let again = cassette.to_value().to_string();
        Cassette::from_json_str("again.json", &again).expect("a cassette it wrote loads back");
    }
});
