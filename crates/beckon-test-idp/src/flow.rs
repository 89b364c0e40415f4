//! The provider's endpoints: discovery, JWKS, authorization (a code for a named person) and
//! the token exchange (client, redirect, PKCE verifier and a code not yet spent, checked in
//! that order, as RFC 6749 and RFC 7636 ask).

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::{Form, Query, State as Extract};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Json, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::{Value, json};
use url::Url;

use crate::codes::Grant;
use crate::misbehaviour::Misbehaviour;
use crate::parties::{Client, Person};
use crate::state::{State, lock};

/// How long a code can be redeemed after it is handed out.
const CODE_LIFETIME: Duration = Duration::from_secs(60);
/// How long an ID token is valid.
const TOKEN_LIFETIME_S: i64 = 300;

pub(crate) fn routes(state: State) -> Router {
    Router::new()
        .route("/.well-known/openid-configuration", get(discovery))
        .route("/jwks", get(jwks))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(state)
}

/// Seconds since the Unix epoch, now.
pub(crate) fn unix_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The claims of an ID token for `person`, issued to `client_id` at `now` (Unix seconds).
pub(crate) fn id_claims(issuer: &str, person: &Person, client_id: &str, nonce: Option<&str>, now: i64) -> Value {
    let mut claims = json!({
        "iss": issuer,
        "sub": person.subject,
        "aud": client_id,
        "iat": now,
        "exp": now + TOKEN_LIFETIME_S,
        "email": person.email,
        "email_verified": true,
        "name": person.name,
        "groups": person.groups,
    });
    if let (Some(nonce), Some(map)) = (nonce, claims.as_object_mut()) {
        map.insert("nonce".into(), nonce.into());
    }
    claims
}

async fn discovery(Extract(state): Extract<State>) -> Json<Value> {
    Json(discovery_document(&lock(&state).issuer))
}

/// A discovery document for `issuer`.
fn discovery_document(issuer: &str) -> Value {
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "scopes_supported": ["openid", "email", "profile", "groups"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "code_challenge_methods_supported": ["S256"],
        "claims_supported": ["sub", "iss", "aud", "exp", "iat", "nonce", "email", "email_verified", "name", "groups"],
        "authorization_response_iss_parameter_supported": true,
    })
}

async fn jwks(Extract(state): Extract<State>) -> Json<Value> {
    Json(lock(&state).keys.jwks())
}

/// Whether `asked` is one of `client`'s redirects: the same string, or for a loopback one the
/// same but for its port.
fn redirect_allowed(client: &Client, asked: &str) -> bool {
    let Ok(asked_url) = Url::parse(asked) else { return false };
    client.redirect_uris.iter().any(|registered| {
        if registered == asked {
            return true;
        }
        let Ok(mut registered) = Url::parse(registered) else { return false };
        let loopback = registered.host_str() == Some("127.0.0.1") && asked_url.host_str() == Some("127.0.0.1");
        loopback && registered.set_port(asked_url.port()).is_ok() && registered == asked_url
    })
}

/// A random, URL-safe token.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // The system's generator does not fail on Linux once the process runs.
    let _ = SystemRandom::new().fill(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A page for a request that cannot be sent back to the client (RFC 6749 §4.1.2.1).
fn refused_page(what: &str) -> Response {
    (StatusCode::BAD_REQUEST, Html(format!("<!doctype html><title>Sign-in refused</title><p>{}</p>", escape(what))))
        .into_response()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `redirect` with `pairs` added to its query.
fn redirect_with(redirect: &str, pairs: &[(&str, &str)]) -> Response {
    match Url::parse(redirect) {
        Ok(mut url) => {
            url.query_pairs_mut().extend_pairs(pairs);
            Redirect::to(url.as_str()).into_response()
        }
        Err(_) => refused_page("the redirect URI is not a URL"),
    }
}

async fn authorize(Extract(state): Extract<State>, Query(query): Query<HashMap<String, String>>) -> Response {
    let param = |name: &str| query.get(name).map(String::as_str);
    let mut shared = lock(&state);
    let Some(client) = param("client_id").and_then(|id| shared.clients.iter().find(|c| c.id == id)).cloned() else {
        return refused_page("unknown client_id");
    };
    let Some(redirect) = param("redirect_uri").filter(|r| redirect_allowed(&client, r)) else {
        return refused_page("redirect_uri is not registered for this client");
    };
    let issuer = shared.issuer.clone();
    let back = |error: &str, description: &str| {
        let mut pairs = vec![("error", error), ("error_description", description), ("iss", issuer.as_str())];
        if let Some(state) = param("state") {
            pairs.push(("state", state));
        }
        redirect_with(redirect, &pairs)
    };
    if param("response_type") != Some("code") {
        return back("unsupported_response_type", "only the authorization code flow");
    }
    if !param("scope").is_some_and(|scope| scope.split(' ').any(|s| s == "openid")) {
        return back("invalid_scope", "the openid scope is required");
    }
    let Some(challenge) = param("code_challenge").filter(|c| c.len() >= 43) else {
        return back("invalid_request", "PKCE is required: code_challenge is missing or too short");
    };
    if param("code_challenge_method") != Some("S256") {
        return back("invalid_request", "code_challenge_method must be S256");
    }
    let Some(hint) = param("login_hint") else {
        return chooser(&shared.people, &query);
    };
    let Some(person) = shared.people.iter().find(|p| p.subject == hint) else {
        return back("access_denied", "no such person");
    };
    let code = random_token();
    let grant = Grant {
        client_id: client.id.clone(),
        redirect_uri: redirect.to_owned(),
        subject: person.subject.clone(),
        nonce: param("nonce").map(str::to_owned),
        challenge: challenge.to_owned(),
        issued: Instant::now(),
    };
    shared.codes.hand_out(code.clone(), grant);
    let mut pairs = vec![("code", code.as_str()), ("iss", issuer.as_str())];
    if let Some(state) = param("state") {
        pairs.push(("state", state));
    }
    redirect_with(redirect, &pairs)
}

/// The sign-in page: one link per person, each the same request naming them.
fn chooser(people: &[Person], query: &HashMap<String, String>) -> Response {
    let mut links = String::new();
    for person in people {
        let mut url = match Url::parse("http://provider/authorize") {
            Ok(url) => url,
            Err(_) => return refused_page("cannot build the sign-in page"),
        };
        url.query_pairs_mut().extend_pairs(query).append_pair("login_hint", &person.subject);
        let href = format!("/authorize?{}", url.query().unwrap_or_default());
        links.push_str(&format!(
            "<li><a class=\"person\" data-subject=\"{}\" href=\"{}\">Sign in as {}</a></li>",
            escape(&person.subject),
            escape(&href),
            escape(&person.name)
        ));
    }
    Html(format!("<!doctype html><title>Test provider: sign in</title><h1>Sign in</h1><ul>{links}</ul>"))
        .into_response()
}

/// An error from the token endpoint, as RFC 6749 §5.2 shapes it.
fn token_error(status: StatusCode, error: &str, description: &str) -> Response {
    (status, [(header::CACHE_CONTROL, "no-store")], Json(json!({"error": error, "error_description": description})))
        .into_response()
}

/// The client's id and secret from HTTP Basic authentication or the form.
fn client_credentials(headers: &HeaderMap, form: &HashMap<String, String>) -> Option<(String, Option<String>)> {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Basic "))
        .and_then(|encoded| STANDARD.decode(encoded).ok())
        .and_then(|decoded| String::from_utf8(decoded).ok());
    if let Some(pair) = basic {
        let (id, secret) = pair.split_once(':')?;
        let decode =
            |s: &str| url::form_urlencoded::parse(format!("x={s}").as_bytes()).next().map(|(_, v)| v.into_owned());
        return Some((decode(id)?, decode(secret)));
    }
    Some((form.get("client_id")?.clone(), form.get("client_secret").cloned()))
}

/// The S256 code challenge of `verifier`.
fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes()))
}

async fn token(
    Extract(state): Extract<State>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let mut shared = lock(&state);
    let Some((client_id, secret)) = client_credentials(&headers, &form) else {
        return token_error(StatusCode::UNAUTHORIZED, "invalid_client", "no client authentication");
    };
    let Some(client) = shared.clients.iter().find(|c| c.id == client_id) else {
        return token_error(StatusCode::UNAUTHORIZED, "invalid_client", "unknown client");
    };
    if client.secret.is_some() && client.secret != secret {
        return token_error(StatusCode::UNAUTHORIZED, "invalid_client", "wrong client secret");
    }
    if form.get("grant_type").map(String::as_str) != Some("authorization_code") {
        return token_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "only authorization_code");
    }
    // Spent at its first presentation, whatever comes of it.
    let Some(grant) = form.get("code").and_then(|code| shared.codes.spend(code)) else {
        return token_error(StatusCode::BAD_REQUEST, "invalid_grant", "unknown or already used code");
    };
    if grant.client_id != client_id {
        return token_error(StatusCode::BAD_REQUEST, "invalid_grant", "the code was issued to another client");
    }
    if form.get("redirect_uri") != Some(&grant.redirect_uri) {
        return token_error(StatusCode::BAD_REQUEST, "invalid_grant", "redirect_uri differs from the authorization's");
    }
    if grant.issued.elapsed() > CODE_LIFETIME {
        return token_error(StatusCode::BAD_REQUEST, "invalid_grant", "the code expired");
    }
    match form.get("code_verifier") {
        None => return token_error(StatusCode::BAD_REQUEST, "invalid_grant", "code_verifier is missing"),
        Some(verifier) if challenge_of(verifier) != grant.challenge => {
            return token_error(StatusCode::BAD_REQUEST, "invalid_grant", "code_verifier does not match");
        }
        Some(_) => {}
    }
    let Some(person) = shared.people.iter().find(|p| p.subject == grant.subject) else {
        return token_error(StatusCode::BAD_REQUEST, "invalid_grant", "the person is gone");
    };
    let mut claims = id_claims(&shared.issuer, person, &client_id, grant.nonce.as_deref(), unix_now());
    let misbehaviour = shared.misbehaviours.pop_front();
    let key = match &misbehaviour {
        Some(Misbehaviour::ForgedSignature) => shared.keys.stranger(),
        _ => shared.keys.current(),
    };
    match misbehaviour {
        Some(Misbehaviour::Expired) => {
            claims["iat"] = json!(unix_now() - 2 * TOKEN_LIFETIME_S);
            claims["exp"] = json!(unix_now() - 60);
        }
        Some(Misbehaviour::Audience(audience)) => claims["aud"] = json!(audience),
        Some(Misbehaviour::Nonce(nonce)) => claims["nonce"] = json!(nonce),
        Some(Misbehaviour::Issuer(issuer)) => claims["iss"] = json!(issuer),
        Some(Misbehaviour::ForgedSignature) | None => {}
    }
    let id_token = match key.sign(&claims) {
        Ok(token) => token,
        Err(err) => return token_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", &err.to_string()),
    };
    shared.codes.redeemed += 1;
    let body = json!({
        "access_token": random_token(),
        "token_type": "Bearer",
        "expires_in": TOKEN_LIFETIME_S,
        "id_token": id_token,
        "scope": "openid email profile groups",
    });
    ([(header::CACHE_CONTROL, "no-store")], Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(uris: &[&str]) -> Client {
        Client { id: "beckon".into(), secret: None, redirect_uris: uris.iter().map(|s| (*s).to_owned()).collect() }
    }

    #[test]
    fn a_loopback_redirect_matches_on_any_port_and_nothing_else_does() {
        let loopback = client(&["http://127.0.0.1/callback"]);
        assert!(redirect_allowed(&loopback, "http://127.0.0.1:49152/callback"));
        assert!(redirect_allowed(&loopback, "http://127.0.0.1/callback"));
        assert!(!redirect_allowed(&loopback, "http://127.0.0.1:49152/other"));
        assert!(!redirect_allowed(&loopback, "http://localhost:49152/callback"));
        assert!(!redirect_allowed(&loopback, "https://127.0.0.1:49152/callback"));
        let web = client(&["https://beckon.example/auth/callback"]);
        assert!(redirect_allowed(&web, "https://beckon.example/auth/callback"));
        assert!(!redirect_allowed(&web, "https://beckon.example:8443/auth/callback"));
        assert!(!redirect_allowed(&web, "https://evil.example/auth/callback"));
    }

    #[test]
    fn the_challenge_is_rfc_7636s() {
        // RFC 7636, Appendix B.
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
