//! Every bound Beckon puts on input, in one place.
//!
//! Byte limits count UTF-8 bytes of the text as given; the header limit counts characters
//! because it is a display width rule inherited from Claude Code's AskUserQuestion.

/// Fewest questions in one `ask_user_question` call.
pub const MIN_QUESTIONS: usize = 1;
/// Most questions in one `ask_user_question` call.
pub const MAX_QUESTIONS: usize = 4;
/// Fewest options of a choice question.
pub const MIN_OPTIONS: usize = 2;
/// Most options of a choice question ("Other" is always offered on top).
pub const MAX_OPTIONS: usize = 4;
/// Longest header, in characters.
pub const HEADER_MAX_CHARS: usize = 12;
/// Longest question text, in bytes.
pub const QUESTION_MAX_BYTES: usize = 2 * 1024;
/// Longest option label (and enum value), in bytes.
pub const LABEL_MAX_BYTES: usize = 200;
/// Longest option or schema description (and schema title), in bytes.
pub const DESCRIPTION_MAX_BYTES: usize = 1024;
/// Longest option preview (a mockup, a code snippet, a comparison), in bytes.
pub const PREVIEW_MAX_BYTES: usize = 8 * 1024;
/// Largest whole request, as compact JSON, in bytes: room for a preview on every option.
pub const REQUEST_MAX_BYTES: usize = 160 * 1024;
/// Longest regular expression in a free-form string schema, in bytes.
pub const PATTERN_MAX_BYTES: usize = 512;
/// Most values of an enum schema.
pub const ENUM_MAX_VALUES: usize = 64;

/// Largest whole answer (every item, comments included), as compact JSON, in bytes.
pub const ANSWER_MAX_BYTES: usize = 32 * 1024;
/// Longest "Other" free-text answer, in bytes.
pub const OTHER_MAX_BYTES: usize = 8 * 1024;
/// Longest comment on an answer, in bytes.
pub const COMMENT_MAX_BYTES: usize = 4 * 1024;
/// Longest free-form string answer, in bytes (a schema's `maxLength` may lower it).
pub const FREE_TEXT_MAX_BYTES: usize = 8 * 1024;
/// Longest reason a person or an agent gives for declining or cancelling, in bytes.
pub const REASON_MAX_BYTES: usize = 1024;

/// Longest chat message a person sends to an agent, in bytes.
pub const USER_MESSAGE_MAX_BYTES: usize = 64 * 1024;

/// Longest `beckon://` link read, in bytes.
pub const LINK_MAX_BYTES: usize = 2048;

/// Attempts at one LLM request before the session fails.
pub const MAX_LLM_ATTEMPTS: u32 = 5;
/// First retry delay after a retryable LLM error; doubled on every further attempt.
pub const LLM_BACKOFF_BASE_MS: u64 = 1_000;
/// Longest delay between two LLM attempts, including a server's `retry-after`.
pub const LLM_BACKOFF_MAX_MS: u64 = 60_000;
