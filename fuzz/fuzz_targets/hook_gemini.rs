//! Gemini CLI's hook input as `beckon hook gemini` reads it: the bytes before the first NUL,
//! read as the JSON event on the hook's stdin, go through `notice::notice_change`, with the
//! bytes after it (when they are text) as `GEMINI_PROJECT_DIR`.
//!
//! Invariants: only a permission prompt posts a notice, and only the session going on clears
//! one; the key groups one Gemini session; a notice posted is one Beckon takes (its message
//! and project within their bounds, with no control or bidi character that would let a
//! command read in another order than it runs), and tells the person where to answer.

#![no_main]

mod hook_checks;

use beckon_agents::gemini::notice::{AGENT, NoticeChange, notice_change};
use hook_checks::{check_notice, split};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Some((event, rest)) = split(bytes) else { return };
    let project_dir = rest.and_then(|rest| std::str::from_utf8(rest).ok());
    let Some(change) = notice_change(&event, project_dir) else { return };
    check_notice(&change, AGENT);
    let name = event["hook_event_name"].as_str().expect("a change for an event without a name");
    match &change {
        NoticeChange::Post { body, .. } => {
            assert_eq!(name, "Notification");
            assert_eq!(event["notification_type"], "ToolPermission");
            let message = body["message"].as_str().expect("a notice's message");
            assert!(message.ends_with(". Answer it in Gemini CLI's terminal."), "{message:?}");
        }
        NoticeChange::Clear { .. } => {
            assert!(matches!(name, "AfterTool" | "BeforeAgent" | "SessionEnd"), "{name:?} clears the notice");
        }
    }
});
