//! What each fuzz target checks, as plain safe functions: the `fuzz_targets/*.rs` binaries are
//! one-line wrappers around `libfuzzer_sys::fuzz_target!`.
//!
//! Each function takes the raw bytes libFuzzer produced and checks that nothing panics and that
//! what *is* accepted keeps the promises the crate documents.
#![forbid(unsafe_code)]

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use mcp_elicit::mrtr::{Answer, Ask, MrtrError, Retry, Rounds};
use mcp_elicit::state::{Binding, KeyId, MemoryReplayGuard, ParamsDigest, RedeemError, StateError, StateKey, StateKeys, UnixTime};
use mcp_elicit::{Elicit, Elicitation, ElicitationSupport, Mode, Revision, UrlOutcome, UrlRequest, schema::{Choice, Choices, EnumOption, Format}, url_mode::{ElicitationId, ElicitationUrl, UrlPolicy}, reply::ReplyError};
use serde_json::{Value, json};

/// The longest error message any entry point may produce: errors name fields and rules and quote
/// at most a few dozen characters of what was sent, never the input itself.
pub const MAX_ERROR_MESSAGE: usize = 4096;

/// A select with titled options.
#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "kebab-case")]
pub enum Color {
    /// Red.
    #[elicit(title = "Deep red")]
    DeepRed,
    /// Green.
    #[elicit(title = "Green")]
    Green,
    /// Blue.
    #[elicit(title = "Blue")]
    Blue,
}

/// A select without titles.
#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
pub enum Size {
    /// S.
    S,
    /// M.
    M,
    /// L.
    L,
}

/// A form with every field kind, the one every reply target reads.
#[derive(Elicit, Debug, Clone, PartialEq)]
#[elicit(message = "Every field kind.")]
pub struct Everything {
    /// Text with lengths.
    #[elicit(min_length = 2, max_length = 8)]
    pub name: String,
    /// Email.
    #[elicit(format = "email")]
    pub email: Option<String>,
    /// URI.
    #[elicit(format = "uri")]
    pub site: Option<String>,
    /// Date.
    #[elicit(format = "date")]
    pub day: Option<String>,
    /// Date-time.
    #[elicit(format = "date-time")]
    pub at: Option<String>,
    /// A flag.
    pub flag: bool,
    /// Small integers.
    #[elicit(minimum = -5, maximum = 5)]
    pub small: i8,
    /// Wider integers.
    pub count: Option<u16>,
    /// Signed 64-bit.
    pub big: Option<i64>,
    /// Unsigned 64-bit.
    pub huge: Option<u64>,
    /// A bounded float.
    #[elicit(minimum = -1.5, maximum = 1.5)]
    pub ratio: f64,
    /// A narrow float.
    pub weight: Option<f32>,
    /// Titled single-select.
    pub color: Color,
    /// Untitled single-select.
    pub size: Option<Size>,
    /// Multi-select.
    #[elicit(max_items = 2)]
    pub colors: Vec<Color>,
    /// Multi-select as a set.
    #[elicit(min_items = 1)]
    pub sizes: BTreeSet<Size>,
    /// Multi-select as a hash set.
    pub tags: Option<HashSet<Color>>,
    /// Options supplied at run time.
    pub account: Option<Choice>,
    /// Several options supplied at run time.
    pub cc: Option<Choices>,
}

fn check_error_is_short(error: &impl std::fmt::Display) {
    let message = error.to_string();
    assert!(
        message.len() <= MAX_ERROR_MESSAGE,
        "an error message of {} bytes",
        message.len()
    );
}

/// Reply text → typed outcome, through every entry point that reads one.
pub fn reply(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let typed = Everything::from_reply_str(text);
    match &typed {
        Ok(Elicitation::Accept(value)) => {
            // Whatever is accepted reads back, through a client's serialization, as itself.
            let again = json!({"action": "accept", "content": value.to_content()});
            assert_eq!(
                Everything::from_reply(&again),
                Ok(Elicitation::Accept(value.clone())),
                "an accepted value does not survive its own serialization"
            );
        }
        Ok(Elicitation::NoReply) => panic!("parsing a reply produced NoReply"),
        Ok(Elicitation::Decline | Elicitation::Cancel) => {}
        Err(error) => check_error_is_short(error),
    }
    // The `&Value` entry point agrees with the text entry point.
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        assert_eq!(Everything::from_reply(&value), typed);
        // A hand-built (here: the derive's) schema with untyped content agrees on the outcome.
        let untyped = mcp_elicit::FormRequest::new(
            Everything::message(),
            Everything::requested_schema().clone(),
        )
        .expect("a derived form is a valid request")
        .parse_reply(&value);
        match (&untyped, &typed) {
            (Ok(u), Ok(t)) => assert_eq!(u.action(), t.action()),
            // Validation passed but the Rust type refused (e.g. f32 overflow): the untyped
            // path has no Rust type to refuse it.
            (Ok(_), Err(ReplyError::Invalid(_))) => {}
            (Err(u), Err(t)) => assert_eq!(
                std::mem::discriminant(u),
                std::mem::discriminant(t),
                "{u} vs {t}"
            ),
            (u, t) => panic!("untyped {u:?} but typed {t:?}"),
        }
    }
    // Options supplied at run time are checked against what was offered.
    let offered = Everything::form_request()
        .with_options(
            "account",
            [
                EnumOption::new("acct-1"),
                EnumOption::titled("acct-2", "Two"),
            ],
        )
        .and_then(|r| r.with_options("cc", [EnumOption::new("a"), EnumOption::new("b")]));
    if let Ok(request) = offered {
        match request.parse_reply_str(text) {
            Ok(Elicitation::Accept(value)) => {
                if let Some(account) = &value.account {
                    assert!(["acct-1", "acct-2"].contains(&account.value()));
                }
                if let Some(cc) = &value.cc {
                    assert!(cc.values().iter().all(|v| v == "a" || v == "b"));
                }
            }
            Ok(_) => {}
            Err(error) => check_error_is_short(&error),
        }
    }
    // URL mode reads only the action.
    match UrlOutcome::from_reply_str(text) {
        Ok(outcome) => assert!(outcome.action().is_some()),
        Err(error) => check_error_is_short(&error),
    }
}

fn fuzz_keys() -> StateKeys {
    match StateKeys::new([
        (KeyId::new(1), StateKey::from_bytes([7; 32])),
        (KeyId::new(2), StateKey::from_bytes([9; 32])),
    ]) {
        Ok(keys) => keys,
        Err(e) => panic!("fixed keys: {e}"),
    }
}

const NOW: UnixTime = UnixTime::from_secs(1_800_000_000);
const TTL: Duration = Duration::from_secs(600);

/// `requestState` opening: arbitrary text is refused cleanly; a sealed state opens only with its
/// own binding, before it expires, and any changed character is refused.
///
/// The first byte picks the mode: `0` seals and reopens (fields separated by `|`: principal,
/// method, value, the principal that presents it, and a position to tamper with); anything else
/// opens the remaining bytes as a client's `requestState`.
pub fn request_state(data: &[u8]) {
    let keys = fuzz_keys();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let params = json!({"name": "fuzz", "arguments": {}});
    if mode != 0 {
        let binding = Binding {
            principal: "p",
            method: "tools/call",
            params_digest: ParamsDigest::of_request_params(&params),
        };
        match keys.open::<Value>(&text, &binding, NOW) {
            // Forging a state without the key is the one thing that must never happen.
            Ok(opened) => panic!("forged state opened: {:?}", opened.value()),
            Err(error) => check_error_is_short(&error),
        }
        return;
    }
    let mut fields = text.splitn(5, '|');
    let principal = fields.next().unwrap_or_default();
    let method = fields.next().unwrap_or_default();
    let value = fields.next().unwrap_or_default();
    let presenter = fields.next().unwrap_or(principal);
    let tamper_at = fields.next().map_or(0, str::len);
    let digest = ParamsDigest::of_request_params(&params);
    let sealed_with = Binding {
        principal,
        method,
        params_digest: digest,
    };
    let Ok(sealed) = keys.seal(value, &sealed_with, TTL, NOW) else {
        return;
    };
    let presented = Binding {
        principal: presenter,
        ..sealed_with
    };
    match keys.open::<String>(&sealed, &presented, NOW) {
        Ok(opened) => {
            assert_eq!(presenter, principal, "opened by another principal");
            assert_eq!(opened.value(), value);
        }
        Err(StateError::WrongPrincipal) => assert_ne!(presenter, principal),
        Err(other) => panic!("a fresh state failed to open: {other}"),
    }
    assert!(matches!(
        keys.open::<String>(
            &sealed,
            &sealed_with,
            UnixTime::from_secs(NOW.as_secs() + 600)
        ),
        Err(StateError::Expired { .. })
    ));
    let other_method = Binding {
        method: "tools/other",
        ..sealed_with
    };
    if method != "tools/other" {
        assert!(keys.open::<String>(&sealed, &other_method, NOW).is_err());
    }
    // Change one character to another base64url character: refused, whichever it is.
    let mut chars: Vec<char> = sealed.chars().collect();
    if !chars.is_empty() {
        let i = tamper_at % chars.len();
        if let Some(c) = chars.get_mut(i) {
            *c = if *c == 'A' { 'B' } else { 'A' };
        }
        let tampered: String = chars.into_iter().collect();
        assert!(
            keys.open::<String>(&tampered, &sealed_with, NOW).is_err(),
            "a tampered state opened"
        );
    }
}

/// Capability objects and protocol version strings.
pub fn capabilities(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(revision) = text.parse::<Revision>() {
        assert_eq!(revision.as_str(), text);
    } else if let Err(error) = text.parse::<Revision>() {
        check_error_is_short(&error);
    }
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let _ = ParamsDigest::of_request_params(&value);
    if let Some(version) = value.get("protocolVersion").and_then(Value::as_str) {
        let _ = version.parse::<Revision>();
    }
    let direct = ElicitationSupport::from_client_capabilities(&value);
    let from_init = ElicitationSupport::from_initialize_params(&value);
    let from_meta = ElicitationSupport::from_request_meta(&value);
    // Each reader is the direct reader applied where the capabilities live.
    if let Some(capabilities) = value.get("capabilities") {
        assert_eq!(
            from_init,
            ElicitationSupport::from_client_capabilities(capabilities)
        );
    }
    if let Some(capabilities) = value
        .get("_meta")
        .and_then(|m| m.get(mcp_elicit::protocol::CLIENT_CAPABILITIES_META_KEY))
    {
        assert_eq!(
            from_meta,
            ElicitationSupport::from_client_capabilities(capabilities)
        );
    }
    for result in [direct, from_init, from_meta] {
        match result {
            Ok(support) => {
                for revision in Revision::ALL {
                    for mode in [Mode::Form, Mode::Url] {
                        match support.check(mode, revision) {
                            Ok(()) => assert!(support.supports(mode)),
                            Err(cannot) => {
                                let _ = cannot.tool_result();
                                let _ = cannot.to_jsonrpc_error();
                            }
                        }
                    }
                }
            }
            Err(error) => check_error_is_short(&error),
        }
    }
    for revision in Revision::ALL {
        let _ = ElicitationSupport::from_params(revision, &value);
    }
}

/// URL-mode URLs: whatever is accepted is an absolute http(s) URL whose printed form hides the
/// query and fragment; whatever is refused is refused without repeating the URL.
pub fn url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = ElicitationId::parse(text);
    for policy in [UrlPolicy::Production, UrlPolicy::Development] {
        match ElicitationUrl::parse_with(text, policy) {
            Ok(url) => check_accepted_url(text, &url, policy),
            Err(error) => check_error_is_short(&error),
        }
    }
}

fn check_accepted_url(text: &str, url: &ElicitationUrl, policy: UrlPolicy) {
    assert_eq!(url.as_str(), text);
    assert!(text.is_ascii());
    assert!(
        !text
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control() || b == b'\\')
    );
    let prefix = format!("{}://", url.scheme());
    assert!(
        text.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(&prefix)),
        "{text:?} does not start with {prefix}"
    );
    let host = url.host();
    assert!(!host.is_empty());
    assert!(!host.contains(['@', '/', '?', '#', '%', '\\']));
    // The host a client highlights is exactly what follows `scheme://`.
    assert_eq!(
        text.get(prefix.len()..prefix.len() + host.len()),
        Some(host)
    );
    if policy == UrlPolicy::Production && url.scheme() == "http" {
        assert!(url.is_loopback(), "plain http to {host}");
    }
    if url.is_loopback() {
        let h = host.to_ascii_lowercase();
        assert!(
            h == "localhost" || h == "[::1]" || h.starts_with("127."),
            "{h}"
        );
    }
    // Printing never shows the query or the fragment.
    let shown = url.to_string();
    if let Some(i) = text.find(['?', '#']) {
        assert_eq!(shown.get(..i), text.get(..i));
        let rest = shown.get(i..).unwrap_or_default();
        assert!(
            ["?<redacted>", "#<redacted>", "?<redacted>#<redacted>"].contains(&rest),
            "{shown}"
        );
    } else {
        assert_eq!(shown, text);
    }
    // Stable: the accepted text parses to the same URL, and is an absolute URI by the
    // form-mode `uri` check as well.
    assert_eq!(ElicitationUrl::parse_with(text, policy).as_ref(), Ok(url));
    assert!(Format::Uri.matches(text), "{text:?} is not a `uri`");
    assert!(UrlRequest::with_url("Open this page.", url.clone()).is_ok());
}

fn fuzz_rounds() -> Rounds {
    Rounds::new(fuzz_keys())
}

/// The first request of the two-round handler below, declaring every capability.
fn first_request() -> Value {
    json!({
        "name": "fuzz",
        "arguments": {"service": "api"},
        "_meta": {mcp_elicit::protocol::CLIENT_CAPABILITIES_META_KEY: {"elicitation": {"form": {}, "url": {}}, "sampling": {}}},
    })
}

fn round_binding(params: &Value) -> Binding<'static> {
    Binding {
        principal: "p",
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(params),
    }
}

type Asked = (Ask<Elicitation<Everything>>, Ask<Value>);

fn asks() -> Asked {
    (
        Ask::form::<Everything>("form"),
        Ask::sampling("sample", json!({"messages": [], "maxTokens": 1})),
    )
}

/// `inputResponses` on a retry: the fuzz input is the retry's `inputResponses` (as JSON text).
/// A handler asks a form and a sampling request; the client retries with the fuzzed responses
/// and the real `requestState`. Whatever arrives, the round never panics, a form answer is
/// exactly what parsing that response gives, only keys that were asked are read, an unusable
/// answer is asked again, and the same responses without the state are never read at all.
pub fn input_responses(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let rounds = fuzz_rounds();
    let first = first_request();
    let binding = round_binding(&first);

    // Round one: nothing answered yet, so both are asked.
    let Ok(retry) = Retry::from_params(&first) else {
        panic!("the first request is well formed")
    };
    let Ok(mut round) = rounds.round::<u32>(retry, binding, NOW) else {
        panic!("a first round needs no state")
    };
    round.keep(7);
    let asked = match round.answer(asks()) {
        Ok(Answer::Ask(result)) => result,
        other => panic!("round one did not ask: {other:?}"),
    };
    let Some(state) = asked.request_state() else {
        panic!("round one sealed no state")
    };

    // The fuzzed text as `requestState` never opens.
    if let Ok(retry) = Retry::from_params(&first) {
        let forged = retry.with_request_state(Some(text));
        assert!(rounds.round::<u32>(forged, binding, NOW).is_err());
    }

    let Ok(responses) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let mut params = first.clone();
    let mut without_state = first.clone();
    if let Some(members) = params.as_object_mut() {
        members.insert("inputResponses".into(), responses.clone());
        members.insert("requestState".into(), Value::from(state));
    }
    if let Some(members) = without_state.as_object_mut() {
        members.insert("inputResponses".into(), responses.clone());
    }

    // Without the state, nothing the client sent is read: both are asked again.
    match Retry::from_params(&without_state) {
        Ok(retry) => {
            let Ok(mut round) = rounds.round::<u32>(retry, binding, NOW) else {
                panic!("a round without state does not open one")
            };
            assert!(
                matches!(round.answer(asks()), Ok(Answer::Ask(_))),
                "inputResponses without requestState were read"
            );
        }
        Err(error) => check_error_is_short(&error),
    }

    // With the state: the round resumes and reads only what was asked.
    let retry = match Retry::from_params(&params) {
        Ok(retry) => retry,
        Err(error) => {
            assert!(!responses.is_object());
            check_error_is_short(&error);
            return;
        }
    };
    let Ok(mut round) = rounds.round::<u32>(retry, binding, NOW) else {
        panic!("the real state did not open")
    };
    assert!(round.is_resumed());
    assert_eq!(round.state(), Some(&7));
    let form_response = responses.get("form").filter(|v| !v.is_null());
    let sample_response = responses.get("sample").filter(|v| !v.is_null());
    match round.answer(asks()) {
        Ok(Answer::Ready((form, sample))) => {
            let Some(form_response) = form_response else {
                panic!("a form answer out of nothing")
            };
            assert_eq!(Everything::from_reply(form_response), Ok(form));
            assert_eq!(Some(&sample), sample_response);
            assert!(sample.is_object());
        }
        Ok(Answer::Ask(again)) => {
            for key in again.input_requests().keys() {
                let usable = match key {
                    "form" => form_response.is_some_and(|r| Everything::from_reply(r).is_ok()),
                    "sample" => sample_response.is_some_and(Value::is_object),
                    other => panic!("asked for a key never asked before: {other}"),
                };
                assert!(!usable, "a usable answer to `{key}` was asked again");
            }
            for (_, reason) in round.unusable_answers() {
                check_error_is_short(reason);
            }
        }
        // One unusable answer is asked again (the default allows one re-ask), never rejected.
        Ok(Answer::Rejected(rejected)) => panic!("a first unusable answer was rejected: {rejected}"),
        // Only sealing can fail here: a carried answer too large for the state.
        Err(MrtrError::Seal(_)) => {}
        Err(other) => panic!("{other}"),
    }

    single_use(&first, &params, &without_state);
}

/// The same retry on rounds with a replay guard: the state is spent once, whatever the answers,
/// and nothing is read before it is, nor from a request without a state.
fn single_use(first: &Value, params: &Value, without_state: &Value) {
    let rounds = fuzz_rounds().with_replay_guard(MemoryReplayGuard::new());
    let binding = round_binding(first);
    let Ok(retry) = Retry::from_params(first) else {
        panic!("the first request is well formed")
    };
    let Ok(mut round) = rounds.round::<u32>(retry, binding, NOW) else {
        panic!("a first round needs no state")
    };
    let Some(state) = round
        .answer(asks())
        .ok()
        .and_then(|answer| match answer {
            Answer::Ask(result) => result.request_state().map(str::to_owned),
            _ => None,
        })
    else {
        panic!("round one asked and sealed its state")
    };
    let mut params = params.clone();
    if let Some(members) = params.as_object_mut() {
        members.insert("requestState".into(), Value::from(state));
    }
    let Ok(retry) = Retry::from_params(&params) else {
        return;
    };
    // Twice the same retry: the first run spends the state, the second is a replay.
    for run in 0..2 {
        let Ok(mut round) = rounds.round::<u32>(retry.clone(), binding, NOW) else {
            panic!("the real state did not open")
        };
        assert!(matches!(round.answer(asks()), Err(MrtrError::Unspent)));
        assert_eq!(round.state(), None);
        match (run, round.spend_now()) {
            (0, Ok(())) => {}
            (1, Err(MrtrError::Redeem(RedeemError::AlreadyRedeemed))) => {}
            (run, other) => panic!("run {run} of one state: {other:?}"),
        }
    }
    // Without the state nothing is read; a question that would read an answer sent before it
    // was asked is refused, since no state spends it.
    if let Ok(retry) = Retry::from_params(without_state) {
        let Ok(mut round) = rounds.round::<u32>(retry, binding, NOW) else {
            panic!("a round without state does not open one")
        };
        assert!(matches!(round.spend_now(), Ok(())));
        let unasked = Ask::form::<Everything>("form").answerable_before_asked();
        assert!(matches!(
            round.answer(unasked),
            Err(MrtrError::BeforeAskedWithReplayGuard { .. })
        ));
        assert!(matches!(round.answer(asks()), Ok(Answer::Ask(_))));
    }
}

/// rmcp's types, as a client sends them, through this crate's rmcp conversions: an
/// `ElicitResult` into a form's and a URL request's outcome, `ClientCapabilities` into an
/// `ElicitationSupport`, a protocol version into a `Revision`.
///
/// Each conversion must agree with the ordinary entry point reading the JSON that rmcp writes,
/// and keep that entry point's promises (no `NoReply` from a reply, short errors).
pub fn rmcp(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(result) = serde_json::from_str::<rmcp::model::ElicitResult>(text) {
        let json = serde_json::to_value(&result).expect("an ElicitResult serializes");
        let form = mcp_elicit::rmcp::form_outcome(&Everything::form_request(), result.clone());
        assert_eq!(form, Everything::from_reply(&json));
        match &form {
            Ok(Elicitation::NoReply) => panic!("an rmcp reply produced NoReply"),
            Ok(_) => {}
            Err(error) => check_error_is_short(error),
        }
        let url = mcp_elicit::rmcp::url_outcome("fuzz", &result);
        assert_eq!(url, UrlOutcome::from_reply(&json));
        match url {
            Ok(outcome) => assert!(outcome.action().is_some()),
            Err(error) => check_error_is_short(&error),
        }
    }
    if let Ok(capabilities) = serde_json::from_str::<rmcp::model::ClientCapabilities>(text) {
        let support = mcp_elicit::rmcp::elicitation_support(Some(&capabilities));
        let direct = serde_json::to_value(&capabilities)
            .ok()
            .and_then(|json| ElicitationSupport::from_client_capabilities(&json).ok())
            .unwrap_or(ElicitationSupport::NONE);
        assert_eq!(support, direct);
    }
    if let Ok(version) = serde_json::from_str::<rmcp::model::ProtocolVersion>(text)
        && let Some(revision) = mcp_elicit::rmcp::revision(&version)
    {
        assert_eq!(revision.as_str(), version.as_str());
    }
}

/// What a client reads from a server: `elicitation/create` params on every revision and an
/// input-required result. Whatever is read can be answered (an empty answer is accepted or
/// refused with violations, never a panic); whatever is refused is refused briefly.
pub fn client(data: &[u8]) {
    use mcp_elicit::client::{Incoming, read_input_required, read_request};
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for revision in Revision::ALL {
        match read_request(&value, revision) {
            Ok(Incoming::Form(form)) => {
                for note in form.notes() {
                    check_error_is_short(note);
                }
                match form.accept(serde_json::Map::new()) {
                    // Accepted with nothing typed: every required field had a default.
                    Ok(sent) => {
                        let content = &sent["content"];
                        for name in form.schema().required() {
                            assert!(content.get(name).is_some(), "required `{name}` missing");
                        }
                        // The per-field check a host runs agrees with the whole form's.
                        for property in form.schema().properties() {
                            let value = content.get(property.name());
                            assert_eq!(property.check(value), Ok(()), "{}", property.name());
                        }
                    }
                    Err(violations) => {
                        check_error_is_short(&violations);
                        for violation in &violations {
                            let property = form.schema().property(&violation.property);
                            let default = property.and_then(|p| p.kind().default_json());
                            let checked = property.map(|p| p.check(default.as_ref()));
                            assert_eq!(checked, Some(Err(violation.rule.clone())));
                        }
                    }
                }
            }
            Ok(Incoming::Url(page)) => {
                assert!(matches!(page.url().scheme(), "https" | "http"));
                let _ = page.accept();
            }
            Err(error) => check_error_is_short(&error),
        }
    }
    match read_input_required(&value) {
        Ok(round) => {
            assert!(round.inputs.len() <= mcp_elicit::limits::MAX_INPUT_REQUESTS);
        }
        Err(error) => check_error_is_short(&error),
    }
}
