//! What an IP address is, as far as callbacks care: public, or one of the kinds a server's own
//! network keeps for itself (loopback, private, link-local — where cloud metadata services
//! answer —, unspecified, multicast, and everything set aside as not routable on the Internet).
//! A server facing a network sends callbacks only to public addresses unless its operator
//! allows a network ([`Network`]), so that whoever may ask cannot make it post to what only it
//! can reach.
//!
//! IPv6 forms that carry an IPv4 address to the same host — IPv4-mapped (`::ffff:10.0.0.1`),
//! NAT64's well-known prefix (`64:ff9b::10.0.0.1`) and 6to4 (`2002:0a00:0001::`) — are judged by
//! the IPv4 address they carry. Outside global unicast (`2000::/3`) nothing IPv6 is public.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// What kind of address an IP address is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressKind {
    /// Routable on the Internet.
    Public,
    /// `0.0.0.0/8` and `::`: "this host" to most stacks.
    Unspecified,
    /// `127.0.0.0/8` and `::1`.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`, carrier-grade NAT's `100.64/10`, and IPv6's unique
    /// local `fc00::/7` and old site-local `fec0::/10`.
    Private,
    /// `169.254/16` and `fe80::/10`.
    LinkLocal,
    /// `224/4`, the broadcast address, and `ff00::/8`.
    Multicast,
    /// Set aside and not public: documentation, benchmarking, protocol assignments, `240/4`, and
    /// IPv6 outside global unicast.
    Reserved,
}

impl AddressKind {
    /// Whether callbacks go to addresses of this kind on a server facing a network.
    pub fn is_public(self) -> bool {
        self == AddressKind::Public
    }
}

impl fmt::Display for AddressKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AddressKind::Public => "public",
            AddressKind::Unspecified => "unspecified",
            AddressKind::Loopback => "loopback",
            AddressKind::Private => "private",
            AddressKind::LinkLocal => "link-local",
            AddressKind::Multicast => "multicast or broadcast",
            AddressKind::Reserved => "reserved (not public)",
        })
    }
}

/// What kind of address `ip` is.
pub fn classify(ip: IpAddr) -> AddressKind {
    match ip.to_canonical() {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressKind {
    let [a, b, c, _] = ip.octets();
    match (a, b, c) {
        (0, _, _) => AddressKind::Unspecified,
        (127, _, _) => AddressKind::Loopback,
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) | (100, 64..=127, _) => AddressKind::Private,
        (169, 254, _) => AddressKind::LinkLocal,
        (224..=239, _, _) | (255, 255, 255) => AddressKind::Multicast,
        // Protocol assignments, the three documentation networks, 6to4's relay, benchmarking,
        // and 240/4 (reserved for future use).
        (192, 0, 0 | 2) | (198, 51, 100) | (203, 0, 113) | (192, 88, 99) | (198, 18..=19, _) | (240..=255, _, _) => {
            AddressKind::Reserved
        }
        _ => AddressKind::Public,
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddressKind {
    let segments = ip.segments();
    if ip.is_unspecified() {
        return AddressKind::Unspecified;
    }
    if ip.is_loopback() {
        return AddressKind::Loopback;
    }
    match segments {
        // NAT64's well-known prefix reaches the IPv4 address in its last 32 bits.
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => return classify_v4(v4_of(high, low)),
        // 6to4 reaches the IPv4 address in bits 16 to 48.
        [0x2002, high, low, ..] => return classify_v4(v4_of(high, low)),
        _ => {}
    }
    let first = segments[0];
    if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfec0 {
        AddressKind::Private
    } else if first & 0xffc0 == 0xfe80 {
        AddressKind::LinkLocal
    } else if first & 0xff00 == 0xff00 {
        AddressKind::Multicast
    } else if first & 0xe000 != 0x2000
        // Protocol assignments (Teredo among them), documentation (2001:db8::/32, 3fff::/20).
        || first == 0x2001 && segments[1] < 0x0200
        || first == 0x2001 && segments[1] == 0x0db8
        || first == 0x3fff && segments[1] < 0x1000
    {
        AddressKind::Reserved
    } else {
        AddressKind::Public
    }
}

fn v4_of(high: u16, low: u16) -> Ipv4Addr {
    let [a, b] = high.to_be_bytes();
    let [c, d] = low.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

/// A network an operator allows callbacks to, written `10.20.0.0/16`, `fd00::/8`, or one
/// address (`10.20.0.7`, a network of one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    address: IpAddr,
    prefix: u8,
}

impl Network {
    /// Whether `ip` is in this network (an IPv4-mapped IPv6 address counts as its IPv4 one).
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.address, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.prefix)).unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(self.prefix)).unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl FromStr for Network {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!(
                "{text:?} is not a network: write an address with a prefix length (10.20.0.0/16, fd00::/8) or one address"
            )
        };
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let address = IpAddr::from_str(address).map_err(|_| bad())?.to_canonical();
        let longest = if address.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(prefix) => prefix.parse::<u8>().ok().filter(|p| *p <= longest).ok_or_else(bad)?,
            None => longest,
        };
        Ok(Network { address, prefix })
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.address, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> AddressKind {
        classify(text.parse().unwrap())
    }

    #[test]
    fn ipv4_addresses_a_network_keeps_for_itself_are_not_public() {
        for (address, expected) in [
            ("0.0.0.0", AddressKind::Unspecified),
            ("0.1.2.3", AddressKind::Unspecified),
            ("127.0.0.1", AddressKind::Loopback),
            ("127.255.255.254", AddressKind::Loopback),
            ("10.0.0.1", AddressKind::Private),
            ("172.16.0.1", AddressKind::Private),
            ("172.31.255.255", AddressKind::Private),
            ("192.168.1.1", AddressKind::Private),
            ("100.64.0.1", AddressKind::Private),
            ("100.127.255.255", AddressKind::Private),
            ("169.254.169.254", AddressKind::LinkLocal),
            ("224.0.0.1", AddressKind::Multicast),
            ("239.255.255.250", AddressKind::Multicast),
            ("255.255.255.255", AddressKind::Multicast),
            ("192.0.0.8", AddressKind::Reserved),
            ("192.0.2.10", AddressKind::Reserved),
            ("198.51.100.1", AddressKind::Reserved),
            ("203.0.113.9", AddressKind::Reserved),
            ("198.18.0.1", AddressKind::Reserved),
            ("198.19.255.255", AddressKind::Reserved),
            ("192.88.99.1", AddressKind::Reserved),
            ("240.0.0.1", AddressKind::Reserved),
        ] {
            assert_eq!(kind(address), expected, "{address}");
        }
    }

    #[test]
    fn public_ipv4_addresses_are_public_right_up_to_the_edges_of_the_kept_ranges() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "9.255.255.255",
            "11.0.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "223.255.255.255",
            "198.17.255.255",
            "198.20.0.0",
            "192.0.1.1",
        ] {
            assert_eq!(kind(address), AddressKind::Public, "{address}");
        }
    }

    #[test]
    fn ipv6_addresses_a_network_keeps_for_itself_are_not_public() {
        for (address, expected) in [
            ("::", AddressKind::Unspecified),
            ("::1", AddressKind::Loopback),
            ("fe80::1", AddressKind::LinkLocal),
            ("febf:ffff::1", AddressKind::LinkLocal),
            ("fc00::1", AddressKind::Private),
            ("fd12:3456:789a::1", AddressKind::Private),
            ("fec0::1", AddressKind::Private),
            ("ff02::1", AddressKind::Multicast),
            ("2001:db8::1", AddressKind::Reserved),
            ("2001::1", AddressKind::Reserved),
            ("3fff::1", AddressKind::Reserved),
            ("3fff:fff::1", AddressKind::Reserved),
            ("100::1", AddressKind::Reserved),
            ("::2", AddressKind::Reserved),
            ("::a00:1", AddressKind::Reserved),
            ("64:ff9b:1::1", AddressKind::Reserved),
        ] {
            assert_eq!(kind(address), expected, "{address}");
        }
        for address in ["2606:4700:4700::1111", "2a00:1450:4001:81b::200e", "2001:4860:4860::8888", "3fff:1000::1"] {
            assert_eq!(kind(address), AddressKind::Public, "{address}");
        }
    }

    #[test]
    fn ipv6_forms_of_an_ipv4_address_are_judged_by_the_ipv4_address() {
        for (address, expected) in [
            ("::ffff:10.0.0.1", AddressKind::Private),
            ("::ffff:127.0.0.1", AddressKind::Loopback),
            ("::ffff:169.254.169.254", AddressKind::LinkLocal),
            ("::ffff:0.0.0.0", AddressKind::Unspecified),
            ("::ffff:8.8.8.8", AddressKind::Public),
            ("64:ff9b::10.0.0.1", AddressKind::Private),
            ("64:ff9b::127.0.0.1", AddressKind::Loopback),
            ("64:ff9b::8.8.8.8", AddressKind::Public),
            ("2002:a00:1::", AddressKind::Private),
            ("2002:7f00:1::1", AddressKind::Loopback),
            ("2002:808:808::1", AddressKind::Public),
        ] {
            assert_eq!(kind(address), expected, "{address}");
        }
    }

    #[test]
    fn networks_hold_their_addresses_and_no_others() {
        let net: Network = "10.20.0.0/16".parse().unwrap();
        assert!(net.contains("10.20.255.1".parse().unwrap()));
        assert!(net.contains("::ffff:10.20.0.9".parse().unwrap()), "IPv4-mapped");
        assert!(!net.contains("10.21.0.1".parse().unwrap()));
        assert!(!net.contains("fd00::1".parse().unwrap()));
        let one: Network = "127.0.0.1".parse().unwrap();
        assert_eq!(one.to_string(), "127.0.0.1/32");
        assert!(one.contains("127.0.0.1".parse().unwrap()) && !one.contains("127.0.0.2".parse().unwrap()));
        let v6: Network = "fd00::/8".parse().unwrap();
        assert!(v6.contains("fd12::1".parse().unwrap()) && !v6.contains("fe80::1".parse().unwrap()));
        let everything: Network = "0.0.0.0/0".parse().unwrap();
        assert!(everything.contains("10.0.0.1".parse().unwrap()) && !everything.contains("::1".parse().unwrap()));
        assert!("::/0".parse::<Network>().unwrap().contains("::1".parse().unwrap()));
        assert_eq!("::ffff:10.0.0.1".parse::<Network>().unwrap().to_string(), "10.0.0.1/32");
        for bad in ["10.0.0.0/33", "fd00::/129", "10.0.0/8", "example.com", "10.0.0.0/", "/8", "10.0.0.0/-1"] {
            assert!(bad.parse::<Network>().is_err(), "{bad}");
        }
    }
}
