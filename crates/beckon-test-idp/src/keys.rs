//! The provider's signing keys: RSA keys made once for these tests (PKCS#8 files beside the
//! crate; RSA keys cannot be made by `ring`, and making them at each run is slow), published
//! as a JWKS, signing compact RS256 JWTs.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{KeyPair, RSA_PKCS1_SHA256, RsaKeyPair, RsaPublicKeyComponents};
use serde_json::{Value, json};

use crate::Error;

/// The keys the provider can publish, in the order it rotates to them.
const PUBLISHED: [(&str, &str); 2] =
    [("first", include_str!("../keys/first.pem")), ("second", include_str!("../keys/second.pem"))];

/// A key the provider never publishes: what a forger signs with.
const STRANGER: (&str, &str) = ("stranger", include_str!("../keys/stranger.pem"));

/// A big-endian integer without leading zero bytes, as a JWK writes it (RFC 7518 §6.3.1).
fn strip_zeros(bytes: &[u8]) -> &[u8] {
    let first = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    &bytes[first..]
}

/// One RSA key and the id its tokens name it by.
pub(crate) struct SigningKey {
    pub(crate) kid: String,
    pair: RsaKeyPair,
}

impl SigningKey {
    fn load((kid, pem): (&str, &str)) -> Result<SigningKey, Error> {
        let body: String = pem.lines().filter(|line| !line.starts_with("-----")).collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(body)
            .map_err(|err| Error::Key(format!("{kid}: {err}")))?;
        let pair = RsaKeyPair::from_pkcs8(&der).map_err(|err| Error::Key(format!("{kid}: {err}")))?;
        Ok(SigningKey { kid: kid.to_owned(), pair })
    }

    /// The public half as a JWK.
    pub(crate) fn jwk(&self) -> Value {
        let public = RsaPublicKeyComponents::<Vec<u8>>::from(self.pair.public_key());
        json!({
            "kty": "RSA",
            "use": "sig",
            "alg": "RS256",
            "kid": self.kid,
            "n": URL_SAFE_NO_PAD.encode(strip_zeros(&public.n)),
            "e": URL_SAFE_NO_PAD.encode(strip_zeros(&public.e)),
        })
    }

    /// `claims` as a compact JWS signed with this key (RS256).
    pub(crate) fn sign(&self, claims: &Value) -> Result<String, Error> {
        let header = json!({"alg": "RS256", "typ": "JWT", "kid": self.kid});
        let signing_input =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let mut signature = vec![0; self.pair.public().modulus_len()];
        self.pair
            .sign(&RSA_PKCS1_SHA256, &SystemRandom::new(), signing_input.as_bytes(), &mut signature)
            .map_err(|_| Error::Key(format!("{}: signing failed", self.kid)))?;
        Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature)))
    }
}

/// The keys in use: those published (the newest signs), and which comes next.
pub(crate) struct KeyRing {
    published: Vec<SigningKey>,
    /// The next of [`PUBLISHED`] to rotate to.
    next: usize,
    stranger: SigningKey,
}

impl KeyRing {
    pub(crate) fn new() -> Result<KeyRing, Error> {
        Ok(KeyRing { published: vec![SigningKey::load(PUBLISHED[0])?], next: 1, stranger: SigningKey::load(STRANGER)? })
    }

    /// The key new tokens are signed with.
    pub(crate) fn current(&self) -> &SigningKey {
        // `new` publishes one and nothing removes the last.
        &self.published[self.published.len() - 1]
    }

    /// A key no JWKS of this provider names.
    pub(crate) fn stranger(&self) -> &SigningKey {
        &self.stranger
    }

    /// Publishes the next key and signs with it from now on; the ones before stay published
    /// (as a provider keeps them while tokens signed with them live) until [`KeyRing::retire`].
    pub(crate) fn rotate(&mut self) -> Result<(), Error> {
        let next = PUBLISHED.get(self.next).ok_or(Error::NoMoreKeys)?;
        self.published.push(SigningKey::load(*next)?);
        self.next += 1;
        Ok(())
    }

    /// Stops publishing every key but the current one.
    pub(crate) fn retire(&mut self) {
        let keep = self.published.len() - 1;
        self.published.drain(..keep);
    }

    /// The JWKS document.
    pub(crate) fn jwks(&self) -> Value {
        json!({"keys": self.published.iter().map(SigningKey::jwk).collect::<Vec<_>>()})
    }
}
