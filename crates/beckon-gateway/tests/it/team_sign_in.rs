//! Signing in on a team server, over real loopback HTTP against a real OpenID provider
//! (`beckon-test-idp`), with a browser stand-in that keeps cookies and follows redirects as a
//! browser does: the whole sign-in, the browser session's cookie, answering as oneself (the
//! person-only approval included) with the CSRF token, and each refusal — a write without the
//! token or from another site, a replayed or foreign callback, a forged, expired or misaddressed
//! ID token, a `next` leading elsewhere, a non-admin managing tokens, a signed-out cookie.

use beckon_gateway::sign_in::OidcSettings;
use beckon_gateway::{GatewayConfig, SignInConfig};
use beckon_test_idp::{Browser, Client, Misbehaviour, Person, Provider};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::served;

use served::Served;

async fn provider() -> Provider {
    let person = |subject: &str, name: &str, groups: &[&str]| Person {
        subject: subject.into(),
        email: format!("{subject}@example.com"),
        name: name.into(),
        groups: groups.iter().map(|g| (*g).to_owned()).collect(),
    };
    let people =
        vec![person("ada", "Ada", &["eng"]), person("bo", "Bo", &["design"]), person("root", "Ro", &["beckon-admins"])];
    // A loopback redirect matches any port, so the gateway's port 0 is fine.
    let clients = vec![Client {
        id: "beckon".into(),
        secret: Some("s3cret".into()),
        redirect_uris: vec!["http://127.0.0.1/auth/callback".into()],
    }];
    Provider::start(clients, people).await.unwrap()
}

fn signing_in_with(idp: &Provider) -> impl FnOnce(&mut GatewayConfig) + use<> {
    let issuer = idp.issuer().to_owned();
    move |config: &mut GatewayConfig| {
        config.sign_in = Some(SignInConfig {
            oidc: OidcSettings::new(issuer, "beckon", Some("s3cret".into())),
            admin_group: "beckon-admins".into(),
        });
    }
}

/// Signs `browser` in on `s` as `who`: where the server sent it at the end.
async fn sign_in(browser: &mut Browser, s: &Served, who: &str, next: &str) -> String {
    let done =
        browser.sign_in(&s.gateway.url, who, next).await.unwrap().expect("the sign-in went to the provider and back");
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    done.location.unwrap()
}

/// The first half of a sign-in: the callback URL the provider sends the browser to.
async fn to_callback(browser: &mut Browser, s: &Served, who: &str) -> String {
    let callback = browser.to_callback(&s.gateway.url, who, "/").await.unwrap().unwrap();
    assert!(callback.starts_with(&format!("{}/auth/callback?", s.gateway.url)), "{callback}");
    callback
}

/// A page of the server calling `fetch`: its status and JSON.
async fn fetch(
    browser: &mut Browser,
    method: Method,
    url: &str,
    origin: &str,
    csrf: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let page = browser.fetch(method, url, origin, csrf, body.as_ref()).await.unwrap();
    (page.status, page.json())
}

/// Who the server says this browser is, and its CSRF token.
async fn who_am_i(browser: &mut Browser, s: &Served) -> (StatusCode, Value) {
    fetch(browser, Method::GET, &format!("{}/v1/me", s.gateway.url), &s.gateway.url, None, None).await
}

async fn csrf_of(browser: &mut Browser, s: &Served) -> String {
    who_am_i(browser, s).await.1["csrf_token"].as_str().unwrap().to_owned()
}

/// An approval of `Bash`, asked with the person's token as an agent would.
async fn ask_approval(s: &Served) -> String {
    let body = json!({"agent": "claude-code", "session_key": "cc-1", "approval": {"tool_name": "Bash",
        "input": {"command": "make deploy"}}});
    let response = s
        .http
        .post(format!("{}/v1/questions", s.gateway.url))
        .bearer_auth(&s.gateway.token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json::<Value>().await.unwrap()["request_id"].as_str().unwrap().to_owned()
}

async fn status_of(s: &Served, id: &str) -> String {
    s.beckon.inbox().question(id.parse().unwrap()).await.unwrap().status.as_str().to_owned()
}

#[tokio::test]
async fn a_person_signs_in_and_allows_a_tool_call_as_themselves() {
    let idp = provider().await;
    let s = served::serve(signing_in_with(&idp)).await;
    let mut ada = Browser::default();
    assert_eq!(sign_in(&mut ada, &s, "ada", "/inbox").await, "/inbox");
    let session = ada.set_cookies.iter().find(|c| c.starts_with("beckon_session=")).unwrap();
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(session.contains(attribute), "{session}");
    }
    assert!(!session.contains("Secure"), "plain HTTP on loopback: {session}");
    let (status, me) = who_am_i(&mut ada, &s).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["kind"], "member");
    assert_eq!(me["subject"], "ada");
    assert_eq!(me["email"], "ada@example.com");
    assert_eq!(me["groups"], json!(["eng"]));
    assert_eq!(me["admin"], false);
    let csrf = me["csrf_token"].as_str().unwrap().to_owned();

    let id = ask_approval(&s).await;
    let answer = format!("{}/v1/questions/{id}/answer", s.gateway.url);
    let (status, allowed) =
        fetch(&mut ada, Method::POST, &answer, &s.gateway.url, Some(&csrf), Some(json!({"answer": "Allow"}))).await;
    assert_eq!(status, StatusCode::OK, "{allowed}");
    assert_eq!(allowed["status"], "answered");
    assert_eq!(allowed["answered_via"], "window");
    assert_eq!(allowed["answered_by"], "oidc:ada (Ada <ada@example.com>)");
    assert_eq!(allowed["decision"]["behavior"], "allow");

    // The audit trail names her, as an admin reads it.
    let mut root = Browser::default();
    sign_in(&mut root, &s, "root", "/").await;
    let (status, me) = who_am_i(&mut root, &s).await;
    assert_eq!((status, &me["admin"]), (StatusCode::OK, &json!(true)));
    let (status, audit) =
        fetch(&mut root, Method::GET, &format!("{}/v1/audit", s.gateway.url), &s.gateway.url, None, None).await;
    assert_eq!(status, StatusCode::OK, "{audit}");
    assert!(audit.to_string().contains("oidc:ada (Ada <ada@example.com>)"), "{audit}");
}

#[tokio::test]
async fn a_write_without_the_csrf_token_or_from_another_site_is_refused() {
    let idp = provider().await;
    let s = served::serve(signing_in_with(&idp)).await;
    let mut ada = Browser::default();
    sign_in(&mut ada, &s, "ada", "/").await;
    let csrf = csrf_of(&mut ada, &s).await;
    let id = ask_approval(&s).await;
    let answer = format!("{}/v1/questions/{id}/answer", s.gateway.url);
    let allow = || Some(json!({"answer": "Allow"}));
    let post = Method::POST;
    let (status, refused) = fetch(&mut ada, post.clone(), &answer, &s.gateway.url, None, allow()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("X-CSRF-Token"), "{refused}");
    let (status, _) = fetch(&mut ada, post.clone(), &answer, &s.gateway.url, Some(&"0".repeat(64)), allow()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Another site's page, even one that somehow learnt the token: its Origin gives it away.
    let (status, refused) = fetch(&mut ada, post.clone(), &answer, "https://evil.example", Some(&csrf), allow()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    // Its reads are refused too.
    let list = format!("{}/v1/questions?status=pending", s.gateway.url);
    let (status, _) = fetch(&mut ada, Method::GET, &list, "https://evil.example", None, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(status_of(&s, &id).await, "pending", "nothing was decided by the refused writes");
    // A link followed from another site is a top-level GET: it reads, as SameSite=Lax lets it.
    let followed = ada.navigate(&format!("{}/v1/me", s.gateway.url), "cross-site").await.unwrap();
    assert_eq!(followed.status, StatusCode::OK, "{}", followed.body);
    let (status, listed) = fetch(&mut ada, Method::GET, &list, &s.gateway.url, None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed["questions"][0]["request_id"], id.as_str());
    // Another person's token is another person's: Bo's does not pass on Ada's cookie.
    let mut bo = Browser::default();
    sign_in(&mut bo, &s, "bo", "/").await;
    let bo_csrf = csrf_of(&mut bo, &s).await;
    assert_ne!(bo_csrf, csrf);
    let (status, _) = fetch(&mut ada, post, &answer, &s.gateway.url, Some(&bo_csrf), allow()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(status_of(&s, &id).await, "pending");
}

#[tokio::test]
async fn signing_out_ends_the_session_everywhere_its_cookie_goes() {
    let idp = provider().await;
    let s = served::serve(signing_in_with(&idp)).await;
    let mut ada = Browser::default();
    sign_in(&mut ada, &s, "ada", "/").await;
    let cookie = ada.cookie_header(&s.gateway.url).unwrap();
    let csrf = csrf_of(&mut ada, &s).await;
    let logout = format!("{}/auth/logout", s.gateway.url);
    let (status, _) = fetch(&mut ada, Method::POST, &logout, &s.gateway.url, None, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "signing out is a write: it needs the token");
    let (status, out) = fetch(&mut ada, Method::POST, &logout, &s.gateway.url, Some(&csrf), None).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(ada.cookie_header(&s.gateway.url), None, "the browser was told to forget the cookie");
    // A copy of the old cookie is refused, with the way back.
    let response = s.http.get(format!("{}/v1/questions", s.gateway.url)).header("cookie", cookie).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("sign in again"), "{body}");
}

#[tokio::test]
async fn a_callback_is_taken_once_and_only_by_the_browser_that_began_it() {
    let idp = provider().await;
    let s = served::serve(signing_in_with(&idp)).await;
    let mut ada = Browser::default();
    let callback = to_callback(&mut ada, &s, "ada").await;
    // Another browser handed the link (a sign-in-as-someone-else attempt) is refused.
    let mut other = Browser::default();
    let refused = other.navigate(&callback, "cross-site").await.unwrap();
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(refused.body.contains("not begun in this browser"), "{}", refused.body);
    assert_eq!(other.cookie_header(&s.gateway.url), None);
    // The browser that began it signs in, and its sign-in cookie is cleared.
    let state = url::Url::parse(&callback).unwrap().query_pairs().find(|(k, _)| k == "state").unwrap().1.into_owned();
    let mut copy = ada.clone();
    let done = ada.navigate(&callback, "cross-site").await.unwrap();
    assert_eq!(done.status, StatusCode::SEE_OTHER);
    assert!(ada.cookie(&s.gateway.url, "beckon_session").is_some());
    assert_eq!(ada.cookie(&s.gateway.url, "beckon_sign_in"), None, "the sign-in cookie is cleared once used");
    // The same callback again, from a copy of the browser as it was, is refused.
    assert_eq!(copy.cookie(&s.gateway.url, "beckon_sign_in"), Some(state));
    let again = copy.navigate(&callback, "cross-site").await.unwrap();
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
    assert!(again.body.contains("expired or was already used"), "{}", again.body);
    assert_eq!(copy.cookie(&s.gateway.url, "beckon_session"), None);
}

#[tokio::test]
async fn a_forged_expired_or_misaddressed_id_token_signs_no_one_in() {
    let idp = provider().await;
    let s = served::serve(signing_in_with(&idp)).await;
    for how in [
        Misbehaviour::ForgedSignature,
        Misbehaviour::Expired,
        Misbehaviour::Audience("someone-else".into()),
        Misbehaviour::Nonce("another".into()),
    ] {
        let mut ada = Browser::default();
        let callback = to_callback(&mut ada, &s, "ada").await;
        idp.misbehave(how.clone());
        let refused = ada.navigate(&callback, "cross-site").await.unwrap();
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{how:?}");
        assert!(refused.body.contains("the ID token was refused"), "{how:?}: {}", refused.body);
        assert_eq!(ada.cookie(&s.gateway.url, "beckon_session"), None, "{how:?}");
    }
    // The provider's own refusal is shown too.
    let mut ada = Browser::default();
    to_callback(&mut ada, &s, "ada").await;
    let denied =
        ada.navigate(&format!("{}/auth/callback?error=access_denied", s.gateway.url), "cross-site").await.unwrap();
    assert_eq!(denied.status, StatusCode::UNAUTHORIZED);
    assert!(denied.body.contains("access_denied"));
}

#[tokio::test]
async fn a_sign_in_never_leads_to_another_site() {
    let idp = provider().await;
    let s = served::serve(signing_in_with(&idp)).await;
    for next in ["https://evil.example/", "//evil.example/", "/\\evil.example"] {
        let url = format!(
            "{}/auth/login?next={}",
            s.gateway.url,
            url::form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>()
        );
        let response = s.http.get(url).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{next}");
    }
    assert_eq!(idp.codes(), (0, 0), "no sign-in went to the provider");
}

#[tokio::test]
async fn only_admins_manage_tokens_and_browsers_do_not_speak_mcp() {
    let idp = provider().await;
    let s = served::serve(signing_in_with(&idp)).await;
    let mut bo = Browser::default();
    sign_in(&mut bo, &s, "bo", "/").await;
    let csrf = csrf_of(&mut bo, &s).await;
    let tokens = format!("{}/v1/tokens", s.gateway.url);
    let (status, refused) = fetch(&mut bo, Method::GET, &tokens, &s.gateway.url, None, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("beckon-admins"), "{refused}");
    let make = Some(json!({"name": "bo-laptop", "kind": "ask_only"}));
    let (status, _) = fetch(&mut bo, Method::POST, &tokens, &s.gateway.url, Some(&csrf), make.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let mcp = format!("{}/mcp", s.gateway.url);
    let (status, _) = fetch(&mut bo, Method::POST, &mcp, &s.gateway.url, Some(&csrf), Some(json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let mut root = Browser::default();
    sign_in(&mut root, &s, "root", "/").await;
    let root_csrf = csrf_of(&mut root, &s).await;
    let (status, made) = fetch(&mut root, Method::POST, &tokens, &s.gateway.url, Some(&root_csrf), make).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
}

#[tokio::test]
async fn a_server_without_sign_in_knows_no_cookie() {
    let s = served::serve(|_| {}).await;
    let response = s.http.get(format!("{}/auth/login", s.gateway.url)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let response = s
        .http
        .get(format!("{}/v1/questions", s.gateway.url))
        .header("cookie", "beckon_session=0000")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("Bearer"), "{body}");
}

#[tokio::test]
async fn a_server_starts_while_its_provider_is_down_and_signs_people_in_once_it_answers() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let issuer = format!("http://{closed}");
    let s = served::serve(|config| {
        config.sign_in = Some(SignInConfig {
            oidc: OidcSettings::new(issuer.clone(), "beckon", Some("s3cret".into())),
            admin_group: "beckon-admins".into(),
        });
    })
    .await;
    // Agents are served...
    let health = s.http.get(format!("{}/v1/health", s.gateway.url)).bearer_auth(&s.gateway.token).send().await;
    assert_eq!(health.unwrap().status(), StatusCode::OK);
    // ...and a person is told why they cannot sign in yet.
    let mut ada = Browser::default();
    let login = ada.navigate(&format!("{}/auth/login", s.gateway.url), "same-origin").await.unwrap();
    assert_eq!(login.status, StatusCode::SERVICE_UNAVAILABLE, "{}", login.body);
    assert!(login.body.contains(&issuer) && login.body.contains("cannot be reached"), "{}", login.body);

    // The provider comes up where it was expected: the server finds it by itself.
    let idp = provider().await;
    let (clients, people) = (idp.clients(), idp.people());
    drop(idp);
    let _idp = Provider::start_at(closed, clients, people).await.unwrap();
    let began = std::time::Instant::now();
    loop {
        let login = ada.navigate(&format!("{}/auth/login", s.gateway.url), "same-origin").await.unwrap();
        if login.status == StatusCode::SEE_OTHER {
            break;
        }
        assert!(began.elapsed() < std::time::Duration::from_secs(10), "still refused: {}", login.body);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(sign_in(&mut ada, &s, "ada", "/").await, "/");
}

#[tokio::test]
async fn beginning_sign_ins_spends_the_addresss_own_budget_not_the_writes() {
    let idp = provider().await;
    let sign_in = signing_in_with(&idp);
    let s = served::serve(move |config| {
        sign_in(config);
        config.stranger_per_second = 0.1;
        config.stranger_burst = 3.0;
        config.writes_per_second = 0.1;
        config.write_burst = 3.0;
    })
    .await;
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(s.http.get(format!("{}/auth/login", s.gateway.url)).send().await.unwrap().status().as_u16());
    }
    // reqwest follows the redirect to the provider: a sign-in begun reads as the provider's page.
    assert_eq!(statuses.iter().filter(|&&status| status == 429).count(), 2, "{statuses:?}");
    // The writes' budget is untouched: the person's token writes its whole burst.
    for _ in 0..3 {
        let put = s.http.put(format!("{}/v1/notices/k", s.gateway.url)).bearer_auth(&s.gateway.token);
        let status = put.json(&serde_json::json!({"agent": "a", "message": "waiting"})).send().await.unwrap().status();
        assert_eq!(status.as_u16(), 200);
    }
}
