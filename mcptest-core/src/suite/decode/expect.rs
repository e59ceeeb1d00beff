//! Decoding assertions and their matchers.

use super::*;

impl Decoder<'_> {
    pub(super) fn expect_list(&mut self, f: &Fields<'_>, path: &str) -> Vec<Expectation> {
        match self.field(f, path, "expect") {
            Some(n) => self.expectations(n, &join(path, "expect")),
            None => vec![],
        }
    }

    pub(super) fn expectations(&mut self, node: &Node, path: &str) -> Vec<Expectation> {
        let example = "expect: [{target: tool_calls[0].name, matcher: {exact: get_invoice}}]";
        let items = self.list(node, path, example).unwrap_or_default();
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let p = format!("{path}[{i}]");
            self.spans.insert(p.clone(), item.pos);
            if let Some(e) = self.expectation(item, &p) {
                out.push(e);
            }
        }
        out
    }

    pub(super) fn expectation(&mut self, node: &Node, path: &str) -> Option<Expectation> {
        let what = "an assertion";
        let f = self.fields(node, path, what, &["target", "matcher", "advisory"], false)?;
        let target = match self.required(&f, path, "target", what, "target: tool_calls[0].name") {
            Some(n) => {
                let p = join(path, "target");
                self.spans.insert(p.clone(), n.pos);
                match self.string(n, &p) {
                    Some(s) => match Target::parse(&s) {
                        Ok(t) => Some(t),
                        Err(e) => {
                            self.problem(n.pos, &p, e.to_string());
                            None
                        }
                    },
                    None => None,
                }
            }
            None => None,
        };
        let matcher =
            match self.required(&f, path, "matcher", what, "matcher: {exact: get_invoice}") {
                Some(n) => self.matcher(n, &join(path, "matcher")),
                None => None,
            };
        let advisory = match self.field(&f, path, "advisory") {
            Some(n) => self.boolean(n, &join(path, "advisory"))?,
            None => false,
        };
        Some(Expectation {
            target: target?,
            matcher: matcher?,
            advisory,
        })
    }

    pub(super) fn matcher(&mut self, node: &Node, path: &str) -> Option<Matcher> {
        let how = format!(
            "a matcher is a map with one key, one of {}",
            quoted_list(names::MATCHER_KEYS)
        );
        let entries = match &node.kind {
            Kind::Map(e) if e.len() == 1 => e,
            Kind::Map(e) if e.is_empty() => {
                self.problem(node.pos, path, format!("empty matcher: {how}"));
                return None;
            }
            Kind::Map(e) => {
                let keys: Vec<String> = e.iter().filter_map(|(k, _)| k.scalar_text()).collect();
                self.problem(
                    e[1].0.pos,
                    path,
                    format!(
                        "a matcher has exactly one key, found {}; combine matchers with \
                         `all: [...]` or `any: [...]`",
                        keys.iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                );
                return None;
            }
            _ => {
                self.wrong_type(
                    node,
                    path,
                    "a matcher",
                    &format!("{how}, e.g. `{{exact: 42}}`"),
                );
                return None;
            }
        };
        let (k, v) = &entries[0];
        let key = k.scalar_text().unwrap_or_default();
        let p = join(path, &key);
        // Where the assertion's first model-graded or malformed matcher was written, for the
        // problems `AgentSpec::validate` reports about the whole assertion.
        let assertion = path
            .find(".matcher")
            .map_or(path, |i| &path[..i])
            .to_string();
        let mark = |d: &mut Self, what: &str, pos: Pos| {
            d.spans.entry(format!("{assertion}.{what}")).or_insert(pos);
        };
        let m = match key.as_str() {
            "exact" => Matcher::Exact(self.json(v, &p)?),
            "contains" => Matcher::Contains(self.json(v, &p)?),
            "schema" | "regex" => {
                let m = if key == "schema" {
                    Matcher::schema(self.json(v, &p)?)
                } else {
                    Matcher::regex(self.string(v, &p)?)
                };
                if m.validate().is_err() {
                    mark(self, MALFORMED_MARK, v.pos);
                }
                m
            }
            "not" => Matcher::not(self.matcher(v, &p)?),
            "all" | "any" => {
                let items = self.list(v, &p, "all: [{regex: a}, {regex: b}]")?;
                let mut ms = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    ms.push(self.matcher(item, &format!("{p}[{i}]")));
                }
                let ms: Option<Vec<Matcher>> = ms.into_iter().collect();
                if key == "all" {
                    Matcher::All(ms?)
                } else {
                    Matcher::Any(ms?)
                }
            }
            graded if names::model_graded(graded).is_some() => {
                let kind = match names::model_graded(graded) {
                    Some("llm-judge") => ModelGradedKind::LlmJudge,
                    Some("llm-jury") => ModelGradedKind::LlmJury,
                    _ => ModelGradedKind::Similar,
                };
                mark(self, MODEL_GRADED_MARK, k.pos);
                Matcher::ModelGraded {
                    kind,
                    config: self.json(v, &p)?,
                }
            }
            other => {
                self.problem(
                    k.pos,
                    &p,
                    format!(
                        "{}; {how}",
                        mistakes::unknown("matcher", other, names::MATCHER_KEYS)
                    ),
                );
                return None;
            }
        };
        Some(m)
    }
}
