//! Answers as a front end received them — already typed, as JSON, or as one text per question
//! — read against their question in one place, into one [`Answers`].

use serde_json::Value;

use super::Answers;
use crate::problem::Problems;
use crate::question::QuestionRequest;

/// Answers as a front end received them, before they are read against their question.
#[derive(Debug, Clone, PartialEq)]
pub enum GivenAnswers {
    /// Already in their typed form (the window, a rule, a channel's buttons).
    Typed(Answers),
    /// As JSON: an array, one entry per question; a plain string entry is read as a label or
    /// "Other" text (the HTTP API, MCP). Problems are reported by path.
    Json(Value),
    /// One text per question (the CLI's and notification buttons' form): labels select
    /// options, other text becomes the "Other" answer.
    Texts(Vec<String>),
}

impl GivenAnswers {
    /// The answers, read against `request` and checked to fit it.
    pub fn read(self, request: &QuestionRequest) -> Result<Answers, Problems> {
        match self {
            GivenAnswers::Typed(answers) => Ok(answers),
            GivenAnswers::Json(value) => Answers::parse(&value, request),
            GivenAnswers::Texts(texts) => Answers::from_texts(request, &texts),
        }
    }
}

impl From<Answers> for GivenAnswers {
    fn from(answers: Answers) -> GivenAnswers {
        GivenAnswers::Typed(answers)
    }
}
