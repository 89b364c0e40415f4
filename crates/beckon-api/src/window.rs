//! The window's commands as one typed list: what the window may ask of Beckon, with each
//! command's arguments and reply, the same over IPC in the desktop app and over HTTP on a team
//! server (`POST /v1/window/{command}`).
//!
//! [`window_commands!`](crate::window_commands) writes, from one list, the command enum (read
//! from a name and JSON arguments, written as `{command, args}`), the trait a front end
//! implements to serve them (a method per command, so a command without a handler does not
//! compile), the one `dispatch` from command to method, and the table of replies the
//! TypeScript bindings are generated from. The commands both the desktop app and a team server
//! serve are [`WindowCommand`]; the desktop app adds its own with the same macro.

use beckon_core::Answer;
use serde::{Deserialize, Serialize};

use crate::channels::{ChannelPairingCode, PairedChannel};
use crate::decisions::{AnswerReceipt, BatchDecision, BatchReceipt};
use crate::metrics::Metrics;
use crate::push::{OfPushDevice, PushOffer, PushSubscription};
use crate::questions::{InboxEntry, QuestionRecord};
use crate::sessions::{SessionCursor, SessionPage, SessionView};

/// Writes a set of window commands from one list. Each line is
/// `read|write method = Variant(Arguments) -> Reply;` (with doc comments): `read` commands
/// change nothing, and a team server does not count them against its write limits. Generates:
///
/// - the enum `$commands` (one variant per command, serialised as `{"command", "args"}`), with
///   `NAMES`, `name()`, `reads(name)`, `read(name, args)` and `args()`;
/// - the trait `$handler`, one method per command, that a front end implements;
/// - `$commands::dispatch`, running a command through a handler into `$reply` (the reply,
///   serialised as itself);
/// - the struct `$replies`, a field per command naming its reply, for the TypeScript bindings.
///
/// Attributes before `commands` go on the enum and the replies struct (the TypeScript derive).
#[macro_export]
macro_rules! window_commands {
    (
        $(#[$attr:meta])*
        commands $commands:ident, replies $replies:ident, reply $reply:ident, handler $handler:ident;
        $(
            $(#[doc = $doc:literal])*
            $access:ident $method:ident = $variant:ident($args:ty) -> $out:ty;
        )*
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, ::serde::Serialize)]
        #[serde(tag = "command", content = "args", rename_all = "snake_case")]
        pub enum $commands {
            $( $(#[doc = $doc])* $variant($args), )*
        }

        impl $commands {
            /// Every command's name, as the window sends it.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($method)),*];

            /// The command's name, as the window sends it.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => stringify!($method), )*
                }
            }

            /// Whether the command named `name` only reads (`None`: no such command here).
            pub fn reads(name: &str) -> Option<bool> {
                match name {
                    $( stringify!($method) => Some($crate::window_commands!(@reads $access)), )*
                    _ => None,
                }
            }

            /// The command named `name` with arguments `args` (JSON; `null` is none), or `None`
            /// when there is no command of that name here.
            pub fn read(name: &str, args: ::serde_json::Value) -> Result<Option<Self>, ::serde_json::Error> {
                let args = if args.is_null() { ::serde_json::Value::Object(Default::default()) } else { args };
                Ok(match name {
                    $( stringify!($method) => Some(Self::$variant(::serde_json::from_value(args)?)), )*
                    _ => None,
                })
            }

            /// The command's arguments as JSON, as the window sends them.
            pub fn args(&self) -> Result<::serde_json::Value, ::serde_json::Error> {
                match self {
                    $( Self::$variant(args) => ::serde_json::to_value(args), )*
                }
            }

            /// Runs the command through `handler`.
            pub async fn dispatch<H: $handler + Sync>(self, handler: &H) -> Result<$reply, H::Error> {
                match self {
                    $( Self::$variant(args) => handler.$method(args).await.map($reply::$variant), )*
                }
            }
        }

        /// What serves the commands: one method per command.
        pub trait $handler {
            /// How a command fails.
            type Error;
            $(
                $(#[doc = $doc])*
                fn $method(&self, args: $args) -> impl ::std::future::Future<Output = Result<$out, Self::Error>> + Send;
            )*
        }

        /// A command's reply, serialised as itself.
        // Made, written out and dropped at once: never held, so its size does not matter.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, ::serde::Serialize)]
        #[serde(untagged)]
        pub enum $reply {
            $( $(#[doc = $doc])* $variant($out), )*
        }

        /// Each command's reply, by the command's name: read only by the TypeScript bindings.
        $(#[$attr])*
        #[derive(Debug)]
        #[allow(dead_code)]
        pub struct $replies {
            $( $(#[doc = $doc])* pub $method: $out, )*
        }
    };
    (@reads read) => { true };
    (@reads write) => { false };
}

crate::window_commands! {
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    commands WindowCommand, replies WindowReplies, reply WindowReply, handler Window;

    /// The inbox, sessions and figures the window starts with.
    read bootstrap = Bootstrap(NoArgs) -> WindowSnapshot;
    /// A page of sessions, newest first.
    read list_sessions = ListSessions(ListSessions) -> SessionPage;
    /// A session with its timeline and questions.
    read get_session = GetSession(OfSession) -> SessionView;
    /// A question whole (the inbox's list holds only its line until it is opened).
    read get_question = GetQuestion(OfQuestion) -> QuestionRecord;
    /// Answers a question.
    write answer = Answer(AnswerQuestion) -> AnswerReceipt;
    /// Declines a question.
    write decline = Decline(DeclineQuestion) -> AnswerReceipt;
    /// Decides many questions at once: each as it would be alone, those that cannot be listed
    /// with why.
    write answer_batch = AnswerBatch(AnswerBatch) -> BatchReceipt;
    /// Cancels a session.
    write cancel = Cancel(CancelSession) -> ();
    /// Answering figures.
    read metrics = Metrics(NoArgs) -> Metrics;
    /// On a team server: the channels the person may pair their own account on, and theirs.
    read paired_channels = PairedChannels(NoArgs) -> Vec<PairedChannel>;
    /// On a team server: a code for the person to send the channel's bot from their account.
    write pair_channel = PairChannel(OfChannel) -> ChannelPairingCode;
    /// On a team server: unpairs the person's account on the channel.
    write unpair_channel = UnpairChannel(OfChannel) -> Vec<PairedChannel>;
    /// On a team server: the key a browser subscribes to the server's pushes with.
    read push_offer = PushOffer(NoArgs) -> PushOffer;
    /// On a team server: pushes the person's questions to this browser, for as long as they
    /// stay signed in here.
    write add_push_device = AddPushDevice(PushSubscription) -> ();
    /// On a team server: stops pushing to this browser.
    write remove_push_device = RemovePushDevice(OfPushDevice) -> ();
}

/// What a window draws at start — the inbox, the newest sessions and the figures — and the
/// seq it is complete up to (events after it follow).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WindowSnapshot {
    /// The snapshot is complete up to this event; follow events after it.
    pub last_seq: i64,
    /// Every pending question's line in the inbox's list, oldest first (a question is fetched
    /// whole when it is opened).
    pub pending: Vec<InboxEntry>,
    /// The newest top-level sessions.
    pub sessions: SessionPage,
    /// Answering figures.
    pub metrics: Metrics,
}

/// No arguments.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Which page of sessions.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListSessions {
    /// Where the previous page ended; the first page without it.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub after: Option<SessionCursor>,
    /// How many sessions at most (100 unless said).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub limit: Option<usize>,
}

/// A session, by its id.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfSession {
    /// The session's id.
    pub session_id: String,
}

/// A question, by its id.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfQuestion {
    /// The question's id.
    pub request_id: String,
}

/// Where the person acted, when not in the window itself: the desktop app answering a team
/// inbox's question from its notification says so, for the record.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// The window.
    Window,
    /// A notification.
    Notification,
}

/// An answer to a question.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnswerQuestion {
    /// The question's id.
    pub request_id: String,
    /// One answer per sub-question.
    pub answers: Vec<Answer>,
    /// Where the person answered, when not in the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub via: Option<Place>,
}

/// A question declined.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeclineQuestion {
    /// The question's id.
    pub request_id: String,
    /// Why, for the agent.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reason: Option<String>,
    /// Where the person declined, when not in the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub via: Option<Place>,
}

/// A session cancelled.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CancelSession {
    /// The session's id.
    pub session_id: String,
    /// Why.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reason: Option<String>,
}

/// Many questions decided at once.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnswerBatch {
    /// The questions' ids.
    pub request_ids: Vec<String>,
    /// What to do with each.
    pub decision: BatchDecision,
}

/// A channel, by name (`slack`, `telegram`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfChannel {
    /// The channel's name.
    pub channel: String,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_command_is_read_from_its_name_and_arguments_and_written_back_the_same() {
        let args = json!({"requestId": "r1", "answers": [{"selected": ["Yes"]}]});
        let command = WindowCommand::read("answer", args.clone()).unwrap().unwrap();
        assert_eq!(command.name(), "answer");
        assert_eq!(command.args().unwrap(), args);
        assert_eq!(serde_json::to_value(&command).unwrap(), json!({"command": "answer", "args": args}));
    }

    #[test]
    fn no_arguments_may_be_null_or_empty_but_nothing_else() {
        for none in [json!(null), json!({})] {
            let read = WindowCommand::read("metrics", none).unwrap().unwrap();
            assert_eq!(serde_json::to_value(read).unwrap(), json!({"command": "metrics", "args": {}}));
        }
        assert!(WindowCommand::read("metrics", json!({"x": 1})).is_err());
        assert!(WindowCommand::read("get_question", json!({"requestId": "r1", "reason": "x"})).is_err());
    }

    #[test]
    fn an_unknown_name_is_no_command_here() {
        assert!(WindowCommand::read("get_settings", json!({})).unwrap().is_none());
        assert_eq!(WindowCommand::reads("get_settings"), None);
    }

    #[test]
    fn every_name_is_its_variants_serialised_name() {
        // The enum's serde names (which the TypeScript bindings carry) and the names read must
        // agree: each name read back writes the same name.
        assert_eq!(WindowCommand::NAMES.len(), 15);
        for name in WindowCommand::NAMES {
            let reads = WindowCommand::reads(name).unwrap();
            assert_eq!(
                reads,
                [
                    "bootstrap",
                    "list_sessions",
                    "get_session",
                    "get_question",
                    "metrics",
                    "paired_channels",
                    "push_offer"
                ]
                .contains(name),
                "{name}"
            );
        }
        let samples = [
            WindowCommand::Bootstrap(NoArgs {}),
            WindowCommand::ListSessions(ListSessions::default()),
            WindowCommand::GetSession(OfSession { session_id: "s".into() }),
            WindowCommand::GetQuestion(OfQuestion { request_id: "r".into() }),
            WindowCommand::PairChannel(OfChannel { channel: "slack".into() }),
            WindowCommand::UnpairChannel(OfChannel { channel: "slack".into() }),
            WindowCommand::PairedChannels(NoArgs {}),
            WindowCommand::PushOffer(NoArgs {}),
            WindowCommand::RemovePushDevice(OfPushDevice { endpoint: "https://push.example/1".into() }),
            WindowCommand::Metrics(NoArgs {}),
            WindowCommand::Cancel(CancelSession { session_id: "s".into(), reason: None }),
        ];
        for command in samples {
            let written = serde_json::to_value(&command).unwrap();
            assert_eq!(written["command"], command.name());
            let again = WindowCommand::read(command.name(), written["args"].clone()).unwrap().unwrap();
            assert_eq!(serde_json::to_value(again).unwrap(), written);
        }
    }
}
