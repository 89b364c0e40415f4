//! A team server's public address: the URL people and agents reach it by (often through a TLS
//! reverse proxy), which answer links carry and whose host the Host check lets through.

use std::net::IpAddr;

/// The public URL, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    /// The URL without a trailing slash (`https://beckon.example.com`).
    pub url: String,
    /// Its host and port as a Host header names them, lower case (`beckon.example.com`,
    /// `beckon.example.com:8443`).
    pub authority: String,
}

impl PublicUrl {
    /// Checks `text`: an `http` or `https` URL with a host and nothing after the path.
    pub fn parse(text: &str) -> Result<PublicUrl, String> {
        let url = reqwest::Url::parse(text.trim()).map_err(|err| format!("--public-url {text:?}: {err}"))?;
        if !matches!(url.scheme(), "https" | "http") {
            return Err(format!("--public-url {text:?}: must start with https:// (or http://)"));
        }
        let Some(host) = url.host_str() else { return Err(format!("--public-url {text:?}: has no host")) };
        if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
            return Err(format!("--public-url {text:?}: only a scheme, host, port and path are allowed"));
        }
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        };
        Ok(PublicUrl { url: url.as_str().trim_end_matches('/').to_owned(), authority: authority.to_ascii_lowercase() })
    }

    /// Whether it is reached over plain HTTP from beyond this machine.
    pub fn is_plain_beyond_loopback(&self) -> bool {
        let host = self.authority.rsplit_once(':').map_or(self.authority.as_str(), |(host, _)| host);
        let loopback =
            host == "localhost" || host.trim_matches(['[', ']']).parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
        self.url.starts_with("http://") && !loopback
    }

    /// Whether a request's Host header names this address.
    pub fn is_host(&self, host: &str) -> bool {
        host.eq_ignore_ascii_case(&self.authority)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_are_checked_and_name_their_host() {
        let url = PublicUrl::parse("https://Beckon.Example.com/").unwrap();
        assert_eq!(url.url, "https://beckon.example.com");
        assert!(url.is_host("beckon.example.com") && url.is_host("BECKON.example.com"));
        assert!(!url.is_host("beckon.example.com:8443") && !url.is_host("evil.example"));
        assert!(!url.is_plain_beyond_loopback());
        let with_port = PublicUrl::parse("https://team.example:8443/beckon").unwrap();
        assert_eq!(
            (with_port.url.as_str(), with_port.authority.as_str()),
            ("https://team.example:8443/beckon", "team.example:8443")
        );
        assert!(PublicUrl::parse("http://10.0.0.5:7393").unwrap().is_plain_beyond_loopback());
        assert!(!PublicUrl::parse("http://127.0.0.1:7393").unwrap().is_plain_beyond_loopback());
        for bad in ["ftp://x.example", "https://", "not a url", "https://user:pw@x.example", "https://x.example/?q=1"] {
            assert!(PublicUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
