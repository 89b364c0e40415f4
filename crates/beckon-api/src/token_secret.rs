//! A token's secret and what is derived from it. The secret is 256 random bits written as hex
//! behind a prefix people recognise (`bkn_ask_…`); Beckon keeps only its SHA-256. A client that
//! holds the secret and a gateway that holds only the hash both know two more things:
//!
//! - the proof key (the hash, as hex), which the gateway signs its proof with before a client
//!   sends it anything (see the gateway's `proof` module), so a stranger listening on the
//!   port cannot pass for Beckon;
//! - the hint (a hash of the hash), which a client sends with its challenge so the gateway knows
//!   which proof key to use. The hint reveals neither the secret nor the proof key.

use beckon_core::Problems;
use sha2::{Digest, Sha256};

/// How an ask-only token's secret begins.
pub const ASK_ONLY_PREFIX: &str = "bkn_ask_";
/// How a team server's admin token begins.
pub const ADMIN_PREFIX: &str = "bkn_admin_";
/// The longest token name.
pub const NAME_MAX_CHARS: usize = 40;
/// What is hashed before the secret's hash to make its hint, so a hint is no other hash of it.
const HINT_DOMAIN: &[u8] = b"beckon-token-hint\n";

/// A new secret from 32 random bytes.
pub fn ask_only(random: [u8; 32]) -> String {
    format!("{ASK_ONLY_PREFIX}{}", hex::encode(random))
}

/// A team server's new admin token from 32 random bytes.
pub fn admin(random: [u8; 32]) -> String {
    format!("{ADMIN_PREFIX}{}", hex::encode(random))
}

/// Whether `text` has the shape of a token's secret (a gateway.json token does not).
pub fn is_token(text: &str) -> bool {
    has_secret_after(text, ASK_ONLY_PREFIX)
}

/// Whether `text` is a secret the gateway keeps only the hash of — an ask-only token, or a team
/// server's admin token — so that it proves knowing it by the hash, named by the hint.
pub fn is_kept_hashed(text: &str) -> bool {
    is_token(text) || has_secret_after(text, ADMIN_PREFIX)
}

/// Whether `text` is `prefix` and then 32 bytes as hex.
fn has_secret_after(text: &str, prefix: &str) -> bool {
    text.strip_prefix(prefix).is_some_and(|rest| rest.len() == 64 && rest.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The SHA-256 of a secret: what Beckon stores and looks a request's token up by.
pub fn hash(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The key the gateway signs its proof with for a token of this hash.
pub fn proof_key(hash: &[u8; 32]) -> String {
    hex::encode(hash)
}

/// The hint that names a token of this hash to the proof route without giving it away.
pub fn hint(hash: &[u8; 32]) -> String {
    let mut digest = Sha256::new();
    digest.update(HINT_DOMAIN);
    digest.update(hash);
    hex::encode(&digest.finalize()[..16])
}

/// Checks a token's name: 1 to 40 ASCII letters, digits, `-`, `_` or `.` (it goes into a URL
/// path and into tables).
pub fn check_name(name: &str) -> Result<(), Problems> {
    let fits = !name.is_empty()
        && name.len() <= NAME_MAX_CHARS
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if fits {
        Ok(())
    } else {
        Err(Problems::one(
            "name",
            format!(
                "must be 1 to {NAME_MAX_CHARS} letters, digits, '-', '_' or '.' (a machine's name: devbox, ci-runner)"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_secret_is_recognisable_and_hashes_to_what_is_stored() {
        let secret = ask_only([7; 32]);
        assert!(secret.starts_with("bkn_ask_") && secret.len() == 8 + 64, "{secret}");
        assert!(is_token(&secret));
        assert!(!is_token(&hex::encode([7u8; 32])), "a gateway.json token is not one");
        assert!(!is_token(&format!("{secret}0")));
        assert!(is_kept_hashed(&secret));
        let admin = admin([7; 32]);
        assert!(is_kept_hashed(&admin) && !is_token(&admin), "an admin token proves by its hash, but asks as no token");
        assert!(!is_kept_hashed(&hex::encode([7u8; 32])), "a gateway.json token is kept as it is");
        assert_eq!(hash(&secret), <[u8; 32]>::from(Sha256::digest(secret.as_bytes())));
        assert_ne!(hash(&secret), hash(&ask_only([8; 32])));
        let hash = hash(&secret);
        assert_eq!(proof_key(&hash).len(), 64);
        assert_eq!(hint(&hash).len(), 32);
        assert!(!proof_key(&hash).starts_with(&hint(&hash)), "the hint is not the key");
    }

    #[test]
    fn names_are_short_plain_words() {
        for good in ["devbox", "ci-runner", "a", "dev.example.com", "x_1", &"a".repeat(40)] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", &"a".repeat(41), "dev box", "a/b", "ünï", "a\n", "user@host", "%2e"] {
            let problems = check_name(bad).unwrap_err();
            assert_eq!(problems.iter().next().unwrap().path, "name", "{bad}");
        }
    }

    proptest! {
        #[test]
        fn a_name_is_accepted_exactly_when_it_fits_the_rule(name in "\\PC{0,45}") {
            let rule = (1..=40).contains(&name.len())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
            prop_assert_eq!(check_name(&name).is_ok(), rule);
        }

        #[test]
        fn only_the_same_secret_has_the_same_hash_and_hint(a in any::<[u8; 32]>(), b in any::<[u8; 32]>()) {
            let (one, two) = (ask_only(a), ask_only(b));
            prop_assert_eq!(hash(&one) == hash(&two), a == b);
            prop_assert_eq!(hint(&hash(&one)) == hint(&hash(&two)), a == b);
        }
    }
}
