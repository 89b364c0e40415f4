//! What each principal may do, route by route: one match over every route and principal, with
//! no catch-all over routes, so a route added to [`Route`] cannot be left undecided. A path the
//! gateway does not know is [`Route::Unknown`]: the person gets the router's 404 for it, an
//! ask-only token a refusal, so a route served but missing here is closed to tokens, not open.

use axum::http::Method;

use crate::mcp::MCP_PATH;
use crate::principal::Principal;

/// A route as permissions see it, with the question id where access depends on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `POST /v1/questions`.
    AskQuestion,
    /// `GET /v1/questions`.
    ListQuestions,
    /// `GET /v1/questions/{id}` (and its long-poll).
    ReadQuestion(String),
    /// `POST /v1/questions/{id}/answer`.
    AnswerQuestion(String),
    /// `POST /v1/questions/{id}/decline`.
    DeclineQuestion(String),
    /// `POST /v1/questions/{id}/cancel`.
    CancelQuestion(String),
    /// `GET /v1/sessions/{id}`.
    ReadSession(String),
    /// `POST /v1/sessions/{id}/answer`.
    AnswerSession(String),
    /// `POST /v1/sessions/{id}/cancel`.
    CancelSession(String),
    /// `POST /v1/agents/{name}/trigger`.
    TriggerAgent,
    /// `GET /v1/notices`.
    ListNotices,
    /// `PUT /v1/notices/{key}`.
    PostNotice,
    /// `DELETE /v1/notices/{key}`.
    ClearNotice,
    /// `GET /v1/events`.
    Events,
    /// `GET /v1/health`.
    Health,
    /// `GET /v1/proof`.
    Proof,
    /// `GET /v1/openapi.json`.
    OpenApi,
    /// `POST /v1/tokens`.
    CreateToken,
    /// `GET /v1/tokens`.
    ListTokens,
    /// `DELETE /v1/tokens/{name}`.
    RevokeToken,
    /// `GET /v1/people`: who is signed in where, and who paired what.
    ListPeople,
    /// `DELETE /v1/people/{subject}/sessions`: ends a person's sessions.
    EndSessions,
    /// `DELETE /v1/people/{subject}/pairings`: forgets a person's Slack and Telegram pairings.
    Unpair,
    /// `GET /v1/audit`.
    Audit,
    /// `GET /v1/me`: who the request acts for.
    Me,
    /// `GET /livez` and `GET /readyz`: a load balancer's probes, open to anyone (they tell
    /// nothing but whether this replica lives and can serve).
    Probe,
    /// `GET /auth/login`, `GET /auth/callback`, and the app's `/auth/app` and `/auth/app/token`:
    /// the ways to sign in, open to anyone (each checks its own proof).
    SignIn,
    /// `POST /auth/logout`.
    SignOut,
    /// `POST /v1/window/{command}`: the window's own calls from a browser, by command.
    Window(String),
    /// `GET` of any other path outside `/v1/` and `/auth/`: the window's page and files, for a
    /// browser (public, like any web page's scripts; they hold nothing of anyone's).
    Page,
    /// MCP over streamable HTTP, at [`MCP_PATH`].
    Mcp,
    /// Anything else.
    Unknown,
}

/// A question or session a route names, by the id in its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressed<'a> {
    Question(&'a str),
    Session(&'a str),
}

/// What a principal may do on a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Go on.
    Allowed,
    /// Go on only if the principal asked this question (the id as given in the path); anyone
    /// else is told there is no such question, so ids cannot be probed.
    OwnQuestion(String),
    /// Refused with 403 `forbidden`.
    Forbidden,
    /// Refused with 403 `forbidden`: a signed-in person who is not in the admin group.
    AdminsOnly,
}

impl Route {
    /// What a signed-in person must be addressed to for this route: the question or session
    /// (as the path names it) it reads or acts on.
    pub fn addressed(&self) -> Option<Addressed<'_>> {
        match self {
            Route::ReadQuestion(id)
            | Route::AnswerQuestion(id)
            | Route::DeclineQuestion(id)
            | Route::CancelQuestion(id) => Some(Addressed::Question(id)),
            Route::ReadSession(id) | Route::AnswerSession(id) | Route::CancelSession(id) => {
                Some(Addressed::Session(id))
            }
            _ => None,
        }
    }

    /// The route a request's method and path name.
    pub fn of(method: &Method, path: &str) -> Route {
        if path == MCP_PATH {
            return Route::Mcp;
        }
        match (method.as_str(), path) {
            ("GET", "/auth/login" | "/auth/callback" | "/auth/signed-out")
            | ("GET" | "POST", "/auth/app")
            | ("POST", "/auth/app/token") => {
                return Route::SignIn;
            }
            ("POST", "/auth/logout") => return Route::SignOut,
            ("GET", "/livez" | "/readyz") => return Route::Probe,
            _ => {}
        }
        let Some(rest) = path.strip_prefix("/v1/") else {
            return if method == Method::GET && path != "/v1" && !path.starts_with("/auth/") {
                Route::Page
            } else {
                Route::Unknown
            };
        };
        let segments: Vec<&str> = rest.split('/').collect();
        if segments.iter().any(|segment| segment.is_empty()) {
            return Route::Unknown;
        }
        let id = |id: &str| id.to_owned();
        match (method.as_str(), segments.as_slice()) {
            ("POST", ["questions"]) => Route::AskQuestion,
            ("GET", ["questions"]) => Route::ListQuestions,
            ("GET", ["questions", question]) => Route::ReadQuestion(id(question)),
            ("POST", ["questions", question, "answer"]) => Route::AnswerQuestion(id(question)),
            ("POST", ["questions", question, "decline"]) => Route::DeclineQuestion(id(question)),
            ("POST", ["questions", question, "cancel"]) => Route::CancelQuestion(id(question)),
            ("GET", ["sessions", session]) => Route::ReadSession(id(session)),
            ("POST", ["sessions", session, "answer"]) => Route::AnswerSession(id(session)),
            ("POST", ["sessions", session, "cancel"]) => Route::CancelSession(id(session)),
            ("POST", ["agents", _, "trigger"]) => Route::TriggerAgent,
            ("GET", ["notices"]) => Route::ListNotices,
            ("PUT", ["notices", _]) => Route::PostNotice,
            ("DELETE", ["notices", _]) => Route::ClearNotice,
            ("GET", ["events"]) => Route::Events,
            ("GET", ["health"]) => Route::Health,
            ("GET", ["proof"]) => Route::Proof,
            ("GET", ["openapi.json"]) => Route::OpenApi,
            ("POST", ["tokens"]) => Route::CreateToken,
            ("GET", ["tokens"]) => Route::ListTokens,
            ("DELETE", ["tokens", _]) => Route::RevokeToken,
            ("GET", ["people"]) => Route::ListPeople,
            ("DELETE", ["people", _, "sessions"]) => Route::EndSessions,
            ("DELETE", ["people", _, "pairings"]) => Route::Unpair,
            ("GET", ["audit"]) => Route::Audit,
            ("GET", ["me"]) => Route::Me,
            ("POST", ["window", command]) => Route::Window(id(command)),
            _ => Route::Unknown,
        }
    }
}

/// What `principal` may do on `route`.
pub fn decide(route: &Route, principal: &Principal) -> Access {
    match (route, principal) {
        // Asking, saying it waits, checking Beckon is there, and asking who one is: what an
        // agent elsewhere needs. Signing in is open to anyone.
        (
            Route::AskQuestion
            | Route::PostNotice
            | Route::ClearNotice
            | Route::Health
            | Route::Proof
            | Route::Me
            | Route::SignIn
            | Route::Probe
            | Route::Page,
            _,
        ) => Access::Allowed,
        // Reading (and waiting on) or withdrawing a question: a token only its own.
        (Route::ReadQuestion(id) | Route::CancelQuestion(id), Principal::AskOnly { .. }) => {
            Access::OwnQuestion(id.clone())
        }
        (Route::ReadQuestion(_) | Route::CancelQuestion(_), Principal::Owner | Principal::Member(_)) => {
            Access::Allowed
        }
        // A signed-in person answers and reads the inbox from their browser, and exports their
        // share of the audit trail (an admin all of it: the handler decides which); tokens are
        // the admins'. MCP and the agents' triggers are for programs, with tokens. Signing out
        // is only for a browser session.
        (
            Route::ListQuestions
            | Route::AnswerQuestion(_)
            | Route::DeclineQuestion(_)
            | Route::ReadSession(_)
            | Route::AnswerSession(_)
            | Route::CancelSession(_)
            | Route::ListNotices
            | Route::Events
            | Route::OpenApi
            | Route::SignOut
            | Route::Audit
            | Route::Window(_),
            Principal::Member(_),
        ) => Access::Allowed,
        (
            Route::CreateToken
            | Route::ListTokens
            | Route::RevokeToken
            | Route::ListPeople
            | Route::EndSessions
            | Route::Unpair,
            Principal::Member(member),
        ) => {
            if member.admin { Access::Allowed } else { Access::AdminsOnly }
        }
        (Route::TriggerAgent | Route::Mcp | Route::Unknown, Principal::Member(_)) => Access::Forbidden,
        (Route::SignOut, Principal::Owner | Principal::AskOnly { .. }) => Access::Forbidden,
        // Answering, allowing, seeing what others asked, and managing tokens: the person's.
        (
            Route::ListQuestions
            | Route::AnswerQuestion(_)
            | Route::DeclineQuestion(_)
            | Route::ReadSession(_)
            | Route::AnswerSession(_)
            | Route::CancelSession(_)
            | Route::TriggerAgent
            | Route::ListNotices
            | Route::Events
            | Route::OpenApi
            | Route::CreateToken
            | Route::ListTokens
            | Route::RevokeToken
            | Route::ListPeople
            | Route::EndSessions
            | Route::Unpair
            | Route::Audit
            | Route::Window(_)
            | Route::Mcp
            | Route::Unknown,
            Principal::Owner,
        ) => Access::Allowed,
        (
            Route::ListQuestions
            | Route::AnswerQuestion(_)
            | Route::DeclineQuestion(_)
            | Route::ReadSession(_)
            | Route::AnswerSession(_)
            | Route::CancelSession(_)
            | Route::TriggerAgent
            | Route::ListNotices
            | Route::Events
            | Route::OpenApi
            | Route::CreateToken
            | Route::ListTokens
            | Route::RevokeToken
            | Route::ListPeople
            | Route::EndSessions
            | Route::Unpair
            | Route::Audit
            | Route::Window(_)
            // MCP over HTTP runs on the runtime in this process and cannot tell whose questions
            // are whose; an agent elsewhere uses `beckon mcp`, which goes through the routes
            // above.
            | Route::Mcp
            | Route::Unknown,
            Principal::AskOnly { .. },
        ) => Access::Forbidden,
    }
}

#[cfg(test)]
mod tests {
    use beckon_runtime::TokenHolder;
    use beckon_runtime::api::TokenKind;
    use beckon_store::TokenId;

    use super::*;

    fn ask_only() -> Principal {
        Principal::AskOnly {
            token: TokenHolder { id: TokenId(1), name: "devbox".into(), kind: TokenKind::AskOnly, owner: None },
        }
    }

    /// A path of `ROUTES` with its parameters filled in.
    fn filled(path: &str) -> String {
        path.replace("{id}", "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f")
            .replace("{name}", "devbox")
            .replace("{key}", "k")
            .replace("{subject}", "ada")
    }

    #[test]
    fn every_served_route_is_known_and_decided() {
        for (method, path) in crate::ROUTES {
            let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap();
            let route = Route::of(&method, &filled(path));
            assert_ne!(route, Route::Unknown, "{method} {path} is served but permissions do not know it");
            assert_eq!(decide(&route, &Principal::Owner), Access::Allowed, "{method} {path}");
        }
        assert_eq!(Route::of(&Method::POST, MCP_PATH), Route::Mcp);
    }

    #[test]
    fn an_ask_only_token_asks_and_follows_only_its_own_questions() {
        let id = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";
        let allowed = [
            ("POST", "/v1/questions".to_owned()),
            ("PUT", "/v1/notices/k".to_owned()),
            ("DELETE", "/v1/notices/k".to_owned()),
            ("GET", "/v1/health".to_owned()),
            ("GET", "/v1/proof".to_owned()),
        ];
        for (method, path) in allowed {
            let route = Route::of(&Method::from_bytes(method.as_bytes()).unwrap(), &path);
            assert_eq!(decide(&route, &ask_only()), Access::Allowed, "{method} {path}");
        }
        for (method, path) in [("GET", format!("/v1/questions/{id}")), ("POST", format!("/v1/questions/{id}/cancel"))] {
            let route = Route::of(&Method::from_bytes(method.as_bytes()).unwrap(), &path);
            assert_eq!(decide(&route, &ask_only()), Access::OwnQuestion(id.into()), "{method} {path}");
        }
        let forbidden = [
            ("GET", "/v1/questions".to_owned()),
            ("POST", format!("/v1/questions/{id}/answer")),
            ("POST", format!("/v1/questions/{id}/decline")),
            ("GET", format!("/v1/sessions/{id}")),
            ("POST", format!("/v1/sessions/{id}/answer")),
            ("POST", format!("/v1/sessions/{id}/cancel")),
            ("POST", "/v1/agents/poet/trigger".to_owned()),
            ("GET", "/v1/notices".to_owned()),
            ("GET", "/v1/events".to_owned()),
            ("GET", "/v1/openapi.json".to_owned()),
            ("POST", "/v1/tokens".to_owned()),
            ("GET", "/v1/tokens".to_owned()),
            ("DELETE", "/v1/tokens/devbox".to_owned()),
            ("GET", "/v1/people".to_owned()),
            ("DELETE", "/v1/people/ada/sessions".to_owned()),
            ("DELETE", "/v1/people/ada/pairings".to_owned()),
            ("GET", "/v1/audit".to_owned()),
            ("POST", "/mcp".to_owned()),
            ("GET", "/v1/questions/".to_owned()),
            ("HEAD", "/v1/questions".to_owned()),
            ("GET", "/v1//questions".to_owned()),
            ("POST", "/elsewhere".to_owned()),
            ("GET", "/auth/elsewhere".to_owned()),
            ("POST", "/v1/window/bootstrap".to_owned()),
        ];
        for (method, path) in forbidden {
            let route = Route::of(&Method::from_bytes(method.as_bytes()).unwrap(), &path);
            assert_eq!(decide(&route, &ask_only()), Access::Forbidden, "{method} {path}");
        }
    }

    #[test]
    fn the_windows_page_and_files_are_anyones_to_fetch() {
        for path in ["/", "/index.html", "/assets/index-1a2b.js", "/inbox"] {
            let route = Route::of(&Method::GET, path);
            assert_eq!(route, Route::Page, "{path}");
            for principal in [Principal::Owner, ask_only(), member(false)] {
                assert_eq!(decide(&route, &principal), Access::Allowed, "{path}");
            }
        }
        for (method, path) in [("GET", "/v1/nothing"), ("GET", "/auth/elsewhere"), ("GET", "/v1"), ("POST", "/")] {
            assert_eq!(
                Route::of(&Method::from_bytes(method.as_bytes()).unwrap(), path),
                Route::Unknown,
                "{method} {path}"
            );
        }
    }

    fn member(admin: bool) -> Principal {
        let person = beckon_store::SignedIn {
            subject: "ada".into(),
            email: Some("ada@example.com".into()),
            name: Some("Ada".into()),
            groups: vec!["ops".into()],
        };
        Principal::Member(crate::principal::Member { person, admin, session: [0; 32] })
    }

    #[test]
    fn a_signed_in_person_answers_and_reads_the_audit_and_only_an_admin_manages_tokens() {
        let id = "0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f";
        let everyone = [
            ("GET", "/v1/questions".to_owned()),
            ("GET", format!("/v1/questions/{id}")),
            ("POST", format!("/v1/questions/{id}/answer")),
            ("POST", format!("/v1/questions/{id}/decline")),
            ("POST", format!("/v1/sessions/{id}/answer")),
            ("GET", "/v1/events".to_owned()),
            ("GET", "/v1/me".to_owned()),
            ("POST", "/auth/logout".to_owned()),
            ("GET", "/v1/audit".to_owned()),
        ];
        for (method, path) in everyone {
            let route = Route::of(&Method::from_bytes(method.as_bytes()).unwrap(), &path);
            assert_eq!(decide(&route, &member(false)), Access::Allowed, "{method} {path}");
            assert_eq!(decide(&route, &member(true)), Access::Allowed, "{method} {path}");
        }
        for (method, path) in [
            ("POST", "/v1/tokens"),
            ("GET", "/v1/tokens"),
            ("DELETE", "/v1/tokens/x"),
            ("GET", "/v1/people"),
            ("DELETE", "/v1/people/bo/sessions"),
            ("DELETE", "/v1/people/bo/pairings"),
        ] {
            let route = Route::of(&Method::from_bytes(method.as_bytes()).unwrap(), path);
            assert_eq!(decide(&route, &member(false)), Access::AdminsOnly, "{method} {path}");
            assert_eq!(decide(&route, &member(true)), Access::Allowed, "{method} {path}");
        }
        for (method, path) in [("POST", "/mcp"), ("POST", "/v1/agents/poet/trigger"), ("POST", "/elsewhere")] {
            let route = Route::of(&Method::from_bytes(method.as_bytes()).unwrap(), path);
            assert_eq!(decide(&route, &member(true)), Access::Forbidden, "{method} {path}");
        }
        let window = Route::of(&Method::POST, "/v1/window/answer");
        assert_eq!(window, Route::Window("answer".into()));
        assert_eq!(decide(&window, &member(false)), Access::Allowed);
        let sign_out = Route::of(&Method::POST, "/auth/logout");
        assert_eq!(decide(&sign_out, &Principal::Owner), Access::Forbidden);
        assert_eq!(decide(&sign_out, &ask_only()), Access::Forbidden);
        assert_eq!(Route::of(&Method::GET, "/auth/callback"), Route::SignIn);
        assert_eq!(Route::of(&Method::POST, "/auth/callback"), Route::Unknown);
    }
}
