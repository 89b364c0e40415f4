//! A browser stand-in for sign-in tests: it keeps the cookies each site sets (by host and port,
//! forgetting one set with `Max-Age=0`), sends them back, says where a request comes from
//! (`Sec-Fetch-Site`, `Origin`) as a browser would, and follows no redirect by itself, so a
//! test can look at each step of a sign-in.

use std::collections::HashMap;

use reqwest::{Method, StatusCode};
use serde_json::Value;

/// A browser's cookies and its HTTP client.
#[derive(Debug, Clone)]
pub struct Browser {
    http: reqwest::Client,
    /// Cookies by site (`host:port`), by name.
    pub jar: HashMap<String, HashMap<String, String>>,
    /// Every `Set-Cookie` line received, as sent.
    pub set_cookies: Vec<String>,
}

impl Default for Browser {
    fn default() -> Self {
        Browser::with(reqwest::Client::builder())
    }
}

/// A response as a page sees it: its status, where it redirects, and its body.
#[derive(Debug, Clone)]
pub struct Page {
    pub status: StatusCode,
    pub location: Option<String>,
    pub body: String,
}

impl Page {
    /// The body as JSON (a string when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| Value::String(self.body.clone()))
    }
}

impl Browser {
    /// A browser whose client is made from `builder` (to trust a certificate, or find a name on
    /// loopback); it never follows redirects by itself.
    pub fn with(builder: reqwest::ClientBuilder) -> Browser {
        let http = builder.redirect(reqwest::redirect::Policy::none()).no_proxy().build().unwrap_or_default();
        Browser { http, jar: HashMap::new(), set_cookies: Vec::new() }
    }

    /// `host:port` of `url`.
    pub fn site(url: &str) -> String {
        match url::Url::parse(url) {
            Ok(url) => format!("{}:{}", url.host_str().unwrap_or_default(), url.port_or_known_default().unwrap_or(0)),
            Err(_) => String::new(),
        }
    }

    /// The cookie named `name` this browser holds for `url`'s site.
    pub fn cookie(&self, url: &str, name: &str) -> Option<String> {
        self.jar.get(&Self::site(url))?.get(name).cloned()
    }

    /// The `Cookie` header this browser sends to `url`.
    pub fn cookie_header(&self, url: &str) -> Option<String> {
        let cookies = self.jar.get(&Self::site(url))?;
        (!cookies.is_empty()).then(|| cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; "))
    }

    async fn send(&mut self, url: &str, request: reqwest::RequestBuilder) -> Result<Page, reqwest::Error> {
        let request = match self.cookie_header(url) {
            Some(cookies) => request.header("cookie", cookies),
            None => request,
        };
        let response = request.send().await?;
        for set in response.headers().get_all("set-cookie") {
            let Ok(line) = set.to_str() else { continue };
            let (pair, attributes) = line.split_once(';').unwrap_or((line, ""));
            let Some((name, value)) = pair.split_once('=') else { continue };
            let cookies = self.jar.entry(Self::site(url)).or_default();
            if attributes.contains("Max-Age=0") {
                cookies.remove(name);
            } else {
                cookies.insert(name.to_owned(), value.to_owned());
            }
            self.set_cookies.push(line.to_owned());
        }
        let status = response.status();
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        Ok(Page { status, location, body: response.text().await? })
    }

    /// A top-level navigation to `url`, coming from a page on the same site or another
    /// (`fetch_site`: `same-origin`, `cross-site` or `none`).
    pub async fn navigate(&mut self, url: &str, fetch_site: &str) -> Result<Page, reqwest::Error> {
        let request = self.http.get(url).header("sec-fetch-site", fetch_site).header("sec-fetch-mode", "navigate");
        self.send(url, request).await
    }

    /// A form on a page at `origin` posted to `url` (a top-level navigation), with `fields`.
    pub async fn submit(&mut self, url: &str, origin: &str, fields: &[(&str, &str)]) -> Result<Page, reqwest::Error> {
        let fetch_site = if Self::site(origin) == Self::site(url) { "same-origin" } else { "cross-site" };
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
        let request = self
            .http
            .post(url)
            .header("sec-fetch-site", fetch_site)
            .header("sec-fetch-mode", "navigate")
            .header("origin", origin)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        self.send(url, request).await
    }

    /// A page at `origin` calling `fetch(url)` with `method`, an `X-CSRF-Token` when given, and
    /// a JSON body when given.
    pub async fn fetch(
        &mut self,
        method: Method,
        url: &str,
        origin: &str,
        csrf: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Page, reqwest::Error> {
        let fetch_site = if Self::site(origin) == Self::site(url) { "same-origin" } else { "cross-site" };
        let mut request = self.http.request(method, url).header("sec-fetch-site", fetch_site).header("origin", origin);
        if let Some(csrf) = csrf {
            request = request.header("x-csrf-token", csrf);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        self.send(url, request).await
    }

    /// The first half of a sign-in on the server at `base` as `who`: `/auth/login?next=…`, to the
    /// provider and back, up to the callback URL the provider sends the browser to (not
    /// followed). `None` when a step did not redirect where a sign-in goes.
    pub async fn to_callback(&mut self, base: &str, who: &str, next: &str) -> Result<Option<String>, reqwest::Error> {
        let next = url::form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>();
        let login = self.navigate(&format!("{base}/auth/login?next={next}"), "same-origin").await?;
        let Some(authorize) = login.location.filter(|_| login.status.is_redirection()) else { return Ok(None) };
        let chosen = self.navigate(&format!("{authorize}&login_hint={who}"), "cross-site").await?;
        Ok(chosen.location.filter(|_| chosen.status.is_redirection()))
    }

    /// A whole sign-in on the server at `base` as `who`: the callback's response (a redirect to
    /// `next` when it worked).
    pub async fn sign_in(&mut self, base: &str, who: &str, next: &str) -> Result<Option<Page>, reqwest::Error> {
        match self.to_callback(base, who, next).await? {
            Some(callback) => Ok(Some(self.navigate(&callback, "cross-site").await?)),
            None => Ok(None),
        }
    }
}

/// The value of hidden field `name` in a page, as a browser would send it.
pub fn hidden_field(page: &str, name: &str) -> Option<String> {
    let marker = format!("name=\"{name}\" value=\"");
    let start = page.find(&marker)? + marker.len();
    let end = start + page[start..].find('"')?;
    Some(
        page[start..end]
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}
