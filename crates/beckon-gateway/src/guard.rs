//! Every request passes here first: over TCP the Host must be a loopback name, or a team
//! server's public URL or own address (DNS-rebinding defence); web pages are refused, except a
//! signed-in person's page on the team server itself; the bearer token must be the person's or
//! a live ask-only token's, or — on a team server — the browser session's cookie a signed-in
//! person's (which names the request's [`Principal`]); a signed-in page's writes must carry its
//! CSRF token and come from this server's origin; the principal must be allowed the route (see
//! [`crate::permissions`]); bodies are bounded, and writes are rate-limited per connection and
//! overall.
//!
//! The Host check stays as it is for tokens: an agent on another machine reaches the gateway
//! through `ssh -R <port>:127.0.0.1:<port>`, so it connects to its own loopback on the same
//! port, and its Host (`127.0.0.1:<port>` or `localhost:<port>`) passes. The forwarded port must
//! be the same number on both ends; `beckon remote ssh` prints it so. Letting a token through
//! with any port would weaken the rebinding defence and buy nothing the tunnel needs.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::bodies::parse_id;
use crate::cookies::Cookie;
use crate::error::ApiError;
use crate::permissions::{self, Access, Route};
use crate::principal::{Member, Principal};
use crate::serve::{ConnectionId, StrangerConnection, Transport};
use crate::state::Shared;
use crate::strangers::{Peer, Spending};
use beckon_runtime::SignedInSession;
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
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION)?.to_str().ok()?.strip_prefix("Bearer ").map(str::trim)
}

/// The gate.
pub async fn guard(State(shared): State<Arc<Shared>>, mut request: Request, next: Next) -> Response {
    // A load balancer's probes need no credential, tell nothing of anyone's, and may name any
    // Host (a balancer checks a replica by its address, or sends none).
    if Route::of(request.method(), request.uri().path()) == Route::Probe {
        return with_bounded_body(&shared, request, next).await;
    }
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
    let route = Route::of(request.method(), request.uri().path());
    let peer = request.extensions().get::<Peer>().copied().unwrap_or(Peer(None));
    // Signing in needs no credential, and the callback and the app's token route check their
    // own. Each step writes (a sign-in kept, a session opened), so each spends from the
    // caller's address's own budget: never from what tokens and signed-in people share.
    if route == Route::SignIn {
        if let Err(wait) = shared.strangers.spend(peer, Spending::SignIn, Instant::now()) {
            return ApiError::too_many(wait).into_response();
        }
        return with_bounded_body(&shared, request, next).await;
    }
    // The window's page and files are public, where a server serves them to people who sign in.
    if route == Route::Page && shared.window_dir.is_some() {
        return with_bounded_body(&shared, request, next).await;
    }
    let cross_site =
        headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()).is_some_and(|v| v != "same-origin" && v != "none");
    let from_page = headers.contains_key(header::ORIGIN) || cross_site;
    let is_proof = request.uri().path() == crate::proof::PROOF_PATH && request.method() == Method::GET;
    let given = bearer(headers);
    let cookie = shared.sign_in.as_ref().and(shared.cookies.read(headers, Cookie::Session));
    // A web page may only come in as a signed-in person's own page, by their cookie.
    if from_page && (given.is_some() || cookie.is_none() || is_proof) {
        return ApiError::new(
            ErrorKind::Forbidden,
            "requests from web pages are refused; call the gateway from a program, or sign in from this server's own page",
        )
        .into_response();
    }
    let principal = match (given, cookie) {
        // The proof route is how a client checks the server before trusting it with the token.
        _ if is_proof => None,
        (Some(token), _) if same(token.as_bytes(), shared.token.as_bytes()) => Some(Principal::Owner),
        // A team server's admin token acts for the person on every replica.
        (Some(token), _) if shared.beckon.tokens().is_admin(token) => Some(Principal::Owner),
        (Some(token), _) => match shared.beckon.tokens().holder(token) {
            Some(holder) => Some(Principal::AskOnly { token: holder }),
            // The desktop app, connected to a team inbox as a person (`/auth/app`).
            None if shared.sign_in.is_some() => match app_member(&shared, peer, token).await {
                Ok(member) => Some(Principal::Member(member)),
                Err(refused) => return refused,
            },
            None => {
                if let Err(wait) = shared.strangers.spend(peer, Spending::FailedAuthentication, Instant::now()) {
                    return ApiError::too_many(wait).into_response();
                }
                return unauthorized(
                    "the bearer token is wrong, or was revoked; read the current one from gateway.json in Beckon's data folder, or ask the person for a new token",
                );
            }
        },
        (None, Some(cookie)) => {
            match member(&shared, peer, request.method(), request.headers(), &cookie, cross_site).await {
                Ok(member) => Some(Principal::Member(member)),
                Err(refused) => return refused,
            }
        }
        (None, None) => {
            return unauthorized(if shared.sign_in.is_some() {
                "sign in at /auth/login, or send an Authorization: Bearer <token> header"
            } else {
                "an Authorization: Bearer <token> header is required (the token is in gateway.json in Beckon's data folder)"
            });
        }
    };
    if let Some(principal) = principal {
        // Someone known: the connection no longer counts against its address's share.
        if let Some(StrangerConnection(stranger)) = request.extensions().get::<StrangerConnection>() {
            stranger.known();
        }
        match permissions::decide(&route, &principal) {
            Access::Allowed => {}
            Access::OwnQuestion(id) => {
                if let Err(refused) = own_question(&shared, &principal, &id).await {
                    return refused.into_response();
                }
            }
            Access::Forbidden => return ApiError::new(ErrorKind::Forbidden, forbidden(&principal)).into_response(),
            Access::AdminsOnly => {
                let group = shared.sign_in.as_ref().map_or("", |sign_in| sign_in.admin_group.as_str());
                return ApiError::new(
                    ErrorKind::Forbidden,
                    format!("only admins (the identity provider's group \"{group}\") may do this"),
                )
                .into_response();
            }
        }
        if let (Principal::Member(member), Some(target)) = (&principal, route.addressed())
            && let Err(refused) = crate::addressed::check(&shared, member, target).await
        {
            return refused.into_response();
        }
        request.extensions_mut().insert(principal);
    }
    // Requests reach the guard only through the gateway's own server, which names the
    // connection; one that somehow does not shares connection 0's bucket.
    let connection = request.extensions().get::<ConnectionId>().copied().unwrap_or(ConnectionId(0));
    let reads = matches!(&route, Route::Window(command) if crate::window::reads(command));
    if matches!(*request.method(), Method::POST | Method::PUT | Method::DELETE)
        && !reads
        && let Err(wait) = shared.rate.take(connection, std::time::Instant::now())
    {
        return ApiError::too_many(wait).into_response();
    }
    with_bounded_body(&shared, request, next).await
}

/// Runs `request` with its body read whole first, within the size limit (413) and the body's
/// deadline (408): every route's, so that no request — signed in or not — holds its connection
/// by sending its body slowly or never.
async fn with_bounded_body(shared: &Shared, request: Request, next: Next) -> Response {
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
            let late = ApiError::new(
                ErrorKind::BodyTimeout,
                format!("the request body did not arrive within {} s", shared.body_timeout.as_secs_f64()),
            );
            return closing(late.into_response());
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// The person a connected app's session secret stands for. Not a cookie: no page can send it,
/// so no CSRF token is asked.
async fn app_member(shared: &Shared, peer: Peer, secret: &str) -> Result<Member, Response> {
    match known_session(shared, peer, secret).await? {
        Some(session) => {
            Ok(Member { admin: is_admin(shared, &session.person), person: session.person, session: session.id_hash })
        }
        None => {
            Err(unauthorized("the bearer token is wrong, was revoked, or its sign-in has ended; sign the app in again"))
        }
    }
}

/// The open session `secret` names, looked up only while `peer` has failed fewer times than its
/// budget allows and `secret` did not just name no one: so wrong secrets cost no database
/// transaction each.
async fn known_session(shared: &Shared, peer: Peer, secret: &str) -> Result<Option<SignedInSession>, Response> {
    let now = Instant::now();
    if shared.strangers.recently_missed(secret, now) {
        return match shared.strangers.spend(peer, Spending::FailedAuthentication, now) {
            Ok(()) => Ok(None),
            Err(wait) => Err(ApiError::too_many(wait).into_response()),
        };
    }
    if let Err(wait) = shared.strangers.ready(peer, Spending::FailedAuthentication, now) {
        return Err(ApiError::too_many(wait).into_response());
    }
    match shared.beckon.people().session(secret).await {
        Ok(Some(session)) => Ok(Some(session)),
        Ok(None) => {
            shared.strangers.missed(secret, now);
            // The bucket was ready a moment ago; a refusal now only means it just ran out.
            let _ = shared.strangers.spend(peer, Spending::FailedAuthentication, now);
            Ok(None)
        }
        Err(err) => Err(ApiError::from(err).into_response()),
    }
}

fn is_admin(shared: &Shared, person: &beckon_store::SignedIn) -> bool {
    shared.sign_in.as_ref().is_some_and(|sign_in| person.groups.contains(&sign_in.admin_group))
}

/// The signed-in person whose browser session `cookie` is, when the request may act for them:
/// from their server's own page (never another site's), and a write only with the CSRF token
/// that page learnt from `/v1/me`.
async fn member(
    shared: &Shared,
    peer: Peer,
    method: &Method,
    headers: &HeaderMap,
    cookie: &str,
    cross_site: bool,
) -> Result<Member, Response> {
    let Some(session) = known_session(shared, peer, cookie).await? else {
        return Err(unauthorized("your sign-in has ended (signed out or expired); sign in again at /auth/login"));
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let origin = headers.get(header::ORIGIN).map(|v| v.to_str().unwrap_or_default());
    // A person following a link to the server (the sign-in's last redirect, which comes by way
    // of the provider's site) only reads: a top-level GET is let through from anywhere, as
    // SameSite=Lax lets its cookie through.
    let navigation = *method == Method::GET
        && headers.get("sec-fetch-mode").and_then(|v| v.to_str().ok()) == Some("navigate")
        && origin.is_none();
    if (cross_site && !navigation) || origin.is_some_and(|origin| !same_origin(origin, host)) {
        return Err(ApiError::new(ErrorKind::Forbidden, "a request from another site is refused").into_response());
    }
    if matches!(*method, Method::POST | Method::PUT | Method::DELETE | Method::PATCH) {
        let given = headers.get("x-csrf-token").and_then(|v| v.to_str().ok()).unwrap_or_default();
        if !same(given.as_bytes(), session.csrf_token.as_bytes()) {
            return Err(ApiError::new(
                ErrorKind::Forbidden,
                "a write from a signed-in page needs the X-CSRF-Token that GET /v1/me gives",
            )
            .into_response());
        }
    }
    Ok(Member { admin: is_admin(shared, &session.person), person: session.person, session: session.id_hash })
}

/// Whether a request's `Origin` is the site it was sent to: its host and port are the `Host`
/// the request names (already checked to be this server's). The scheme is not compared: behind
/// a TLS proxy the page is `https` while the request arrives plain.
pub(crate) fn same_origin(origin: &str, host: &str) -> bool {
    let authority = origin.strip_prefix("https://").or_else(|| origin.strip_prefix("http://"));
    authority.is_some_and(|authority| !host.is_empty() && authority.eq_ignore_ascii_case(host))
}

/// Why `principal` is refused a route.
fn forbidden(principal: &Principal) -> &'static str {
    match principal {
        Principal::AskOnly { .. } => {
            "an ask-only token may ask questions and read or withdraw the ones it asked, nothing else; this needs the person's token"
        }
        Principal::Member(_) => "this route is for programs holding a token, not a signed-in browser",
        Principal::Owner => "signing out is for a signed-in browser; a token is revoked instead",
    }
}

/// Refuses a question `principal` did not ask as if there were no such question, so a token
/// cannot tell another's question from none.
async fn own_question(shared: &Shared, principal: &Principal, id: &str) -> Result<(), ApiError> {
    let Principal::AskOnly { token } = principal else { return Ok(()) };
    let id = parse_id(id)?;
    if shared.beckon.tokens().asked_by(id, token.id).await? {
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

/// Refuses a body too large. The rest of it may still be on its way: the connection is closed
/// rather than read to its end.
fn too_large(limit: usize) -> Response {
    closing(
        ApiError::new(ErrorKind::TooLarge, format!("the request body is larger than {limit} bytes")).into_response(),
    )
}

/// `response`, with the connection closed after it: a body that was not read whole leaves the
/// connection in no state for another request, and a caller that stalled keeps no place.
fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONNECTION, header::HeaderValue::from_static("close"));
    response
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
    fn an_origin_is_the_same_only_with_the_same_host_and_port() {
        assert!(same_origin("http://127.0.0.1:7393", "127.0.0.1:7393"));
        assert!(same_origin("https://Beckon.example.com", "beckon.example.com"));
        for (origin, host) in [
            ("http://127.0.0.1:7394", "127.0.0.1:7393"),
            ("https://evil.example", "beckon.example.com"),
            ("https://beckon.example.com.evil.example", "beckon.example.com"),
            ("null", "127.0.0.1:7393"),
            ("http://127.0.0.1:7393", ""),
        ] {
            assert!(!same_origin(origin, host), "{origin} vs {host}");
        }
    }

    #[test]
    fn tokens_compare_exactly() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }
}
