//! Headless Chromium over WebDriver: one chromedriver, any number of independent browsers.

use std::{
    env, fs,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    thread,
    time::Duration,
};

use fantoccini::{Client, ClientBuilder, Locator, wd::TimeoutConfiguration};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;
use tempfile::TempDir;

use crate::{
    error::{Error, Result},
    http::LoopbackHttp,
    processes::{ChildGuard, kill_processes_naming},
};

/// The flags Chromium runs with on these machines (the machine notes list them): headless, no
/// sandbox (the tests run as root), and none of the background connections that a closed network
/// refuses. Each browser adds its own fresh `--user-data-dir` and window size.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// How long chromedriver may take to start and answer.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a helper waits for an element to appear (after a navigation, say).
const ELEMENT_TIMEOUT: Duration = Duration::from_secs(10);

const MISSING_HINT: &str = "install Debian's chromium and chromium-driver \
     (`apt-get install -y chromium chromium-driver`; .ci/run does)";

/// A running `chromedriver` on a loopback port, which opens [`Browser`]s.
///
/// Dropping it kills every browser it opened (found by their profile directories), then
/// chromedriver itself, and removes the profiles.
pub struct Chromedriver {
    url: String,
    chromium: PathBuf,
    // Fields drop in order: chromedriver before the directory holding its log and profiles.
    _child: ChildGuard,
    /// Every browser's profile is a directory in here; also chromedriver's log.
    root: TempDir,
}

impl Chromedriver {
    /// Starts `$CHROMEDRIVER` (default `/usr/bin/chromedriver`), whose browsers will be
    /// `$CHROMIUM` (default `/usr/bin/chromium`).
    ///
    /// Fails, saying what to install, if either is missing: a browser test never passes without
    /// a browser.
    pub async fn start() -> Result<Self> {
        let chromedriver = env::var_os("CHROMEDRIVER")
            .map_or_else(|| PathBuf::from("/usr/bin/chromedriver"), PathBuf::from);
        let chromium = env::var_os("CHROMIUM")
            .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
        Self::start_at(chromedriver, chromium).await
    }

    /// Starts the given `chromedriver`, whose browsers will be the given `chromium`.
    pub async fn start_at(
        chromedriver: impl Into<PathBuf>,
        chromium: impl Into<PathBuf>,
    ) -> Result<Self> {
        let chromedriver = existing(chromedriver.into(), "chromedriver", "CHROMEDRIVER")?;
        let chromium = existing(chromium.into(), "chromium", "CHROMIUM")?;

        let root = tempfile::Builder::new()
            .prefix("elicit-browsers-")
            .tempdir()
            .map_err(Error::context("a temporary directory for the browsers"))?;
        let log_path = root.path().join("chromedriver.log");
        let log = fs::File::create(&log_path).map_err(Error::context(log_path.display()))?;

        // Port 0: chromedriver takes a free port and prints it, so no other process can take it
        // between our choosing and its binding. It accepts local connections only.
        let mut child = Command::new(&chromedriver)
            .args(["--port=0", "--log-level=WARNING"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(Error::context(format!(
                "starting {}",
                chromedriver.display()
            )))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut child = ChildGuard::new(child, Duration::ZERO);

        let (port_tx, port_rx) = tokio::sync::oneshot::channel();
        thread::spawn(move || {
            let mut port_tx = Some(port_tx);
            // Keep reading to the end, so chromedriver never blocks on a full pipe.
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(port) = started_on_port(&line)
                    && let Some(tx) = port_tx.take()
                {
                    let _ = tx.send(port);
                }
            }
        });
        let port = match tokio::time::timeout(START_TIMEOUT, port_rx).await {
            Ok(Ok(port)) => port,
            outcome => {
                let why = if outcome.is_err() {
                    format!("did not say its port within {START_TIMEOUT:?}")
                } else {
                    format!("exited ({:?}) before it said its port", child.exited())
                };
                return Err(Error::new(format!(
                    "chromedriver {}: {why}; its log:\n{}",
                    chromedriver.display(),
                    fs::read_to_string(&log_path).unwrap_or_default()
                )));
            }
        };
        let url = format!("http://127.0.0.1:{port}");
        LoopbackHttp::new()
            .wait_until_ready(&format!("{url}/status"), START_TIMEOUT, |body| {
                serde_json::from_slice::<serde_json::Value>(body)
                    .is_ok_and(|status| status["value"]["ready"] == true)
            })
            .await?;
        Ok(Self {
            url,
            chromium,
            _child: child,
            root,
        })
    }

    /// chromedriver's WebDriver endpoint (`http://127.0.0.1:PORT`).
    pub fn webdriver_url(&self) -> &str {
        &self.url
    }

    /// The directory holding every browser's profile (and chromedriver's log); removed on drop.
    pub fn profiles_dir(&self) -> &Path {
        self.root.path()
    }

    /// A new browser with JavaScript on: its own WebDriver session and its own empty profile.
    pub async fn browser(&self) -> Result<Browser> {
        self.browser_with(BrowserOptions::default()).await
    }

    /// A new browser, as `options` say.
    pub async fn browser_with(&self, options: BrowserOptions) -> Result<Browser> {
        let profile = tempfile::Builder::new()
            .prefix("profile-")
            .tempdir_in(self.root.path())
            .map_err(Error::context("a profile directory"))?;
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|f| f.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        args.push(format!(
            "--window-size={},{}",
            options.window_size.0, options.window_size.1
        ));
        let mut chrome_options = json!({ "binary": self.chromium, "args": args });
        if !options.javascript {
            // The content setting a user's "Don't allow sites to use JavaScript" sets. WebDriver's
            // own commands still work: chromedriver runs its scripts through DevTools.
            chrome_options["prefs"] =
                json!({ "profile.managed_default_content_settings.javascript": 2 });
        }
        let capabilities = json!({
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "goog:chromeOptions": chrome_options,
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            unreachable!("an object literal");
        };
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&self.url)
            .await
            .map_err(|e| {
                Error::new(format!(
                    "opening a browser ({}) through chromedriver: {e}; chromedriver's log:\n{}",
                    self.chromium.display(),
                    fs::read_to_string(self.root.path().join("chromedriver.log"))
                        .unwrap_or_default()
                ))
            })?;
        let browser = Browser { client, profile };
        browser
            .client
            .update_timeouts(TimeoutConfiguration::new(
                Some(Duration::from_secs(10)),
                Some(Duration::from_secs(30)),
                Some(Duration::ZERO),
            ))
            .await
            .map_err(Error::context("setting the browser's timeouts"))?;
        Ok(browser)
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // Browsers first (they would outlive a killed chromedriver), then chromedriver (the
        // guard), then the profiles (the TempDir).
        kill_processes_naming(self.root.path());
    }
}

/// How a [`Browser`] is set up.
#[derive(Clone, Debug)]
pub struct BrowserOptions {
    /// Whether pages may run JavaScript (the library's pages must work without it).
    pub javascript: bool,
    /// The window's width and height in CSS pixels. The page's viewport, and so a screenshot, is
    /// as wide and less tall by the browser's own bars (1280×900 gives 1280×757 here).
    pub window_size: (u32, u32),
}

impl Default for BrowserOptions {
    fn default() -> Self {
        Self {
            javascript: true,
            window_size: (1280, 900),
        }
    }
}

impl BrowserOptions {
    /// A browser whose user turned JavaScript off.
    pub fn without_javascript() -> Self {
        Self {
            javascript: false,
            ..Self::default()
        }
    }
}

/// One headless Chromium with its own profile: no cookies, storage or cache shared with any
/// other browser.
///
/// The helpers wait up to 10 s for the element they act on (the page may still be loading after
/// a click). Anything else: [`Browser::webdriver`].
///
/// Dropping it kills its Chromium; [`Browser::close`] ends the session politely first.
pub struct Browser {
    client: Client,
    profile: TempDir,
}

impl Browser {
    /// Loads `url` and waits for it to load.
    pub async fn goto(&self, url: &str) -> Result<()> {
        self.client
            .goto(url)
            .await
            .map_err(Error::context(format!("going to {url}")))
    }

    /// The URL of the page shown now.
    pub async fn current_url(&self) -> Result<String> {
        let url = self
            .client
            .current_url()
            .await
            .map_err(Error::context("reading the current URL"))?;
        Ok(url.to_string())
    }

    /// The page's text as a user sees it (`<body>`'s rendered text: hidden elements left out).
    pub async fn text(&self) -> Result<String> {
        let body = self
            .client
            .find(Locator::Css("body"))
            .await
            .map_err(Error::context("finding <body>"))?;
        body.text()
            .await
            .map_err(Error::context("reading the page's text"))
    }

    /// The page's HTML as the browser holds it now.
    pub async fn html(&self) -> Result<String> {
        self.client
            .source()
            .await
            .map_err(Error::context("reading the page's HTML"))
    }

    /// Waits until the page's text contains `needle`, and returns that text. On timeout the
    /// error shows the URL and the text there was.
    pub async fn wait_for_text(&self, needle: &str, timeout: Duration) -> Result<String> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            // A page in the middle of a navigation has no <body> for a moment: try again.
            let text = self.text().await.unwrap_or_default();
            if text.contains(needle) {
                return Ok(text);
            }
            if tokio::time::Instant::now() > deadline {
                let url = self.current_url().await.unwrap_or_default();
                return Err(Error::new(format!(
                    "no {needle:?} on {url} after {timeout:?}; the page says:\n{text}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Types `value` into the field named `name` (an `<input>`, `<textarea>`), after clearing it.
    pub async fn fill(&self, name: &str, value: &str) -> Result<()> {
        let selector = format!("[name=\"{}\"]", css_string(name)?);
        let field = self.wait_for(Locator::Css(&selector)).await?;
        field
            .clear()
            .await
            .map_err(Error::context(format!("clearing field {name:?}")))?;
        field
            .send_keys(value)
            .await
            .map_err(Error::context(format!("typing into field {name:?}")))
    }

    /// Clicks the page's first submit button inside a form, as a user submitting the form does.
    pub async fn submit(&self) -> Result<()> {
        let button = self
            .wait_for(Locator::Css(
                "form button:not([type=button]):not([type=reset]), form input[type=submit]",
            ))
            .await?;
        button
            .click()
            .await
            .map_err(Error::context("clicking the form's submit button"))
    }

    /// Clicks the button (or submit input) labelled `label`, e.g. `"Allow"`.
    pub async fn press(&self, label: &str) -> Result<()> {
        if label.contains('\'') {
            return Err(Error::new(format!(
                "press({label:?}): no ' in labels, please"
            )));
        }
        let xpath = format!(
            "//button[normalize-space(.)='{label}'] | \
             //input[(@type='submit' or @type='button') and @value='{label}']"
        );
        let button = self.wait_for(Locator::XPath(&xpath)).await?;
        button
            .click()
            .await
            .map_err(Error::context(format!("clicking {label:?}")))
    }

    /// Clicks the first element matching the CSS `selector`.
    pub async fn click(&self, selector: &str) -> Result<()> {
        let element = self.wait_for(Locator::Css(selector)).await?;
        element
            .click()
            .await
            .map_err(Error::context(format!("clicking {selector}")))
    }

    /// Writes a PNG of the window to `path`, creating its directory.
    pub async fn screenshot(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let png = self
            .client
            .screenshot()
            .await
            .map_err(Error::context("taking a screenshot"))?;
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(Error::context(dir.display()))?;
        }
        fs::write(path, png).map_err(Error::context(path.display()))
    }

    /// The cookies the browser would send to the current page, as (name, value).
    pub async fn cookies(&self) -> Result<Vec<(String, String)>> {
        let cookies = self
            .client
            .get_all_cookies()
            .await
            .map_err(Error::context("reading cookies"))?;
        Ok(cookies
            .into_iter()
            .map(|c| (c.name().to_owned(), c.value().to_owned()))
            .collect())
    }

    /// The current page's cookies as a `Cookie` header, for a request made with
    /// [`LoopbackHttp`] on this browser's behalf (a replayed POST, say).
    pub async fn cookie_header(&self) -> Result<String> {
        let cookies = self.cookies().await?;
        Ok(cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; "))
    }

    /// This browser's own profile directory (`--user-data-dir`); removed on drop.
    pub fn profile_dir(&self) -> &Path {
        self.profile.path()
    }

    /// The WebDriver client itself, for what the helpers do not cover.
    pub fn webdriver(&self) -> &Client {
        &self.client
    }

    /// Ends the WebDriver session (chromedriver quits the browser), then drops what is left.
    pub async fn close(self) -> Result<()> {
        self.client
            .clone()
            .close()
            .await
            .map_err(Error::context("closing the browser"))
    }

    async fn wait_for(&self, locator: Locator<'_>) -> Result<fantoccini::elements::Element> {
        let what = format!("{locator:?}");
        self.client
            .wait()
            .at_most(ELEMENT_TIMEOUT)
            .for_element(locator)
            .await
            .map_err(|e| Error::new(format!("no element {what} within {ELEMENT_TIMEOUT:?}: {e}")))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // A session closed politely left nothing to kill; one that was not (a test that failed
        // half-way) still leaves no browser behind. Then the profile directory is removed.
        kill_processes_naming(self.profile.path());
    }
}

fn existing(path: PathBuf, what: &str, variable: &str) -> Result<PathBuf> {
    if path.is_file() {
        return Ok(path);
    }
    let how = if env::var_os(variable).is_some() {
        format!("from ${variable}")
    } else {
        format!("the default; ${variable} overrides it")
    };
    Err(Error::new(format!(
        "{what} not found at {} ({how}): {MISSING_HINT}",
        path.display()
    )))
}

/// chromedriver's "ChromeDriver was started successfully on port 36747."
fn started_on_port(line: &str) -> Option<u16> {
    line.split_once("started successfully on port ")?
        .1
        .trim_end_matches('.')
        .trim()
        .parse()
        .ok()
}

/// `name` inside a double-quoted CSS string.
fn css_string(name: &str) -> Result<&str> {
    if name.contains(['"', '\\']) || name.contains(char::is_control) {
        return Err(Error::new(format!(
            "field name {name:?}: no quotes or backslashes"
        )));
    }
    Ok(name)
}
