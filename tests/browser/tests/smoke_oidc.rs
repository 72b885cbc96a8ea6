//! The OpenID provider works: a browser signs in through its real form, started by a relying
//! party written with `openidconnect`, and the ID token names the account; a wrong password and
//! a denied consent get no code.
//!
//! Ignored unless asked for: they need chromium, chromedriver and the provider's node_modules,
//! which `.ci/run` installs before it runs them with `--include-ignored`.

use std::{collections::HashMap, time::Duration};

use axum::{
    Router,
    extract::{Query, State},
    response::Html,
    routing::get,
};
use elicit_browser_tests::{
    ALICE, Account, BOB, Browser, Chromedriver, LoopbackHttp, OidcClient, OidcProvider,
    OidcProviderBuilder, Site,
};
use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, Nonce, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, TokenResponse,
    core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata},
};
use tokio::sync::mpsc;

type TestResult = Result<(), Box<dyn std::error::Error>>;
type Callback = HashMap<String, String>;
/// What `CoreClient::from_provider_metadata` gives: authorization endpoint set, token and
/// userinfo endpoints as the discovery document says.
type RelyingPartyClient = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

const WAIT: Duration = Duration::from_secs(10);
const CLIENT_ID: &str = "smoke-rp";
const CLIENT_SECRET: &str = "smoke-rp-secret";

/// A relying party: its callback page on 127.0.0.1, registered at a provider started for it.
struct RelyingParty {
    client: RelyingPartyClient,
    http: LoopbackHttp,
    callbacks: mpsc::UnboundedReceiver<Callback>,
    provider: OidcProvider,
    _site: Site,
}

/// One authorization request's secrets, kept by the relying party until the callback.
struct Started {
    url: String,
    state: CsrfToken,
    nonce: Nonce,
    verifier: PkceCodeVerifier,
}

impl RelyingParty {
    async fn start(provider: OidcProviderBuilder) -> Result<Self, Box<dyn std::error::Error>> {
        // Bound first: the provider needs the redirect URI when it starts.
        let listener = Site::bind().await?;
        let redirect = format!("http://{}/callback", listener.local_addr()?);
        let provider = provider
            .client(
                OidcClient::confidential(CLIENT_ID, CLIENT_SECRET, &redirect)
                    .with("client_name", "Smoke relying party"),
            )
            .start()
            .await?;

        let (tx, callbacks) = mpsc::unbounded_channel();
        let site = Site::serve_on(
            listener,
            Router::new()
                .route("/callback", get(callback))
                .with_state(tx),
        )?;

        let http = LoopbackHttp::new();
        let metadata = CoreProviderMetadata::discover_async(provider.issuer_url(), &http).await?;
        let client = CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(CLIENT_ID.into()),
            Some(ClientSecret::new(CLIENT_SECRET.into())),
        )
        .set_redirect_uri(RedirectUrl::new(redirect)?);
        Ok(Self {
            client,
            http,
            callbacks,
            provider,
            _site: site,
        })
    }

    fn begin(&self) -> Started {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state, nonce) = self
            .client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scope(Scope::new("openid".into()))
            .set_pkce_challenge(challenge)
            .url();
        Started {
            url: url.into(),
            state,
            nonce,
            verifier,
        }
    }

    /// Reads the callback, checks its `state`, exchanges the code and verifies the ID token
    /// (signature, issuer, audience, nonce); returns its `sub`.
    async fn finish(&mut self, started: Started) -> Result<String, Box<dyn std::error::Error>> {
        let callback = tokio::time::timeout(WAIT, self.callbacks.recv())
            .await?
            .ok_or("the callback site stopped")?;
        assert_eq!(
            callback.get("state").map(String::as_str),
            Some(started.state.secret().as_str()),
            "the state comes back unchanged"
        );
        let code = callback
            .get("code")
            .ok_or_else(|| format!("no code: {callback:?}"))?;
        let tokens = self
            .client
            .exchange_code(AuthorizationCode::new(code.clone()))?
            .set_pkce_verifier(started.verifier)
            .request_async(&self.http)
            .await?;
        let id_token = tokens.id_token().ok_or("no ID token")?;
        let claims = id_token.claims(&self.client.id_token_verifier(), &started.nonce)?;
        Ok(claims.subject().to_string())
    }
}

async fn callback(
    State(tx): State<mpsc::UnboundedSender<Callback>>,
    Query(query): Query<Callback>,
) -> Html<&'static str> {
    let signed_in = query.contains_key("code");
    let _ = tx.send(query);
    Html(if signed_in {
        "<!doctype html><p>Signed in at the relying party</p>"
    } else {
        "<!doctype html><p>The provider sent no code</p>"
    })
}

/// At the provider's sign-in form: types the username and password and presses "Sign in".
async fn type_credentials(browser: &Browser, username: &str, password: &str) -> TestResult {
    browser
        .wait_for_text("Sign in to the test provider", WAIT)
        .await?;
    browser.fill("username", username).await?;
    browser.fill("password", password).await?;
    browser.press("Sign in").await?;
    Ok(())
}

/// Signs `account` in through the provider's form and consent page; returns the ID token's
/// `sub`.
async fn sign_in(
    rp: &mut RelyingParty,
    browser: &Browser,
    account: Account,
) -> Result<String, Box<dyn std::error::Error>> {
    let started = rp.begin();
    browser.goto(&started.url).await?;
    type_credentials(browser, account.username, account.password).await?;
    let consent = browser
        .wait_for_text("Authorize Smoke relying party", WAIT)
        .await?;
    assert!(
        consent.contains(&format!("Signed in as {}", account.username)),
        "{consent}"
    );
    browser.press("Allow").await?;
    browser
        .wait_for_text("Signed in at the relying party", WAIT)
        .await?;
    rp.finish(started).await
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn alice_signs_in_through_the_real_form_and_the_id_token_names_her() -> TestResult {
    let mut rp = RelyingParty::start(OidcProvider::builder()).await?;
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;

    assert_eq!(sign_in(&mut rp, &browser, ALICE).await?, ALICE.sub);

    // Signed in at the provider now: a second authorization skips the form and the consent.
    let started = rp.begin();
    browser.goto(&started.url).await?;
    browser
        .wait_for_text("Signed in at the relying party", WAIT)
        .await?;
    assert_eq!(rp.finish(started).await?, ALICE.sub);
    assert!(rp.provider.is_running(), "{}", rp.provider.log());
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn a_wrong_password_is_refused_and_another_browser_signs_in_as_bob() -> TestResult {
    let mut rp = RelyingParty::start(OidcProvider::builder()).await?;
    let driver = Chromedriver::start().await?;
    let alice = driver.browser().await?;
    let bob = driver.browser().await?;
    assert_eq!(sign_in(&mut rp, &alice, ALICE).await?, ALICE.sub);

    let started = rp.begin();
    bob.goto(&started.url).await?;
    // Alice's password is not Bob's; nobody is "mallory".
    for (username, password) in [
        (BOB.username, ALICE.password),
        ("mallory", "mallory"),
        (BOB.username, ""),
    ] {
        type_credentials(&bob, username, password).await?;
        bob.wait_for_text("Wrong username or password.", WAIT)
            .await?;
        assert!(bob.current_url().await?.starts_with(rp.provider.issuer()));
        assert!(rp.callbacks.try_recv().is_err(), "no callback, so no code");
    }

    type_credentials(&bob, BOB.username, BOB.password).await?;
    bob.wait_for_text("Authorize Smoke relying party", WAIT)
        .await?;
    bob.press("Allow").await?;
    bob.wait_for_text("Signed in at the relying party", WAIT)
        .await?;
    assert_eq!(rp.finish(started).await?, BOB.sub);
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn denying_consent_sends_access_denied_and_no_code() -> TestResult {
    // The issuer under 127.0.0.1 this time, the other host name the harness offers.
    let mut rp = RelyingParty::start(OidcProvider::builder().issuer_host("127.0.0.1")).await?;
    assert!(rp.provider.issuer().starts_with("http://127.0.0.1:"));
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;

    let started = rp.begin();
    browser.goto(&started.url).await?;
    type_credentials(&browser, ALICE.username, ALICE.password).await?;
    browser
        .wait_for_text("Authorize Smoke relying party", WAIT)
        .await?;
    browser.press("Deny").await?;
    browser
        .wait_for_text("The provider sent no code", WAIT)
        .await?;
    let callback = tokio::time::timeout(WAIT, rp.callbacks.recv())
        .await?
        .ok_or("the callback site stopped")?;
    assert_eq!(
        callback.get("error").map(String::as_str),
        Some("access_denied")
    );
    assert_eq!(callback.get("code"), None);
    assert_eq!(
        callback.get("state").map(String::as_str),
        Some(started.state.secret().as_str())
    );
    Ok(())
}
