//! Signing in on a team server: `GET /auth/login` sends the browser to the team's identity
//! provider, `GET /auth/callback` takes it back, checks what the provider says, and opens a
//! browser session; `POST /auth/logout` ends it; `GET /v1/me` says who a request acts for (and
//! gives a signed-in page the CSRF token its writes must carry).

use std::sync::Arc;

use axum::Extension;
use axum::Json;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use beckon_api::views::{MeView, SignedOut};
use beckon_runtime::api::ErrorKind;
use beckon_store::SessionKind;
use serde::Deserialize;

use crate::cookies::Cookie;
use crate::error::{ApiError, ApiResult, GatewayError};
use crate::principal::Principal;
use crate::sign_in::{PendingSignIn, SignIn};
use crate::state::Shared;

/// The longest `next` a sign-in keeps.
const NEXT_MAX: usize = 2000;

/// `?next=`.
#[derive(Debug, Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
}

/// Whether `next` is a path on this server: never another site (`//evil`, `https://…`,
/// `/\evil`), so a link to the sign-in cannot send a person elsewhere afterwards.
fn local_path(next: &str) -> bool {
    next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control)
        && next.len() <= NEXT_MAX
}

fn sign_in_of(shared: &Shared) -> ApiResult<&SignIn> {
    shared.sign_in.as_ref().ok_or_else(|| {
        ApiError::new(ErrorKind::NotFound, "signing in is not set up on this server (start it with --oidc-issuer)")
    })
}

/// `GET /auth/login?next=/path`: off to the identity provider.
pub async fn login(State(shared): State<Arc<Shared>>, Query(query): Query<LoginQuery>) -> Response {
    match begin(&shared, query).await {
        Ok(response) => response,
        Err(err) if err.body().kind == ErrorKind::Unavailable => unreachable_page(&shared),
        Err(err) => err.into_response(),
    }
}

/// A page for a person who cannot sign in because the provider does not answer.
fn unreachable_page(shared: &Shared) -> Response {
    let issuer = shared.sign_in.as_ref().map_or("", |sign_in| sign_in.party.issuer());
    page(
        StatusCode::SERVICE_UNAVAILABLE,
        &format!(
            "Signing in is not possible right now: the identity provider ({issuer}) cannot be reached. \
             Agents keep working and their questions wait for you; try again in a minute."
        ),
    )
}

async fn begin(shared: &Shared, query: LoginQuery) -> ApiResult<Response> {
    let sign_in = sign_in_of(shared)?;
    let next = query.next.unwrap_or_else(|| "/".to_owned());
    if !local_path(&next) {
        return Err(ApiError::invalid(beckon_core::Problems::one("next", "must be a path on this server, such as /")));
    }
    let start = sign_in.party.start().map_err(|err| match err {
        GatewayError::IdentityUnreachable { .. } => ApiError::new(ErrorKind::Unavailable, err.to_string()),
        other => ApiError::new(ErrorKind::Internal, other.to_string()),
    })?;
    let secret = serde_json::to_string(&start.pending)
        .map_err(|err| ApiError::new(ErrorKind::Internal, format!("cannot keep the sign-in: {err}")))?;
    shared.beckon.people().begin_sign_in(start.pending.state.clone(), secret, next).await?;
    let lifetime_s = beckon_runtime::SIGN_IN_LIFETIME_MS / 1000;
    Ok(redirect(&start.url, shared.cookies.set(Cookie::SignIn, &start.pending.state, lifetime_s), None))
}

/// What the provider sends back: a code and the state, or an error.
#[derive(Debug, Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /auth/callback`: the provider sends the person back here.
pub async fn callback(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Query(query): Query<CallbackQuery>,
) -> Response {
    let Ok(sign_in) = sign_in_of(&shared) else {
        return page(StatusCode::NOT_FOUND, "Signing in is not set up on this server.");
    };
    if let Some(error) = &query.error {
        let detail = query.error_description.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
        return page(
            StatusCode::UNAUTHORIZED,
            &format!("The identity provider did not sign you in ({error}{detail})."),
        );
    }
    let (Some(code), Some(state)) = (&query.code, &query.state) else {
        return page(StatusCode::BAD_REQUEST, "The identity provider sent back no code or no state.");
    };
    // The sign-in must be this browser's own: without this a link carrying someone else's code
    // would sign the person in as someone else.
    let begun_here = shared.cookies.read(&headers, Cookie::SignIn).is_some_and(|ours| ours == *state);
    if !begun_here {
        return page(StatusCode::BAD_REQUEST, "This sign-in was not begun in this browser, or was already used.");
    }
    let taken = match shared.beckon.people().take_sign_in(state).await {
        Ok(Some(taken)) => taken,
        Ok(None) => return page(StatusCode::BAD_REQUEST, "This sign-in expired or was already used."),
        Err(err) => return ApiError::from(err).into_response(),
    };
    let Ok(pending) = serde_json::from_str::<PendingSignIn>(&taken.secret) else {
        return page(StatusCode::BAD_REQUEST, "This sign-in was kept in a form this server cannot read.");
    };
    let person = match sign_in.party.finish(&pending, code).await {
        Ok(person) => person,
        Err(GatewayError::IdentityUnreachable { .. }) => return unreachable_page(&shared),
        Err(err) => {
            tracing::warn!(%err, "a sign-in was refused");
            return page(StatusCode::UNAUTHORIZED, &format!("The sign-in was refused: {err}."));
        }
    };
    let opened = match shared.beckon.people().open_session(person, SessionKind::Browser).await {
        Ok(opened) => opened,
        Err(err) => return ApiError::from(err).into_response(),
    };
    let lasts_s = opened.expires_at_ms.saturating_sub(shared.beckon.now_ms()).max(0) / 1000;
    let session = shared.cookies.set(Cookie::Session, &opened.cookie, lasts_s);
    redirect(&taken.next, session, shared.cookies.clear(Cookie::SignIn))
}

/// `?everywhere=true` on signing out.
#[derive(Debug, Deserialize)]
pub struct SignOutQuery {
    #[serde(default)]
    everywhere: bool,
}

/// Where the provider sends a browser back after signing it out: registered at the provider as
/// a post-logout redirect URI.
pub const SIGNED_OUT_PATH: &str = "/auth/signed-out";

/// `POST /auth/logout`: ends this browser's session, or a connected app's (by its bearer token);
/// with `?everywhere=true`, every session the person has (other browsers, connected apps). Says
/// where the browser goes next (`next`): the provider's sign-out when it offers RP-initiated
/// logout (so that signing in again asks who is there), else the signed-out page.
pub async fn logout(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Query(query): Query<SignOutQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    if query.everywhere
        && let Principal::Member(member) = &principal
    {
        shared.beckon.people().end_sessions(&member.person.subject).await?;
    } else if let Some(cookie) = shared.cookies.read(&headers, Cookie::Session) {
        shared.beckon.people().close_session(&cookie).await?;
    } else if let Some(secret) = crate::guard::bearer(&headers) {
        shared.beckon.people().close_session(secret).await?;
    }
    let after = format!("{}{SIGNED_OUT_PATH}", shared.url.trim_end_matches('/'));
    let next = shared
        .sign_in
        .as_ref()
        .and_then(|sign_in| sign_in.party.sign_out_url(&after))
        .unwrap_or_else(|| SIGNED_OUT_PATH.to_owned());
    let mut response = Json(SignedOut { signed_out: true, next }).into_response();
    if let Some(clear) = shared.cookies.clear(Cookie::Session) {
        response.headers_mut().append(header::SET_COOKIE, clear);
    }
    Ok(response)
}

/// `GET /auth/signed-out`: where a browser lands once signed out.
pub async fn signed_out() -> Response {
    let body = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Beckon: signed out</title></head>\
         <body><main><h1>Beckon</h1><p>You are signed out.</p><p><a href=\"/auth/login\">Sign in again</a></p></main></body></html>";
    let mut response = (StatusCode::OK, Html(body)).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `GET /v1/me`: who the request acts for; for a signed-in person, also the CSRF token every
/// write from their page must carry in `X-CSRF-Token`.
pub async fn me(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    headers: HeaderMap,
) -> Json<MeView> {
    Json(match principal {
        Principal::Owner => MeView::Owner,
        Principal::AskOnly { token } => MeView::AskOnly { token: token.name },
        Principal::Member(member) => MeView::Member {
            csrf_token: shared.cookies.read(&headers, Cookie::Session).map(|c| beckon_runtime::csrf_token(&c)),
            admin: member.admin,
            subject: member.person.subject,
            email: member.person.email,
            name: member.person.name,
            groups: member.person.groups,
        },
    })
}

/// A 303 to `location`, setting the cookies given.
pub(crate) fn redirect(location: &str, first: Option<HeaderValue>, second: Option<HeaderValue>) -> Response {
    let Ok(location) = HeaderValue::from_str(location) else {
        return page(StatusCode::BAD_REQUEST, "The address to go to next is not one a browser can follow.");
    };
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response();
    for cookie in [first, second].into_iter().flatten() {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A small page for a person whose sign-in did not work, with the way to try again.
fn page(status: StatusCode, message: &str) -> Response {
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Beckon: sign in</title></head>\
         <body><main><h1>Beckon</h1><p class=\"problem\">{}</p><p><a href=\"/auth/login\">Sign in again</a></p></main></body></html>",
        escape(message)
    );
    let mut response = (status, Html(body)).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `text` safe inside HTML, attribute values included.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_is_only_ever_a_path_here() {
        for good in ["/", "/inbox", "/question/0190?x=1#a"] {
            assert!(local_path(good), "{good}");
        }
        for bad in ["", "inbox", "//evil.example", "https://evil.example/", "/\\evil.example", "/a\nb", "\\\\evil"] {
            assert!(!local_path(bad), "{bad}");
        }
        assert!(!local_path(&format!("/{}", "a".repeat(NEXT_MAX))));
    }

    #[test]
    fn a_problem_page_escapes_what_it_quotes() {
        assert_eq!(escape("<script>\"&"), "&lt;script&gt;&quot;&amp;");
    }
}
