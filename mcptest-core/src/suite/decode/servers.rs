//! Decoding servers over stdio or by URL, and their environment.

use super::*;

impl Decoder<'_> {
    pub(super) fn servers(&mut self, node: &Node) -> Vec<ServerConfig> {
        let Kind::Map(entries) = &node.kind else {
            if !matches!(node.kind, Kind::Null) {
                self.wrong_type(
                    node,
                    "servers",
                    "a map from server name to its launch command",
                    "write `servers:\\n  weather:\\n    command: weather-mcp`",
                );
            }
            return vec![];
        };
        let mut out: Vec<ServerConfig> = Vec::new();
        for (k, v) in entries {
            let Some(name) = self.string(k, "servers") else {
                continue;
            };
            let path = format!("servers.{name}");
            if out.iter().any(|s| s.name == name) {
                self.problem(
                    k.pos,
                    &path,
                    format!("duplicate server `{name}`; keep one of them"),
                );
                continue;
            }
            let what = format!("server `{name}`");
            let Some(f) = self.fields(v, &path, &what, SERVER_KEYS, false) else {
                continue;
            };
            let transport = match (f.get("command"), f.get("url")) {
                (Some(_), Some((url_key, _))) => {
                    self.problem(
                        url_key.pos,
                        &join(&path, "url"),
                        format!(
                            "{what} has both `command:` and `url:`; a server is started over \
                             stdio (`command:`) or reached over Streamable HTTP (`url:`), keep one"
                        ),
                    );
                    None
                }
                (None, Some(_)) => self.http_server(&f, &path, &what),
                _ => self.stdio_server(&f, &path, &what),
            };
            if let Some(transport) = transport {
                out.push(ServerConfig { name, transport });
            }
        }
        out
    }

    /// A problem at each of `keys` written on a server of the other transport.
    pub(super) fn keys_of_the_other_transport(
        &mut self,
        f: &Fields,
        path: &str,
        keys: &[&str],
        message: impl Fn(&str) -> String,
    ) {
        for key in keys {
            if let Some((k, _)) = f.get(key) {
                self.problem(k.pos, &join(path, key), message(key));
            }
        }
    }

    pub(super) fn stdio_server(
        &mut self,
        f: &Fields,
        path: &str,
        what: &str,
    ) -> Option<ServerTransport> {
        self.keys_of_the_other_transport(f, path, &["headers"], |key| {
            format!(
                "`{key}:` is for a server reached by `url:`; {what} is started by `command:` \
                 (give it variables with `env:`)"
            )
        });
        let command = self
            .required(f, path, "command", what, "command: weather-mcp")
            .and_then(|n| self.nonempty_string(n, &join(path, "command")));
        let args = match self.field(f, path, "args") {
            Some(n) => self
                .string_list(n, &join(path, "args"), "args: [--stdio]")
                .unwrap_or_default(),
            None => vec![],
        };
        let (env, env_values) = match self.field(f, path, "env") {
            Some(n) => self.env(n, &join(path, "env")),
            None => (vec![], vec![]),
        };
        let cwd = self
            .field(f, path, "cwd")
            .and_then(|n| self.nonempty_string(n, &join(path, "cwd")));
        Some(ServerTransport::Stdio(StdioServer {
            command: command?,
            args,
            env,
            env_values,
            cwd,
        }))
    }

    pub(super) fn http_server(
        &mut self,
        f: &Fields,
        path: &str,
        what: &str,
    ) -> Option<ServerTransport> {
        self.keys_of_the_other_transport(f, path, &["args", "env", "cwd"], |key| {
            format!(
                "`{key}:` is for a server started by `command:`; {what} is reached by `url:` \
                 (send credentials with `headers:`)"
            )
        });
        let url_node = self.field(f, path, "url")?;
        let url = self.nonempty_string(url_node, &join(path, "url"))?;
        let scheme_ok = ["http://", "https://"]
            .iter()
            .any(|p| url.len() > p.len() && url[..p.len()].eq_ignore_ascii_case(p));
        if !scheme_ok || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            self.problem(
                url_node.pos,
                &join(path, "url"),
                format!(
                    "`{url}` is not an HTTP URL; write the server's MCP endpoint, for example \
                     `url: https://mcp.example.com/mcp` (servers run as a program take \
                     `command:` instead)"
                ),
            );
            return None;
        }
        let mut headers: Vec<HeaderTemplate> = Vec::new();
        let mut ok = true;
        if let Some(node) = self.field(f, path, "headers") {
            let hpath = join(path, "headers");
            match &node.kind {
                Kind::Map(entries) => {
                    for (k, v) in entries {
                        let Some(name) = self.nonempty_string(k, &hpath) else {
                            ok = false;
                            continue;
                        };
                        let p = join(&hpath, &name);
                        self.spans.insert(p.clone(), v.pos);
                        if headers.iter().any(|h| h.name.eq_ignore_ascii_case(&name)) {
                            self.problem(
                                k.pos,
                                &p,
                                format!("duplicate header `{name}`; keep one of them"),
                            );
                            ok = false;
                            continue;
                        }
                        let Some(value) = self.nonempty_string(v, &p) else {
                            ok = false;
                            continue;
                        };
                        match HeaderTemplate::parse(&name, &value) {
                            Ok(t) => headers.push(t),
                            Err(message) => {
                                self.problem(v.pos, &p, message);
                                ok = false;
                            }
                        }
                    }
                }
                Kind::Null => {}
                _ => {
                    self.wrong_type(
                        node,
                        &hpath,
                        "a map from header name to the environment variable that holds its value",
                        "write `headers: {Authorization: \"Bearer ${MCP_TOKEN}\"}`",
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(ServerTransport::Http(HttpServer { url, headers }))
    }

    /// `env:` as a list of names passed through (secrets), or a map whose entries with a
    /// value are set to it (plain) and whose entries without one (`NAME: ~`) pass through.
    pub(super) fn env(&mut self, node: &Node, path: &str) -> (Vec<String>, Vec<(String, String)>) {
        let Kind::Map(entries) = &node.kind else {
            return (self.env_names(node, path), vec![]);
        };
        let mut secret = Vec::new();
        let mut plain = Vec::new();
        for (k, v) in entries {
            let Some(name) = self.nonempty_string(k, path) else {
                continue;
            };
            if !self.env_name_ok(&name, k.pos, path) {
                continue;
            }
            let p = join(path, &name);
            self.spans.insert(p.clone(), v.pos);
            match &v.kind {
                Kind::Null => secret.push(name),
                Kind::Str(_) | Kind::Bool(_) | Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) => {
                    plain.push((name, v.scalar_text().unwrap_or_default()))
                }
                _ => self.problem(
                    v.pos,
                    &p,
                    format!(
                        "`{name}` takes one value (`{name}: eu-west-1`), or none (`{name}: ~`) \
                         to pass it through from the environment as a secret"
                    ),
                ),
            }
        }
        (secret, plain)
    }

    pub(super) fn env_name_ok(&mut self, name: &str, pos: Pos, path: &str) -> bool {
        let valid = is_env_name(name);
        if !valid {
            self.problem(
                pos,
                path,
                format!(
                    "`{name}` is not an environment variable name (letters, digits and `_`, \
                     not starting with a digit)"
                ),
            );
        }
        valid
    }

    pub(super) fn env_names(&mut self, node: &Node, path: &str) -> Vec<String> {
        let names = self
            .string_list(node, path, "env: [WEATHER_API_KEY]")
            .unwrap_or_default();
        let items: &[Node] = match &node.kind {
            Kind::Seq(items) => items,
            _ => &[],
        };
        let mut out = Vec::new();
        for (name, item) in names.into_iter().zip(items) {
            if self.env_name_ok(&name, item.pos, path) {
                out.push(name);
            }
        }
        out
    }
}
