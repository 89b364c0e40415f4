//! Signing people in with the team's OpenID provider: the authorization code flow with PKCE
//! (RFC 7636), through `openidconnect`. [`RelyingParty::start`] makes the URL to send the
//! person's browser to and what must be kept until the provider sends them back
//! ([`PendingSignIn`]: state, nonce and PKCE verifier); [`RelyingParty::finish`] exchanges the
//! code, with the verifier, and accepts the ID token only when it is signed by a key in the
//! provider's JWKS, issued by that provider to this client, unexpired, and carries the nonce.
//! A token signed by a key the JWKS it has does not name makes it fetch the JWKS again once
//! (the provider rotated its key) before it refuses.

use std::sync::{Arc, RwLock};

use beckon_runtime::http_error::causes;
use beckon_store::SignedIn;
use openidconnect::core::{
    CoreAuthDisplay, CoreAuthPrompt, CoreAuthenticationFlow, CoreErrorResponseType, CoreGenderClaim, CoreJsonWebKey,
    CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm, CoreProviderMetadata, CoreRevocableToken,
    CoreRevocationErrorResponse, CoreTokenIntrospectionResponse, CoreTokenType,
};
use openidconnect::{
    AdditionalClaims, AuthorizationCode, ClaimsVerificationError, Client, ClientId, ClientSecret, CsrfToken,
    EmptyExtraTokenFields, EndpointMaybeSet, EndpointNotSet, EndpointSet, IdTokenFields, IssuerUrl, Nonce,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, SignatureVerificationError, StandardErrorResponse,
    StandardTokenResponse, TokenResponse,
};
use serde::{Deserialize, Serialize};

use crate::error::GatewayError;

/// The `groups` claim, beside the standard ones.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Groups {
    #[serde(default)]
    groups: Vec<String>,
}

impl AdditionalClaims for Groups {}

type Fields = IdTokenFields<
    Groups,
    EmptyExtraTokenFields,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
>;

/// A client of the provider as discovery describes it: its authorization endpoint set, its
/// token endpoint maybe.
type OidcClient = Client<
    Groups,
    CoreAuthDisplay,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJsonWebKey,
    CoreAuthPrompt,
    StandardErrorResponse<CoreErrorResponseType>,
    StandardTokenResponse<Fields, CoreTokenType>,
    CoreTokenIntrospectionResponse,
    CoreRevocableToken,
    CoreRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// How Beckon is registered with the provider: its issuer, and Beckon's client id and secret
/// there.
#[derive(Clone)]
pub struct OidcSettings {
    /// The issuer URL (its discovery document is under `/.well-known/openid-configuration`).
    pub issuer: String,
    pub client_id: String,
    /// `None` for a public client.
    pub client_secret: Option<String>,
}

impl std::fmt::Debug for OidcSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The client secret is a credential: never in logs or panics.
        f.debug_struct("OidcSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// What a sign-in must keep until the person comes back: the `state` sent (to match the
/// callback's), the nonce the ID token must carry, and the PKCE verifier. Secret: kept on the
/// server, never in the page.
#[derive(Clone, Serialize, Deserialize)]
pub struct PendingSignIn {
    pub state: String,
    nonce: String,
    verifier: String,
}

impl std::fmt::Debug for PendingSignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSignIn").field("state", &self.state).finish_non_exhaustive()
    }
}

/// A sign-in begun: where to send the person, and what to keep.
#[derive(Debug)]
pub struct SignInStart {
    pub url: String,
    pub pending: PendingSignIn,
}

/// Signing in, as a team server is set up for it.
#[derive(Debug)]
pub struct SignIn {
    /// The team's identity provider, as Beckon is registered with it.
    pub party: RelyingParty,
    /// The provider's group whose members are admins.
    pub admin_group: String,
}

/// Beckon as a client of the team's OpenID provider.
#[derive(Debug)]
pub struct RelyingParty {
    settings: OidcSettings,
    /// Where the provider sends the person back: the team server's `…/auth/callback`.
    redirect_uri: String,
    http: openidconnect::reqwest::Client,
    /// Remade when the provider's keys change.
    client: RwLock<Arc<OidcClient>>,
}

impl RelyingParty {
    /// Reads the provider's discovery document and JWKS; the provider is to send people back to
    /// `redirect_uri`.
    pub async fn discover(settings: OidcSettings, redirect_uri: String) -> Result<RelyingParty, GatewayError> {
        let http = openidconnect::reqwest::ClientBuilder::new()
            // Following redirects would let the provider's answers point Beckon anywhere.
            .redirect(openidconnect::reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .map_err(|err| identity(&settings, format!("cannot make an HTTP client: {err}")))?;
        let client = Arc::new(discovered(&settings, &redirect_uri, &http).await?);
        Ok(RelyingParty { settings, redirect_uri, http, client: RwLock::new(client) })
    }

    fn current(&self) -> Arc<OidcClient> {
        self.client.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Begins a sign-in.
    pub fn start(&self) -> SignInStart {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state, nonce) = self
            .current()
            .authorize_url(CoreAuthenticationFlow::AuthorizationCode, CsrfToken::new_random, Nonce::new_random)
            .add_scope(Scope::new("email".into()))
            .add_scope(Scope::new("profile".into()))
            .set_pkce_challenge(challenge)
            .url();
        SignInStart {
            url: url.to_string(),
            pending: PendingSignIn {
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                verifier: verifier.secret().clone(),
            },
        }
    }

    /// Finishes `pending` with the `code` the provider sent back: who signed in.
    pub async fn finish(&self, pending: &PendingSignIn, code: &str) -> Result<SignedIn, GatewayError> {
        let client = self.current();
        let response = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|err| identity(&self.settings, format!("the provider names no token endpoint: {err}")))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier.clone()))
            .request_async(&self.http)
            .await
            .map_err(|err| identity(&self.settings, format!("the code was refused: {}", causes(&err))))?;
        let token =
            response.id_token().ok_or_else(|| identity(&self.settings, "the provider sent no ID token".to_owned()))?;
        let nonce = Nonce::new(pending.nonce.clone());
        let claims = match token.claims(&client.id_token_verifier(), &nonce) {
            Err(ClaimsVerificationError::SignatureVerification(SignatureVerificationError::NoMatchingKey)) => {
                // The provider may have rotated its key since: read its JWKS again, once.
                let fresh = Arc::new(discovered(&self.settings, &self.redirect_uri, &self.http).await?);
                *self.client.write().unwrap_or_else(std::sync::PoisonError::into_inner) = fresh.clone();
                token.claims(&fresh.id_token_verifier(), &nonce).cloned()
            }
            other => other.cloned(),
        }
        .map_err(|err| identity(&self.settings, format!("the ID token was refused: {err}")))?;
        Ok(SignedIn {
            subject: claims.subject().as_str().to_owned(),
            email: claims.email().map(|email| email.as_str().to_owned()),
            name: claims.name().and_then(|name| name.get(None)).map(|name| name.as_str().to_owned()),
            groups: claims.additional_claims().groups.clone(),
        })
    }
}

fn identity(settings: &OidcSettings, detail: String) -> GatewayError {
    GatewayError::Identity { issuer: settings.issuer.clone(), detail }
}

/// A client made from the provider's discovery document and JWKS as they are now.
async fn discovered(
    settings: &OidcSettings,
    redirect_uri: &str,
    http: &openidconnect::reqwest::Client,
) -> Result<OidcClient, GatewayError> {
    let issuer = IssuerUrl::new(settings.issuer.clone())
        .map_err(|err| identity(settings, format!("the issuer is not a URL: {err}")))?;
    let metadata = CoreProviderMetadata::discover_async(issuer, http)
        .await
        .map_err(|err| identity(settings, format!("discovery failed: {}", causes(&err))))?;
    let redirect = RedirectUrl::new(redirect_uri.to_owned())
        .map_err(|err| identity(settings, format!("the redirect URI is not a URL: {err}")))?;
    Ok(OidcClient::from_provider_metadata(
        metadata,
        ClientId::new(settings.client_id.clone()),
        settings.client_secret.clone().map(ClientSecret::new),
    )
    .set_redirect_uri(redirect))
}
