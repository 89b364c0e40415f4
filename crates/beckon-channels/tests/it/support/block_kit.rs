//! A Slack message's blocks drawn as a page that looks like Slack's, for the README's picture
//! of what Beckon posts. It draws the block and element kinds Beckon uses (sections and context
//! in mrkdwn, buttons, radio buttons and check boxes) and reads mrkdwn the way Slack does: the
//! text arrives with `&`, `<` and `>` already escaped, which HTML reads the same way, and
//! `*bold*`, `_italic_` and `` `code` `` become their tags.

use serde_json::Value;

/// `text` in Slack's mrkdwn as HTML.
fn mrkdwn(text: &str) -> String {
    let mut out = String::new();
    let mut open: Vec<char> = Vec::new();
    let tag = |c: char| match c {
        '*' => "b",
        '_' => "i",
        _ => "code",
    };
    for c in text.chars() {
        match c {
            '*' | '_' | '`' if open.last() == Some(&c) => {
                open.pop();
                out.push_str(&format!("</{}>", tag(c)));
            }
            '*' | '_' | '`' => {
                open.push(c);
                out.push_str(&format!("<{}>", tag(c)));
            }
            '\n' => out.push_str("<br>"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    while let Some(c) = open.pop() {
        out.push_str(&format!("</{}>", tag(c)));
    }
    out
}

/// Plain text as HTML.
fn plain(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn text_of(object: &Value) -> String {
    let text = object["text"].as_str().unwrap_or_default();
    if object["type"] == "mrkdwn" { mrkdwn(text) } else { plain(text) }
}

fn element(element: &Value) -> String {
    match element["type"].as_str().unwrap_or_default() {
        "button" => {
            let style = element["style"].as_str().unwrap_or("default");
            format!("<span class=\"button {style}\">{}</span>", text_of(&element["text"]))
        }
        kind @ ("radio_buttons" | "checkboxes") => {
            let mark = if kind == "checkboxes" { "box" } else { "radio" };
            let options: Vec<String> = element["options"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|option| {
                    format!("<div class=\"option\"><span class=\"{mark}\"></span>{}</div>", text_of(&option["text"]))
                })
                .collect();
            format!("<div class=\"choices\">{}</div>", options.join(""))
        }
        "mrkdwn" | "plain_text" => format!("<span>{}</span>", text_of(element)),
        other => format!("<span class=\"unknown\">[{other}]</span>"),
    }
}

fn block(block: &Value) -> String {
    let elements = || block["elements"].as_array().into_iter().flatten().map(element).collect::<Vec<_>>().join("");
    match block["type"].as_str().unwrap_or_default() {
        "section" => format!("<div class=\"section\">{}</div>", text_of(&block["text"])),
        "context" => format!("<div class=\"context\">{}</div>", elements()),
        "actions" => format!("<div class=\"actions\">{}</div>", elements()),
        "header" => format!("<div class=\"header\">{}</div>", text_of(&block["text"])),
        "divider" => "<hr>".to_owned(),
        other => format!("<div class=\"unknown\">[{other}]</div>"),
    }
}

/// One message: the app's name and avatar, then its blocks.
fn message(blocks: &Value, time: &str) -> String {
    let body: Vec<String> = blocks.as_array().into_iter().flatten().map(block).collect();
    format!(
        "<div class=\"message\"><div class=\"avatar\">B</div><div class=\"content\"><div class=\"who\"><b>Beckon</b> <span class=\"app\">APP</span> <span class=\"time\">{time}</span></div>{}</div></div>",
        body.join("")
    )
}

const STYLE: &str = "
body { margin: 0; font: 15px/1.46668 -apple-system, 'Segoe UI', 'Noto Sans', 'DejaVu Sans', sans-serif; color: #1d1c1d; background: #fff; }
.channel { padding: 10px 20px; border-bottom: 1px solid #ddd; font-weight: 900; font-size: 18px; }
.message { display: flex; gap: 8px; padding: 12px 20px; }
.avatar { flex: none; width: 36px; height: 36px; border-radius: 6px; background: #4a3aff; color: #fff; font-weight: 900; display: flex; align-items: center; justify-content: center; }
.content { flex: 1; min-width: 0; }
.who .app { font-size: 10px; background: #e8e8e8; color: #616061; padding: 1px 3px; border-radius: 2px; font-weight: 700; }
.who .time { color: #616061; font-size: 12px; }
.section { margin: 4px 0; }
.context { color: #616061; font-size: 13px; margin: 4px 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 4px; }
.button { border: 1px solid #bbb; border-radius: 4px; padding: 3px 12px; font-weight: 700; font-size: 14px; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.button.danger { color: #e01e5a; border-color: #e01e5a; }
.choices { display: flex; flex-direction: column; gap: 4px; }
.option { display: flex; align-items: center; gap: 8px; }
.radio, .box { width: 14px; height: 14px; border: 1px solid #868686; }
.radio { border-radius: 50%; }
.box { border-radius: 3px; }
code { color: #e01e5a; background: #f8f8f8; border: 1px solid #e8e8e8; border-radius: 3px; padding: 0 3px; font-size: 12px; }
.divider-note { color: #616061; font-size: 12px; padding: 6px 20px 0; }
";

/// A page showing each `(note, blocks, time)` message in turn, in a channel named `channel`.
pub fn page(channel: &str, messages: &[(&str, &Value, &str)]) -> String {
    let shown: Vec<String> = messages
        .iter()
        .map(|(note, blocks, time)| {
            format!("<div class=\"divider-note\">{}</div>{}", plain(note), message(blocks, time))
        })
        .collect();
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><style>{STYLE}</style></head><body><div class=\"channel\"># {}</div>{}</body></html>",
        plain(channel),
        shown.join("")
    )
}
