//! Hostile input to everything else a client controls: protocol version strings, capability
//! objects, URLs given to URL mode, and `requestState` (issue #8). Property tests with explicit,
//! small case counts.

use std::time::Duration;

use elicit_core::limits::MAX_STATE_LEN;
use elicit_core::state::{Binding, KeyId, ParamsDigest, StateError, StateKey, StateKeys, UnixTime};
use elicit_core::{
    ElicitationSupport, Mode, Revision,
    protocol::CLIENT_CAPABILITIES_META_KEY,
    schema::Format,
    url_mode::{ElicitationUrl, UrlPolicy},
};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Any JSON value, at most 4 levels deep and 48 values in all; object keys are mostly the
/// names capability parsing looks for.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "capabilities",
            "elicitation",
            "form",
            "url",
            "_meta",
            CLIENT_CAPABILITIES_META_KEY,
            "protocolVersion",
        ])
        .prop_map(str::to_owned),
        "[a-z_]{0,6}",
    ]
}

/// Text shaped like a URL, so that generated cases get past the first checks.
fn url_like() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec!["https", "http", "HTTPS", "javascript", "file", ""]);
    let sep = prop::sample::select(vec!["://", ":", ":/", "//", ":///"]);
    let userinfo = prop::sample::select(vec!["", "", "", "user@", "a:b@", "@"]);
    let host = prop_oneof![
        "[a-z0-9-]{1,8}(\\.[a-z0-9-]{1,8}){0,3}",
        "[0-9]{1,4}(\\.[0-9]{1,4}){0,4}",
        "0x[0-9a-f]{1,4}(\\.[0-9]{1,3}){0,3}",
        "\\[[0-9a-f:.%]{0,16}\\]",
        prop::sample::select(vec!["localhost", "LOCALHOST", "[::1]", "127.0.0.1", ""])
            .prop_map(str::to_owned),
    ];
    let port = prop::option::of("[0-9+-]{0,6}");
    let tail = "[a-zA-Z0-9/?#%@:\\[\\] .~!$&'()*+,;=\\\\-]{0,16}";
    (scheme, sep, userinfo, host, port, tail).prop_map(|(s, sep, u, h, p, t)| {
        let port = p.map(|p| format!(":{p}")).unwrap_or_default();
        format!("{s}{sep}{u}{h}{port}{t}")
    })
}

/// `http(s)://`, a host, a port and a path, query and fragment, each drawn mostly from what is
/// valid and partly from the characters that steer RFC 3986's split (`:/?#[]@%`), sub-delimiters
/// and case, so that many cases are accepted and the rest fail near the edge.
fn rfc_3986_like() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec!["https://", "http://", "HTTP://", "hTtPs://"]);
    let host = prop_oneof![
        "[a-zA-Z0-9-]{1,6}(\\.[a-zA-Z0-9-]{1,6}){0,2}",
        "[0-9]{1,3}(\\.[0-9]{1,3}){3}",
        "\\[[0-9a-fA-F:.]{2,20}\\]",
        "[a-zA-Z0-9%.!$&'()*+,;=~_:@\\[\\]-]{0,8}",
        prop::sample::select(vec![
            "localhost",
            "[::1]",
            "127.0.0.1",
            "[v1.x]",
            "[::ffff:1.2.3.4]"
        ])
        .prop_map(str::to_owned),
    ];
    let port = prop::option::of("[0-9]{0,5}|[0-9+-]{0,6}");
    let tail = prop_oneof![
        3 => "([/?#][a-zA-Z0-9:/?@%.!$&'()*+,;=~_-]{0,12})?",
        1 => "([/?#][a-zA-Z0-9:/?#@%.\\[\\]!$&'()*+,;=~_-]{0,12})?",
    ];
    (scheme, host, port, tail).prop_map(|(s, h, p, t)| {
        let port = p.map(|p| format!(":{p}")).unwrap_or_default();
        format!("{s}{h}{port}{t}")
    })
}

fn keys() -> StateKeys {
    StateKeys::single(KeyId::new(1), StateKey::from_bytes([3; 32]))
}

const NOW: UnixTime = UnixTime::from_secs(1_800_000_000);

fn binding(principal: &str) -> Binding<'_> {
    Binding {
        principal,
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(&json!({"name": "t"})),
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// Only the three revision strings parse; anything else is an error quoting at most 32
    /// characters of what was sent.
    #[test]
    fn revision_from_str_accepts_exactly_the_known_versions(text in prop_oneof![
        ".{0,40}",
        "20[0-9]{2}-[0-9]{2}-[0-9]{2}.{0,2}",
    ]) {
        match text.parse::<Revision>() {
            Ok(revision) => prop_assert_eq!(revision.as_str(), text.as_str()),
            Err(error) => {
                prop_assert!(Revision::ALL.iter().all(|r| r.as_str() != text));
                prop_assert!(error.version().chars().count() <= 33);
                // 32 quoted characters, each at most `\u{10ffff}` once escaped.
                prop_assert!(error.to_string().len() < 512);
            }
        }
    }

    /// Capability parsing never panics, and each reader is the direct reader applied where the
    /// capabilities live.
    #[test]
    fn capability_parsing_never_panics_and_agrees_with_itself(value in json_value()) {
        let direct = ElicitationSupport::from_client_capabilities(&value);
        if let Ok(support) = direct {
            for revision in Revision::ALL {
                for mode in [Mode::Form, Mode::Url] {
                    if support.check(mode, revision).is_ok() {
                        prop_assert!(support.supports(mode));
                    }
                }
            }
        }
        let wrapped = json!({"capabilities": value.clone()});
        prop_assert_eq!(ElicitationSupport::from_initialize_params(&wrapped), direct);
        let meta = json!({"_meta": {CLIENT_CAPABILITIES_META_KEY: value.clone()}});
        prop_assert_eq!(ElicitationSupport::from_request_meta(&meta), direct);
        for revision in Revision::ALL {
            let _ = ElicitationSupport::from_params(revision, &value);
        }
    }

    /// Arbitrary strings and URL-shaped strings: whatever is accepted is an absolute http(s)
    /// URL without userinfo, whose host is exactly what follows `scheme://`, that is also a
    /// form-mode `uri`, and whose printed form hides the query and fragment.
    #[test]
    fn url_parsing_accepts_only_what_it_promises(text in prop_oneof![".{0,48}", url_like()]) {
        for policy in [UrlPolicy::Production, UrlPolicy::Development] {
            match ElicitationUrl::parse_with(&text, policy) {
                Ok(url) => {
                    let prefix = format!("{}://", url.scheme());
                    prop_assert!(text.get(..prefix.len()).is_some_and(|p| p.eq_ignore_ascii_case(&prefix)));
                    let host = url.host();
                    prop_assert!(!host.is_empty() && !host.contains('@'));
                    prop_assert_eq!(text.get(prefix.len()..prefix.len() + host.len()), Some(host));
                    prop_assert!(Format::Uri.accepts(&text), "{} is not a uri", text);
                    if policy == UrlPolicy::Production && url.scheme() == "http" {
                        prop_assert!(url.is_loopback());
                    }
                    if let Some(i) = text.find(['?', '#']) {
                        let shown = url.to_string();
                        prop_assert_eq!(shown.get(..i), text.get(..i));
                        prop_assert!(shown.get(i..).is_some_and(|rest| rest.starts_with(['?', '#']) && rest.contains("<redacted>")));
                    }
                }
                Err(error) => prop_assert!(error.to_string().len() < 600),
            }
        }
    }

    /// Arbitrary text never opens as request state: only the key holder can make one.
    #[test]
    fn arbitrary_text_never_opens_as_request_state(text in prop_oneof![
        ".{0,80}",
        "[A-Za-z0-9_-]{60,200}",
        "AQAAAAE[A-Za-z0-9_-]{60,200}",
    ]) {
        let opened = keys().open::<Value>(&text, &binding("p"), NOW);
        prop_assert!(opened.is_err());
    }

    /// A sealed state opens only for its principal, and no single changed character survives.
    #[test]
    fn sealed_state_opens_only_unchanged_and_for_its_principal(
        value in json_value(),
        principal in ".{0,12}",
        presenter in ".{0,12}",
        position in any::<prop::sample::Index>(),
        replacement in prop::sample::select(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".to_vec()),
    ) {
        let keys = keys();
        let Ok(sealed) = keys.seal(&value, &binding(&principal), Duration::from_secs(60), NOW) else {
            return Ok(());
        };
        match keys.open::<Value>(&sealed, &binding(&presenter), NOW) {
            Ok(opened) => {
                prop_assert_eq!(&principal, &presenter);
                prop_assert_eq!(opened.value(), &value);
            }
            Err(StateError::WrongPrincipal) => prop_assert_ne!(&principal, &presenter),
            Err(other) => prop_assert!(false, "{other}"),
        }
        let mut bytes = sealed.into_bytes();
        let i = position.index(bytes.len());
        if bytes[i] != replacement {
            bytes[i] = replacement;
            let tampered = String::from_utf8(bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(keys.open::<Value>(&tampered, &binding(&principal), NOW).is_err());
        }
    }
}

proptest! {
    // Cheap cases, and most of them accepted URLs: enough to cover the split.
    #![proptest_config(config(4096))]

    /// Differential against the RFC 3986 parser: a URL we accept is one `fluent-uri` accepts
    /// too, and it reads the same scheme, host, port and query/fragment start from it, so what
    /// a client shows can never differ from what an RFC 3986 HTTP stack connects to.
    #[test]
    fn accepted_urls_are_rfc_3986_uris_with_the_same_parts(text in prop_oneof![
        1 => ".{0,48}",
        1 => url_like(),
        6 => rfc_3986_like(),
    ]) {
        for policy in [UrlPolicy::Production, UrlPolicy::Development] {
            let Ok(url) = ElicitationUrl::parse_with(&text, policy) else {
                continue;
            };
            let uri = fluent_uri::Uri::parse(text.as_str());
            prop_assert!(uri.is_ok(), "{:?} accepted, but not an RFC 3986 URI: {:?}", text, uri.err());
            let Ok(uri) = uri else { continue };
            prop_assert!(uri.scheme().as_str().eq_ignore_ascii_case(url.scheme()));
            let authority = uri.authority();
            prop_assert!(authority.is_some_and(|a| !a.has_userinfo()));
            prop_assert_eq!(authority.map(|a| a.host()), Some(url.host()));
            prop_assert_eq!(authority.and_then(|a| a.port_to_u16().ok().flatten()), url.port());
            let hidden = uri.query().is_some() || uri.fragment().is_some();
            prop_assert_eq!(hidden, url.to_string().contains("<redacted>"));
        }
    }
}

#[test]
fn request_state_longer_than_the_limit_is_refused_before_decoding() {
    // Not base64 at all: the length check must come first to give `TooLong`.
    let text = "!".repeat(MAX_STATE_LEN + 1);
    assert!(matches!(
        keys().open::<Value>(&text, &binding("p"), NOW),
        Err(StateError::Malformed(
            elicit_core::state::MalformedReason::TooLong
        ))
    ));
}

/// Fuzz finding (`url` target): `http://[::01]` was accepted as plain `http` to loopback, with a
/// host that does not read as the `[::1]` a browser shows. IPv6 literals must now be canonical.
#[test]
fn fuzz_regression_non_canonical_ipv6_loopback_is_refused() {
    assert!(matches!(
        ElicitationUrl::parse("http://[::01]"),
        Err(elicit_core::url_mode::UrlError::InvalidHost { .. })
    ));
    assert!(ElicitationUrl::parse("http://[::1]").is_ok_and(|url| url.is_loopback()));
}
