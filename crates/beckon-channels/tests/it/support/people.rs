//! People on a team server, as the channels' tests need them: who the identity provider says
//! they are, and a question their token addresses to them.

use beckon_core::{Audience, QuestionRequest, RequestId};
use beckon_runtime::{Beckon, ExternalAsk};
use beckon_store::SignedIn;

/// A person the provider puts in `eng`, with an email under example.com.
pub fn signed_in(subject: &str, name: &str) -> SignedIn {
    SignedIn {
        subject: subject.into(),
        email: Some(format!("{subject}@example.com")),
        name: Some(name.into()),
        groups: vec!["eng".into()],
    }
}

/// Asks `request` as an agent whose token belongs to `audience`.
pub async fn ask_for(beckon: &Beckon, audience: Audience, request: QuestionRequest) -> RequestId {
    let ask =
        ExternalAsk { agent: "ci".into(), request: Some(request), audience: Some(audience), ..ExternalAsk::default() };
    beckon.ask_external(ask).await.unwrap().request_id
}
