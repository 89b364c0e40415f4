//! Gemini CLI's permission prompts as Beckon notices. Gemini lets no hook approve a tool call,
//! so Beckon cannot answer these prompts; what it can do is tell the person, wherever they are,
//! that Gemini waits for them and for what. Its `Notification` hook (`ToolPermission`) fires as
//! the prompt appears (a command, an edit, an MCP tool, a fetch, or a question of Gemini's own
//! `ask_user` tool) and names what is asked; the events that show the session going on take the
//! notice away:
//!
//! - `AfterTool`: the call ran, so it was allowed;
//! - `BeforeAgent`: the person typed the next prompt (a refused call ends the turn, and Gemini
//!   tells no hook of that; this is the first word after it);
//! - `SessionEnd`: the session is over.
//!
//! Pure: the caller reads stdin, talks to Beckon and prints what Gemini expects.

use serde_json::{Value, json};

use crate::notice::{MESSAGE_MAX_BYTES, PROJECT_MAX_BYTES, shown};

/// Who waits, as Beckon's inbox shows it.
pub const AGENT: &str = "gemini";
/// The name people know it by, in the notice's words.
const TITLE: &str = "Gemini CLI";
/// Longest session id used in a notice key.
const SESSION_KEY_MAX: usize = 150;
/// Most of a command, path or URL quoted in a notice, in bytes (a notice's message holds 1024,
/// and is cut to fit when it quotes two).
const QUOTED_MAX_BYTES: usize = 600;

pub use crate::notice::NoticeChange;

/// What `event` changes, if anything. `project_dir` is Gemini's `GEMINI_PROJECT_DIR`, used when
/// the event names no `cwd`.
pub fn notice_change(event: &Value, project_dir: Option<&str>) -> Option<NoticeChange> {
    let key = session_key(event)?;
    match event.get("hook_event_name")?.as_str()? {
        "Notification" if event.get("notification_type").and_then(Value::as_str) == Some("ToolPermission") => {
            // What is asked is cut further when it quotes two names (an MCP tool and its
            // server), so that the whole message fits: Beckon refuses a longer one, and then
            // nobody is told.
            let tail = format!(". Answer it in {TITLE}'s terminal.");
            let message = format!("{}{tail}", shown(&asked(event), MESSAGE_MAX_BYTES - tail.len()));
            let mut body = json!({"agent": AGENT, "message": message});
            let project = event.get("cwd").and_then(Value::as_str).or(project_dir).filter(|p| !p.trim().is_empty());
            if let Some(project) = project {
                body["project"] = json!(shown(project, PROJECT_MAX_BYTES));
            }
            Some(NoticeChange::Post { key, body })
        }
        "AfterTool" | "BeforeAgent" | "SessionEnd" => Some(NoticeChange::Clear { key }),
        _ => None,
    }
}

/// What Gemini asks permission for, from the prompt's `details`.
fn asked(event: &Value) -> String {
    let details = event.get("details").unwrap_or(&Value::Null);
    let text = |key: &str| details.get(key).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    let quoted = |text: &str| shown(text, QUOTED_MAX_BYTES);
    let kind = details.get("type").and_then(Value::as_str).unwrap_or_default();
    let urls: Vec<&str> =
        details.get("urls").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let said = match kind {
        "exec" => text("command").map(|command| format!("{TITLE} asks to run `{}`", quoted(command))),
        "edit" => text("filePath").or(text("fileName")).map(|file| format!("{TITLE} asks to change {}", quoted(file))),
        "mcp" => text("toolName").or(text("toolDisplayName")).map(|tool| match text("serverName") {
            Some(server) => format!("{TITLE} asks to use {} of the MCP server {}", quoted(tool), quoted(server)),
            None => format!("{TITLE} asks to use {}", quoted(tool)),
        }),
        // Gemini's own question tool: its questions are not in the details, and are answered
        // in the terminal too.
        "ask_user" => Some(format!("{TITLE} asks you a question")),
        "info" if !urls.is_empty() => Some(format!("{TITLE} asks to fetch {}", quoted(&urls.join(", ")))),
        _ => None,
    };
    said.unwrap_or_else(|| match text("title") {
        Some(title) => format!("{TITLE} asks for permission: {}", quoted(title)),
        None => format!("{TITLE} asks for permission"),
    })
}

/// The notice key of one Gemini session.
fn session_key(event: &Value) -> Option<String> {
    let id = event.get("session_id")?.as_str()?;
    let fits = !id.is_empty()
        && id.len() <= SESSION_KEY_MAX
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    fits.then(|| format!("{AGENT}:{id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, extra: Value) -> Value {
        let mut event = json!({"hook_event_name": name, "session_id": "4010bf6a-5445", "cwd": "/home/ada/shop",
            "transcript_path": "/home/ada/.gemini/tmp/x", "timestamp": "2026-11-25T20:22:54.658Z"});
        for (key, value) in extra.as_object().unwrap() {
            event[key] = value.clone();
        }
        event
    }

    fn permission(details: Value) -> Value {
        event(
            "Notification",
            json!({"notification_type": "ToolPermission", "message": "Tool requires confirmation", "details": details}),
        )
    }

    fn message(change: Option<NoticeChange>) -> String {
        match change {
            Some(NoticeChange::Post { body, .. }) => body["message"].as_str().unwrap().to_owned(),
            other => panic!("no notice: {other:?}"),
        }
    }

    #[test]
    fn a_shell_prompt_is_a_notice_naming_the_command_and_the_project() {
        let prompt = permission(json!({"type": "exec", "title": "Confirm Shell Command",
            "command": "echo GEM > marker.txt; echo ran", "rootCommand": "echo, redirection (>), echo"}));
        assert_eq!(
            notice_change(&prompt, Some("/elsewhere")),
            Some(NoticeChange::Post {
                key: "gemini:4010bf6a-5445".into(),
                body: json!({"agent": "gemini",
                    "message": "Gemini CLI asks to run `echo GEM > marker.txt; echo ran`. Answer it in Gemini CLI's terminal.",
                    "project": "/home/ada/shop"}),
            })
        );
        let mut without_cwd = prompt.clone();
        without_cwd.as_object_mut().unwrap().remove("cwd");
        let Some(NoticeChange::Post { body, .. }) = notice_change(&without_cwd, Some("/home/ada/shop")) else {
            panic!("still a notice")
        };
        assert_eq!(body["project"], "/home/ada/shop", "GEMINI_PROJECT_DIR stands in");
        let Some(NoticeChange::Post { body, .. }) = notice_change(&without_cwd, None) else { panic!("still a notice") };
        assert!(body.get("project").is_none());
    }

    #[test]
    fn other_prompts_say_what_is_asked() {
        let edit =
            permission(json!({"type": "edit", "title": "Confirm Edit", "fileName": "a.rs", "filePath": "/s/a.rs"}));
        assert_eq!(
            message(notice_change(&edit, None)),
            "Gemini CLI asks to change /s/a.rs. Answer it in Gemini CLI's terminal."
        );
        let mcp = permission(json!({"type": "mcp", "title": "Confirm MCP Tool", "serverName": "github",
            "toolName": "create_issue", "toolDisplayName": "mcp_github_create_issue"}));
        assert!(
            message(notice_change(&mcp, None))
                .starts_with("Gemini CLI asks to use create_issue of the MCP server github.")
        );
        let fetch = permission(json!({"type": "info", "title": "Confirm Web Fetch", "prompt": "p",
            "urls": ["https://a.example", "https://b.example"]}));
        assert!(
            message(notice_change(&fetch, None))
                .starts_with("Gemini CLI asks to fetch https://a.example, https://b.example.")
        );
        let question = permission(json!({"type": "ask_user", "title": "Ask User"}));
        assert_eq!(
            message(notice_change(&question, None)),
            "Gemini CLI asks you a question. Answer it in Gemini CLI's terminal."
        );
        let unknown = permission(json!({"type": "exit_plan_mode", "title": "Ready to build?"}));
        assert!(message(notice_change(&unknown, None)).starts_with("Gemini CLI asks for permission: Ready to build?."));
        let bare = permission(json!({}));
        assert!(message(notice_change(&bare, None)).starts_with("Gemini CLI asks for permission."));
    }

    #[test]
    fn a_command_is_shown_as_sent_and_cut_to_fit() {
        let tricky = permission(json!({"type": "exec", "command": "rm\t-rf x\u{202E}txt.exe\r\nls"}));
        let text = message(notice_change(&tricky, None));
        assert!(text.contains("`rm\\u{9}-rf x\\u{202e}txt.exe\\u{d}\nls`"), "{text}");
        let long = permission(json!({"type": "exec", "command": "é".repeat(2000)}));
        let text = message(notice_change(&long, None));
        assert!(text.len() <= 1024, "{}", text.len());
        assert!(text.contains("é…`"), "{text}");
    }

    #[test]
    fn a_tool_and_its_server_both_long_still_fit_in_a_notice() {
        let mcp = permission(json!({"type": "mcp", "serverName": "s".repeat(700), "toolName": "t".repeat(700)}));
        let text = message(notice_change(&mcp, None));
        assert!(text.len() <= MESSAGE_MAX_BYTES, "a message of {} bytes", text.len());
        assert!(text.starts_with("Gemini CLI asks to use ttt"), "{text}");
        assert!(text.ends_with("…. Answer it in Gemini CLI's terminal."), "{text}");
    }

    #[test]
    fn the_session_going_on_clears_its_notice_and_other_events_change_nothing() {
        let clear = Some(NoticeChange::Clear { key: "gemini:4010bf6a-5445".into() });
        let after = event("AfterTool", json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}));
        assert_eq!(notice_change(&after, None), clear);
        assert_eq!(notice_change(&event("BeforeAgent", json!({"prompt": "go on"})), None), clear);
        assert_eq!(notice_change(&event("SessionEnd", json!({"reason": "exit"})), None), clear);
        for name in ["BeforeTool", "SessionStart", "AfterAgent"] {
            assert_eq!(notice_change(&event(name, json!({})), None), None, "{name}");
        }
        let other = event("Notification", json!({"notification_type": "Other", "message": "m"}));
        assert_eq!(notice_change(&other, None), None);
        let mut foreign = event("BeforeAgent", json!({}));
        foreign["session_id"] = json!("../../v1/questions");
        assert_eq!(notice_change(&foreign, None), None, "a session id that is no key is not used");
    }
}
