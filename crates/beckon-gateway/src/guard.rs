//! Every request passes here first: over TCP the Host must be a loopback name, or a team
//! server's public URL or own address (DNS-rebinding defence), browsers' cross-origin requests are refused, the bearer token must be the person's
//! or a live ask-only token's (which names the request's [`Principal`]), the principal must be
//! allowed the route (see [`crate::permissions`]), bodies are bounded, and writes are
//! rate-limited per connection and overall.
//!
//! The Host check stays as it is for tokens: an agent on another machine reaches the gateway
//! through `ssh -R <port>:127.0.0.1:<port>`, so it connects to its own loopback on the same
//! port, and its Host (`127.0.0.1:<port>` or `localhost:<port>`) passes. The forwarded port must
//! be the same number on both ends; `beckon remote ssh` prints it so. Letting a token through
//! with any port would weaken the rebinding defence and buy nothing the tunnel needs.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::bodies::parse_id;
use crate::error::ApiError;
use crate::permissions::{self, Access, Route};
use crate::principal::Principal;
use crate::serve::{ConnectionId, Transport};
use crate::state::Shared;
use beckon_runtime::api::ErrorKind;

fn loopback_host(host: &str, port: u16) -> bool {
    let name = match host.rsplit_once(':') {
        // "[::1]:7393", "127.0.0.1:7393", "localhost:7393"
        Some((name, given)) if !name.ends_with(':') && given.chars().all(|c| c.is_ascii_digit()) => {
            if given.parse::<u16>().ok() != Some(port) {
                return false;
            }
            name
        }
        _ => host,
    };
    matches!(name.to_ascii_lowercase().as_str(), "127.0.0.1" | "localhost" | "[::1]")
}

/// Compares tokens in constant time.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION)?.to_str().ok()?.strip_prefix("Bearer ").map(str::trim)
}

/// The gate.
pub async fn guard(State(shared): State<Arc<Shared>>, mut request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    // The Host check keeps web pages out: a page whose name a rebinding DNS points at 127.0.0.1
    // reaches the TCP port with its own name as Host. No browser can connect to a Unix socket,
    // and no one but the person's own processes can open this one, so over the socket the Host
    // is whatever the client put there (`localhost` by convention) and means nothing to check.
    // A request the server did not mark came over TCP, and is checked.
    let transport = request.extensions().get::<Transport>().copied().unwrap_or(Transport::Loopback);
    let named = loopback_host(host, shared.port)
        || shared.public_url.as_ref().is_some_and(|public| public.is_host(host))
        || shared.own_host.as_deref().is_some_and(|own| own.eq_ignore_ascii_case(host));
    if transport == Transport::Loopback && !named {
        return ApiError::new(
            ErrorKind::Forbidden,
            "this gateway only answers requests addressed to 127.0.0.1, localhost or its public URL",
        )
        .into_response();
    }
    let cross_site =
        headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()).is_some_and(|v| v != "same-origin" && v != "none");
    if headers.contains_key(header::ORIGIN) || cross_site {
        return ApiError::new(
            ErrorKind::Forbidden,
            "requests from web pages are refused; call the gateway from a program",
        )
        .into_response();
    }
    let principal = match bearer(headers) {
        // The proof route is how a client checks the server before trusting it with the token.
        _ if request.uri().path() == crate::proof::PROOF_PATH && request.method() == Method::GET => None,
        Some(token) if same(token.as_bytes(), shared.token.as_bytes()) => Some(Principal::Person),
        // A team server's admin token acts for the person on every replica.
        Some(token) if shared.beckon.is_admin_token(token) => Some(Principal::Person),
        Some(token) => match shared.beckon.token_holder(token) {
            Some(holder) => Some(Principal::AskOnly { token: holder }),
            None => {
                return unauthorized(
                    "the bearer token is wrong, or was revoked; read the current one from gateway.json in Beckon's data folder, or ask the person for a new token",
                );
            }
        },
        None => {
            return unauthorized(
                "an Authorization: Bearer <token> header is required (the token is in gateway.json in Beckon's data folder)",
            );
        }
    };
    if let Some(principal) = principal {
        let route = Route::of(request.method(), request.uri().path());
        match permissions::decide(&route, &principal) {
            Access::Allowed => {}
            Access::OwnQuestion(id) => {
                if let Err(refused) = own_question(&shared, &principal, &id).await {
                    return refused.into_response();
                }
            }
            Access::Forbidden => {
                return ApiError::new(
                    ErrorKind::Forbidden,
                    "an ask-only token may ask questions and read or withdraw the ones it asked, nothing else; this needs the person's token",
                )
                .into_response();
            }
        }
        request.extensions_mut().insert(principal);
    }
    // Requests reach the guard only through the gateway's own server, which names the
    // connection; one that somehow does not shares connection 0's bucket.
    let connection = request.extensions().get::<ConnectionId>().copied().unwrap_or(ConnectionId(0));
    if matches!(*request.method(), Method::POST | Method::PUT | Method::DELETE)
        && let Err(wait) = shared.rate.take(connection, std::time::Instant::now())
    {
        return ApiError::too_many(wait).into_response();
    }
    // Bodies are read whole by the handlers; bound them here with a clear 413.
    let (parts, body) = request.into_parts();
    let declared =
        parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > shared.body_limit) {
        return too_large(shared.body_limit);
    }
    let bytes = match tokio::time::timeout(shared.body_timeout, axum::body::to_bytes(body, shared.body_limit)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return too_large(shared.body_limit),
        Err(_) => {
            return ApiError::new(
                ErrorKind::BodyTimeout,
                format!("the request body did not arrive within {} s", shared.body_timeout.as_secs_f64()),
            )
            .into_response();
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// Refuses a question `principal` did not ask as if there were no such question, so a token
/// cannot tell another's question from none.
async fn own_question(shared: &Shared, principal: &Principal, id: &str) -> Result<(), ApiError> {
    let Principal::AskOnly { token } = principal else { return Ok(()) };
    let id = parse_id(id)?;
    if shared.beckon.asked_by_token(id, token.id).await? {
        Ok(())
    } else {
        Err(ApiError::from(beckon_runtime::Error::QuestionNotFound(id)))
    }
}

fn unauthorized(message: &str) -> Response {
    let mut response = ApiError::new(ErrorKind::Unauthorized, message).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
    response
}

fn too_large(limit: usize) -> Response {
    ApiError::new(ErrorKind::TooLarge, format!("the request body is larger than {limit} bytes")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_on_our_port_pass() {
        for good in ["127.0.0.1:7393", "localhost:7393", "LOCALHOST:7393", "[::1]:7393", "127.0.0.1", "localhost"] {
            assert!(loopback_host(good, 7393), "{good}");
        }
        for bad in
            ["evil.com", "evil.com:7393", "127.0.0.1:80", "127.0.0.1.evil.com", "localhost.evil:7393", "", "[::1]:1"]
        {
            assert!(!loopback_host(bad, 7393), "{bad}");
        }
    }

    #[test]
    fn tokens_compare_exactly() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }
}
