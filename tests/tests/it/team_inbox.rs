//! The desktop app connected to a team inbox, end to end: the real app under Xvfb with a real
//! notification daemon, a team server (the runtime and gateway `beckon serve` runs, on loopback,
//! signing people in with a real OpenID provider), and a browser stand-in for the person's
//! browser (the app's `xdg-open` writes the address down; the test signs the person in there,
//! presses Connect and follows the redirect to the app). A question an agent's token asks on the
//! team server for the person is notified on the desktop and allowed from the notification; the
//! agent reads the answer, recorded as the person's. Signed out on the server, the app says
//! "Sign in again", and after it the inbox is followed again.

use std::path::Path;
use std::time::Duration;

use beckon_e2e::{App, Bus, Failure, Home, Notifications, eventually};
use beckon_gateway::sign_in::OidcSettings;
use beckon_gateway::{GatewayConfig, RunningGateway, SignInConfig};
use beckon_runtime::{Beckon, RuntimeConfig, StartOptions};
use beckon_test_idp::{Browser, Client, Person, Provider, hidden_field};
use fantoccini::Locator;
use serde_json::{Value, json};

/// A team server signing people in with `idp`.
struct TeamServer {
    gateway: RunningGateway,
    http: reqwest::Client,
    _beckon: Beckon,
    _dir: tempfile::TempDir,
}

impl TeamServer {
    async fn start(idp: &Provider) -> Result<TeamServer, Failure> {
        let dir = tempfile::tempdir()?;
        let beckon = Beckon::start(RuntimeConfig::new(dir.path()), StartOptions::default()).await?;
        let mut config = GatewayConfig::new(dir.path().join("gateway"));
        config.port = 0;
        config.sign_in = Some(SignInConfig {
            oidc: OidcSettings::new(idp.issuer(), "beckon", Some("s3cret".into())),
            admin_group: "beckon-admins".into(),
        });
        let gateway = beckon_gateway::start(beckon.clone(), config).await?;
        let http = reqwest::Client::builder().no_proxy().build()?;
        Ok(TeamServer { gateway, http, _beckon: beckon, _dir: dir })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.gateway.url)
    }

    /// A token of Ada's agent, asking for her.
    async fn adas_token(&self) -> Result<String, Failure> {
        let made: Value = self
            .http
            .post(self.url("/v1/tokens"))
            .bearer_auth(&self.gateway.token)
            .json(&json!({"name": "ada-laptop", "kind": "ask_only", "owner": "person:ada"}))
            .send()
            .await?
            .json()
            .await?;
        Ok(made["secret"].as_str().ok_or("no token secret")?.to_owned())
    }

    /// Ada's agent asks to run `command`: the question's id.
    async fn ask(&self, token: &str, command: &str) -> Result<String, Failure> {
        let body = json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": command}}});
        let asked: Value =
            self.http.post(self.url("/v1/questions")).bearer_auth(token).json(&body).send().await?.json().await?;
        Ok(asked["request_id"].as_str().ok_or_else(|| format!("not asked: {asked}"))?.to_owned())
    }
}

/// The person, in their browser: opens the address the app opened, signs in (when not yet),
/// presses Connect, and the browser follows the redirect back to the app.
async fn connect_in_the_browser(browser: &mut Browser, server: &TeamServer, opened: &str) -> Result<(), Failure> {
    let base = server.gateway.url.clone();
    let mut page = browser.navigate(opened, "none").await?;
    if page.status.is_redirection() {
        let path = opened.strip_prefix(base.as_str()).ok_or("the app opened another site")?;
        browser.sign_in(&base, "ada", path).await?.ok_or("the sign-in did not come back")?;
        page = browser.navigate(opened, "cross-site").await?;
    }
    let mut fields = Vec::new();
    for name in ["redirect_uri", "state", "code_challenge", "code_challenge_method", "csrf"] {
        fields.push((
            name,
            hidden_field(&page.body, name).ok_or_else(|| format!("no {name} on the page: {}", page.body))?,
        ));
    }
    fields.push(("choice", "connect".to_owned()));
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let pressed = browser.submit(&server.url("/auth/app"), &base, &fields).await?;
    let back = pressed.location.ok_or_else(|| format!("Connect did not redirect: {}", pressed.body))?;
    let landed = reqwest::Client::builder().no_proxy().build()?.get(&back).send().await?;
    if !landed.status().is_success() {
        return Err(format!("the app's listener answered {}", landed.status()).into());
    }
    Ok(())
}

/// The addresses the app has opened in the "browser" so far.
fn opened_urls(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file).unwrap_or_default().lines().map(str::to_owned).collect()
}

/// Opens Settings and waits for the inbox named Acme to be in `state`.
async fn inbox_state(app: &App, state: &str) -> Result<(), Failure> {
    app.find(&format!(".team-inbox[data-state=\"{state}\"]"), "Acme").await.map(|_| ())
}

#[tokio::test]
async fn a_team_inbox_question_is_notified_on_the_desktop_and_allowed_from_the_notification() -> Result<(), Failure> {
    let clients = vec![Client {
        id: "beckon".into(),
        secret: Some("s3cret".into()),
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    }];
    let ada = Person { subject: "ada".into(), email: "ada@example.com".into(), name: "Ada".into(), groups: vec![] };
    let idp = Provider::start(clients, vec![ada]).await?;
    let server = TeamServer::start(&idp).await?;
    let token = server.adas_token().await?;

    let home = Home::new()?;
    let opened = home.browser_stand_in()?;
    // A bus that starts no service: with no Secret Service on it the app keeps the session in
    // its file, where the test reads it below (a standard session bus would start the system's
    // gnome-keyring, outside the test's home).
    let mut bus = Bus::start_without_services(&home)?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_on(&home, bus).await?;

    // Settings › Inboxes › Add a team inbox: the browser opens on the team server.
    app.click("button[aria-label=Settings]", "").await?;
    app.find(".team-inboxes input", "").await?;
    let fields = app.client.find_all(Locator::Css(".team-inboxes input")).await?;
    fields.first().ok_or("no name field")?.send_keys("Acme").await?;
    fields.get(1).ok_or("no address field")?.send_keys(&server.gateway.url).await?;
    app.click(".team-inboxes button", "Add a team inbox").await?;
    let first = eventually("the browser opened on the team server", || opened_urls(&opened).first().cloned()).await?;
    assert!(first.starts_with(&server.url("/auth/app?")), "{first}");
    let mut browser = Browser::default();
    connect_in_the_browser(&mut browser, &server, &first).await?;
    inbox_state(&app, "live").await?;
    app.find(".team-inbox", "as Ada").await?;

    // Ada's agent asks on the team server: the desktop notifies it, marked in the inbox.
    let id = server.ask(&token, "make deploy").await?;
    let notified =
        notifications.wait_for("the team question's notification", |n| n.body.contains("make deploy")).await?;
    let allow = notified.actions.iter().find(|(_, label)| label == "Allow").map(|(key, _)| key.clone());
    let allow = allow.ok_or_else(|| format!("no Allow: {:?}", notified.actions))?;
    app.eval("window.location.hash = '#/inbox'; return null").await?;
    app.shown(".inbox-row .inbox-row-team", "Acme").await?;

    // Allowed from the notification: the agent reads the answer, recorded as Ada's.
    app.bus()?.daemon_action(notified.id.ok_or("no id")?, &allow)?;
    let url = server.url(&format!("/v1/questions/{id}?wait=20"));
    let answered: Value = server.http.get(&url).bearer_auth(&token).send().await?.json().await?;
    assert_eq!(answered["status"], "answered", "{answered}");
    assert_eq!(answered["decision"]["behavior"], "allow", "{answered}");
    assert_eq!(answered["answered_by"], "oidc:ada (Ada <ada@example.com>)", "{answered}");
    assert_eq!(answered["answered_via"], "notification", "{answered}");
    notifications.wait_for_close(notified.id.ok_or("no id")?).await?;

    // Signed out on the server: at the inbox's next event the app says so.
    let saved: Value = serde_json::from_slice(&std::fs::read(home.data_dir().join("team-inboxes.json"))?)?;
    let secret = saved[0]["secret"].as_str().ok_or("no session kept")?.to_owned();
    server.http.post(server.url("/auth/logout")).bearer_auth(&secret).send().await?.error_for_status()?;
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let later = server.ask(&token, "make release").await?;
    app.click("button[aria-label=Settings]", "").await?;
    inbox_state(&app, "signed_out").await?;
    app.click(".team-inbox button", "Sign in again").await?;
    let again = eventually("the browser opened again", || opened_urls(&opened).get(1).cloned()).await?;
    connect_in_the_browser(&mut browser, &server, &again).await?;
    inbox_state(&app, "live").await?;
    // Followed again: what was asked meanwhile is notified.
    notifications.wait_for("the question asked while signed out", |n| n.body.contains("make release")).await?;
    let still: Value =
        server.http.get(server.url(&format!("/v1/questions/{later}"))).bearer_auth(&token).send().await?.json().await?;
    assert_eq!(still["status"], "pending");
    app.quit().await
}
