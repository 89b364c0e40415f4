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
    CoreAuthDisplay, CoreAuthPrompt, CoreAuthenticationFlow, CoreClaimName, CoreClaimType, CoreClientAuthMethod,
    CoreErrorResponseType, CoreGenderClaim, CoreGrantType, CoreJsonWebKey, CoreJweContentEncryptionAlgorithm,
    CoreJweKeyManagementAlgorithm, CoreJwsSigningAlgorithm, CoreResponseMode, CoreResponseType, CoreRevocableToken,
    CoreRevocationErrorResponse, CoreSubjectIdentifierType, CoreTokenIntrospectionResponse, CoreTokenType,
};
use openidconnect::{
    AdditionalClaims, AdditionalProviderMetadata, AuthorizationCode, ClaimsVerificationError, Client, ClientId,
    ClientSecret, CsrfToken, EmptyExtraTokenFields, EndUserName, EndUserUsername, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, IdTokenFields, IssuerUrl, LocalizedClaim, Nonce, OAuth2TokenResponse, PkceCodeChallenge,
    PkceCodeVerifier, ProviderMetadata, RedirectUrl, Scope, SignatureVerificationError, StandardErrorResponse,
    StandardTokenResponse, TokenResponse, UserInfoClaims,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::GatewayError;
use crate::people_claims::{self, Claimed};

/// Every claim beside the standard ones, by name: the groups claim is named by the operator
/// (`groups`, `roles`, `realm_access.roles`, a namespaced URL), so it is looked up at sign-in.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct OtherClaims {
    #[serde(flatten)]
    claims: Map<String, Value>,
}

impl AdditionalClaims for OtherClaims {}

/// What discovery says beside the core metadata: where RP-initiated logout sends a browser.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct EndSession {
    #[serde(default)]
    end_session_endpoint: Option<String>,
}

impl AdditionalProviderMetadata for EndSession {}

type Metadata = ProviderMetadata<
    EndSession,
    CoreAuthDisplay,
    CoreClientAuthMethod,
    CoreClaimName,
    CoreClaimType,
    CoreGrantType,
    CoreJweContentEncryptionAlgorithm,
    CoreJweKeyManagementAlgorithm,
    CoreJsonWebKey,
    CoreResponseMode,
    CoreResponseType,
    CoreSubjectIdentifierType,
>;

type Fields = IdTokenFields<
    OtherClaims,
    EmptyExtraTokenFields,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
>;

/// A client of the provider as discovery describes it: its authorization endpoint set, its
/// token and userinfo endpoints maybe.
type OidcClient = Client<
    OtherClaims,
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

/// How Beckon is registered with the provider: its issuer, Beckon's client id and secret
/// there, the scopes it asks for beside `openid email profile`, and the claim that names a
/// person's groups.
#[derive(Clone)]
pub struct OidcSettings {
    /// The issuer URL (its discovery document is under `/.well-known/openid-configuration`).
    pub issuer: String,
    pub client_id: String,
    /// `None` for a public client.
    pub client_secret: Option<String>,
    /// Scopes beside `openid`, `email` and `profile` (some providers send groups only for a
    /// `groups` scope).
    pub extra_scopes: Vec<String>,
    /// The claim holding the person's groups: a name (`groups`, `roles`, a namespaced URL), or
    /// a dotted path into an object claim (`realm_access.roles`).
    pub groups_claim: String,
    /// Certificate authorities to trust beside the system's and the built-in ones (a PEM file):
    /// a provider behind a private authority.
    pub ca_file: Option<std::path::PathBuf>,
}

impl OidcSettings {
    /// Beckon registered at `issuer` as `client_id` (with `client_secret`, or a public client),
    /// asking for no more scopes, reading groups from `groups`, trusting the usual authorities.
    pub fn new(issuer: impl Into<String>, client_id: impl Into<String>, client_secret: Option<String>) -> OidcSettings {
        OidcSettings {
            issuer: issuer.into(),
            client_id: client_id.into(),
            client_secret,
            extra_scopes: Vec::new(),
            groups_claim: "groups".into(),
            ca_file: None,
        }
    }
}

impl std::fmt::Debug for OidcSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The client secret is a credential: never in logs or panics.
        f.debug_struct("OidcSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("extra_scopes", &self.extra_scopes)
            .field("groups_claim", &self.groups_claim)
            .field("ca_file", &self.ca_file)
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
    pub party: Arc<RelyingParty>,
    /// The provider's group whose members are admins.
    pub admin_group: String,
}

/// The provider as its discovery document and JWKS last described it.
#[derive(Debug)]
struct Discovered {
    client: OidcClient,
    /// Its `end_session_endpoint`, when it offers RP-initiated logout.
    end_session: Option<url::Url>,
}

/// Beckon as a client of the team's OpenID provider. Made without reaching the provider (a
/// replica starts, and serves agents, while the provider is down); [`RelyingParty::discover`]
/// reads its discovery document and JWKS, and until that has worked once, signing in is refused
/// as [`GatewayError::IdentityUnreachable`].
#[derive(Debug)]
pub struct RelyingParty {
    settings: OidcSettings,
    /// Where the provider sends the person back: the team server's `…/auth/callback`.
    redirect_uri: RedirectUrl,
    issuer: IssuerUrl,
    http: openidconnect::reqwest::Client,
    /// Remade when the provider's keys change; `None` until discovery first worked.
    discovered: RwLock<Option<Arc<Discovered>>>,
}

impl RelyingParty {
    /// Beckon registered with the provider `settings` names, which is to send people back to
    /// `redirect_uri`. Refuses only what can never work: an issuer or redirect that is not a URL.
    pub fn new(settings: OidcSettings, redirect_uri: String) -> Result<RelyingParty, GatewayError> {
        let issuer = IssuerUrl::new(settings.issuer.clone())
            .map_err(|err| identity(&settings, format!("the issuer is not a URL: {err}")))?;
        let redirect_uri = RedirectUrl::new(redirect_uri)
            .map_err(|err| identity(&settings, format!("the redirect URI is not a URL: {err}")))?;
        let mut builder = openidconnect::reqwest::ClientBuilder::new()
            // Following redirects would let the provider's answers point Beckon anywhere.
            .redirect(openidconnect::reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(10));
        let authorities =
            beckon_client::trust::authorities(settings.ca_file.as_deref()).map_err(|err| identity(&settings, err))?;
        for authority in authorities {
            builder = builder.add_root_certificate(authority);
        }
        let http = builder.build().map_err(|err| identity(&settings, format!("cannot make an HTTP client: {err}")))?;
        Ok(RelyingParty { settings, redirect_uri, issuer, http, discovered: RwLock::new(None) })
    }

    /// The issuer, as configured.
    pub fn issuer(&self) -> &str {
        &self.settings.issuer
    }

    /// Reads the provider's discovery document and JWKS, as they are now, and signs people in
    /// by them from then on.
    pub async fn discover(&self) -> Result<(), GatewayError> {
        let metadata = Metadata::discover_async(self.issuer.clone(), &self.http).await.map_err(|err| {
            identity(&self.settings, format!("discovery failed: {}", beckon_client::trust::with_hint(causes(&err))))
        })?;
        let end_session = metadata
            .additional_metadata()
            .end_session_endpoint
            .as_deref()
            .and_then(|endpoint| url::Url::parse(endpoint).ok());
        let client = OidcClient::from_provider_metadata(
            metadata,
            ClientId::new(self.settings.client_id.clone()),
            self.settings.client_secret.clone().map(ClientSecret::new),
        )
        .set_redirect_uri(self.redirect_uri.clone());
        *self.discovered.write().unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(Arc::new(Discovered { client, end_session }));
        Ok(())
    }

    /// Whether discovery has worked.
    pub fn is_discovered(&self) -> bool {
        self.discovered.read().unwrap_or_else(std::sync::PoisonError::into_inner).is_some()
    }

    fn current(&self) -> Result<Arc<Discovered>, GatewayError> {
        self.discovered
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .ok_or_else(|| GatewayError::IdentityUnreachable { issuer: self.settings.issuer.clone() })
    }

    /// Begins a sign-in.
    pub fn start(&self) -> Result<SignInStart, GatewayError> {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let discovered = self.current()?;
        let mut request = discovered
            .client
            .authorize_url(CoreAuthenticationFlow::AuthorizationCode, CsrfToken::new_random, Nonce::new_random)
            .add_scope(Scope::new("email".into()))
            .add_scope(Scope::new("profile".into()));
        for scope in &self.settings.extra_scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.set_pkce_challenge(challenge).url();
        Ok(SignInStart {
            url: url.to_string(),
            pending: PendingSignIn {
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                verifier: verifier.secret().clone(),
            },
        })
    }

    /// Finishes `pending` with the `code` the provider sent back: who signed in. Name, email and
    /// groups come from the ID token, and from the userinfo response for what the ID token does
    /// not carry (many providers send them only there).
    pub async fn finish(&self, pending: &PendingSignIn, code: &str) -> Result<SignedIn, GatewayError> {
        let discovered = self.current()?;
        let response = discovered
            .client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|err| identity(&self.settings, format!("the provider names no token endpoint: {err}")))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier.clone()))
            .request_async(&self.http)
            .await
            .map_err(|err| identity(&self.settings, format!("the code was refused: {}", causes(&err))))?;
        let token =
            response.id_token().ok_or_else(|| identity(&self.settings, "the provider sent no ID token".to_owned()))?;
        let nonce = Nonce::new(pending.nonce.clone());
        let verified = token.claims(&discovered.client.id_token_verifier(), &nonce).cloned();
        let (claims, discovered) = match verified {
            Err(ClaimsVerificationError::SignatureVerification(SignatureVerificationError::NoMatchingKey)) => {
                // The provider may have rotated its key since: read its JWKS again, once.
                self.discover().await?;
                let fresh = self.current()?;
                let verified = token.claims(&fresh.client.id_token_verifier(), &nonce).cloned();
                (verified, fresh)
            }
            other => (other, discovered),
        };
        let claims = claims.map_err(|err| identity(&self.settings, format!("the ID token was refused: {err}")))?;
        let subject = claims.subject().clone();
        let mut person = Claimed {
            email: claims.email().map(|email| email.as_str().to_owned()),
            name: display_name(claims.name(), claims.preferred_username()),
            groups: people_claims::groups(&claims.additional_claims().claims, &self.settings.groups_claim),
        };
        if !person.is_whole()
            && let Ok(request) = discovered.client.user_info(response.access_token().clone(), Some(subject.clone()))
        {
            let info: UserInfoClaims<OtherClaims, CoreGenderClaim> = request
                .request_async(&self.http)
                .await
                .map_err(|err| identity(&self.settings, format!("the userinfo request failed: {}", causes(&err))))?;
            person.fill(Claimed {
                email: info.email().map(|email| email.as_str().to_owned()),
                name: display_name(info.name(), info.preferred_username()),
                groups: people_claims::groups(&info.additional_claims().claims, &self.settings.groups_claim),
            });
        }
        Ok(SignedIn {
            subject: subject.as_str().to_owned(),
            email: person.email,
            name: person.name,
            groups: person.groups.unwrap_or_default(),
        })
    }

    /// Where to send a browser to sign out of the provider too (RP-initiated logout), coming
    /// back to `after` (registered at the provider as a post-logout redirect URI); `None` when
    /// the provider offers no `end_session_endpoint`.
    pub fn sign_out_url(&self, after: &str) -> Option<String> {
        let discovered = self.current().ok()?;
        let mut url = discovered.end_session.clone()?;
        url.query_pairs_mut()
            .append_pair("client_id", &self.settings.client_id)
            .append_pair("post_logout_redirect_uri", after);
        Some(url.to_string())
    }
}

/// A person's name as the provider gives it: `name`, else `preferred_username`.
fn display_name(name: Option<&LocalizedClaim<EndUserName>>, username: Option<&EndUserUsername>) -> Option<String> {
    name.and_then(|name| name.get(None))
        .map(|name| name.as_str().to_owned())
        .or_else(|| username.map(|username| username.as_str().to_owned()))
}

fn identity(settings: &OidcSettings, detail: String) -> GatewayError {
    GatewayError::Identity { issuer: settings.issuer.clone(), detail }
}

/// Keeps reading the provider's discovery document until it answers, waiting longer each time
/// (1 s doubling to a minute), until `stop`; says once that it is unreachable and once that it
/// answered.
pub async fn discover_until_reached(party: Arc<RelyingParty>, stop: tokio_util::sync::CancellationToken) {
    let mut wait = std::time::Duration::from_secs(1);
    let mut said = false;
    loop {
        match party.discover().await {
            Ok(()) => {
                if said {
                    tracing::info!(issuer = party.issuer(), "the identity provider answers: people can sign in");
                }
                return;
            }
            Err(err) if !said => {
                tracing::warn!(%err, "the identity provider cannot be reached: serving agents and tokens, and refusing sign-ins until it answers (trying again in the background)");
                said = true;
            }
            Err(err) => tracing::debug!(%err, "the identity provider still cannot be reached"),
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).min(std::time::Duration::from_secs(60));
    }
}
