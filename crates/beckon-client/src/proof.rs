//! The gateway proves it knows the token before a client sends it. `gateway.json` may outlive
//! the Beckon that wrote it (a crash leaves it behind), and then any local user may bind its
//! port: a client that sent the token, or a question, to whatever answers there would hand
//! both to a stranger. So a client first sends a random challenge to `GET /v1/proof`, which
//! needs no token, and goes on only if the answer is the HMAC-SHA256 of that challenge keyed
//! with the token it holds: only a server that has the token can make it, and the challenge
//! reveals nothing of the token.
//!
//! Both ends are here: the challenge and its check for clients, the proof for the gateway.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The one route that needs no token: a client's challenge, answered with proof that this
/// server knows the token.
pub const PROOF_PATH: &str = "/v1/proof";

/// What is signed before the challenge, so a proof cannot stand for any other signature made
/// with the token.
const DOMAIN: &[u8] = b"beckon-gateway-proof\n";
/// A challenge's length in bytes (sent as twice as many hex digits).
pub const CHALLENGE_BYTES: usize = 32;

/// A fresh random challenge, as hex.
pub fn challenge() -> String {
    hex::encode(rand::random::<[u8; CHALLENGE_BYTES]>())
}

/// The proof of knowing `token` for `challenge`, as hex.
pub fn proof(token: &str, challenge: &str) -> String {
    hex::encode(mac(token, challenge).finalize().into_bytes())
}

/// Whether `given` (hex) is the proof of knowing `token` for `challenge`, compared in
/// constant time.
pub fn verify(token: &str, challenge: &str, given: &str) -> bool {
    hex::decode(given).is_ok_and(|bytes| mac(token, challenge).verify_slice(&bytes).is_ok())
}

fn mac(token: &str, challenge: &str) -> Hmac<Sha256> {
    // HMAC takes keys of any length, so this cannot fail; an empty key stands in if it did.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(token.as_bytes())
        .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new_from_slice(&[]).unwrap_or_else(|_| unreachable!()));
    mac.update(DOMAIN);
    mac.update(challenge.as_bytes());
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_token_makes_the_proof() {
        let challenge = challenge();
        assert_eq!(challenge.len(), CHALLENGE_BYTES * 2);
        let made = proof("token", &challenge);
        assert!(verify("token", &challenge, &made));
        assert!(!verify("other", &challenge, &made), "another token");
        assert!(!verify("token", &super::challenge(), &made), "another challenge");
        assert!(!verify("token", &challenge, "zz"), "not hex");
        assert!(!verify("token", &challenge, ""), "empty");
    }
}
