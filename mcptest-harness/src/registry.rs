//! Link-time registration: every `#[mcptest::agent]` function submits one [`AgentEntry`].

use mcptest_core::spec::AgentSpec;

/// What declaring an agent produced: its spec (named by the harness), or every mistake in it.
pub type Declaration = Result<AgentSpec, Vec<String>>;

/// One registered agent function.
///
/// `#[mcptest::agent]` submits one per function through [`inventory`]; nothing else needs to.
/// The harness names the agent after `module_path` (without its first segment, the crate) and
/// `function`, which is the path an IDE sends for "Run Test".
#[derive(Debug)]
pub struct AgentEntry {
    /// `module_path!()` where the function is declared.
    pub module_path: &'static str,
    /// The function's name.
    pub function: &'static str,
    /// `file!()` of the declaration, for messages.
    pub file: &'static str,
    /// `line!()` of the declaration, for messages.
    pub line: u32,
    /// Builds the declaration; user code runs here, so the harness guards it.
    pub declare: fn() -> Declaration,
}

inventory::collect!(AgentEntry);

impl AgentEntry {
    /// The agent's name: its module path without the crate segment, then the function name
    /// (`weather::sacramento` for `fn sacramento` in `mod weather`).
    pub fn name(&self) -> String {
        agent_name(self.module_path, self.function)
    }

    /// `file:line` of the declaration.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The name of the agent `function` declared in `module_path`.
pub fn agent_name(module_path: &str, function: &str) -> String {
    let mut segments: Vec<&str> = module_path.split("::").skip(1).collect();
    segments.push(function);
    segments.join("::")
}

/// Every agent linked into this binary, in no particular order.
pub fn registered() -> Vec<&'static AgentEntry> {
    inventory::iter::<AgentEntry>.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_crate_segment() {
        assert_eq!(agent_name("agents", "weather"), "weather");
        assert_eq!(
            agent_name("agents::weather", "sacramento"),
            "weather::sacramento"
        );
    }
}
