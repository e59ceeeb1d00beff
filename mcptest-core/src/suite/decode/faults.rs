//! Decoding the suite's `faults:`.

use super::*;

impl Decoder<'_> {
    pub(super) fn faults(&mut self, node: &Node) -> Vec<Fault> {
        let example = "faults: [{name: hung-search, target: {tool: search}, kind: hang}]";
        let Some(items) = self.list(node, "faults", example) else {
            return vec![];
        };
        let mut out: Vec<Fault> = Vec::new();
        let mut at: HashMap<String, Pos> = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("faults[{i}]");
            let Some(f) = self.fields(item, &path, "a fault", FAULT_KEYS, false) else {
                continue;
            };
            let name_node = self.required(&f, &path, "name", "a fault", "name: hung-search");
            let name = name_node.and_then(|n| self.nonempty_string(n, &join(&path, "name")));
            let target =
                match self.required(&f, &path, "target", "a fault", "target: {tool: search}") {
                    Some(n) => self.fault_target(n, &join(&path, "target")),
                    None => None,
                };
            let kind_node = self.required(&f, &path, "kind", "a fault", "kind: hang");
            let kind = kind_node.and_then(|n| self.fault_kind(n, &join(&path, "kind")));
            let delay_ms = self
                .field(&f, &path, "delay_ms")
                .and_then(|n| self.uint(n, &join(&path, "delay_ms"), 0, u64::MAX));
            let failures = self
                .field(&f, &path, "failures")
                .and_then(|n| self.u32(n, &join(&path, "failures"), 1));
            let (Some(name), Some(target), Some(kind)) = (name, target, kind) else {
                continue;
            };
            let kind_pos = kind_node.map_or(item.pos, |n| n.pos);
            // Each setting belongs to one kind: say where one is missing or stray.
            for (key, owner, about) in [
                ("delay_ms", "slow", "how long each call takes to answer"),
                (
                    "failures",
                    "recover_after",
                    "how many calls hang before the server answers",
                ),
            ] {
                match (kind == owner, f.get(key)) {
                    (true, None) => self.problem(
                        kind_pos,
                        &join(&path, "kind"),
                        format!(
                            "{}: add `{key}:` ({about})",
                            mistakes::fault_needs(owner, key)
                        ),
                    ),
                    (false, Some((k, _))) => self.problem(
                        k.pos,
                        &join(&path, key),
                        format!(
                            "`{key}` applies to `kind: {owner}` only; remove it or change the kind"
                        ),
                    ),
                    _ => {}
                }
            }
            let kind = match kind {
                "hang" => FaultKind::Hang,
                "wedged" => FaultKind::Wedged,
                "slow" => match delay_ms {
                    Some(delay_ms) => FaultKind::Slow { delay_ms },
                    None => continue,
                },
                _ => match failures {
                    Some(failures) => FaultKind::RecoverAfter { failures },
                    None => continue,
                },
            };
            let name_pos = name_node.map_or(item.pos, |n| n.pos);
            if let Some(first) = at.get(&name) {
                let first = *first;
                self.problem(
                    name_pos,
                    &join(&path, "name"),
                    format!(
                        "duplicate fault name `{name}` (first declared at line {}); fault names \
                         are what agents `inject:`, so each must be unique",
                        first.line
                    ),
                );
                continue;
            }
            at.insert(name.clone(), name_pos);
            out.push(Fault { name, target, kind });
        }
        out
    }

    pub(super) fn fault_target(&mut self, node: &Node, path: &str) -> Option<FaultTarget> {
        let f = self.fields(node, path, "a fault target", &["tool", "server"], false)?;
        let tool = self
            .field(&f, path, "tool")
            .and_then(|n| self.nonempty_string(n, &join(path, "tool")));
        let server = self
            .field(&f, path, "server")
            .and_then(|n| self.nonempty_string(n, &join(path, "server")));
        if tool.is_none() && server.is_none() {
            if f.entries.is_empty() {
                self.problem(
                    node.pos,
                    path,
                    "a fault target names a tool, a server, or both: `{tool: search}`, \
                     `{server: docs}`, `{tool: search, server: docs}`",
                );
            }
            return None;
        }
        Some(FaultTarget { tool, server })
    }

    /// The fault kind a node names (the rulebook's canonical name).
    pub(super) fn fault_kind(&mut self, node: &Node, path: &str) -> Option<&'static str> {
        let s = self.string(node, path)?;
        let kind = match names::fault_kind(&s) {
            Some(kind) => kind,
            None => {
                let other = s.as_str();
                let extra = if other.contains(':') {
                    "; write the delay or count as its own key: `kind: slow` with \
                     `delay_ms: 300`, `kind: recover_after` with `failures: 2`"
                } else {
                    ""
                };
                self.problem(
                    node.pos,
                    path,
                    format!(
                        "{}{extra}",
                        mistakes::unknown("fault kind", other, names::FAULT_KINDS)
                    ),
                );
                return None;
            }
        };
        Some(kind)
    }
}
