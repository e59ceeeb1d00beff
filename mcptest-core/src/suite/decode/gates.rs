//! Decoding the per-run and cross-run gates of an agent.

use super::*;

impl Decoder<'_> {
    pub(super) fn trajectory(&mut self, node: &Node, path: &str) -> Option<ExpectedTrace> {
        let f = self.fields(node, path, "`trajectory:`", &["mode", "calls"], false)?;
        let mode = match self.required(&f, path, "mode", "`trajectory:`", "mode: subsequence") {
            Some(n) => {
                let p = join(path, "mode");
                let s = self.string(n, &p)?;
                match s.parse::<MatchMode>() {
                    Ok(m) => Some(m),
                    Err(e) => {
                        self.problem(n.pos, &p, e);
                        None
                    }
                }
            }
            None => None,
        };
        let mut calls = Vec::new();
        if let Some(n) = self.field(&f, path, "calls") {
            let p = join(path, "calls");
            for (i, item) in self
                .list(n, &p, "calls: [{name: get_weather}]")
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let cp = format!("{p}[{i}]");
                self.spans.insert(cp.clone(), item.pos);
                if let Some(c) = self.expected_call(item, &cp) {
                    calls.push(c);
                }
            }
        }
        Some(ExpectedTrace { mode: mode?, calls })
    }

    pub(super) fn expected_call(&mut self, node: &Node, path: &str) -> Option<ExpectedCall> {
        if let Kind::Str(name) = &node.kind {
            return Some(ExpectedCall::by_name(name.clone()));
        }
        let f = self.fields(node, path, "an expected call", &["name", "args"], false)?;
        let name = self
            .required(&f, path, "name", "an expected call", "name: get_weather")
            .and_then(|n| self.nonempty_string(n, &join(path, "name")));
        let args = match self.field(&f, path, "args") {
            Some(n) => self.expected_args(n, &join(path, "args"))?,
            None => ExpectedArgs::Any,
        };
        Some(ExpectedCall { name: name?, args })
    }

    pub(super) fn expected_args(&mut self, node: &Node, path: &str) -> Option<ExpectedArgs> {
        let how = "`any`, `ignore`, `{exact: ...}`, `{subset: ...}` or `{schema: ...}`";
        match &node.kind {
            Kind::Null => Some(ExpectedArgs::Any),
            Kind::Str(s) if s == "any" => Some(ExpectedArgs::Any),
            Kind::Str(s) if s == "ignore" => Some(ExpectedArgs::Ignore),
            Kind::Str(s) => {
                self.problem(
                    node.pos,
                    path,
                    format!(
                        "{} (written {how})",
                        mistakes::unknown("argument shape", s, names::SHAPES)
                    ),
                );
                None
            }
            Kind::Map(entries) if entries.len() == 1 => {
                let (k, v) = &entries[0];
                let key = k.scalar_text().unwrap_or_default();
                let p = join(path, &key);
                self.spans.insert(p.clone(), v.pos);
                match key.as_str() {
                    "exact" => self.json(v, &p).map(ExpectedArgs::Exact),
                    "subset" | "contains" => self.json(v, &p).map(ExpectedArgs::Subset),
                    "schema" => self.json(v, &p).map(ExpectedArgs::Schema),
                    other => {
                        self.problem(
                            k.pos,
                            &p,
                            format!(
                                "{} (written {how})",
                                mistakes::unknown("argument shape", other, names::SHAPES)
                            ),
                        );
                        None
                    }
                }
            }
            _ => {
                self.wrong_type(node, path, how, "");
                None
            }
        }
    }

    pub(super) fn golden_path(&mut self, node: &Node, path: &str) -> Option<GoldenPath> {
        let keys = &[
            "calls",
            "allow_extra_steps",
            "penalize_backtracking",
            "penalize_repeated_tools",
        ];
        let f = self.fields(node, path, "`golden_path:`", keys, false)?;
        let calls = self
            .required(&f, path, "calls", "`golden_path:`", "calls: [search, open]")
            .and_then(|n| self.string_list(n, &join(path, "calls"), "calls: [search, open]"));
        let mut g = GoldenPath::new(calls?);
        if let Some(n) = self.field(&f, path, "allow_extra_steps") {
            g.allow_extra_steps = self.boolean(n, &join(path, "allow_extra_steps"))?;
        }
        if let Some(n) = self.field(&f, path, "penalize_backtracking") {
            g.penalize_backtracking = self.boolean(n, &join(path, "penalize_backtracking"))?;
        }
        if let Some(n) = self.field(&f, path, "penalize_repeated_tools") {
            g.penalize_repeated_tools = self.boolean(n, &join(path, "penalize_repeated_tools"))?;
        }
        Some(g)
    }

    pub(super) fn axes(&mut self, node: &Node, path: &str) -> Option<TrajectoryAxes> {
        let f = self.fields(
            node,
            path,
            "`trajectory_axes:`",
            &["dependencies", "order"],
            true,
        )?;
        let mut axes = TrajectoryAxes::default();
        if let Some(n) = self.field(&f, path, "dependencies") {
            axes.dependencies = self.edges(
                n,
                &join(path, "dependencies"),
                ("producer", "consumer"),
                "a dependency",
            )?;
        }
        if let Some(n) = self.field(&f, path, "order") {
            axes.order = self.edges(
                n,
                &join(path, "order"),
                ("first", "second"),
                "an order edge",
            )?;
        }
        Some(axes)
    }

    pub(super) fn edges(
        &mut self,
        node: &Node,
        path: &str,
        (a, b): (&'static str, &'static str),
        what: &str,
    ) -> Option<Vec<AxisEdge>> {
        let example = format!("[{{{a}: search, {b}: fetch_page}}]");
        let items = self.list(node, path, &example)?;
        let mut out = Vec::new();
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = format!("{path}[{i}]");
            let Some(f) = self.fields(item, &p, what, &[a, b], false) else {
                ok = false;
                continue;
            };
            let x = self
                .required(&f, &p, a, what, &format!("{a}: search"))
                .and_then(|n| self.nonempty_string(n, &join(&p, a)));
            let y = self
                .required(&f, &p, b, what, &format!("{b}: fetch_page"))
                .and_then(|n| self.nonempty_string(n, &join(&p, b)));
            match (x, y) {
                (Some(x), Some(y)) => out.push((Arc::from(x), Arc::from(y))),
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }

    pub(super) fn narrative(&mut self, node: &Node, path: &str) -> Option<NarrativeGate> {
        let keys = &[
            "mutating_tools",
            "readonly_tools",
            "max_divergence_score",
            "llm_assisted",
            "expect",
        ];
        let f = self.fields(node, path, "`narrative:`", keys, true)?;
        let mut g = NarrativeGate::default();
        if let Some(n) = self.field(&f, path, "mutating_tools") {
            g.mutating_tools = self
                .string_list(
                    n,
                    &join(path, "mutating_tools"),
                    "mutating_tools: [run_job]",
                )
                .unwrap_or_default();
        }
        if let Some(n) = self.field(&f, path, "readonly_tools") {
            g.readonly_tools = self
                .string_list(
                    n,
                    &join(path, "readonly_tools"),
                    "readonly_tools: [post_search]",
                )
                .unwrap_or_default();
        }
        if let Some(n) = self.field(&f, path, "max_divergence_score") {
            g.max_divergence_score = self.float(n, &join(path, "max_divergence_score"));
        }
        if let Some(n) = self.field(&f, path, "llm_assisted") {
            g.llm_assisted = self
                .boolean(n, &join(path, "llm_assisted"))
                .unwrap_or(false);
        }
        g.expect = self.expect_list(&f, path);
        Some(g)
    }

    pub(super) fn reliability(&mut self, node: &Node, path: &str) -> Option<ReliabilityGate> {
        let keys = &["min_pass_rate", "confidence", "inconclusive", "expect"];
        let f = self.fields(node, path, "`reliability:`", keys, true)?;
        let mut g = ReliabilityGate::default();
        if let Some(n) = self.field(&f, path, "min_pass_rate") {
            g.min_pass_rate = self.float(n, &join(path, "min_pass_rate"));
        }
        if let Some(n) = self.field(&f, path, "confidence") {
            g.confidence = self.float(n, &join(path, "confidence"));
        }
        if let Some(n) = self.field(&f, path, "inconclusive") {
            let choices = [
                (
                    "fail",
                    Inconclusive::Fail,
                    "an inconclusive verdict fails the cell",
                ),
                (
                    "pass",
                    Inconclusive::Pass,
                    "the default: reported, exit code 0",
                ),
            ];
            if let Some(c) = self.choice(n, &join(path, "inconclusive"), &choices) {
                g.inconclusive = c;
            }
        }
        g.expect = self.expect_list(&f, path);
        Some(g)
    }

    pub(super) fn recovery(&mut self, node: &Node, path: &str) -> Option<RecoveryBudget> {
        let keys = &[
            "max_detection_ms",
            "max_recovery_ms",
            "require_clean_timeout",
        ];
        let f = self.fields(node, path, "`recovery:`", keys, false)?;
        let detection = self
            .required(
                &f,
                path,
                "max_detection_ms",
                "`recovery:`",
                "max_detection_ms: 3000",
            )
            .and_then(|n| self.uint(n, &join(path, "max_detection_ms"), 1, u64::MAX));
        let recovery = match self.field(&f, path, "max_recovery_ms") {
            Some(n) if matches!(n.kind, Kind::Null) => None,
            Some(n) => Some(self.uint(n, &join(path, "max_recovery_ms"), 1, u64::MAX)?),
            None => None,
        };
        let clean = match self.field(&f, path, "require_clean_timeout") {
            Some(n) => self.boolean(n, &join(path, "require_clean_timeout"))?,
            None => false,
        };
        Some(RecoveryBudget {
            max_detection_ms: detection?,
            max_recovery_ms: recovery,
            require_clean_timeout: clean,
        })
    }
}
