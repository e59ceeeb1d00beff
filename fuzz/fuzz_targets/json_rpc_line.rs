//! The mock's JSON-RPC line handling: any line is a message, an error to send, or nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = mcptest_mock::fuzzing::json_rpc_line(data);
});
