//! Decoding an agent: its fields, models, where a spec mistake was written, `inject:`.

use super::*;

impl Decoder<'_> {
    pub(super) fn agent(&mut self, node: &Node, path: &str, faults: &[Fault]) -> Vec<AgentSpec> {
        let Some(f) = self.fields(node, path, "an agent", AGENT_KEYS, false) else {
            return vec![];
        };
        let before = self.problems.len();
        let name_node = self.required(&f, path, "name", "an agent", "name: weather lookup");
        let name = name_node.and_then(|n| self.nonempty_string(n, &join(path, "name")));
        if let (Some(n), Some(node)) = (&name, name_node)
            && slug(n).is_empty()
        {
            self.problem(
                node.pos,
                &join(path, "name"),
                format!(
                    "the name `{n}` has no letter or digit, so it cannot name the agent's \
                     cassette folder; add a word to it"
                ),
            );
        }
        let model_node = self.required(&f, path, "model", "an agent", "model: claude-sonnet-4-5");
        let models = model_node.and_then(|n| self.models(n, &join(path, "model")));
        let mut spec = AgentSpec::new(name.clone().unwrap_or_default());
        if let Some(n) = self.field(&f, path, "servers") {
            spec.servers = self
                .string_list(n, &join(path, "servers"), "servers: [weather]")
                .unwrap_or_default();
        }
        if let Some(n) = self.field(&f, path, "prompt") {
            spec.prompt = self.string(n, &join(path, "prompt"));
        }
        if let Some(n) = self.field(&f, path, "system") {
            spec.system = self.string(n, &join(path, "system"));
        }
        if let Some(n) = self.field(&f, path, "runs") {
            spec.runs = self.u32(n, &join(path, "runs"), 0);
        }
        if let Some(n) = self.field(&f, path, "max_turns") {
            spec.max_turns = self.u32(n, &join(path, "max_turns"), 1);
        }
        if let Some(n) = self.field(&f, path, "max_tokens") {
            spec.max_tokens = self.u32(n, &join(path, "max_tokens"), 1);
        }
        if let Some(n) = self.field(&f, path, "parallel_calls") {
            let choices = [
                (
                    ParallelCalls::Concurrent,
                    "the default: a reply's tool calls run at once",
                ),
                (
                    ParallelCalls::Sequential,
                    "one at a time, in the model's order",
                ),
            ]
            .map(|(c, what)| (c.as_str(), c, what));
            if let Some(c) = self.choice(n, &join(path, "parallel_calls"), &choices) {
                spec.parallel_calls = c;
            }
        }
        let cassette = self
            .field(&f, path, "cassette")
            .and_then(|n| self.nonempty_string(n, &join(path, "cassette")));
        if let Some(n) = self.field(&f, path, "snapshots") {
            spec.snapshots = self.boolean(n, &join(path, "snapshots")).unwrap_or(true);
        }
        if let Some(n) = self.field(&f, path, "trajectory") {
            spec.trajectory = self.trajectory(n, &join(path, "trajectory"));
        }
        if let Some(n) = self.field(&f, path, "golden_path") {
            spec.golden_path = self.golden_path(n, &join(path, "golden_path"));
        }
        if let Some(n) = self.field(&f, path, "trajectory_axes") {
            spec.trajectory_axes = self.axes(n, &join(path, "trajectory_axes"));
        }
        if let Some(n) = self.field(&f, path, "stability") {
            let p = join(path, "stability");
            if let Some(g) = self.fields(n, &p, "`stability:`", &["expect"], true) {
                let expect = self.expect_list(&g, &p);
                spec.stability = Some(StabilityGate { expect });
            }
        }
        if let Some(n) = self.field(&f, path, "narrative") {
            spec.narrative = self.narrative(n, &join(path, "narrative"));
        }
        if let Some(n) = self.field(&f, path, "reliability") {
            let p = join(path, "reliability");
            spec.reliability = self.reliability(n, &p);
        }
        if let Some(n) = self.field(&f, path, "inject") {
            spec.inject = self.inject(n, &join(path, "inject"), faults);
        }
        if let Some(n) = self.field(&f, path, "recovery") {
            spec.recovery = self.recovery(n, &join(path, "recovery"));
        }
        if let Some(n) = self.field(&f, path, "expect") {
            spec.expect = self.expectations(n, &join(path, "expect"));
        }
        let (Some(_), Some(models)) = (name, models) else {
            return vec![];
        };
        if models.len() > 1
            && let (Some(_), Some((k, _))) = (&cassette, f.get("cassette"))
        {
            self.problem(
                k.pos,
                &join(path, "cassette"),
                "`cassette:` names one file, and this agent lists several models; drop \
                 `cassette:` so each model gets its own cassette, or split the agent",
            );
            return vec![];
        }
        // Semantic checks run on the decoded spec; a check about a field whose decoding
        // already failed would only repeat that problem, so it is left out.
        let reported: Vec<String> = self.problems[before..]
            .iter()
            .map(|p| p.path.clone())
            .collect();
        let mut out = Vec::new();
        for model in models {
            let mut s = spec.clone();
            s.cassettes = vec![match &cassette {
                Some(c) => c.clone(),
                None => default_cassette(&self.suite_stem, &s.name, &model),
            }];
            s.model = Some(model);
            out.push(s);
        }
        if let Some(first) = out.first() {
            for e in first.validate() {
                let root = e.field.split(['.', '[']).next().unwrap_or_default();
                let related: &[&str] = match root {
                    "stability" => &["stability", "runs"],
                    "recovery" => &["recovery", "inject"],
                    _ => &[],
                };
                let repeats = std::iter::once(root)
                    .chain(related.iter().copied())
                    .any(|r| {
                        let p = join(path, r);
                        reported.iter().any(|q| {
                            q == &p
                                || q.starts_with(&format!("{p}."))
                                || q.starts_with(&format!("{p}["))
                        })
                    });
                if !repeats {
                    let pos = self.locate(path, &e.field, e.kind);
                    self.problem(pos, &join(path, &e.field), e.message);
                }
            }
        }
        out
    }

    pub(super) fn models(&mut self, node: &Node, path: &str) -> Option<Vec<String>> {
        match &node.kind {
            Kind::Seq(_) => {
                let models = self.string_list(node, path, "model: [claude-sonnet-4-5]")?;
                if models.is_empty() {
                    self.problem(node.pos, path, "`model:` lists no model; name at least one");
                    return None;
                }
                Some(models)
            }
            _ => self.nonempty_string(node, path).map(|m| vec![m]),
        }
    }

    /// Where a problem [`AgentSpec::validate`] reports about `field` was written.
    pub(super) fn locate(&self, agent_path: &str, field: &str, kind: SpecErrorKind) -> Pos {
        let mut candidates = Vec::new();
        if field.ends_with(']') && field.contains("expect[") {
            match kind {
                SpecErrorKind::NarrationTarget
                | SpecErrorKind::CrossRunTarget
                | SpecErrorKind::UndeclaredGate
                | SpecErrorKind::UnknownMetric
                | SpecErrorKind::MisplacedTarget => candidates.push(format!("{field}.target")),
                SpecErrorKind::ModelGraded => {
                    candidates.push(format!("{field}.{MODEL_GRADED_MARK}"))
                }
                _ => candidates.push(format!("{field}.{MALFORMED_MARK}")),
            }
            candidates.push(format!("{field}.matcher"));
        }
        let mut f = field.to_string();
        loop {
            candidates.push(f.clone());
            match f.rfind(['.', '[']) {
                Some(i) => f.truncate(i),
                None => break,
            }
        }
        candidates
            .iter()
            .find_map(|c| self.spans.get(&join(agent_path, c)).copied())
            .or_else(|| self.spans.get(agent_path).copied())
            .unwrap_or_default()
    }

    pub(super) fn inject(&mut self, node: &Node, path: &str, faults: &[Fault]) -> Vec<Fault> {
        let names = self
            .string_list(node, path, "inject: [hung-search]")
            .unwrap_or_default();
        let items: &[Node] = match &node.kind {
            Kind::Seq(items) => items,
            _ => &[],
        };
        let known: Vec<&str> = faults.iter().map(|f| f.name.as_str()).collect();
        let mut out = Vec::new();
        for (name, item) in names.iter().zip(items) {
            match faults.iter().find(|f| &f.name == name) {
                Some(f) => out.push(f.clone()),
                None => {
                    let hint = did_you_mean(name, &known)
                        .map(|s| format!(" (did you mean `{s}`?)"))
                        .unwrap_or_default();
                    let declared = if known.is_empty() {
                        "the suite declares no faults; add a top-level `faults:` list, for \
                         example `faults: [{name: hung-search, target: {tool: search}, kind: \
                         hang}]`"
                            .to_string()
                    } else {
                        format!(
                            "declare it under the top-level `faults:` or use one of {}",
                            quoted_list(&known)
                        )
                    };
                    self.problem(
                        item.pos,
                        path,
                        format!("`inject:` names the fault `{name}`, which is not declared{hint}; {declared}"),
                    );
                }
            }
        }
        out
    }
}
