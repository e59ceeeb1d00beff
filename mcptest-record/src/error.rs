//! Why a recording could not be made, and what to do about it.

use std::fmt;

/// Why a server reached by URL could not be used, as the transport told it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectFailure {
    /// Nothing answered at the URL (no connection, or a timeout).
    Unreachable,
    /// The server answered 401: it wants credentials.
    Unauthorized,
    /// The server answered 403: the credentials lack access.
    Forbidden,
    /// It answered, but not as a Streamable HTTP MCP server.
    Handshake,
}

/// A recording that could not be made. Every message says what to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// The model API key is not set.
    MissingKey {
        /// The environment variable to set.
        var: String,
    },
    /// A base URL that is not `http://` or `https://`.
    BadBaseUrl {
        /// The variable it came from.
        var: String,
        /// Its value.
        value: String,
    },
    /// The agent has no `prompt:`.
    NoPrompt {
        /// The agent.
        agent: String,
    },
    /// The agent has no `model:`.
    NoModel {
        /// The agent.
        agent: String,
    },
    /// The agent names a server the suite's `servers:` block does not say how to start.
    UnknownServer {
        /// The agent.
        agent: String,
        /// The server it names.
        server: String,
        /// The servers the suite declares.
        declared: Vec<String>,
    },
    /// A server passes through an environment variable that is not set.
    MissingEnv {
        /// The server.
        server: String,
        /// The variable.
        var: String,
    },
    /// A server could not be started or did not complete the MCP handshake.
    ServerStart {
        /// The server.
        server: String,
        /// The command line.
        command: String,
        /// What went wrong.
        error: String,
        /// The end of what the server wrote to standard error.
        stderr: String,
    },
    /// A header of a server reached by URL names an environment variable that is not set.
    MissingHeaderEnv {
        /// The server.
        server: String,
        /// The header.
        header: String,
        /// The variable.
        var: String,
    },
    /// A server reached by URL did not answer, or did not complete the MCP handshake.
    ServerConnect {
        /// The server.
        server: String,
        /// Its URL.
        url: String,
        /// Which kind of failure it was.
        failure: ConnectFailure,
        /// What went wrong, as the transport said it.
        error: String,
    },
    /// `tools/list` failed.
    ListTools {
        /// The server.
        server: String,
        /// What went wrong.
        error: String,
    },
    /// The model API could not be reached.
    Connect {
        /// The URL.
        url: String,
        /// What went wrong.
        error: String,
    },
    /// The model API answered with an error status.
    Api {
        /// The URL.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The API's error message.
        message: String,
    },
    /// The model API answered something this recorder cannot read.
    BadResponse {
        /// The URL.
        url: String,
        /// What was wrong with it.
        error: String,
    },
    /// The cassette could not be written.
    Write {
        /// The path.
        path: String,
        /// What went wrong.
        error: String,
    },
    /// The async runtime could not be started.
    Runtime(String),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::MissingKey { var } => write!(
                f,
                "{var} is not set: recording calls the model API with it; export {var}=... \
                 (it is never written to a cassette)"
            ),
            RecordError::BadBaseUrl { var, value } => write!(
                f,
                "{var}={value:?} is not an http:// or https:// URL; set it to the API's base \
                 URL, such as https://api.anthropic.com"
            ),
            RecordError::NoPrompt { agent } => write!(
                f,
                "agent {agent:?} has no `prompt:`; recording sends the prompt to the model, so \
                 add one to the agent"
            ),
            RecordError::NoModel { agent } => write!(
                f,
                "agent {agent:?} has no `model:`; add the model id to record with"
            ),
            RecordError::UnknownServer {
                agent,
                server,
                declared,
            } => {
                write!(
                    f,
                    "agent {agent:?} uses server `{server}`, and the suite's `servers:` block does \
                     not say how to start it; add\n  servers:\n    {server}:\n      command: \
                     <program>\n      args: [...]\n(or `url: https://...` for a server reached \
                     over Streamable HTTP)"
                )?;
                if !declared.is_empty() {
                    write!(f, "\n(the suite declares: {})", declared.join(", "))?;
                }
                Ok(())
            }
            RecordError::MissingEnv { server, var } => write!(
                f,
                "server `{server}` passes through the environment variable {var} \
                 (servers.{server}.env), and it is not set; export it, or remove it from `env:`"
            ),
            RecordError::ServerStart {
                server,
                command,
                error,
                stderr,
            } => {
                write!(
                    f,
                    "server `{server}` did not start as an MCP server over stdio ({error}); \
                     command: {command}\n  check the command runs and speaks MCP on \
                     stdin/stdout (servers.{server})"
                )?;
                if !stderr.trim().is_empty() {
                    write!(f, "\n  its standard error ended with:\n")?;
                    for line in stderr.trim_end().lines() {
                        write!(f, "\n    {line}")?;
                    }
                }
                Ok(())
            }
            RecordError::MissingHeaderEnv {
                server,
                header,
                var,
            } => write!(
                f,
                "server `{server}` sends the header {header} from the environment variable {var} \
                 (servers.{server}.headers), and it is not set; export it, or remove the header"
            ),
            RecordError::ServerConnect {
                server,
                url,
                failure,
                error,
            } => {
                write!(f, "server `{server}` at {url} ")?;
                match failure {
                    ConnectFailure::Unauthorized => write!(
                        f,
                        "refused the recorder as unauthorized ({error}); give it credentials \
                         with `headers:`, for example `Authorization: \"Bearer ${{TOKEN}}\"` \
                         (servers.{server}.headers)"
                    ),
                    ConnectFailure::Forbidden => write!(
                        f,
                        "refused the recorder's credentials ({error}); check the token in \
                         `headers:` has the access the server needs (servers.{server}.headers)"
                    ),
                    ConnectFailure::Unreachable => write!(
                        f,
                        "does not answer ({error}); start the server, or check `url:` \
                         (servers.{server}.url)"
                    ),
                    ConnectFailure::Handshake if url.trim_end_matches('/').ends_with("/sse") => {
                        write!(
                            f,
                            "did not complete the MCP handshake over Streamable HTTP ({error}); \
                             an endpoint ending in `/sse` usually speaks the older HTTP+SSE \
                             transport, which the recorder does not: use the server's Streamable \
                             HTTP endpoint (often ending in `/mcp`), or start it over stdio with \
                             `command:` (servers.{server}.url)"
                        )
                    }
                    ConnectFailure::Handshake => write!(
                        f,
                        "did not complete the MCP handshake over Streamable HTTP ({error}); \
                         check `url:` is the server's MCP endpoint (often ending in `/mcp`) \
                         (servers.{server}.url)"
                    ),
                }
            }
            RecordError::ListTools { server, error } => write!(
                f,
                "server `{server}` did not list its tools (tools/list: {error}); check that it \
                 serves tools"
            ),
            RecordError::Connect { url, error } => write!(
                f,
                "cannot reach the model API at {url}: {error}; check the network and the base \
                 URL (ANTHROPIC_BASE_URL or OPENAI_BASE_URL)"
            ),
            RecordError::Api {
                url,
                status,
                message,
            } => {
                write!(f, "the model API at {url} answered {status}: {message}")?;
                let hint = match status {
                    401 | 403 => "; check the API key",
                    404 => "; check the base URL and the model id",
                    400 | 422 => {
                        "; the request was refused: check the model id, max_tokens and \
                                  the tool schemas"
                    }
                    429 | 529 => "; the API is rate-limited or overloaded: try again later",
                    _ => "",
                };
                f.write_str(hint)
            }
            RecordError::BadResponse { url, error } => write!(
                f,
                "the model API at {url} answered something that is not a model response: \
                 {error}; check the base URL points at the right kind of API (--provider)"
            ),
            RecordError::Write { path, error } => {
                write!(f, "cannot write the cassette {path}: {error}")
            }
            RecordError::Runtime(e) => write!(f, "cannot start the async runtime: {e}"),
        }
    }
}

impl std::error::Error for RecordError {}

#[cfg(test)]
mod tests {
    use super::{ConnectFailure, RecordError};

    fn connect(url: &str, failure: ConnectFailure) -> String {
        RecordError::ServerConnect {
            server: "remote".into(),
            url: url.into(),
            failure,
            error: "the transport's words".into(),
        }
        .to_string()
    }

    #[test]
    fn a_server_by_url_that_fails_is_told_what_to_do() {
        let shown = connect("https://x/mcp", ConnectFailure::Unauthorized);
        assert!(
            shown.contains("unauthorized") && shown.contains("`headers:`"),
            "{shown}"
        );
        let shown = connect("https://x/mcp", ConnectFailure::Forbidden);
        assert!(shown.contains("check the token"), "{shown}");
        let shown = connect("http://127.0.0.1:9/mcp", ConnectFailure::Unreachable);
        assert!(
            shown.contains("does not answer") && shown.contains("start the server"),
            "{shown}"
        );
        let shown = connect("https://x/sse", ConnectFailure::Handshake);
        assert!(shown.contains("older HTTP+SSE transport"), "{shown}");
        let shown = connect("https://x/api", ConnectFailure::Handshake);
        assert!(shown.contains("often ending in `/mcp`"), "{shown}");
        assert!(
            shown.contains("(the transport's words)") && shown.contains("servers.remote.url"),
            "{shown}"
        );
    }
}
