//! Signing the desktop app in to a team inbox, as an OAuth 2.0 native app does (RFC 8252): the
//! app opens the person's browser at `GET /auth/app` with a loopback redirect URI, a `state` and
//! a PKCE challenge; the person, signed in there, is asked whether to connect the app and
//! presses Connect (`POST /auth/app`, the page's form with its CSRF token); the browser is sent
//! to the app's loopback listener with a one-time code; the app trades the code and its PKCE
//! verifier at `POST /auth/app/token` for a session secret it sends as its bearer token.
//!
//! Nothing connects without the person's press: an agent that opens the address itself gets a
//! page asking, not a code. The code is good once, for ten minutes, only with the verifier and
//! the redirect URI it was issued for; the identity provider needs to know only the server.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use beckon_api::views::{AppSession, PersonView};
use beckon_runtime::SignedInSession;
use beckon_runtime::api::ErrorKind;
use beckon_store::{SessionKind, SignedIn};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::auth::{escape, redirect};
use crate::cookies::Cookie;
use crate::error::{ApiError, ApiResult};
use crate::state::Shared;

/// What a kept code is filed under in the sign-ins under way, beside the browsers' own.
const CODE_PREFIX: &str = "app:";
/// What a kept code's row says in place of a page to go to.
const CODE_NEXT: &str = "app";

/// The app's request, as `GET /auth/app` takes it in its query and the consent form sends it back.
#[derive(Debug, Clone, Deserialize)]
pub struct AppRequest {
    redirect_uri: String,
    state: String,
    code_challenge: String,
    #[serde(default)]
    code_challenge_method: Option<String>,
    /// How the app names itself ("Beckon on ada-laptop"), shown on the consent page and in the
    /// admin's list of the person's sessions.
    #[serde(default)]
    client_name: Option<String>,
}

/// The longest app name kept.
const CLIENT_NAME_MAX: usize = 80;

/// The consent form: the request, the page's CSRF token, and what the person pressed.
#[derive(Debug, Deserialize)]
pub struct Consent {
    #[serde(flatten)]
    request: AppRequest,
    csrf: String,
    choice: String,
}

/// What a code stands for until the app trades it.
#[derive(Debug, Serialize, Deserialize)]
struct Grant {
    subject: String,
    email: Option<String>,
    name: Option<String>,
    groups: Vec<String>,
    challenge: String,
    redirect_uri: String,
    /// The app as the person was shown it: its name and port.
    #[serde(default)]
    label: String,
}

/// `POST /auth/app/token`.
#[derive(Debug, Deserialize)]
pub struct TokenRequest {
    code: Option<String>,
    code_verifier: Option<String>,
    redirect_uri: Option<String>,
}

/// Whether `uri` is a loopback redirect URI an app listens on (RFC 8252 §7.3): plain HTTP to
/// `127.0.0.1` or `[::1]` with a port, no user, no fragment. `localhost` is refused: a name can
/// resolve elsewhere.
fn loopback(uri: &str) -> bool {
    let Ok(url) = url::Url::parse(uri) else { return false };
    let host_ok = matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
        || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback());
    url.scheme() == "http"
        && host_ok
        && url.port().is_some()
        && url.username().is_empty()
        && url.password().is_none()
        && url.fragment().is_none()
}

impl AppRequest {
    /// What is wrong with the request, if anything: checked before anything is shown, and never
    /// sent to a redirect URI that is not the app's.
    fn problem(&self) -> Option<&'static str> {
        let base64url = |text: &str| text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !loopback(&self.redirect_uri) {
            return Some(
                "The app's address must be http://127.0.0.1:<port>/… or http://[::1]:<port>/… on this computer.",
            );
        }
        if self.state.is_empty() || self.state.len() > 200 || self.state.chars().any(char::is_control) {
            return Some("The app sent no usable state.");
        }
        if self.code_challenge_method.as_deref() != Some("S256") {
            return Some("The app must use PKCE with code_challenge_method=S256.");
        }
        if !(43..=128).contains(&self.code_challenge.len()) || !base64url(&self.code_challenge) {
            return Some("The app's code_challenge is not a PKCE S256 challenge.");
        }
        if self.client_name.as_deref().is_some_and(|name| {
            name.trim().is_empty()
                || name.chars().count() > CLIENT_NAME_MAX
                || name
                    .chars()
                    .any(|c| c.is_control() || beckon_core::is_bidi_control(c) || beckon_core::is_bidi_mark(c))
        }) {
            return Some("The app's client_name must be 1 to 80 characters of plain text.");
        }
        None
    }

    /// The app as the person is shown it: its name (or "An app calling itself Beckon") and the
    /// port it listens on here, which tells two apps on one computer apart.
    fn label(&self) -> String {
        let port = url::Url::parse(&self.redirect_uri).ok().and_then(|url| url.port()).unwrap_or_default();
        match self.client_name.as_deref() {
            Some(name) => format!("{} (port {port})", name.trim()),
            None => format!("an app that gave no name (port {port})"),
        }
    }

    /// The app's redirect URI with `pairs` added to its query.
    fn back(&self, pairs: &[(&str, &str)]) -> String {
        let Ok(mut url) = url::Url::parse(&self.redirect_uri) else { return self.redirect_uri.clone() };
        url.query_pairs_mut().extend_pairs(pairs).finish();
        url.to_string()
    }

    /// This request as `/auth/app`'s own address, to come back to after signing in.
    fn path(&self) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query
            .append_pair("redirect_uri", &self.redirect_uri)
            .append_pair("state", &self.state)
            .append_pair("code_challenge", &self.code_challenge)
            .append_pair("code_challenge_method", "S256");
        if let Some(name) = &self.client_name {
            query.append_pair("client_name", name);
        }
        let query = query.finish();
        format!("/auth/app?{query}")
    }
}

/// `GET /auth/app`: the page asking the person, signed in, whether to connect the app.
pub async fn ask(State(shared): State<Arc<Shared>>, headers: HeaderMap, Query(request): Query<AppRequest>) -> Response {
    if shared.sign_in.is_none() {
        return page(StatusCode::NOT_FOUND, "Signing in is not set up on this server.", None);
    }
    if let Some(problem) = request.problem() {
        return page(StatusCode::BAD_REQUEST, problem, None);
    }
    let session = match signed_in(&shared, &headers, &request).await {
        Ok(session) => session,
        Err(elsewhere) => return elsewhere,
    };
    let who = session.person.name.clone().or(session.person.email.clone()).unwrap_or(session.person.subject.clone());
    let hidden =
        |name: &str, value: &str| format!("<input type=\"hidden\" name=\"{name}\" value=\"{}\">", escape(value));
    let mut fields = vec![
        hidden("redirect_uri", &request.redirect_uri),
        hidden("state", &request.state),
        hidden("code_challenge", &request.code_challenge),
        hidden("code_challenge_method", "S256"),
        hidden("csrf", &session.csrf_token),
    ];
    if let Some(name) = &request.client_name {
        fields.push(hidden("client_name", name));
    }
    let form = format!(
        "<p><strong>{app}</strong>, listening on this computer, asks to use <strong>{server}</strong> as \
         <strong>{who}</strong>.</p>\
         <p>Once connected it will see the questions addressed to you and <strong>answer them as you</strong>, \
         allowing agents' tool calls included, until you sign out everywhere or an admin ends it.</p>\
         <form method=\"post\" action=\"/auth/app\">{fields}\
         <button type=\"submit\" name=\"choice\" value=\"connect\">Connect</button> \
         <button type=\"submit\" name=\"choice\" value=\"cancel\">Cancel</button></form>\
         <p>Only connect if you just asked the Beckon app to add this inbox.</p>",
        app = escape(&request.label()),
        server = escape(&shared.url),
        who = escape(&who),
        fields = fields.concat(),
    );
    page(StatusCode::OK, "", Some(&form))
}

/// `POST /auth/app`: the person pressed Connect (or Cancel) on that page.
pub async fn consent(State(shared): State<Arc<Shared>>, headers: HeaderMap, Form(consent): Form<Consent>) -> Response {
    let request = consent.request;
    if let Some(problem) = request.problem() {
        return page(StatusCode::BAD_REQUEST, problem, None);
    }
    let session = match signed_in(&shared, &headers, &request).await {
        Ok(session) => session,
        Err(elsewhere) => return elsewhere,
    };
    // The press must come from this server's own page: another site's form has neither the
    // page's token nor its origin.
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let foreign_origin = headers
        .get(header::ORIGIN)
        .is_some_and(|origin| !crate::guard::same_origin(origin.to_str().unwrap_or_default(), host));
    let cross_site = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|site| site != "same-origin" && site != "none");
    if foreign_origin || cross_site || !crate::guard::same(consent.csrf.as_bytes(), session.csrf_token.as_bytes()) {
        return page(StatusCode::FORBIDDEN, "This page did not come from this server; nothing was connected.", None);
    }
    if consent.choice != "connect" {
        return redirect(&request.back(&[("error", "access_denied"), ("state", &request.state)]), None, None);
    }
    let code = hex::encode(rand::random::<[u8; 32]>());
    let person = session.person;
    let grant = Grant {
        subject: person.subject,
        email: person.email,
        name: person.name,
        groups: person.groups,
        challenge: request.code_challenge.clone(),
        redirect_uri: request.redirect_uri.clone(),
        label: request.label(),
    };
    let kept = match serde_json::to_string(&grant) {
        Ok(kept) => kept,
        Err(err) => return ApiError::new(ErrorKind::Internal, format!("cannot keep the grant: {err}")).into_response(),
    };
    if let Err(err) = shared.beckon.people().begin_sign_in(filed(&code), kept, CODE_NEXT.to_owned()).await {
        return ApiError::from(err).into_response();
    }
    tracing::info!(subject = %grant.subject, "the desktop app was connected");
    redirect(&request.back(&[("code", &code), ("state", &request.state)]), None, None)
}

/// `POST /auth/app/token`: the app trades its code and PKCE verifier for a session secret.
pub async fn token(
    State(shared): State<Arc<Shared>>,
    Json(request): Json<TokenRequest>,
) -> ApiResult<Json<AppSession>> {
    if shared.sign_in.is_none() {
        return Err(ApiError::new(ErrorKind::NotFound, "signing in is not set up on this server"));
    }
    let refused = |why: &str| ApiError::bad_request(format!("the code was refused: {why}"));
    let code = request.code.ok_or_else(|| refused("no code"))?;
    // Taken at the first try, right or wrong: a code is never tried twice.
    let taken = shared
        .beckon
        .people()
        .take_sign_in(&filed(&code))
        .await?
        .ok_or_else(|| refused("unknown, spent or expired"))?;
    let grant: Grant =
        serde_json::from_str(&taken.secret).map_err(|_| refused("kept in a form this server cannot read"))?;
    let verifier = request.code_verifier.ok_or_else(|| refused("no PKCE code_verifier"))?;
    if URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) != grant.challenge {
        return Err(refused("the code_verifier does not match the challenge"));
    }
    if request.redirect_uri.as_deref() != Some(grant.redirect_uri.as_str()) {
        return Err(refused("issued for another redirect_uri"));
    }
    let person = SignedIn { subject: grant.subject, email: grant.email, name: grant.name, groups: grant.groups };
    let opened = shared.beckon.people().open_session(person.clone(), SessionKind::App { label: grant.label }).await?;
    Ok(Json(AppSession {
        token: opened.cookie,
        expires_at_ms: opened.expires_at_ms,
        person: PersonView { subject: person.subject, email: person.email, name: person.name, groups: person.groups },
    }))
}

/// Where a code is kept: its hash, so the table never holds a usable code.
fn filed(code: &str) -> String {
    format!("{CODE_PREFIX}{}", hex::encode(Sha256::digest(code.as_bytes())))
}

/// The person signed in in this browser, or the way to sign in and come back to `request`.
async fn signed_in(shared: &Shared, headers: &HeaderMap, request: &AppRequest) -> Result<SignedInSession, Response> {
    let Some(cookie) = shared.cookies.read(headers, Cookie::Session) else { return Err(to_sign_in(request)) };
    match shared.beckon.people().session(&cookie).await {
        Ok(Some(session)) => Ok(session),
        Ok(None) => Err(to_sign_in(request)),
        Err(err) => Err(ApiError::from(err).into_response()),
    }
}

fn to_sign_in(request: &AppRequest) -> Response {
    let next = url::form_urlencoded::byte_serialize(request.path().as_bytes()).collect::<String>();
    redirect(&format!("/auth/login?next={next}"), None, None)
}

/// A small page: a problem, or the consent form. Never in a frame, so no other site can dress
/// it up and trick the press.
fn page(status: StatusCode, problem: &str, form: Option<&str>) -> Response {
    let body = match form {
        Some(form) => form.to_owned(),
        None => format!("<p class=\"problem\">{}</p>", escape(problem)),
    };
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Beckon: connect the app</title></head>\
         <body><main><h1>Connect the Beckon app</h1>{body}</main></body></html>"
    );
    let mut response = (status, Html(html)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_loopback_address_with_a_port_is_an_apps() {
        for good in ["http://127.0.0.1:49152/callback", "http://[::1]:8080/", "http://127.0.0.1:1/cb?x=1"] {
            assert!(loopback(good), "{good}");
        }
        for bad in [
            "https://127.0.0.1:49152/callback",
            "http://localhost:49152/callback",
            "http://127.0.0.1/callback",
            "http://127.0.0.1.evil.example:80/",
            "http://evil.example:8080/",
            "http://ada@127.0.0.1:8080/",
            "http://127.0.0.1:8080/#frag",
            "javascript:alert(1)",
            "",
        ] {
            assert!(!loopback(bad), "{bad}");
        }
    }

    #[test]
    fn a_request_needs_state_and_an_s256_challenge() {
        let good = AppRequest {
            redirect_uri: "http://127.0.0.1:5000/cb".into(),
            state: "abc".into(),
            code_challenge: URL_SAFE_NO_PAD.encode(Sha256::digest(b"verifier")),
            code_challenge_method: Some("S256".into()),
            client_name: None,
        };
        assert_eq!(good.problem(), None);
        let named = AppRequest { client_name: Some("Beckon on ada-laptop".into()), ..good.clone() };
        assert_eq!((named.problem(), named.label().as_str()), (None, "Beckon on ada-laptop (port 5000)"));
        for bad in ["", "  ", "a\nb", "\u{202e}evil", &"x".repeat(81)] {
            let odd = AppRequest { client_name: Some(bad.to_owned()), ..good.clone() };
            assert!(odd.problem().is_some(), "{bad:?}");
        }
        let plain = AppRequest { code_challenge_method: Some("plain".into()), ..good.clone() };
        assert!(plain.problem().is_some());
        let none = AppRequest { code_challenge_method: None, ..good.clone() };
        assert!(none.problem().is_some());
        let short = AppRequest { code_challenge: "abc".into(), ..good.clone() };
        assert!(short.problem().is_some());
        let stateless = AppRequest { state: String::new(), ..good.clone() };
        assert!(stateless.problem().is_some());
        assert!(good.back(&[("code", "c"), ("state", "abc")]).starts_with("http://127.0.0.1:5000/cb?code=c&state=abc"));
        assert!(good.path().starts_with("/auth/app?redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcb&state=abc"));
    }
}
