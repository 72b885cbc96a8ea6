//! OAuth mix-up (RFC 9700 §4.4) in Chromium: one server's pages with two authorization pages,
//! `honest` (npm's oidc-provider, which matches redirect URIs exactly and names itself in its
//! answers, RFC 9207) and `evil` (a malicious provider, served here in process: a malicious
//! provider is by nature one we write).
//!
//! The user presses "Continue to Evil"; the malicious provider's authorization endpoint sends the
//! browser on to oidc-provider as the honest page's client, with the same `state`, PKCE challenge
//! and redirect URI (or the honest page's). Its token endpoint keeps every request: it must see
//! none, and the flow stays open.
//!
//! `cargo test -p elicit-browser-tests --features browser --test page_mix_up -- --include-ignored`

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    Router,
    extract::{Query, State},
    http::request::Parts,
    response::{Html, IntoResponse, Response},
    routing::{get, post},
};
use elicit_browser_tests::{ALICE, Chromedriver, OidcClient, OidcProvider, Site};
use mcp_elicit::{
    page::{AuthorizationPage, IdentifyFuture, Identity, Pages, Token},
    state::{ParamsDigest, UnixTime},
    url_mode::{Flow, FlowId, FlowStatus, Flows, MemoryFlowStore},
};
use openidconnect::url::Url;
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const WAIT: Duration = Duration::from_secs(10);
const HONEST_CLIENT: &str = "honest-client";
const HONEST_SECRET: &str = "honest-client-secret";
const HONEST_NAME: &str = "Honest Git";

/// Every request is alice's: who opens the page is not what these tests are about.
struct Alice;

impl Identity for Alice {
    fn identify<'a>(&'a self, _: &'a Parts) -> IdentifyFuture<'a> {
        Box::pin(async { Ok(mcp_elicit::page::SignedIn::new("alice")) })
    }
}

/// What the malicious token endpoint was sent.
type Sent = Arc<Mutex<Vec<String>>>;

#[derive(Clone)]
struct Evil {
    /// oidc-provider's authorization endpoint.
    honest_authorize: String,
    /// The redirect URI to send on instead of the one it was sent (the honest page's).
    substitute: Option<String>,
    tokens: Sent,
}

/// The malicious authorization endpoint: on to the honest provider, as the honest page's client.
async fn evil_authorize(
    State(evil): State<Evil>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let query = query.into_iter().map(|(name, value)| match name.as_str() {
        "client_id" => (name, HONEST_CLIENT.to_owned()),
        "redirect_uri" => {
            let value = evil.substitute.clone().unwrap_or(value);
            (name, value)
        }
        _ => (name, value),
    });
    // Through a page of its own, not a redirect: the pages' `form-action` names only their own
    // origin and this provider's, and Chromium holds the redirects after the form's POST to it,
    // so a 302 on to another origin would be stopped in the browser. A page that navigates on is
    // a new navigation, which `form-action` does not cover; a malicious provider would use one.
    match Url::parse_with_params(&evil.honest_authorize, query) {
        Ok(url) => Html(format!(
            "<!doctype html><meta http-equiv=\"refresh\" content=\"0;url={}\"><p>Signing you in…</p>",
            url.as_str().replace('&', "&amp;").replace('"', "&quot;")
        ))
        .into_response(),
        Err(_) => "bad authorization endpoint".into_response(),
    }
}

async fn evil_token(State(tokens): State<Sent>, body: String) -> Response {
    tokens.lock().unwrap().push(body);
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        r#"{"access_token":"stolen","token_type":"bearer"}"#,
    )
        .into_response()
}

struct World {
    provider: OidcProvider,
    _site: Site,
    _evil: Site,
    base: String,
    store: MemoryFlowStore,
    evil_tokens: Sent,
    driver: Chromedriver,
}

impl World {
    async fn start(substitute: bool) -> Result<Self, Box<dyn std::error::Error>> {
        let listener = Site::bind().await?;
        let base = format!("http://{}/elicit/", listener.local_addr()?);
        let store = MemoryFlowStore::new();
        let flows = Flows::new(store.clone(), &base)?;
        let honest_redirect = AuthorizationPage::redirect_uri_for("honest", &flows);
        let provider = OidcProvider::builder()
            .client(
                OidcClient::confidential(HONEST_CLIENT, HONEST_SECRET, &honest_redirect)
                    .with("client_name", HONEST_NAME),
            )
            .start()
            .await?;
        let discovery: Value = serde_json::from_slice(
            elicit_browser_tests::LoopbackHttp::new()
                .get(&format!(
                    "{}/.well-known/openid-configuration",
                    provider.issuer()
                ))
                .await?
                .body(),
        )?;
        let field = |name: &str| {
            discovery[name]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("no {name} in the provider's discovery"))
        };
        assert_eq!(
            discovery["authorization_response_iss_parameter_supported"],
            true
        );

        let evil_tokens = Sent::default();
        let evil = Evil {
            honest_authorize: field("authorization_endpoint")?,
            substitute: substitute.then(|| honest_redirect.clone()),
            tokens: Arc::clone(&evil_tokens),
        };
        let evil_site = Site::serve(
            Router::new()
                .route("/authorize", get(evil_authorize))
                .route(
                    "/token",
                    post(evil_token).with_state(Arc::clone(&evil.tokens)),
                )
                .with_state(evil),
        )
        .await?;

        let honest = AuthorizationPage::new(
            "honest",
            HONEST_NAME,
            &field("authorization_endpoint")?,
            &field("token_endpoint")?,
            HONEST_CLIENT,
            Some(HONEST_SECRET.to_owned()),
            &flows,
        )?
        .scope("openid")
        .issuer(field("issuer")?);
        let evil_page = AuthorizationPage::new(
            "evil",
            "Evil",
            &evil_site.url("/authorize"),
            &evil_site.url("/token"),
            "evil-client",
            None,
            &flows,
        )?
        .scope("openid");
        let router = Pages::new(flows, Alice)?
            .authorization(honest, |_, _: Token| Ok(json!({})))
            .authorization(evil_page, |_, _: Token| Ok(json!({})))
            .router();
        let site = Site::serve_on(listener, router)?;
        Ok(Self {
            provider,
            _site: site,
            _evil: evil_site,
            base,
            store,
            evil_tokens,
            driver: Chromedriver::start().await?,
        })
    }

    /// A flow of alice's on the `evil` page: its URL.
    fn begin_on_evil(&self) -> Result<(FlowId, String), Box<dyn std::error::Error>> {
        let id = FlowId::random()?;
        let now = UnixTime::now();
        let flow = Flow::new(
            id,
            "evil",
            "alice",
            ParamsDigest::of(&json!({})),
            "Connect.",
        )
        .expiring(now, Duration::from_secs(600))?;
        self.store.begin_now(flow, now)?;
        Ok((id, format!("{}{id}", self.base)))
    }

    fn status(&self, id: &FlowId) -> Result<FlowStatus, Box<dyn std::error::Error>> {
        Ok(self.store.get_now(id, UnixTime::now())?.status().clone())
    }
}

/// The bounce keeps the `evil` page's redirect URI: oidc-provider, which matches redirect URIs
/// exactly, refuses it, and no code is issued. (With one redirect URI for every page it was
/// registered, and the code went to the malicious token endpoint.)
#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn the_honest_provider_refuses_the_evil_pages_redirect_uri() -> TestResult {
    let world = World::start(false).await?;
    let (id, url) = world.begin_on_evil()?;
    let alice = world.driver.browser().await?;
    alice.goto(&url).await?;
    alice.press("Continue to Evil").await?;
    let page = alice.wait_for_text("redirect_uri", WAIT).await?;
    let at = alice.current_url().await?;
    assert!(at.starts_with(world.provider.issuer()), "{at}: {page}");
    assert!(
        world.provider.log().contains("redirect_uri") || page.contains("redirect_uri"),
        "{page}"
    );
    assert!(world.evil_tokens.lock().unwrap().is_empty());
    assert_eq!(world.status(&id)?, FlowStatus::Opened);
    Ok(())
}

/// The bounce sends the honest page's redirect URI: alice signs in at oidc-provider and allows
/// "Honest Git"; its code comes back to the `honest` page's address, for an authorization the
/// browser started on the `evil` page. Refused, and the code is sent nowhere.
#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn the_honest_code_at_the_honest_pages_address_is_refused_for_the_evil_page() -> TestResult {
    let world = World::start(true).await?;
    let (id, url) = world.begin_on_evil()?;
    let alice = world.driver.browser().await?;
    alice.goto(&url).await?;
    alice.press("Continue to Evil").await?;
    elicit_browser_tests::type_credentials(&alice, ALICE.username, ALICE.password, WAIT).await?;
    alice
        .wait_for_text(&format!("Authorize {HONEST_NAME}"), WAIT)
        .await?;
    alice.press("Allow").await?;
    let page = alice.wait_for_text("Not connected", WAIT).await?;
    assert!(page.contains("another page"), "{page}");
    let back = alice.current_url().await?;
    assert!(
        back.starts_with(&format!("{}authorized/honest?", world.base)),
        "{back}"
    );
    assert!(
        back.contains("code="),
        "the honest provider issued a code: {back}"
    );
    assert!(
        world.evil_tokens.lock().unwrap().is_empty(),
        "the malicious token endpoint was sent {:?}",
        world.evil_tokens.lock().unwrap()
    );
    assert_eq!(world.status(&id)?, FlowStatus::Opened);
    Ok(())
}
