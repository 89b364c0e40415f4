//! The gateway proves it knows the token before a client sends it. `gateway.json` may outlive
//! the Beckon that wrote it (a crash leaves it behind), and then any local user may bind its
//! port: a client that sent the token, or a question, to whatever answers there would hand
//! both to a stranger. So a client first sends a random challenge to `GET /v1/proof`, which
//! needs no token, and goes on only if the answer is the HMAC-SHA256 of that challenge keyed
//! with the token it holds: only a server that has the token can make it, and the challenge
//! reveals nothing of the token.
//!
//! The proof itself is made as `beckon_client` checks it; what is here is the server's side of
//! reading a challenge.

pub use beckon_client::proof::{CHALLENGE_BYTES, PROOF_PATH, challenge, proof, verify};

/// Whether `text` is a challenge: exactly [`CHALLENGE_BYTES`] bytes as lowercase hex.
pub fn is_challenge(text: &str) -> bool {
    text.len() == CHALLENGE_BYTES * 2 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_exactly_hex_of_their_length() {
        assert!(!is_challenge(""));
        assert!(!is_challenge(&"A".repeat(64)), "uppercase");
        assert!(!is_challenge(&"a".repeat(63)));
        assert!(!is_challenge(&"g".repeat(64)));
        assert!(is_challenge(&"0a".repeat(32)));
        assert!(is_challenge(&challenge()), "a client's challenge is one");
    }
}
