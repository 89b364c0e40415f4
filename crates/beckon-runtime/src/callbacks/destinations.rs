//! Where callbacks may go. A callback URL is the asker's to choose, and on a server facing a
//! network the asker is anyone with an ask-only token or a sign-in: without a limit they could
//! make a replica POST to what only it can reach (a metadata service on a link-local address,
//! an admin port on loopback, a database on the private network). So a server sends callbacks
//! to public addresses only, and to the networks its operator allows.
//!
//! The address is checked where it is known for certain:
//!
//! - when the question is asked, so the asker is told at once: an address in the URL, or the
//!   addresses its host name resolves to then (refused when none may be sent to);
//! - at delivery, on the addresses the connection is made to: the client's resolver resolves
//!   the name once and hands the connection only the addresses that may be sent to. A name
//!   that resolved to a public address when asked and to a private one later (DNS rebinding)
//!   is refused then, and the callback is given up at once with the reason recorded.
//!
//! The desktop app and a laptop's own gateway send anywhere: there the asker's callbacks are
//! the person's own, often a script on the same machine.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::address::{AddressKind, Network, classify};

/// How long asking waits for a callback host's name to resolve. A name that does not resolve
/// in time is let through: delivery checks it again.
const ASK_RESOLVE_TIMEOUT: Duration = Duration::from_secs(2);

/// Which receivers a runtime sends callbacks to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CallbackDestinations {
    /// Any address: the desktop app, and a laptop's own gateway.
    #[default]
    Anywhere,
    /// Public addresses, and those in these networks: a server facing a network.
    PublicAnd(Vec<Network>),
}

impl CallbackDestinations {
    /// Whether callbacks may go to `ip`; the kind of address it is when not.
    pub fn admits(&self, ip: IpAddr) -> Result<(), AddressKind> {
        match self {
            CallbackDestinations::Anywhere => Ok(()),
            CallbackDestinations::PublicAnd(allowed) => {
                let kind = classify(ip);
                if kind.is_public() || allowed.iter().any(|network| network.contains(ip)) { Ok(()) } else { Err(kind) }
            }
        }
    }

    /// Whether some addresses are refused.
    pub fn restricts(&self) -> bool {
        matches!(self, CallbackDestinations::PublicAnd(_))
    }
}

/// A callback receiver refused for its address. Names the host, never the URL (whose path can
/// be a secret), and not the address a name resolved to (the asker need not learn the
/// server's own network).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    host: String,
    kind: AddressKind,
    /// Whether the host is a name that resolved to the address (else the address itself).
    resolved: bool,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (host, kind) = (&self.host, self.kind);
        let article = if matches!(kind, AddressKind::Unspecified) { "an" } else { "a" };
        if self.resolved {
            write!(f, "{host} resolves to {article} {kind} address, which this server sends no callbacks to")
        } else {
            write!(f, "{host} is {article} {kind} address, which this server sends no callbacks to")
        }
    }
}

impl std::error::Error for Refused {}

/// The host of a callback URL: an address written in it, or a name.
enum Host {
    Address(IpAddr),
    Name(String),
}

fn host_of(url: &str) -> Option<Host> {
    // The URL parser reads every form of address a connection would (`http://2130706433/`,
    // `http://0x7f.1/` and `http://[::ffff:7f00:1]/` are all 127.0.0.1).
    // It also writes an IPv4 address in dotted form and an IPv6 one in brackets.
    let url = reqwest::Url::parse(url).ok()?;
    let host = url.host_str()?;
    match host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
        Ok(ip) => Some(Host::Address(ip)),
        Err(_) => Some(Host::Name(host.to_owned())),
    }
}

/// The addresses `name` has by definition (RFC 6761: `localhost` and names under it are
/// loopback, whatever a resolver says), if it is such a name.
fn by_definition(name: &str) -> Option<Vec<IpAddr>> {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    (name == "localhost" || name.ends_with(".localhost"))
        .then(|| vec![IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), IpAddr::V6(std::net::Ipv6Addr::LOCALHOST)])
}

/// The addresses of `name`, of those it resolved to (`found`), that callbacks may go to; refused
/// when it resolved to some and none may be sent to. Connecting to the others only is safe: what
/// is connected to is what was checked.
fn admitted(
    destinations: &CallbackDestinations,
    name: &str,
    found: Vec<SocketAddr>,
) -> Result<Vec<SocketAddr>, Refused> {
    let Some(first) = found.first().copied() else { return Ok(found) };
    let admitted: Vec<SocketAddr> =
        found.into_iter().filter(|address| destinations.admits(address.ip()).is_ok()).collect();
    match destinations.admits(first.ip()) {
        Err(kind) if admitted.is_empty() => Err(Refused { host: name.to_owned(), kind, resolved: true }),
        _ => Ok(admitted),
    }
}

/// Resolves `name` (a name that is loopback by definition is not looked up).
async fn resolve(name: &str) -> std::io::Result<Vec<SocketAddr>> {
    match by_definition(name) {
        Some(addresses) => Ok(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect()),
        None => Ok(tokio::net::lookup_host((name, 0)).await?.collect()),
    }
}

impl CallbackDestinations {
    /// Checks a callback URL as a question is asked with it: the address it names, or every
    /// address its host name resolves to now. A name that does not resolve (yet) passes: it is
    /// checked again at delivery.
    pub(crate) async fn vet_url(&self, url: &str) -> Result<(), Refused> {
        if !self.restricts() {
            return Ok(());
        }
        match host_of(url) {
            Some(Host::Address(ip)) => self.vet_address(url, ip),
            Some(Host::Name(name)) => match tokio::time::timeout(ASK_RESOLVE_TIMEOUT, resolve(&name)).await {
                Ok(Ok(found)) => admitted(self, &name, found).map(drop),
                Ok(Err(_)) | Err(_) => Ok(()),
            },
            None => Ok(()),
        }
    }

    /// Checks the address a callback URL names, if it names one (a name is checked by the
    /// client's resolver as the connection is made).
    pub(crate) fn vet_url_address(&self, url: &str) -> Result<(), Refused> {
        match host_of(url) {
            Some(Host::Address(ip)) => self.vet_address(url, ip),
            Some(Host::Name(_)) | None => Ok(()),
        }
    }

    fn vet_address(&self, url: &str, ip: IpAddr) -> Result<(), Refused> {
        self.admits(ip).map_err(|kind| Refused { host: super::origin(url), kind, resolved: false })
    }
}

/// The callback client's resolver: resolves a name once, and hands the connection only its
/// addresses that callbacks may go to, so what was checked is what is connected to.
#[derive(Debug)]
pub(crate) struct VettingResolver {
    pub(crate) destinations: Arc<CallbackDestinations>,
}

impl Resolve for VettingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let destinations = self.destinations.clone();
        let name = name.as_str().to_owned();
        Box::pin(async move {
            let found = admitted(&destinations, &name, resolve(&name).await?)?;
            let addrs: Addrs = Box::new(found.into_iter());
            Ok(addrs)
        })
    }
}

/// The refusal behind a failed request, if its receiver was refused for its address.
pub(crate) fn refusal_in(error: &reqwest::Error) -> Option<Refused> {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<Refused>() {
            return Some(refused.clone());
        }
        source = cause.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public_only() -> CallbackDestinations {
        CallbackDestinations::PublicAnd(Vec::new())
    }

    #[test]
    fn anywhere_admits_every_address_and_a_server_only_public_ones_and_its_networks() {
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        assert_eq!(CallbackDestinations::Anywhere.admits(loopback), Ok(()));
        assert_eq!(public_only().admits(loopback), Err(AddressKind::Loopback));
        assert_eq!(public_only().admits("8.8.8.8".parse().unwrap()), Ok(()));
        let allowed = CallbackDestinations::PublicAnd(vec!["10.20.0.0/16".parse().unwrap()]);
        assert_eq!(allowed.admits("10.20.3.4".parse().unwrap()), Ok(()));
        assert_eq!(allowed.admits("::ffff:10.20.3.4".parse().unwrap()), Ok(()));
        assert_eq!(allowed.admits("10.21.3.4".parse().unwrap()), Err(AddressKind::Private));
    }

    #[tokio::test]
    async fn asking_refuses_addresses_written_in_any_form_and_localhost_by_name() {
        for url in [
            "http://127.0.0.1:8080/hook",
            "http://2130706433/hook",
            "http://0x7f.1/hook",
            "http://[::1]/hook",
            "http://[::ffff:10.0.0.1]/hook",
            "http://[fe80::1]/hook",
            "http://169.254.169.254/latest/meta-data",
            "http://0.0.0.0:9000/",
            "https://192.168.1.10/hook",
            "http://localhost:9000/hook",
            "http://LOCALHOST./hook",
            "http://api.localhost/hook",
        ] {
            assert!(public_only().vet_url(url).await.is_err(), "{url}");
            assert_eq!(CallbackDestinations::Anywhere.vet_url(url).await, Ok(()), "{url}");
        }
        assert_eq!(public_only().vet_url("https://93.184.216.34/hook").await, Ok(()));
        let loopback_allowed = CallbackDestinations::PublicAnd(vec!["127.0.0.0/8".parse().unwrap()]);
        assert_eq!(loopback_allowed.vet_url("http://localhost:9000/hook").await, Ok(()), "its IPv4 address is allowed");
        assert!(loopback_allowed.vet_url("http://[::1]:9000/hook").await.is_err());
        // A name that does not resolve now is checked again at delivery.
        assert_eq!(public_only().vet_url("https://no-such-host.invalid/hook").await, Ok(()));
    }

    #[tokio::test]
    async fn a_refusal_names_the_host_and_its_kind_but_no_path_or_resolved_address() {
        let refused = public_only().vet_url("http://user:pw@10.1.2.3:8080/services/SECRET?t=x").await.unwrap_err();
        assert_eq!(
            refused.to_string(),
            "http://10.1.2.3:8080 is a private address, which this server sends no callbacks to"
        );
        let named = public_only().vet_url("http://localhost:9/x").await.unwrap_err();
        assert_eq!(
            named.to_string(),
            "localhost resolves to a loopback address, which this server sends no callbacks to"
        );
        let unspecified = public_only().vet_url_address("http://0.0.0.0/").unwrap_err();
        assert!(unspecified.to_string().contains("is an unspecified address"), "{unspecified}");
        assert_eq!(public_only().vet_url_address("http://localhost/"), Ok(()), "names are the resolver's to check");
    }

    #[test]
    fn of_the_addresses_a_name_resolves_to_only_those_admitted_are_connected_to() {
        let found = |list: &[&str]| list.iter().map(|ip| SocketAddr::new(ip.parse().unwrap(), 0)).collect::<Vec<_>>();
        let mixed = found(&["10.0.0.1", "93.184.216.34", "::1"]);
        assert_eq!(admitted(&public_only(), "mixed.example", mixed.clone()), Ok(found(&["93.184.216.34"])));
        assert_eq!(admitted(&CallbackDestinations::Anywhere, "mixed.example", mixed.clone()), Ok(mixed));
        let refused = admitted(&public_only(), "inside.example", found(&["10.0.0.1", "fd00::1"])).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "inside.example resolves to a private address, which this server sends no callbacks to"
        );
        assert_eq!(admitted(&public_only(), "nothing.example", Vec::new()), Ok(Vec::new()));
    }

    #[tokio::test]
    async fn the_client_resolver_refuses_a_name_of_a_refused_address_and_says_so_through_reqwest() {
        let resolver = VettingResolver { destinations: Arc::new(public_only()) };
        let client = reqwest::Client::builder().no_proxy().dns_resolver(Arc::new(resolver)).build().unwrap();
        let err = client.post("http://localhost:9/hook").send().await.unwrap_err();
        let refused = refusal_in(&err).expect("the refusal comes back through reqwest's error");
        assert_eq!(refused.host, "localhost");
        assert_eq!(refused.kind, AddressKind::Loopback);
    }
}
