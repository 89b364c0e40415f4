//! How a person on Telegram is told what became of what they sent.

/// How a person on Telegram is told what became of their press.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// They pressed a button: the press's callback query is answered (a short notice, or an
    /// alert when the answer is refused).
    Button {
        /// The callback query's id.
        query: String,
    },
    /// They replied with text: a reply to their message, unless the answer was accepted (the
    /// question's message shows that).
    Text {
        /// The chat.
        chat: i64,
        /// Their message.
        message: i64,
    },
    /// They sent `/start <code>` with a code from their team inbox's page: told when it paired
    /// the chat, and nothing otherwise (anyone can write to a bot; a stranger learns nothing).
    Pairing {
        /// The chat.
        chat: i64,
    },
}
