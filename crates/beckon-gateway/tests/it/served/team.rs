//! A team server's people: an OpenID provider on loopback that knows them, the gateway's
//! sign-in set up with it, and a browser signed in as one of them.

use beckon_gateway::SignInConfig;
use beckon_gateway::sign_in::OidcSettings;
use beckon_test_idp::{Browser, Client, Person, Provider};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::Served;

/// A person in `groups`, named by their subject in capitals.
pub fn person(subject: &str, groups: &[&str]) -> Person {
    Person {
        subject: subject.into(),
        email: format!("{subject}@example.com"),
        name: subject.to_uppercase(),
        groups: groups.iter().map(|g| (*g).to_owned()).collect(),
    }
}

/// A provider that knows `people`, with Beckon registered as client `beckon`.
pub async fn provider(people: Vec<Person>) -> Provider {
    let clients = vec![Client {
        id: "beckon".into(),
        secret: Some("s3cret".into()),
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    }];
    Provider::start(clients, people).await.unwrap()
}

/// The gateway's sign-in with `idp`; admins are the group `beckon-admins`.
pub fn sign_in_config(idp: &Provider) -> SignInConfig {
    SignInConfig {
        oidc: OidcSettings::new(idp.issuer(), "beckon", Some("s3cret".into())),
        admin_group: "beckon-admins".into(),
    }
}

/// A signed-in browser and its CSRF token.
pub struct Signed {
    pub browser: Browser,
    pub csrf: String,
}

impl Signed {
    pub async fn sign_in(s: &Served, who: &str) -> Signed {
        let mut browser = Browser::default();
        let done = browser.sign_in(&s.gateway.url, who, "/").await.unwrap().unwrap();
        assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
        let me = browser.fetch(Method::GET, &format!("{}/v1/me", s.gateway.url), &s.gateway.url, None, None).await;
        let csrf = me.unwrap().json()["csrf_token"].as_str().unwrap().to_owned();
        Signed { browser, csrf }
    }

    pub async fn get(&mut self, s: &Served, path: &str) -> (StatusCode, Value) {
        let url = format!("{}{path}", s.gateway.url);
        let page = self.browser.fetch(Method::GET, &url, &s.gateway.url, None, None).await.unwrap();
        (page.status, page.json())
    }

    pub async fn post(&mut self, s: &Served, path: &str, body: Value) -> (StatusCode, Value) {
        let url = format!("{}{path}", s.gateway.url);
        let page = self.browser.fetch(Method::POST, &url, &s.gateway.url, Some(&self.csrf), Some(&body)).await.unwrap();
        (page.status, page.json())
    }
}

/// A token made with the person's token, owned by `owner`: its secret.
pub async fn token_for(s: &Served, name: &str, owner: &str) -> String {
    let made = s
        .http
        .post(format!("{}/v1/tokens", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .json(&json!({"name": name, "kind": "ask_only", "owner": owner}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), StatusCode::CREATED);
    let made: Value = made.json().await.unwrap();
    assert_eq!(made["token"]["owner"], owner);
    made["secret"].as_str().unwrap().to_owned()
}
