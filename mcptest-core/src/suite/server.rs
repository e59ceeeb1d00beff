//! How a suite reaches its MCP servers when recording: a child process over stdio, or a URL
//! over Streamable HTTP. Replay never reaches a server.

use std::fmt;

/// One MCP server of a suite (`servers:`), by the name agents list in their `servers:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The name agents list in their `servers:`.
    pub name: String,
    /// How the recorder reaches it.
    pub transport: ServerTransport,
}

/// How the recorder reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerTransport {
    /// A child process speaking newline-delimited JSON-RPC on standard input and output
    /// (`command:`).
    Stdio(StdioServer),
    /// A server reached by URL over Streamable HTTP (`url:`).
    Http(HttpServer),
}

/// A server started as a child process (`command`, `args`, `env`, `cwd`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioServer {
    /// The program to run.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Names of environment variables passed through to it from the environment at record
    /// time; their values are secrets, never written to a suite or a cassette.
    pub env: Vec<String>,
    /// Variables set to the values the suite writes (`env: {REGION: eu-west-1}`): plain
    /// configuration, passed as written and never redacted.
    pub env_values: Vec<(String, String)>,
    /// Its working directory, relative to the suite file's folder.
    pub cwd: Option<String>,
}

/// A server reached by URL (`url`, `headers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpServer {
    /// Its MCP endpoint (`http://` or `https://`).
    pub url: String,
    /// Headers sent with every request, in the order written; their values come from the
    /// environment at record time and are secrets.
    pub headers: Vec<HeaderTemplate>,
}

impl StdioServer {
    /// The command line as one string, for messages.
    pub fn command_line(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl ServerConfig {
    /// What starts or reaches the server, for messages: the command line or the URL.
    pub fn endpoint(&self) -> String {
        match &self.transport {
            ServerTransport::Stdio(s) => s.command_line(),
            ServerTransport::Http(h) => h.url.clone(),
        }
    }

    /// The environment variables whose values recording reads for this server and must keep
    /// out of a cassette: the list-form `env:` names, and every variable a header names.
    pub fn secret_vars(&self) -> Vec<&str> {
        match &self.transport {
            ServerTransport::Stdio(s) => s.env.iter().map(String::as_str).collect(),
            ServerTransport::Http(h) => h.headers.iter().flat_map(|t| t.vars()).collect(),
        }
    }
}

/// One header of a server reached by URL: a name and a value built from environment variables.
///
/// A value is written either as a variable's name (`Authorization: MCP_AUTH` sends the
/// variable's value as it is) or as text with `${NAME}` references (`Authorization: "Bearer
/// ${MCP_TOKEN}"`). Headers carry credentials, so a suite never holds their values.
///
/// ```
/// use mcptest_core::suite::HeaderTemplate;
///
/// let t = HeaderTemplate::parse("Authorization", "Bearer ${MCP_TOKEN}").unwrap();
/// assert_eq!(t.vars(), ["MCP_TOKEN"]);
/// let value = t.render(|name| (name == "MCP_TOKEN").then(|| "abc".to_string()));
/// assert_eq!(value.unwrap(), "Bearer abc");
/// assert!(HeaderTemplate::parse("X-Id", "not a name").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderTemplate {
    /// The header's name, as written.
    pub name: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Var(String),
}

/// Whether `name` can name an environment variable: letters, digits and `_`, not starting
/// with a digit.
pub fn is_env_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Headers the Streamable HTTP transport sets itself, which a suite may not override.
const TRANSPORT_HEADERS: &[&str] = &[
    "Accept",
    "Content-Type",
    "Content-Length",
    "Host",
    "Mcp-Session-Id",
    "Mcp-Protocol-Version",
    "Last-Event-ID",
];

/// Whether `name` can be an HTTP header name (an RFC 9110 token).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

impl HeaderTemplate {
    /// Reads a header as a suite writes it; the error says what is wrong and how to write it.
    pub fn parse(name: &str, value: &str) -> Result<HeaderTemplate, String> {
        if !is_header_name(name) {
            return Err(format!(
                "`{name}` is not a header name (letters, digits and `-`, as in `Authorization` \
                 or `X-Api-Key`)"
            ));
        }
        if let Some(reserved) = TRANSPORT_HEADERS
            .iter()
            .find(|h| h.eq_ignore_ascii_case(name))
        {
            return Err(format!(
                "the header `{reserved}` is set by the MCP transport itself; remove it from \
                 `headers:`"
            ));
        }
        let how = format!(
            "write the name of an environment variable that holds it (`{name}: MCP_TOKEN`) or \
             text that refers to one (`{name}: \"Bearer ${{MCP_TOKEN}}\"`); a suite never holds \
             a header's value"
        );
        let mut parts = Vec::new();
        if is_env_name(value) {
            parts.push(Part::Var(value.to_string()));
        } else {
            let mut rest = value;
            while let Some(start) = rest.find("${") {
                if start > 0 {
                    parts.push(Part::Text(rest[..start].to_string()));
                }
                let after = &rest[start + 2..];
                let Some(end) = after.find('}') else {
                    return Err(format!("header `{name}`: `${{` has no closing `}}`; {how}"));
                };
                let var = &after[..end];
                if !is_env_name(var) {
                    return Err(format!(
                        "header `{name}`: `${{{var}}}` does not name an environment variable \
                         (letters, digits and `_`, not starting with a digit)"
                    ));
                }
                parts.push(Part::Var(var.to_string()));
                rest = &after[end + 1..];
            }
            if !rest.is_empty() {
                parts.push(Part::Text(rest.to_string()));
            }
            if !parts.iter().any(|p| matches!(p, Part::Var(_))) {
                return Err(format!(
                    "header `{name}`: `{value}` names no environment variable; {how}"
                ));
            }
        }
        if let Some(Part::Text(t)) = parts
            .iter()
            .find(|p| matches!(p, Part::Text(t) if t.chars().any(|c| c.is_control())))
        {
            return Err(format!(
                "header `{name}`: `{}` holds a control character, which no header value may",
                t.escape_debug()
            ));
        }
        Ok(HeaderTemplate {
            name: name.to_string(),
            parts,
        })
    }

    /// The environment variables the value refers to, in order.
    pub fn vars(&self) -> Vec<&str> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Var(v) => Some(v.as_str()),
                Part::Text(_) => None,
            })
            .collect()
    }

    /// The header's value with each variable looked up; `Err` names the first one unset.
    pub fn render(&self, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Var(v) => out.push_str(&lookup(v).ok_or_else(|| v.clone())?),
            }
        }
        Ok(out)
    }
}

impl fmt::Display for HeaderTemplate {
    /// The header as a suite writes it (variables as `${NAME}`), never a value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.name)?;
        for p in &self.parts {
            match p {
                Part::Text(t) => f.write_str(t)?,
                Part::Var(v) => write!(f, "${{{v}}}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("t0k".into()),
            "TEAM" => Some("blue".into()),
            _ => None,
        }
    }

    #[test]
    fn a_bare_name_sends_the_variable_as_it_is() {
        let t = HeaderTemplate::parse("Authorization", "TOKEN").unwrap();
        assert_eq!(t.vars(), ["TOKEN"]);
        assert_eq!(t.render(env).unwrap(), "t0k");
        assert_eq!(t.to_string(), "Authorization: ${TOKEN}");
    }

    #[test]
    fn references_are_replaced_in_text() {
        let t = HeaderTemplate::parse("X-Auth", "Bearer ${TOKEN} team=${TEAM}!").unwrap();
        assert_eq!(t.vars(), ["TOKEN", "TEAM"]);
        assert_eq!(t.render(env).unwrap(), "Bearer t0k team=blue!");
    }

    #[test]
    fn an_unset_variable_is_named() {
        let t = HeaderTemplate::parse("X-Auth", "Bearer ${MISSING}").unwrap();
        assert_eq!(t.render(env).unwrap_err(), "MISSING");
    }

    #[test]
    fn literal_values_and_bad_references_are_refused_with_the_way_to_write_them() {
        let e = HeaderTemplate::parse("X-Region", "eu-west-1").unwrap_err();
        assert!(e.contains("names no environment variable"), "{e}");
        assert!(e.contains("`X-Region: MCP_TOKEN`"), "{e}");
        let e = HeaderTemplate::parse("X", "Bearer ${TOKEN").unwrap_err();
        assert!(e.contains("no closing"), "{e}");
        let e = HeaderTemplate::parse("X", "Bearer ${9X}").unwrap_err();
        assert!(e.contains("does not name an environment variable"), "{e}");
        let e = HeaderTemplate::parse("Bad Name", "TOKEN").unwrap_err();
        assert!(e.contains("not a header name"), "{e}");
        let e = HeaderTemplate::parse("mcp-session-id", "TOKEN").unwrap_err();
        assert!(e.contains("set by the MCP transport"), "{e}");
        let e = HeaderTemplate::parse("X", "a\n${TOKEN}").unwrap_err();
        assert!(e.contains("control character"), "{e}");
    }
}
