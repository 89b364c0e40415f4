//! The two cookies a team server sets: the browser session (after signing in) and the sign-in
//! under way (between leaving for the identity provider and coming back, which ties the
//! callback to the browser that began it). Both are HttpOnly (no script reads them),
//! SameSite=Lax (sent on the provider's redirect back, a top-level GET, but not with another
//! site's POSTs or subresources) and Path=/. Behind TLS they are Secure and carry the
//! `__Host-` prefix, which browsers honour only for a Secure, host-only cookie with Path=/,
//! so no other host under the same domain can set or shadow them.

use axum::http::{HeaderMap, HeaderValue, header};

/// Which cookie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cookie {
    /// The browser session, once signed in.
    Session,
    /// A sign-in under way: the `state` sent to the provider.
    SignIn,
}

/// How cookies are named and marked on this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cookies {
    /// The server is reached over TLS (its own, or a reverse proxy's).
    pub secure: bool,
}

impl Cookies {
    fn name(self, cookie: Cookie) -> &'static str {
        match (cookie, self.secure) {
            (Cookie::Session, true) => "__Host-beckon",
            (Cookie::Session, false) => "beckon_session",
            (Cookie::SignIn, true) => "__Host-beckon-sign-in",
            (Cookie::SignIn, false) => "beckon_sign_in",
        }
    }

    /// The value of `cookie` in a request's `Cookie` headers, when it has one.
    pub(crate) fn read(self, headers: &HeaderMap, cookie: Cookie) -> Option<String> {
        let name = self.name(cookie);
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.trim_matches('"').to_owned())
            .filter(|value| !value.is_empty())
    }

    /// A `Set-Cookie` value setting `cookie` to `value` for `max_age_s` seconds.
    pub(crate) fn set(self, cookie: Cookie, value: &str, max_age_s: i64) -> Option<HeaderValue> {
        let secure = if self.secure { "; Secure" } else { "" };
        let text =
            format!("{}={value}; Max-Age={max_age_s}; Path=/; HttpOnly; SameSite=Lax{secure}", self.name(cookie));
        HeaderValue::from_str(&text).ok()
    }

    /// A `Set-Cookie` value removing `cookie`.
    pub(crate) fn clear(self, cookie: Cookie) -> Option<HeaderValue> {
        self.set(cookie, "", 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_is_read_among_others_by_its_exact_name() {
        let cookies = Cookies { secure: false };
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, HeaderValue::from_static("theme=dark; beckon_session_old=x"));
        headers.append(header::COOKIE, HeaderValue::from_static("beckon_session=abc123 ; other=1"));
        assert_eq!(cookies.read(&headers, Cookie::Session).as_deref(), Some("abc123"));
        assert_eq!(cookies.read(&headers, Cookie::SignIn), None);
        assert_eq!(Cookies { secure: true }.read(&headers, Cookie::Session), None, "the __Host- name behind TLS");
    }

    #[test]
    fn behind_tls_a_cookie_is_secure_and_host_only() {
        let set = Cookies { secure: true }.set(Cookie::Session, "v", 60).unwrap();
        assert_eq!(set.to_str().unwrap(), "__Host-beckon=v; Max-Age=60; Path=/; HttpOnly; SameSite=Lax; Secure");
        let plain = Cookies { secure: false }.clear(Cookie::SignIn).unwrap();
        assert_eq!(plain.to_str().unwrap(), "beckon_sign_in=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax");
    }
}
