//! The third-party OpenID provider the team server's tests sign in with: `oidc-provider` from
//! npm (pinned in tests/oidc-provider), run by node as a team would run it, and the steps a
//! browser stand-in takes through its pages.

use std::path::{Path, PathBuf};
use std::time::Duration;

use beckon_test_idp::{Browser, Page};

/// The provider's folder: its script and pinned package.
fn provider_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/oidc-provider")
}

/// `oidc-provider` running as set up by `setup`; stopped when dropped.
pub struct OidcProvider {
    pub issuer: String,
    _child: tokio::process::Child,
}

impl OidcProvider {
    /// Starts it as `setup` says (see provider.mjs), writing `setup` in `dir`.
    pub async fn start(dir: &Path, setup: serde_json::Value) -> OidcProvider {
        let script = provider_dir().join("provider.mjs");
        assert!(
            provider_dir().join("node_modules/oidc-provider").is_dir(),
            "oidc-provider is not installed: run `npm ci` in tests/oidc-provider (scripts/test does)"
        );
        let file = dir.join("provider.json");
        std::fs::write(&file, setup.to_string()).unwrap();
        let mut child = tokio::process::Command::new("node")
            .arg(&script)
            .arg(&file)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs the provider");
        let stdout = child.stdout.take().unwrap();
        let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the provider says it listens within 30 s")
            .unwrap()
            .expect("the provider printed a line");
        let issuer = line.strip_prefix("listening ").expect("`listening <issuer>`").to_owned();
        // Whatever else it prints is read, or its writes would fail and stop it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        OidcProvider { issuer, _child: child }
    }
}

/// `location` as an absolute URL, relative to `from`.
pub fn absolute(from: &str, location: &str) -> String {
    url::Url::parse(from).unwrap().join(location).unwrap().to_string()
}

/// Follows redirects from `url` as a browser would, until a page that is not one: that page and
/// its URL.
pub async fn follow(browser: &mut Browser, mut url: String) -> (Page, String) {
    for _ in 0..20 {
        let page = browser.navigate(&url, "cross-site").await.unwrap();
        match &page.location {
            Some(location) if page.status.is_redirection() => url = absolute(&url, location),
            _ => return (page, url),
        }
    }
    panic!("more than 20 redirects from {url}");
}

/// The `action` of the first form in `page`.
pub fn form_action(page: &str) -> String {
    let start = page.find("action=\"").expect("a form") + "action=\"".len();
    page[start..start + page[start..].find('"').unwrap()].replace("&amp;", "&")
}

/// Submits `page`'s form (at `url`) with `fields`, then follows where it leads.
pub async fn submit(browser: &mut Browser, page: &Page, url: &str, fields: &[(&str, &str)]) -> (Page, String) {
    let action = absolute(url, &form_action(&page.body));
    let origin = Browser::site(url);
    let posted = browser.submit(&action, &format!("http://{origin}"), fields).await.unwrap();
    match &posted.location {
        Some(location) if posted.status.is_redirection() => follow(browser, absolute(&action, location)).await,
        _ => (posted, action),
    }
}
