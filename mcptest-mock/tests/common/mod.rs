//! Helpers shared by the mock's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The example tools file the project ships.
pub fn examples_tools() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/tools.yml")
}
