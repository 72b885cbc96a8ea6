//! A third-party authorization on the page ("connect GitHub"): [`AuthorizationPage`],
//! [`Token`], [`TokenSink`].

use std::fmt;
use std::future::ready;
use std::time::Duration;

use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet, EndpointSet,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, TokenResponse as _, TokenUrl,
};
use secrecy::SecretString;
use serde::{Deserialize, Serialize};

use super::error::PageError;
use super::secret::{SinkError, SinkFuture, check_page_name, receipt_json};
use crate::schema::Text;
use crate::url_mode::Flows;

/// The path segment under the flows' base where the pages' redirect URIs are, one per page.
pub(super) const REDIRECT_SEGMENT: &str = "authorized";

type Client = BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// A page on which the user authorizes this server at a third party (an OAuth 2.0 provider:
/// "connect GitHub"). The page sends the browser to the provider with PKCE and a `state` bound
/// to the flow, the browser and the user (the `oauth2` crate); on the way back it checks the
/// `state` and the identity again, exchanges the code, and hands the token to a [`TokenSink`].
/// The token never reaches the MCP client.
///
/// Register [`redirect_uri`](AuthorizationPage::redirect_uri), `<flows' base>authorized/<name>`,
/// as the redirect URI at the provider: each page has its own.
///
/// # Mix-up (RFC 9700 §4.4)
/// A server with several authorization pages is a client of several providers, and one of them
/// may be malicious (or compromised). Its authorization endpoint can send the browser on to an
/// honest provider with this page's `state`, PKCE challenge and the honest page's client id: the
/// honest provider's code then comes back, and a client that cannot tell who answered posts it
/// (with the PKCE verifier) to the malicious provider's token endpoint, which redeems it. Two
/// defences, both on every page:
///
/// - **A redirect URI per page** (RFC 9700 §4.4.2): an authorization started on one page is
///   finished only at that page's redirect URI, and a code that arrives at another page's is
///   refused before it is sent anywhere. An honest provider that matches redirect URIs exactly
///   (RFC 9700 §2.1 requires it) sends its code only to its own page's URI, where the
///   authorization the browser started (on the malicious page) is not accepted.
/// - **The issuer in the answer** (RFC 9207): [`issuer`](AuthorizationPage::issuer) names the
///   provider's issuer identifier. With it, every answer must carry `iss` equal to it (a missing
///   `iss` is refused: set it for a provider whose metadata advertises
///   `authorization_response_iss_parameter_supported`). Without it, the page expects no `iss`,
///   and an answer that carries one is refused: it came from a provider that names itself, and
///   this page's does not. Either way an answer from another provider that names itself is
///   refused, before its code is sent anywhere.
///
/// What is left: a provider that neither matches redirect URIs exactly nor sends `iss`. Only
/// the provider can close that; RFC 9700 requires the first of it.
///
/// ```
/// use mcp_elicit::page::AuthorizationPage;
/// use mcp_elicit::url_mode::{Flows, MemoryFlowStore};
///
/// let flows = Flows::new(MemoryFlowStore::new(), "https://mcp.example.com/elicit/")?;
/// let github = AuthorizationPage::new(
///     "github",
///     "GitHub",
///     "https://github.com/login/oauth/authorize",
///     "https://github.com/login/oauth/access_token",
///     "Iv1.8a61f9b3a7aba766",
///     Some("the client secret, from the server's secret store".into()),
///     &flows,
/// )?
/// .scope("repo");
/// assert_eq!(github.name(), "github");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AuthorizationPage {
    name: Text,
    provider: Text,
    client: Client,
    scopes: Vec<String>,
    /// The provider's issuer identifier, when it names itself in its answers (RFC 9207).
    issuer: Option<String>,
    http: oauth2::reqwest::Client,
}

impl fmt::Debug for AuthorizationPage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthorizationPage")
            .field("name", &self.name)
            .field("provider", &self.provider)
            .field("auth_url", &self.client.auth_uri().as_str())
            .field("scopes", &self.scopes)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl AuthorizationPage {
    /// The page `name` (what [`Asker::url_flow`](crate::rmcp::Asker::url_flow) asks for), on
    /// which the user authorizes this server at `provider` (its name, shown to the user), whose
    /// endpoints are `auth_url` and `token_url`, as the client `client_id` (with its secret, for
    /// a confidential client).
    ///
    /// # Errors
    /// [`PageError::Name`], or [`PageError::Url`] for a URL that is not one.
    pub fn new(
        name: impl Into<Text>,
        provider: impl Into<Text>,
        auth_url: &str,
        token_url: &str,
        client_id: impl Into<String>,
        client_secret: Option<String>,
        flows: &Flows,
    ) -> Result<Self, PageError> {
        let name = name.into();
        check_page_name(&name)?;
        let url = |e: oauth2::url::ParseError| PageError::Url(e.to_string());
        let mut client = BasicClient::new(ClientId::new(client_id.into()))
            .set_auth_uri(AuthUrl::new(auth_url.to_owned()).map_err(url)?)
            .set_token_uri(TokenUrl::new(token_url.to_owned()).map_err(url)?)
            .set_redirect_uri(RedirectUrl::new(Self::redirect_uri_for(&name, flows)).map_err(url)?);
        if let Some(secret) = client_secret {
            client = client.set_client_secret(ClientSecret::new(secret));
        }
        // No redirects: the token request goes to the token URL and nowhere else.
        let http = oauth2::reqwest::ClientBuilder::new()
            .redirect(oauth2::reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| PageError::Url(e.to_string()))?;
        Ok(Self {
            name,
            provider: provider.into(),
            client,
            scopes: Vec::new(),
            issuer: None,
            http,
        })
    }

    /// The redirect URI of the page `name` under `flows`, `<flows' base>authorized/<name>`: what
    /// to register at its provider, known before the page is made. A page's name is letters,
    /// digits, `_` and `-`, so it is a path segment as written.
    #[must_use]
    pub fn redirect_uri_for(name: &str, flows: &Flows) -> String {
        format!("{}{REDIRECT_SEGMENT}/{name}", flows.base().as_str())
    }

    /// This page's redirect URI ([`redirect_uri_for`](AuthorizationPage::redirect_uri_for)).
    #[must_use]
    pub fn redirect_uri(&self) -> &str {
        self.client.redirect_uri().map_or("", |uri| uri.as_str())
    }

    /// The provider names itself `issuer` in every answer (RFC 9207): its issuer identifier, the
    /// `issuer` of its metadata (RFC 8414), which advertises
    /// `authorization_response_iss_parameter_supported`. An answer whose `iss` is another, or
    /// that has none, is refused. Without it the page expects no `iss` (see the mix-up defence
    /// above).
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Whether an answer that says it comes from `iss` (its `iss` parameter, if any) comes from
    /// this page's provider (RFC 9207 §2.4: compared as strings), or why not.
    pub(super) fn check_issuer(&self, iss: Option<&str>) -> Result<(), &'static str> {
        match (self.issuer.as_deref(), iss) {
            (Some(expected), Some(iss)) if iss == expected => Ok(()),
            (None, None) => Ok(()),
            (Some(_), Some(_)) => Err("The answer came from another provider than this page's."),
            (Some(_), None) => Err(
                "The answer did not say which provider sent it, and this page's provider always does.",
            ),
            (None, Some(_)) => Err(
                "The answer names a provider, and this page's names none: it came from another provider.",
            ),
        }
    }

    /// Ask the provider for `scope` too.
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// The page's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The provider's name, as the page shows it.
    #[must_use]
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// The origin of the provider's authorization URL (`https://github.com`), which the page's
    /// form continues to.
    pub(super) fn origin(&self) -> Option<String> {
        let origin = self.client.auth_uri().url().origin();
        origin.is_tuple().then(|| origin.ascii_serialization())
    }

    /// The provider's authorization URL for a new authorization, and what must come back with
    /// it (sealed by the caller): its `state` and PKCE verifier.
    pub(super) fn start(&self) -> (String, Pending) {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = self
            .client
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge);
        for scope in &self.scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state) = request.url();
        (
            url.to_string(),
            Pending {
                state: state.secret().clone(),
                verifier: verifier.secret().clone(),
            },
        )
    }

    /// The token for `code`, exchanged with the verifier of the authorization it answers.
    pub(super) async fn exchange(&self, code: String, verifier: String) -> Result<Token, String> {
        let tokens = self
            .client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(PkceCodeVerifier::new(verifier))
            .request_async(&self.http)
            .await
            .map_err(|_| format!("{} did not give this server a token.", self.provider))?;
        Ok(Token {
            access_token: SecretString::from(tokens.access_token().secret().clone()),
            refresh_token: tokens
                .refresh_token()
                .map(|token| SecretString::from(token.secret().clone())),
            expires_in: tokens.expires_in(),
            scopes: tokens
                .scopes()
                .map(|scopes| scopes.iter().map(|s| s.to_string()).collect())
                .unwrap_or_default(),
        })
    }
}

/// An authorization under way: what comes back with the provider's answer.
#[derive(Serialize, Deserialize)]
pub(super) struct Pending {
    #[serde(rename = "s")]
    pub(super) state: String,
    #[serde(rename = "v")]
    pub(super) verifier: String,
}

/// The provider's tokens for this server: secrets (`SecretString`), never `Debug`-printed.
pub struct Token {
    /// The access token.
    pub access_token: SecretString,
    /// The refresh token, if the provider gave one.
    pub refresh_token: Option<SecretString>,
    /// How long the access token lasts, if the provider said.
    pub expires_in: Option<Duration>,
    /// The scopes granted, if the provider said.
    pub scopes: Vec<String>,
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Token")
            .field("refresh_token", &self.refresh_token.is_some())
            .field("expires_in", &self.expires_in)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// Where an [`AuthorizationPage`]'s token goes: the server's vault, under the principal whose
/// flow it is. It returns what the tool reads: a receipt `R`, the server's own type
/// (`Serialize`; the store keeps it as JSON, and the tool reads it with
/// [`Asker::url_flow::<R>`](crate::rmcp::Asker::url_flow)), or a [`SinkError`] whose words the
/// user may read.
///
/// A closure `Fn(String, Token) -> Result<R, SinkError>` is a sink: the principal comes owned,
/// so `|user, token| ..` needs no annotation.
pub trait TokenSink<R = serde_json::Value>: Send + Sync + 'static {
    /// Keeps `token` for `principal`.
    fn store(&self, principal: String, token: Token) -> SinkFuture<'_, R>;
}

impl<F, R> TokenSink<R> for F
where
    F: Fn(String, Token) -> Result<R, SinkError> + Send + Sync + 'static,
    R: Send + 'static,
{
    fn store(&self, principal: String, token: Token) -> SinkFuture<'_, R> {
        Box::pin(ready(self(principal, token)))
    }
}

/// A token sink of receipts `R`, as the pages keep it: its receipt written as JSON.
pub(super) struct SerializedToken<S, R> {
    sink: S,
    receipt: std::marker::PhantomData<fn() -> R>,
}

impl<S, R> SerializedToken<S, R> {
    pub(super) fn new(sink: S) -> Self {
        Self {
            sink,
            receipt: std::marker::PhantomData,
        }
    }
}

impl<S, R> TokenSink for SerializedToken<S, R>
where
    S: TokenSink<R>,
    R: serde::Serialize + Send + 'static,
{
    fn store(&self, principal: String, token: Token) -> SinkFuture<'_> {
        let stored = self.sink.store(principal, token);
        Box::pin(async move { stored.await.and_then(receipt_json) })
    }
}
