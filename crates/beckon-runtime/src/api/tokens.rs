//! Tokens as front ends show them: a stored token as listed, never its secret. The views
//! themselves ([`TokenView`], `CreatedToken`) are beckon-api's.

use beckon_api::TokenView;
use beckon_store::TokenRecord;

/// A stored token as front ends list it.
pub(crate) fn token_view(record: &TokenRecord) -> TokenView {
    TokenView {
        name: record.name.clone(),
        kind: record.kind,
        created_at_ms: record.created_at_ms,
        last_used_at_ms: record.last_used_at_ms,
        owner: record.owner.as_ref().map(ToString::to_string),
    }
}
