//! Finds where a JSON path's value starts in the source text, for line:column in messages.
//!
//! The text has already parsed as JSON; this scanner only walks it. When the path does not
//! exist it answers with the deepest ancestor it reached (the place a missing field belongs).

use crate::trace::PathSegment;

/// 1-based (line, column) of the value at `path` in `text` (or of its deepest existing ancestor).
pub(crate) fn locate(text: &str, path: &[PathSegment]) -> (usize, usize) {
    let bytes = text.as_bytes();
    let mut s = Scanner { bytes, pos: 0 };
    s.skip_ws();
    let mut found = s.pos;
    for seg in path {
        match s.descend(seg) {
            Some(at) => found = at,
            None => break,
        }
    }
    line_col(text, found)
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos += 1;
        }
    }

    /// Moves from the start of a container to the start of the child `seg`; returns its offset.
    fn descend(&mut self, seg: &PathSegment) -> Option<usize> {
        match (self.peek()?, seg) {
            (b'{', PathSegment::Key(want)) => {
                self.pos += 1;
                loop {
                    self.skip_ws();
                    if self.peek()? == b'}' {
                        return None;
                    }
                    let key = self.string()?;
                    self.skip_ws();
                    if self.peek()? != b':' {
                        return None;
                    }
                    self.pos += 1;
                    self.skip_ws();
                    if &key == want {
                        return Some(self.pos);
                    }
                    self.skip_value()?;
                    self.skip_ws();
                    if self.peek()? == b',' {
                        self.pos += 1;
                    }
                }
            }
            (b'[', PathSegment::Index(want)) => {
                self.pos += 1;
                let mut i = 0;
                loop {
                    self.skip_ws();
                    if self.peek()? == b']' {
                        return None;
                    }
                    if i == *want {
                        return Some(self.pos);
                    }
                    self.skip_value()?;
                    self.skip_ws();
                    if self.peek()? == b',' {
                        self.pos += 1;
                    }
                    i += 1;
                }
            }
            _ => None,
        }
    }

    /// Reads a string token and returns its decoded text.
    fn string(&mut self) -> Option<String> {
        let start = self.pos;
        self.skip_string()?;
        serde_json::from_slice(&self.bytes[start..self.pos]).ok()
    }

    fn skip_string(&mut self) -> Option<()> {
        if self.peek()? != b'"' {
            return None;
        }
        self.pos += 1;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Skips one value, iteratively (no recursion, so deep nesting cannot overflow the stack).
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            self.skip_ws();
            match self.peek()? {
                b'"' => self.skip_string()?,
                b'{' | b'[' => {
                    depth += 1;
                    self.pos += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.pos += 1;
                }
                b',' | b':' => self.pos += 1,
                _ => {
                    while !matches!(
                        self.peek(),
                        None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                    ) {
                        self.pos += 1;
                    }
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values_and_falls_back_to_ancestors() {
        let text = "{\n  \"runs\": [\n    {\"trace\": {\"tool_calls\": [{\"name\": 7}]}}\n  ]\n}";
        let path = [
            PathSegment::Key("runs".into()),
            PathSegment::Index(0),
            PathSegment::Key("trace".into()),
            PathSegment::Key("tool_calls".into()),
            PathSegment::Index(0),
            PathSegment::Key("name".into()),
        ];
        assert_eq!(locate(text, &path), (3, 40));
        // A missing key: the deepest existing ancestor (the call object).
        let mut missing = path.to_vec();
        missing[5] = PathSegment::Key("args".into());
        assert_eq!(locate(text, &missing), (3, 31));
        assert_eq!(locate(text, &[]), (1, 1));
    }

    #[test]
    fn skips_strings_with_escapes_and_unicode() {
        let text = r#"{"a": "x\"}é", "b": [1, {"c": []}, "ü"], "d": true}"#;
        assert_eq!(locate(text, &[PathSegment::Key("d".into())]), (1, 47));
        assert_eq!(
            locate(text, &[PathSegment::Key("b".into()), PathSegment::Index(2)]),
            (1, 36)
        );
    }
}
