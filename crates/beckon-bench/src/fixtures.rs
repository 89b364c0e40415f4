//! The question every store-level figure asks and answers.

use beckon_core::{Answer, Answers, QuestionRequest};
use serde_json::json;

use crate::Failure;

/// A two-question request: single-select with four options, then multi-select.
pub fn request() -> Result<QuestionRequest, Failure> {
    QuestionRequest::parse(&json!({"questions": [
        {"question": "Which style should the poem take?", "header": "Style", "options": [
            {"label": "Free verse", "description": "No fixed metre or rhyme"},
            {"label": "Rhyming", "description": "Rhymed couplets"},
            {"label": "Sonnet", "description": "Fourteen lines"},
            {"label": "Haiku", "description": "Three lines, 5-7-5"}
        ]},
        {"question": "Which tones?", "header": "Tone", "multiSelect": true, "options": [
            {"label": "Warm"}, {"label": "Wry"}, {"label": "Melancholy"}
        ]}
    ]}))
    .map_err(|problems| format!("{problems:?}").into())
}

/// Its answers: Haiku; Warm and Wry.
pub fn answers(request: &QuestionRequest) -> Result<Answers, Failure> {
    Answers::new(vec![Answer::select(["Haiku"]), Answer::select(["Warm", "Wry"])], request)
        .map_err(|problems| format!("{problems:?}").into())
}
