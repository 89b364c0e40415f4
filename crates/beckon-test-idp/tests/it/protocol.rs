//! The provider over real HTTP, as a relying party meets it: discovery, the code flow with
//! PKCE, ID tokens verified against the JWKS, and each refusal the protocol asks for.

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use beckon_test_idp::{Client, Person, Provider};
use ring::signature::{RSA_PKCS1_2048_8192_SHA256, RsaPublicKeyComponents};
use serde_json::Value;

const WEB_REDIRECT: &str = "https://beckon.example/auth/callback";
/// The challenge of this verifier (RFC 7636, Appendix B).
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

async fn provider() -> Provider {
    let people = vec![
        Person {
            subject: "ada".into(),
            email: "ada@example.com".into(),
            name: "Ada <Lovelace>".into(),
            groups: vec!["engineering".into()],
        },
        Person {
            subject: "root".into(),
            email: "root@example.com".into(),
            name: "Root".into(),
            groups: vec!["admins".into()],
        },
    ];
    let clients = vec![
        Client { id: "team".into(), secret: Some("s3cret".into()), redirect_uris: vec![WEB_REDIRECT.into()] },
        Client { id: "desktop".into(), secret: None, redirect_uris: vec!["http://127.0.0.1/callback".into()] },
    ];
    Provider::start(clients, people).await.unwrap()
}

fn http() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// The query of a redirect's `Location`, as pairs.
fn redirected(response: &reqwest::Response) -> (String, HashMap<String, String>) {
    assert_eq!(response.status(), 303, "a redirect back to the client");
    let location = response.headers()["location"].to_str().unwrap();
    let url = url::Url::parse(location).unwrap();
    let base = format!("{}://{}{}", url.scheme(), url.host_str().unwrap(), url.path());
    (base, url.query_pairs().into_owned().collect())
}

async fn authorize(idp: &Provider, client: &str, redirect: &str, extra: &[(&str, &str)]) -> reqwest::Response {
    let mut query = vec![
        ("response_type", "code"),
        ("client_id", client),
        ("redirect_uri", redirect),
        ("scope", "openid email profile"),
        ("state", "xyz"),
        ("nonce", "n-0S6"),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
    ];
    for (key, value) in extra {
        query.retain(|(k, _)| k != key);
        if !value.is_empty() {
            query.push((key, value));
        }
    }
    http().get(format!("{}/authorize", idp.issuer())).query(&query).send().await.unwrap()
}

/// A code for `who`, through the team client.
async fn code_for(idp: &Provider, who: &str) -> String {
    let response = authorize(idp, "team", WEB_REDIRECT, &[("login_hint", who)]).await;
    let (_, query) = redirected(&response);
    query["code"].clone()
}

async fn exchange(idp: &Provider, form: &[(&str, &str)]) -> (u16, Value) {
    let response = http().post(format!("{}/token", idp.issuer())).form(form).send().await.unwrap();
    let status = response.status().as_u16();
    assert_eq!(response.headers()["cache-control"], "no-store");
    (status, response.json().await.unwrap())
}

/// The claims of `token` if one of `jwks`'s keys signed it.
fn verified(jwks: &Value, token: &str) -> Option<Value> {
    let mut parts = token.split('.');
    let (header, claims, signature) = (parts.next()?, parts.next()?, parts.next()?);
    let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).ok()?).ok()?;
    assert_eq!(header["alg"], "RS256");
    let key = jwks["keys"].as_array()?.iter().find(|key| key["kid"] == header["kid"])?;
    let n = URL_SAFE_NO_PAD.decode(key["n"].as_str()?).ok()?;
    let e = URL_SAFE_NO_PAD.decode(key["e"].as_str()?).ok()?;
    let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
    let signed = token.rsplit_once('.')?.0;
    RsaPublicKeyComponents { n, e }.verify(&RSA_PKCS1_2048_8192_SHA256, signed.as_bytes(), &signature).ok()?;
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).ok()?).ok()
}

async fn fetch_jwks(idp: &Provider) -> Value {
    http().get(format!("{}/jwks", idp.issuer())).send().await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn discovery_names_the_endpoints_under_the_issuer() {
    let idp = provider().await;
    let doc: Value = http()
        .get(format!("{}/.well-known/openid-configuration", idp.issuer()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["issuer"], idp.issuer());
    for (field, path) in [("authorization_endpoint", "/authorize"), ("token_endpoint", "/token"), ("jwks_uri", "/jwks")]
    {
        assert_eq!(doc[field], format!("{}{path}", idp.issuer()), "{field}");
    }
    assert_eq!(doc["code_challenge_methods_supported"], serde_json::json!(["S256"]));
    let jwks = fetch_jwks(&idp).await;
    assert_eq!(jwks["keys"].as_array().unwrap().len(), 1);
    assert_eq!(jwks["keys"][0]["kid"], idp.current_kid());
    assert_eq!(jwks["keys"][0]["e"], "AQAB");
}

#[tokio::test]
async fn the_code_flow_gives_a_signed_id_token_for_the_person_named() {
    let idp = provider().await;
    let response = authorize(&idp, "team", WEB_REDIRECT, &[("login_hint", "ada")]).await;
    let (back_to, query) = redirected(&response);
    assert_eq!(back_to, WEB_REDIRECT);
    assert_eq!(query["state"], "xyz");
    assert_eq!(query["iss"], idp.issuer());
    let (status, body) = exchange(
        &idp,
        &[
            ("grant_type", "authorization_code"),
            ("code", &query["code"]),
            ("redirect_uri", WEB_REDIRECT),
            ("client_id", "team"),
            ("client_secret", "s3cret"),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["token_type"], "Bearer");
    let claims = verified(&fetch_jwks(&idp).await, body["id_token"].as_str().unwrap()).expect("signed by the JWKS");
    assert_eq!(claims["iss"], idp.issuer());
    assert_eq!(claims["sub"], "ada");
    assert_eq!(claims["aud"], "team");
    assert_eq!(claims["nonce"], "n-0S6");
    assert_eq!(claims["email"], "ada@example.com");
    assert_eq!(claims["groups"], serde_json::json!(["engineering"]));
    assert!(claims["exp"].as_i64().unwrap() > claims["iat"].as_i64().unwrap());
    assert_eq!(idp.codes(), (1, 1));
}

#[tokio::test]
async fn client_authentication_by_basic_and_a_public_client_on_any_loopback_port() {
    let idp = provider().await;
    let code = code_for(&idp, "root").await;
    let response = http()
        .post(format!("{}/token", idp.issuer()))
        .basic_auth("team", Some("s3cret"))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", WEB_REDIRECT),
            ("code_verifier", VERIFIER),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let loopback = "http://127.0.0.1:49321/callback";
    let response = authorize(&idp, "desktop", loopback, &[("login_hint", "ada")]).await;
    let (back_to, query) = redirected(&response);
    assert_eq!(back_to, "http://127.0.0.1/callback", "host and path kept (the port is the app's)");
    let form = [
        ("grant_type", "authorization_code"),
        ("code", query["code"].as_str()),
        ("redirect_uri", loopback),
        ("client_id", "desktop"),
        ("code_verifier", VERIFIER),
    ];
    let (status, body) = exchange(&idp, &form).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_code_is_spent_once_and_only_with_its_verifier_client_and_redirect() {
    let idp = provider().await;
    let base = |code: &str| -> Vec<(String, String)> {
        [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", WEB_REDIRECT),
            ("client_id", "team"),
            ("client_secret", "s3cret"),
            ("code_verifier", VERIFIER),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
    };
    let with = |code: &str, key: &str, value: Option<&str>| {
        let mut form = base(code);
        form.retain(|(k, _)| k != key);
        if let Some(value) = value {
            form.push((key.to_owned(), value.to_owned()));
        }
        form
    };
    let send = |form: Vec<(String, String)>| {
        let idp_url = format!("{}/token", idp.issuer());
        async move {
            let response = http().post(idp_url).form(&form).send().await.unwrap();
            (response.status().as_u16(), response.json::<Value>().await.unwrap())
        }
    };

    // Replayed: the first exchange wins, the second is refused.
    let code = code_for(&idp, "ada").await;
    assert_eq!(send(base(&code)).await.0, 200);
    let (status, body) = send(base(&code)).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")), "{body}");

    // A missing or wrong verifier, another redirect, a wrong secret: each refused.
    for (key, value, status_wanted, error) in [
        ("code_verifier", None, 400, "invalid_grant"),
        ("code_verifier", Some("x".repeat(43).as_str()), 400, "invalid_grant"),
        ("redirect_uri", Some("https://beckon.example/elsewhere"), 400, "invalid_grant"),
        ("client_secret", Some("guess"), 401, "invalid_client"),
        ("grant_type", Some("password"), 400, "unsupported_grant_type"),
    ]
    .map(|(k, v, s, e)| (k, v.map(str::to_owned), s, e))
    {
        let code = code_for(&idp, "ada").await;
        let (status, body) = send(with(&code, key, value.as_deref())).await;
        assert_eq!((status, body["error"].as_str()), (status_wanted, Some(error)), "{key}: {body}");
    }
    assert_eq!(idp.codes(), (6, 1));
}

#[tokio::test]
async fn authorization_requests_are_refused_as_the_protocol_says() {
    let idp = provider().await;
    // Never sent back to an unknown client or an unregistered redirect.
    for (client, redirect) in [("nobody", WEB_REDIRECT), ("team", "https://evil.example/auth/callback")] {
        let response = authorize(&idp, client, redirect, &[("login_hint", "ada")]).await;
        assert_eq!(response.status(), 400, "{client} {redirect}");
        assert!(response.headers().get("location").is_none());
    }
    // Sent back with an error: PKCE missing or plain, no openid scope, another flow.
    for (extra, error) in [
        (("code_challenge", ""), "invalid_request"),
        (("code_challenge_method", "plain"), "invalid_request"),
        (("scope", "email"), "invalid_scope"),
        (("response_type", "token"), "unsupported_response_type"),
        (("login_hint", "mallory"), "access_denied"),
    ] {
        let mut extras = vec![extra];
        if extra.0 != "login_hint" {
            extras.push(("login_hint", "ada"));
        }
        let response = authorize(&idp, "team", WEB_REDIRECT, &extras).await;
        let (_, query) = redirected(&response);
        assert_eq!(query.get("error").map(String::as_str), Some(error), "{extra:?}");
        assert_eq!(query["state"], "xyz");
        assert!(!query.contains_key("code"));
    }
    assert_eq!(idp.codes(), (0, 0));
}

#[tokio::test]
async fn without_a_login_hint_a_page_offers_each_person() {
    let idp = provider().await;
    let response = authorize(&idp, "team", WEB_REDIRECT, &[]).await;
    assert_eq!(response.status(), 200);
    let page = response.text().await.unwrap();
    assert!(page.contains("Sign in as Ada &lt;Lovelace&gt;"), "{page}");
    assert!(page.contains("data-subject=\"root\""), "{page}");
    // Following a person's link signs them in.
    let href = page.split("href=\"").nth(1).unwrap().split('"').next().unwrap().replace("&amp;", "&");
    let response = http().get(format!("{}{href}", idp.issuer())).send().await.unwrap();
    let (_, query) = redirected(&response);
    assert!(query.contains_key("code"), "{query:?}");
}

#[tokio::test]
async fn a_rotated_key_signs_new_tokens_and_the_old_one_stays_until_retired() {
    let idp = provider().await;
    let before = idp.current_kid();
    let claims = idp.claims_for("ada", "team", Some("n")).unwrap();
    let old_token = idp.sign(&claims).unwrap();
    idp.rotate_key().unwrap();
    let after = idp.current_kid();
    assert_ne!(before, after);
    let jwks = fetch_jwks(&idp).await;
    assert_eq!(jwks["keys"].as_array().unwrap().len(), 2);
    assert!(verified(&jwks, &old_token).is_some(), "the old key is still published");
    let new_token = idp.sign(&claims).unwrap();
    assert!(verified(&jwks, &new_token).is_some());
    idp.retire_old_keys();
    let jwks = fetch_jwks(&idp).await;
    assert_eq!(jwks["keys"].as_array().unwrap().len(), 1);
    assert!(verified(&jwks, &old_token).is_none(), "retired: the old token no longer verifies");
    assert!(verified(&jwks, &new_token).is_some());
    assert!(idp.rotate_key().is_err(), "two keys in all");
}

#[tokio::test]
async fn a_forged_token_verifies_against_no_published_key() {
    let idp = provider().await;
    let claims = idp.claims_for("root", "team", None).unwrap();
    let forged = idp.forge(&claims).unwrap();
    assert!(verified(&fetch_jwks(&idp).await, &forged).is_none());
    // The same claims, signed by the provider, do.
    assert!(verified(&fetch_jwks(&idp).await, &idp.sign(&claims).unwrap()).is_some());
    assert!(idp.claims_for("mallory", "team", None).is_none());
}
