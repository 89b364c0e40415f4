//! Signing in against a real OpenID provider on loopback (`beckon-test-idp`): the code flow
//! with PKCE end to end, and each way a sign-in must be refused — a replayed code, another
//! sign-in's verifier, and ID tokens forged, expired, for another client, with another nonce
//! or from another issuer — and a rotated key taken up without a restart.

use std::collections::HashMap;

use beckon_gateway::sign_in::{OidcSettings, PendingSignIn, RelyingParty};
use beckon_store::SignedIn;
use beckon_test_idp::{Client, Misbehaviour, Person, Provider};

const REDIRECT: &str = "https://beckon.example/auth/callback";

async fn provider() -> Provider {
    let people = vec![
        Person {
            subject: "ada".into(),
            email: "ada@example.com".into(),
            name: "Ada".into(),
            groups: vec!["eng".into()],
        },
        Person { subject: "bo".into(), email: "bo@example.com".into(), name: "Bo".into(), groups: vec![] },
    ];
    let clients = vec![
        Client { id: "beckon".into(), secret: Some("s3cret".into()), redirect_uris: vec![REDIRECT.into()] },
        Client { id: "other".into(), secret: Some("x".into()), redirect_uris: vec![REDIRECT.into()] },
    ];
    Provider::start(clients, people).await.unwrap()
}

fn settings(issuer: &str, client_secret: Option<&str>) -> OidcSettings {
    OidcSettings::new(issuer, "beckon", client_secret.map(str::to_owned))
}

async fn relying_party(idp: &Provider) -> RelyingParty {
    let rp = RelyingParty::new(settings(idp.issuer(), Some("s3cret")), REDIRECT.into()).unwrap();
    rp.discover().await.unwrap();
    rp
}

/// What a browser does between the two halves: follows the sign-in URL as `who` and comes back
/// with the redirect's query.
async fn browse(url: &str, who: &str) -> HashMap<String, String> {
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let response = http.get(format!("{url}&login_hint={who}")).send().await.unwrap();
    assert!(response.status().is_redirection(), "{}", response.status());
    let location = url::Url::parse(response.headers()["location"].to_str().unwrap()).unwrap();
    assert_eq!(format!("{}://{}{}", location.scheme(), location.host_str().unwrap(), location.path()), REDIRECT);
    location.query_pairs().into_owned().collect()
}

/// A whole sign-in as `who`: the pending sign-in and the code the provider sent back.
async fn code_for(rp: &RelyingParty, who: &str) -> (PendingSignIn, String) {
    let start = rp.start().unwrap();
    let back = browse(&start.url, who).await;
    assert_eq!(back["state"], start.pending.state, "the state comes back unchanged");
    (start.pending, back["code"].clone())
}

#[tokio::test]
async fn a_person_signs_in_with_the_code_flow_and_pkce() {
    let idp = provider().await;
    let rp = relying_party(&idp).await;
    let start = rp.start().unwrap();
    let url = url::Url::parse(&start.url).unwrap();
    let query: HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert!(start.url.starts_with(&format!("{}/authorize?", idp.issuer())), "{}", start.url);
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["response_type"], "code");
    assert!(query["scope"].split(' ').any(|s| s == "openid"), "{query:?}");
    assert!(
        !start.url.contains(&serde_json::to_value(&start.pending).unwrap()["verifier"].as_str().unwrap().to_owned())
    );
    let back = browse(&start.url, "ada").await;
    let who = rp.finish(&start.pending, &back["code"]).await.unwrap();
    assert_eq!(
        who,
        SignedIn {
            subject: "ada".into(),
            email: Some("ada@example.com".into()),
            name: Some("Ada".into()),
            groups: vec!["eng".into()],
        }
    );
    assert_eq!(idp.codes(), (1, 1));
}

#[tokio::test]
async fn a_replayed_code_and_another_sign_ins_verifier_are_refused() {
    let idp = provider().await;
    let rp = relying_party(&idp).await;
    let (pending, code) = code_for(&rp, "ada").await;
    rp.finish(&pending, &code).await.unwrap();
    let replayed = rp.finish(&pending, &code).await.unwrap_err().to_string();
    assert!(replayed.contains("invalid_grant"), "{replayed}");

    // A code taken from one sign-in and finished with another's verifier (a stolen code).
    let (_, stolen) = code_for(&rp, "ada").await;
    let thief = rp.start().unwrap().pending;
    let refused = rp.finish(&thief, &stolen).await.unwrap_err().to_string();
    assert!(refused.contains("invalid_grant"), "{refused}");
    assert_eq!(idp.codes(), (2, 1));
}

#[tokio::test]
async fn id_tokens_forged_expired_misaddressed_or_without_the_nonce_are_refused() {
    let idp = provider().await;
    let rp = relying_party(&idp).await;
    for (how, words) in [
        (Misbehaviour::ForgedSignature, "signature"),
        (Misbehaviour::Expired, "expire"),
        (Misbehaviour::Audience("other".into()), "audience"),
        (Misbehaviour::Nonce("not-the-one".into()), "nonce"),
        (Misbehaviour::Issuer("https://evil.example".into()), "issuer"),
    ] {
        let (pending, code) = code_for(&rp, "bo").await;
        idp.misbehave(how.clone());
        let refused = rp.finish(&pending, &code).await.unwrap_err().to_string();
        assert!(refused.to_lowercase().contains(words), "{how:?}: {refused}");
        assert!(refused.contains("ID token was refused"), "{how:?}: {refused}");
    }
    // The provider behaving again: the same person signs in.
    let (pending, code) = code_for(&rp, "bo").await;
    assert_eq!(rp.finish(&pending, &code).await.unwrap().subject, "bo");
}

#[tokio::test]
async fn a_rotated_key_is_taken_up_without_a_restart() {
    let idp = provider().await;
    let rp = relying_party(&idp).await;
    let (pending, code) = code_for(&rp, "ada").await;
    rp.finish(&pending, &code).await.unwrap();
    idp.rotate_key().unwrap();
    idp.retire_old_keys();
    let (pending, code) = code_for(&rp, "ada").await;
    assert_eq!(rp.finish(&pending, &code).await.unwrap().subject, "ada", "the JWKS is read again");
}

#[tokio::test]
async fn a_provider_that_cannot_be_reached_is_named_in_the_error() {
    let idp = provider().await;
    let issuer = idp.issuer().to_owned();
    drop(idp);
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let rp = RelyingParty::new(settings(&issuer, None), REDIRECT.into()).unwrap();
    let err = rp.discover().await.unwrap_err().to_string();
    assert!(err.contains(&issuer) && err.contains("discovery failed"), "{err}");
    let err = rp.start().unwrap_err();
    assert!(matches!(err, beckon_gateway::GatewayError::IdentityUnreachable { .. }), "{err}");
    assert!(err.to_string().contains(&issuer), "{err}");
}
