//! What a question's deadline does, one rule for every session: an agent Beckon runs and an
//! agent outside it both fix the policy when they ask, from `on_timeout` and `default_answer`,
//! and both come to the same outcome when it passes.

use crate::agent::OnTimeout;
use crate::{Answers, Outcome, QuestionRequest};

use super::ExpiryPolicy;

/// Why `on_timeout: default` cannot be kept for a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultAnswerProblem {
    /// No default answer was given.
    Missing,
    /// The default answer does not answer every question of the request.
    Unfit,
}

impl DefaultAnswerProblem {
    /// What to tell whoever gave it.
    pub fn message(self) -> &'static str {
        match self {
            Self::Missing => "is required when on_timeout is \"default\"",
            Self::Unfit => "does not answer every question (use an option label, or text that fits each schema)",
        }
    }
}

/// How a question ends when its deadline passes.
#[derive(Debug, Clone, PartialEq)]
pub struct Expired {
    /// The outcome the question resolves with (and the agent reads).
    pub outcome: Outcome,
    /// Whether its session fails (else it goes on with the outcome).
    pub fails: bool,
}

impl ExpiryPolicy {
    /// The policy for one question, from what its asker set: `default_answer` is read against
    /// `request` as `Answers::from_text` reads it.
    pub fn for_question(
        on_timeout: OnTimeout,
        default_answer: Option<&str>,
        request: &QuestionRequest,
    ) -> Result<ExpiryPolicy, DefaultAnswerProblem> {
        match on_timeout {
            OnTimeout::Fail => Ok(ExpiryPolicy::Fail),
            OnTimeout::Decline => Ok(ExpiryPolicy::Decline),
            OnTimeout::Default => {
                let text =
                    default_answer.filter(|text| !text.trim().is_empty()).ok_or(DefaultAnswerProblem::Missing)?;
                let answers = Answers::from_text(request, text).ok_or(DefaultAnswerProblem::Unfit)?;
                Ok(ExpiryPolicy::UseDefault { answers })
            }
        }
    }

    /// What the question comes to when its deadline passes.
    pub fn expired(self) -> Expired {
        match self {
            ExpiryPolicy::Fail => Expired { outcome: Outcome::Expired { default_answer: None }, fails: true },
            ExpiryPolicy::Decline => Expired { outcome: Outcome::Expired { default_answer: None }, fails: false },
            ExpiryPolicy::UseDefault { answers } => {
                Expired { outcome: Outcome::Expired { default_answer: Some(answers) }, fails: false }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn region() -> QuestionRequest {
        QuestionRequest::parse(&json!({"questions": [{"question": "Which region?", "header": "Region",
            "options": [{"label": "eu-west"}, {"label": "us-east"}]}]}))
        .unwrap()
    }

    #[test]
    fn each_setting_gives_its_policy_and_a_default_must_answer_the_question() {
        let request = region();
        assert_eq!(ExpiryPolicy::for_question(OnTimeout::Fail, Some("eu-west"), &request), Ok(ExpiryPolicy::Fail));
        assert_eq!(ExpiryPolicy::for_question(OnTimeout::Decline, None, &request), Ok(ExpiryPolicy::Decline));
        let Ok(ExpiryPolicy::UseDefault { answers }) =
            ExpiryPolicy::for_question(OnTimeout::Default, Some("eu-west"), &request)
        else {
            panic!("a fitting default is used")
        };
        assert_eq!(answers.items()[0].selected, ["eu-west"]);
        assert_eq!(ExpiryPolicy::for_question(OnTimeout::Default, None, &request), Err(DefaultAnswerProblem::Missing));
        assert_eq!(
            ExpiryPolicy::for_question(OnTimeout::Default, Some("  "), &request),
            Err(DefaultAnswerProblem::Missing)
        );
    }

    #[test]
    fn an_expired_question_fails_its_session_only_under_fail() {
        assert!(ExpiryPolicy::Fail.expired().fails);
        let declined = ExpiryPolicy::Decline.expired();
        assert_eq!((declined.outcome, declined.fails), (Outcome::Expired { default_answer: None }, false));
        let Ok(policy) = ExpiryPolicy::for_question(OnTimeout::Default, Some("us-east"), &region()) else {
            panic!("fits")
        };
        let defaulted = policy.expired();
        assert!(!defaulted.fails);
        let Outcome::Expired { default_answer: Some(answers) } = defaulted.outcome else { panic!("with the default") };
        assert_eq!(answers.items()[0].selected, ["us-east"]);
    }
}
