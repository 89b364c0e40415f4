//! A team server signing people in (the real `beckon serve` with a client secret file) through
//! `beckon-test-idp`, and the Chromium scripts in `ui/e2e/team/` that drive it as people would.

use std::path::PathBuf;
use std::time::Duration;

use beckon_test_idp::{Client, Person, Provider};
use serde_json::{Value, json};

use super::server::Server;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A team server and its identity provider.
pub struct Team {
    pub idp: Provider,
    pub server: Server,
    pub url: String,
    /// The admin token.
    pub token: String,
    pub http: reqwest::Client,
    _dir: tempfile::TempDir,
}

/// A person the provider knows, in `groups`.
pub fn person(subject: &str, name: &str, groups: &[&str]) -> Person {
    Person {
        subject: subject.into(),
        email: format!("{subject}@example.com"),
        name: name.into(),
        groups: groups.iter().map(|group| (*group).to_owned()).collect(),
    }
}

/// A team server started with `extra` arguments, whose provider knows `people`.
pub async fn team(people: Vec<Person>, extra: &[&str]) -> Team {
    team_with_settings(people, extra, None).await
}

/// A team server as [`team`], whose data folder starts with `settings` (`settings.json`).
pub async fn team_with_settings(people: Vec<Person>, extra: &[&str], settings: Option<Value>) -> Team {
    let client = Client {
        id: "beckon".into(),
        secret: Some("s3cret".into()),
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    };
    let idp = Provider::start(vec![client], people).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("oidc-secret");
    std::fs::write(&secret, "s3cret").unwrap();
    let (data, logs) = (dir.path().join("data"), dir.path().join("logs"));
    std::fs::create_dir_all(&logs).unwrap();
    if let Some(settings) = settings {
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("settings.json"), settings.to_string()).unwrap();
    }
    let oidc = ["--oidc-issuer", idp.issuer(), "--oidc-client-id", "beckon", "--oidc-client-secret-file"];
    let args: Vec<&str> = oidc.into_iter().chain([secret.to_str().unwrap()]).chain(extra.iter().copied()).collect();
    let server = Server::start_pairing(&data, &logs, &args, false).await;
    let endpoint = server.watch().borrow().endpoint.clone().unwrap();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    Team { idp, server, url: endpoint.url, token: endpoint.token, http, _dir: dir }
}

impl Team {
    /// A new ask-only token for `owner` (`person:ada`); its secret.
    pub async fn token_for(&self, name: &str, owner: &str) -> String {
        let made = self
            .http
            .post(format!("{}/v1/tokens", self.url))
            .bearer_auth(&self.token)
            .json(&json!({"name": name, "kind": "ask_only", "owner": owner}))
            .send()
            .await
            .unwrap();
        assert_eq!(made.status(), 201, "token for {owner}");
        made.json::<Value>().await.unwrap()["secret"].as_str().unwrap().to_owned()
    }

    /// Asks `body` with bearer `token`; the question's id.
    pub async fn ask(&self, token: &str, body: Value) -> String {
        let asked =
            self.http.post(format!("{}/v1/questions", self.url)).bearer_auth(token).json(&body).send().await.unwrap();
        assert_eq!(asked.status(), 201, "{body}");
        asked.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_owned()
    }

    /// Question `id` as the admin reads it.
    pub async fn question(&self, id: &str) -> Value {
        let url = format!("{}/v1/questions/{id}", self.url);
        self.http.get(url).bearer_auth(&self.token).send().await.unwrap().json::<Value>().await.unwrap()
    }
}

/// Runs Chromium script `script` (in `ui/e2e/team/`) with `args`: what it reported, as JSON.
pub async fn chromium(script: &str, args: &[&str]) -> Value {
    assert!(
        workspace().join("ui/node_modules/playwright-core").exists(),
        "the UI's packages are not installed: run `npm ci` in ui/ (scripts/test does)"
    );
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(std::path::Path::new(&chromium).exists(), "no Chromium at {chromium}: run scripts/install-deps");
    let run = tokio::process::Command::new("node")
        .arg(workspace().join("ui/e2e/team").join(script))
        .args(args)
        .env("CHROMIUM", &chromium)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(180), run).await.expect("Chromium finished").unwrap();
    assert!(output.status.success(), "the Chromium run failed:\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Fails with what axe-core found on a page, from a Chromium script's `{ "dark": …, "light": … }`
/// (each theme's violations as words, "" for none), named `page` in the failure.
pub fn assert_accessible(page: &str, themes: &Value) {
    let themes = themes.as_object().unwrap_or_else(|| panic!("no axe-core results for {page}: {themes}"));
    assert_eq!(themes.len(), 2, "{page}: both themes audited: {themes:?}");
    for (theme, found) in themes {
        let found = found.as_str().unwrap_or_else(|| panic!("{page}, {theme}: {found}"));
        assert!(found.is_empty(), "WCAG 2.1 AA violations on {page} in the {theme} theme:\n{found}");
    }
}
