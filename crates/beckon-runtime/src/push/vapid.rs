//! The server's VAPID key (RFC 8292): a P-256 key pair made at the first start and kept in the
//! store's settings, so every replica signs with the same key and a browser's subscription
//! (made with its public half) outlives restarts. A push carries a short-lived ES256 JWT for
//! the push service's origin, signed with it.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::json;

use crate::db::Db;
use crate::error::{Error, Result};

/// The setting holding the key pair (PKCS#8, base64url).
const KEY_SETTING: &str = "push_vapid_key";
/// How long a push's JWT is good for: RFC 8292 allows at most 24 hours.
const TOKEN_SECONDS: i64 = 12 * 3600;

/// The server's VAPID key pair. Never shown in `Debug` output.
pub(crate) struct Vapid {
    key: EcdsaKeyPair,
    /// The public key, uncompressed, base64url: what browsers subscribe with.
    public: String,
    rng: SystemRandom,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vapid").field("public", &self.public).finish_non_exhaustive()
    }
}

fn broken(detail: String) -> Error {
    Error::PushKey(detail)
}

impl Vapid {
    /// The stored key pair, or a new one stored now when there is none yet (made only then).
    /// Replicas starting at once each offer theirs, and all keep the one stored first.
    pub(crate) async fn load(db: &Db) -> Result<Vapid> {
        let stored = db
            .write(|tx| {
                if let Some(stored) = tx.read().setting(KEY_SETTING)? {
                    return Ok(Ok(stored));
                }
                let fresh = match EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new()) {
                    Ok(fresh) => URL_SAFE_NO_PAD.encode(fresh.as_ref()),
                    Err(_) => return Ok(Err(broken("the system's random source failed".into()))),
                };
                tx.set_setting_if_absent(KEY_SETTING, &fresh)?;
                Ok(tx.read().setting(KEY_SETTING)?.ok_or_else(|| broken("it is not there".into())))
            })
            .await??;
        Vapid::from_pkcs8(&stored, SystemRandom::new())
    }

    fn from_pkcs8(stored: &str, rng: SystemRandom) -> Result<Vapid> {
        let pkcs8 = URL_SAFE_NO_PAD.decode(stored.trim()).map_err(|err| broken(err.to_string()))?;
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &rng)
            .map_err(|err| broken(err.to_string()))?;
        let public = URL_SAFE_NO_PAD.encode(key.public_key().as_ref());
        Ok(Vapid { key, public, rng })
    }

    /// The public key, uncompressed, base64url.
    pub(crate) fn public_key(&self) -> &str {
        &self.public
    }

    /// The `Authorization` header for a push to `endpoint` sent at `now_s` (Unix seconds): a
    /// JWT for the endpoint's origin, naming `contact` (a `mailto:` or `https:` URL) when there
    /// is one, and the public key to check it with.
    pub(crate) fn authorization(
        &self,
        endpoint: &reqwest::Url,
        contact: Option<&str>,
        now_s: i64,
    ) -> Result<String, String> {
        let mut claims = json!({
            "aud": endpoint.origin().ascii_serialization(),
            "exp": now_s.saturating_add(TOKEN_SECONDS),
        });
        if let Some(contact) = contact {
            claims["sub"] = contact.into();
        }
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        let signed = format!("{header}.{claims}");
        let signature =
            self.key.sign(&self.rng, signed.as_bytes()).map_err(|_| "cannot sign the push's token".to_owned())?;
        Ok(format!("vapid t={signed}.{}, k={}", URL_SAFE_NO_PAD.encode(signature.as_ref()), self.public))
    }
}

#[cfg(test)]
mod tests {
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    use super::*;

    fn key() -> Vapid {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        Vapid::from_pkcs8(&URL_SAFE_NO_PAD.encode(pkcs8.as_ref()), rng).unwrap()
    }

    fn part(token: &str, index: usize) -> serde_json::Value {
        let part = token.split('.').nth(index).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_push_carries_a_token_for_the_endpoints_origin_that_its_key_verifies() {
        let vapid = key();
        let endpoint = reqwest::Url::parse("https://push.example.net:8443/wpush/v2/abc?x=1").unwrap();
        let header = vapid.authorization(&endpoint, Some("https://beckon.example.com"), 1_700_000_000).unwrap();
        let rest = header.strip_prefix("vapid t=").unwrap();
        let (token, k) = rest.split_once(", k=").unwrap();
        assert_eq!(k, vapid.public_key());
        assert_eq!(URL_SAFE_NO_PAD.decode(k).unwrap().len(), 65, "an uncompressed P-256 point");
        assert_eq!(part(token, 0), json!({"typ": "JWT", "alg": "ES256"}));
        assert_eq!(
            part(token, 1),
            json!({"aud": "https://push.example.net:8443", "exp": 1_700_043_200, "sub": "https://beckon.example.com"})
        );
        let (signed, signature) = token.rsplit_once('.').unwrap();
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, URL_SAFE_NO_PAD.decode(k).unwrap());
        public.verify(signed.as_bytes(), &URL_SAFE_NO_PAD.decode(signature).unwrap()).unwrap();
        let mut forged = URL_SAFE_NO_PAD.decode(signature).unwrap();
        forged[0] ^= 1;
        assert!(public.verify(signed.as_bytes(), &forged).is_err());
        // The default port is no part of the origin.
        let plain = reqwest::Url::parse("https://fcm.googleapis.com/fcm/send/x").unwrap();
        let token = vapid.authorization(&plain, None, 0).unwrap();
        let token = token.strip_prefix("vapid t=").unwrap().split_once(", k=").unwrap().0;
        assert_eq!(part(token, 1), json!({"aud": "https://fcm.googleapis.com", "exp": TOKEN_SECONDS}));
    }

    #[test]
    fn a_stored_key_that_cannot_be_read_says_so() {
        let err = Vapid::from_pkcs8("not base64!", SystemRandom::new()).unwrap_err();
        assert!(err.to_string().contains("Web Push key"), "{err}");
    }
}
