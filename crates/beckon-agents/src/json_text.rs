//! A changed JSON value written over the text it was read from, keeping that text wherever the
//! value did not change: the person's layout (indentation, arrays on one line, spacing, key
//! order, the final newline or none) survives setup, and taking Beckon's entries out again gives
//! back the original bytes. What is new is laid out like its neighbours: on lines of its own,
//! indented by the file's own step, or on the line of a container written on one line.
//!
//! The text is one that `serde_json` has already read; whatever this module cannot follow, and
//! any result that does not read back as the value, falls back to pretty-printing the value.

use serde_json::{Map, Value};

/// Deepest nesting followed (`serde_json` reads no deeper than 128 either).
const DEPTH_MAX: usize = 128;

/// `value` as the text of a file that held `old` (its whole text), keeping all of `old` that
/// `value` leaves as it was.
pub fn render(old: &str, value: &Value) -> String {
    let rendered = Text::parse(old).map(|text| text.render(value));
    match rendered {
        Some(rendered) if serde_json::from_str::<Value>(&rendered).is_ok_and(|back| back == *value) => rendered,
        _ => fresh_file(value),
    }
}

/// `value` as a new file: two spaces a step, a final newline.
pub fn fresh_file(value: &Value) -> String {
    let mut text = pretty(value, "  ");
    text.push('\n');
    text
}

/// `value` pretty-printed with `unit` as one step of indentation.
fn pretty(value: &Value, unit: &str) -> String {
    // `to_string_pretty` steps by two spaces; a JSON text has no raw newline inside a string, so
    // every line's leading spaces are its indentation.
    let two = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    if unit == "  " {
        return two;
    }
    let lines: Vec<String> = two
        .split('\n')
        .map(|line| {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            format!("{}{}", unit.repeat(spaces / 2), &line[spaces..])
        })
        .collect();
    lines.join("\n")
}

/// A parsed value and where its parts are in the text.
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

enum Kind {
    Object(Vec<Slot>),
    Array(Vec<Slot>),
    Scalar,
}

/// One member of an object (with its key) or element of an array.
struct Slot {
    /// What precedes it after the `{`, `[` or `,`: whitespace, usually a newline and indent.
    lead_start: usize,
    /// Where it starts: its key's quote, or the element.
    start: usize,
    /// The member's key, decoded.
    key: Option<String>,
    /// Where the member's key ends (the element's start, for an array).
    key_end: usize,
    value: Node,
    /// Where the `,` or the closing bracket after it is.
    trail_end: usize,
}

/// The file's text, parsed, with how it is laid out.
struct Text<'a> {
    text: &'a str,
    root: Node,
    /// One step of indentation.
    unit: String,
    /// The line ending.
    newline: &'static str,
}

impl<'a> Text<'a> {
    fn parse(text: &'a str) -> Option<Text<'a>> {
        if text.trim().is_empty() {
            return None;
        }
        let mut parser = Parser { bytes: text.as_bytes(), at: 0 };
        parser.skip_space();
        let root = parser.value(0)?;
        parser.skip_space();
        if parser.at != text.len() {
            return None;
        }
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Some(Text { text, root, unit: indent_unit(text), newline })
    }

    fn render(&self, value: &Value) -> String {
        let root = &self.root;
        let body = self.node(root, value, true);
        format!("{}{body}{}", &self.text[..root.start], &self.text[root.end..])
    }

    /// `node` rewritten to hold `value`; `multiline` when its place is on lines of its own.
    fn node(&self, node: &Node, value: &Value, multiline: bool) -> String {
        let old = &self.text[node.start..node.end];
        if serde_json::from_str::<Value>(old).is_ok_and(|was| was == *value) {
            return old.to_owned();
        }
        match (&node.kind, value) {
            (Kind::Object(members), Value::Object(map)) => self.object(node, members, map, multiline),
            (Kind::Array(items), Value::Array(list)) => self.array(node, items, list, multiline),
            _ => self.fresh(value, &line_indent(self.text, node.start), multiline),
        }
    }

    /// `value` laid out anew, its lines after the first indented by `base`.
    fn fresh(&self, value: &Value, base: &str, multiline: bool) -> String {
        if !multiline {
            return value.to_string();
        }
        pretty(value, &self.unit).replace('\n', &format!("{}{base}", self.newline))
    }

    fn object(&self, node: &Node, members: &[Slot], map: &Map<String, Value>, multiline: bool) -> String {
        let multiline = members.first().map_or(multiline, |first| self.lead(first).contains('\n'));
        // Between a key and its value, as the first member has it.
        let separator = match members.first() {
            Some(first) => self.text[first.key_end..first.value.start].to_owned(),
            None if multiline => ": ".to_owned(),
            None => ":".to_owned(),
        };
        let mut parts = Vec::new();
        for member in members {
            let Some(key) = &member.key else { continue };
            let Some(wanted) = map.get(key) else { continue };
            let head = &self.text[member.start..member.value.start];
            let body = format!("{head}{}", self.node(&member.value, wanted, self.lead(member).contains('\n')));
            parts.push((self.lead(member).to_owned(), body, member));
        }
        let known: Vec<&str> = members.iter().filter_map(|member| member.key.as_deref()).collect();
        let mut added = Vec::new();
        for (key, wanted) in map.iter().filter(|(key, _)| !known.contains(&key.as_str())) {
            let lead = self.new_lead(node, members, multiline);
            let base = lead.rsplit('\n').next().unwrap_or_default().to_owned();
            let body = format!("{}{separator}{}", Value::String(key.clone()), self.fresh(wanted, &base, multiline));
            added.push((lead, body));
        }
        self.container(node, members, parts, added, multiline, ('{', '}'))
    }

    fn array(&self, node: &Node, items: &[Slot], list: &[Value], multiline: bool) -> String {
        let multiline = items.first().map_or(multiline, |first| self.lead(first).contains('\n'));
        let values: Vec<Option<Value>> =
            items.iter().map(|item| serde_json::from_str(&self.text[item.value.start..item.value.end]).ok()).collect();
        let mut parts = Vec::new();
        let mut added = Vec::new();
        let mut next = 0;
        for wanted in list {
            // The next old element that still holds it, else the next old one rewritten.
            let same = (next..items.len()).find(|&k| values[k].as_ref() == Some(wanted));
            match same.or((next < items.len()).then_some(next)) {
                Some(k) => {
                    let item = &items[k];
                    let body = self.node(&item.value, wanted, self.lead(item).contains('\n'));
                    parts.push((self.lead(item).to_owned(), body, item));
                    next = k + 1;
                }
                None => {
                    let lead = self.new_lead(node, items, multiline);
                    let base = lead.rsplit('\n').next().unwrap_or_default().to_owned();
                    added.push((lead, self.fresh(wanted, &base, multiline)));
                }
            }
        }
        self.container(node, items, parts, added, multiline, ('[', ']'))
    }

    /// A container's text from the slots kept (with their own lead and what follows them) and
    /// the ones added after them, closed as the old one was closed.
    fn container(
        &self,
        node: &Node,
        old: &[Slot],
        kept: Vec<(String, String, &Slot)>,
        added: Vec<(String, String)>,
        multiline: bool,
        (open, close): (char, char),
    ) -> String {
        if kept.is_empty() && added.is_empty() {
            return if old.is_empty() { self.text[node.start..node.end].to_owned() } else { format!("{open}{close}") };
        }
        let inside_end = node.end - close.len_utf8();
        // What stands before the closing bracket: the last slot's trailing space, or the empty
        // container's inside.
        let closing = match old.last() {
            Some(last) => self.text[last.value.end..last.trail_end].to_owned(),
            None => self.text[node.start + open.len_utf8()..inside_end].to_owned(),
        };
        let closing = if multiline && !closing.contains('\n') {
            format!("{}{}", self.newline, line_indent(self.text, node.start))
        } else {
            closing
        };
        let last = old.last().map(|slot| slot.start);
        let mut pieces: Vec<String> = kept
            .into_iter()
            .map(|(lead, body, slot)| {
                let trail = if Some(slot.start) == last { "" } else { &self.text[slot.value.end..slot.trail_end] };
                format!("{lead}{body}{trail}")
            })
            .collect();
        pieces.extend(added.into_iter().map(|(lead, body)| format!("{lead}{body}")));
        format!("{open}{}{closing}{close}", pieces.join(","))
    }

    fn lead(&self, slot: &Slot) -> &str {
        &self.text[slot.lead_start..slot.start]
    }

    /// What precedes a slot added to `node`: as before its last slot, else a line of its own
    /// one step in (or nothing, on one line).
    fn new_lead(&self, node: &Node, slots: &[Slot], multiline: bool) -> String {
        match slots.last() {
            Some(last) => self.lead(last).to_owned(),
            None if multiline => format!("{}{}{}", self.newline, line_indent(self.text, node.start), self.unit),
            None => String::new(),
        }
    }
}

/// The whitespace that starts the line `at` is on.
fn line_indent(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    text[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// One step of indentation: the first indented line's (a tab, or its spaces), else two spaces.
fn indent_unit(text: &str) -> String {
    for line in text.lines() {
        let indent: String = line.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        if !indent.is_empty() && indent.len() < line.trim_end().len() {
            return if indent.starts_with('\t') { "\t".to_owned() } else { indent };
        }
    }
    "  ".to_owned()
}

/// Finds where each value, member and element of a JSON text is.
struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.at < self.bytes.len() && matches!(self.bytes[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > DEPTH_MAX {
            return None;
        }
        let start = self.at;
        let kind = match self.peek()? {
            b'{' => Kind::Object(self.slots(b'}', true, depth)?),
            b'[' => Kind::Array(self.slots(b']', false, depth)?),
            b'"' => {
                self.string()?;
                Kind::Scalar
            }
            _ => {
                while self.peek().is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')) {
                    self.at += 1;
                }
                if self.at == start {
                    return None;
                }
                Kind::Scalar
            }
        };
        Some(Node { start, end: self.at, kind })
    }

    /// The slots of an object (`keyed`) or array, from its opening bracket past its `close`.
    fn slots(&mut self, close: u8, keyed: bool, depth: usize) -> Option<Vec<Slot>> {
        self.at += 1;
        let mut slots = Vec::new();
        let mut lead_start = self.at;
        self.skip_space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Some(slots);
        }
        loop {
            let start = self.at;
            let mut key_end = start;
            let key = if keyed {
                key_end = self.string()?;
                let key =
                    serde_json::from_str::<String>(std::str::from_utf8(&self.bytes[start..key_end]).ok()?).ok()?;
                self.skip_space();
                if self.peek() != Some(b':') {
                    return None;
                }
                self.at += 1;
                self.skip_space();
                Some(key)
            } else {
                None
            };
            let value = self.value(depth + 1)?;
            self.skip_space();
            let trail_end = self.at;
            slots.push(Slot { lead_start, start, key, key_end, value, trail_end });
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    lead_start = self.at;
                    self.skip_space();
                }
                b if b == close => {
                    self.at += 1;
                    return Some(slots);
                }
                _ => return None,
            }
        }
    }

    /// Skips a string from its opening quote; where it ends.
    fn string(&mut self) -> Option<usize> {
        if self.peek() != Some(b'"') {
            return None;
        }
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(self.at);
                }
                _ => self.at += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Adds `beckon` entries as setup would, checks the rest of `text` is untouched, and that
    /// taking them out gives back `text`.
    fn round_trip(text: &str) -> String {
        let original: Value = serde_json::from_str(text).unwrap();
        let mut added = original.clone();
        added["mcpServers"]["beckon"] = json!({"command": "/usr/bin/beckon", "args": ["mcp"]});
        added["hooks"]["permissionRequest"] = json!([{"type": "command", "bash": "beckon hook copilot"}]);
        let with = render(text, &added);
        assert_eq!(serde_json::from_str::<Value>(&with).unwrap(), added, "{with}");
        assert_eq!(render(&with, &original), text, "taken out again:\n{with}");
        with
    }

    #[test]
    fn a_persons_layout_survives_and_taking_beckon_out_gives_back_the_bytes() {
        let four = "{\n    \"banner\": \"never\",\n    \"trustedFolders\": [\"/home/ada/shop\"]\n}";
        let with = round_trip(four);
        assert!(with.starts_with("{\n    \"banner\": \"never\",\n    \"trustedFolders\": [\"/home/ada/shop\"],\n    \"mcpServers\": {\n        \"beckon\": {\n            \"command\""), "{with}");
        assert!(with.ends_with("\n}"), "no final newline added: {with:?}");
        round_trip("{\"banner\":\"never\",\"hooks\":{\"preToolUse\":[]}}\n");
        round_trip("{\n\t\"hooks\": {\n\t\t\"preToolUse\": [ {\"bash\": \"true\"} ]\n\t}\n}\r\n");
        round_trip("{}\n");
        round_trip("  {}  ");
        round_trip(
            "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"gh-mcp\"}\n  },\n  \"z\": [1, 2.50, 1e3, \"\\u00e9\\\"\"]\n}\n",
        );
    }

    #[test]
    fn new_entries_follow_the_files_step_and_a_one_line_file_stays_on_one_line() {
        let value = json!({"a": 1, "b": {"c": [true]}});
        assert_eq!(
            render("{\n\t\"a\": 1\n}\n", &value),
            "{\n\t\"a\": 1,\n\t\"b\": {\n\t\t\"c\": [\n\t\t\ttrue\n\t\t]\n\t}\n}\n"
        );
        assert_eq!(render("{\"a\":1}", &value), "{\"a\":1,\"b\":{\"c\":[true]}}");
        assert_eq!(render("{}", &value), "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      true\n    ]\n  }\n}");
    }

    #[test]
    fn elements_are_kept_taken_out_and_replaced_in_place() {
        let text = "[\n  {\"x\": 1},\n  {\"y\": 2},\n  {\"z\": 3}\n]";
        assert_eq!(render(text, &json!([{"x": 1}, {"z": 3}])), "[\n  {\"x\": 1},\n  {\"z\": 3}\n]");
        assert_eq!(
            render(text, &json!([{"x": 1}, {"y": 9}, {"z": 3}])),
            "[\n  {\"x\": 1},\n  {\"y\": 9},\n  {\"z\": 3}\n]"
        );
        assert_eq!(render(text, &json!([])), "[]");
        assert_eq!(render("[]", &json!([])), "[]");
    }

    #[test]
    fn what_cannot_be_followed_is_written_afresh() {
        assert_eq!(render("", &json!({"a": 1})), "{\n  \"a\": 1\n}\n");
        assert_eq!(render("{\"a\": 1} x", &json!({"a": 2})), "{\n  \"a\": 2\n}\n");
        assert_eq!(render("[1]", &json!({"a": 2})), "{\n  \"a\": 2\n}");
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(render(&deep, &json!({})), "{}\n");
    }
}
