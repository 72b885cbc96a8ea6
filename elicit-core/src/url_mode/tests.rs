//! Unit tests of URL mode.

use super::*;
use crate::outcome::ReplyError;
use crate::revision::{Revision, RevisionError};
use crate::url::{UrlError, UrlPolicy};
use serde_json::json;

fn request() -> UrlRequest {
    match UrlRequest::new(
        "Please provide your API key to continue.",
        "https://mcp.example.com/ui/set_api_key?flow=SECRETFLOW",
    ) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn url_request_serializes_to_url_params_without_id_in_2026_07_28() {
    let r = request();
    let expected = json!({
        "mode": "url",
        "message": "Please provide your API key to continue.",
        "url": "https://mcp.example.com/ui/set_api_key?flow=SECRETFLOW",
    });
    assert_eq!(serde_json::to_value(&r).ok(), Some(expected.clone()));
    let latest = r
        .for_revision(Revision::V2026_07_28)
        .map(serde_json::to_value);
    assert_eq!(latest.ok().and_then(Result::ok), Some(expected));
}

#[test]
fn url_request_carries_elicitation_id_in_2025_11_25() {
    let r = request();
    let v = r
        .for_revision(Revision::V2025_11_25)
        .map(serde_json::to_value);
    let v = v.ok().and_then(Result::ok).unwrap_or_default();
    assert_eq!(v["elicitationId"], json!(r.elicitation_id().as_str()));
    assert_eq!(v["mode"], "url");
}

#[test]
fn url_mode_does_not_exist_in_2025_06_18() {
    let err = request().for_revision(Revision::V2025_06_18).unwrap_err();
    assert_eq!(
        err,
        RevisionError::UrlModeUnsupported {
            revision: Revision::V2025_06_18
        }
    );
    assert!(err.to_string().contains("2025-11-25"));
}

#[test]
fn url_request_debug_redacts_the_query() {
    let shown = format!("{:?}", request());
    assert!(!shown.contains("SECRETFLOW"), "{shown}");
    assert!(shown.contains("https://mcp.example.com/ui/set_api_key?<redacted>"));
}

#[test]
fn url_request_refuses_an_empty_message() {
    assert_eq!(
        UrlRequest::new("  ", "https://x.example/").unwrap_err(),
        UrlRequestError::EmptyMessage
    );
}

#[test]
fn url_request_refuses_an_unsafe_url() {
    assert_eq!(
        UrlRequest::new("m", "http://x.example/").unwrap_err(),
        UrlRequestError::Url(UrlError::InsecureHttp {
            host: "x.example".into()
        })
    );
}

#[test]
fn elicitation_ids_are_128_random_bits_in_hex() {
    let ids: Vec<ElicitationId> = (0..64)
        .filter_map(|_| ElicitationId::random().ok())
        .collect();
    assert_eq!(ids.len(), 64);
    for id in &ids {
        assert_eq!(id.as_str().len(), 32);
        assert!(
            id.as_str()
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
    }
    let mut unique = ids.clone();
    unique.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    unique.dedup();
    assert_eq!(unique.len(), ids.len());
    assert_ne!(request().elicitation_id(), request().elicitation_id());
}

#[test]
fn elicitation_id_parse_accepts_printable_ascii_only() {
    assert!(ElicitationId::parse("550e8400-e29b-41d4-a716-446655440000").is_ok());
    for bad in ["", "a b", "é", "a\nb", &"x".repeat(257)] {
        assert_eq!(
            ElicitationId::parse(bad),
            Err(InvalidElicitationId),
            "{bad:?}"
        );
    }
}

#[test]
fn accept_of_a_url_elicitation_is_consent_not_completion() {
    assert_eq!(
        UrlOutcome::from_reply(&json!({"action": "accept"})),
        Ok(UrlOutcome::Accept)
    );
    assert_eq!(
        UrlOutcome::from_reply(&json!({"action": "decline"})),
        Ok(UrlOutcome::Decline)
    );
    assert_eq!(
        UrlOutcome::from_reply(&json!({"action": "cancel"})),
        Ok(UrlOutcome::Cancel)
    );
    assert_eq!(UrlOutcome::NoReply.action(), None);
    assert!(UrlOutcome::Accept.is_accepted());
}

#[test]
fn url_reply_ignores_content_meta_and_elicitation_id() {
    for reply in [
        json!({"action": "accept", "content": {"password": "hunter2"}}),
        json!({"action": "accept", "content": "junk"}),
        json!({"action": "accept", "content": null}),
        json!({"action": "accept", "elicitationId": "abc", "_meta": {"x": 1}}),
    ] {
        assert_eq!(
            UrlOutcome::from_reply(&reply),
            Ok(UrlOutcome::Accept),
            "{reply}"
        );
    }
}

#[test]
fn malformed_url_replies_are_errors_not_outcomes() {
    for reply in [
        json!([]),
        json!({}),
        json!({"action": "ACCEPT"}),
        json!({"action": 1}),
    ] {
        assert!(
            matches!(
                UrlOutcome::from_reply(&reply),
                Err(ReplyError::Malformed(_))
            ),
            "{reply}"
        );
    }
    assert!(UrlOutcome::from_reply_str("{").is_err());
    let huge = format!(
        "{{\"action\":\"accept\",\"x\":\"{}\"}}",
        "a".repeat(crate::limits::MAX_REPLY_BYTES)
    );
    assert!(matches!(
        UrlOutcome::from_reply_str(&huge),
        Err(ReplyError::Malformed(
            crate::outcome::MalformedReply::TooLarge { .. }
        ))
    ));
}

#[test]
fn completion_notification_names_the_elicitation() {
    let r = request();
    let v = serde_json::to_value(r.completion()).unwrap_or_default();
    assert_eq!(
        v,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/elicitation/complete",
            "params": {"elicitationId": r.elicitation_id().as_str()}
        })
    );
}

#[test]
fn url_elicitation_required_error_lists_url_elicitations_with_ids() {
    let (a, b) = (request(), request());
    let error = UrlElicitationRequired::new(a.clone())
        .and(b.clone())
        .to_jsonrpc_error();
    assert_eq!(error.code(), -32042);
    assert_eq!(error.message(), "This request requires more information.");
    let v = serde_json::to_value(error.response("req-2")).unwrap_or_default();
    assert_eq!(v["id"], "req-2");
    assert_eq!(v["jsonrpc"], "2.0");
    let list = &v["error"]["data"]["elicitations"];
    assert_eq!(list[0]["elicitationId"], a.elicitation_id().as_str());
    assert_eq!(list[1]["elicitationId"], b.elicitation_id().as_str());
    assert_eq!(list[1]["mode"], "url");
}

#[test]
fn elicit_url_trait_builds_requests_from_a_static_message() {
    struct Pay;
    impl ElicitUrl for Pay {
        fn message() -> &'static str {
            "Confirm the payment on the provider's page."
        }
        fn name() -> &'static str {
            "Pay"
        }
    }
    let r = Pay::url_request("https://pay.example/checkout/1").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.message(), Pay::message());
    assert!(Pay::url_request("http://pay.example/").is_err());
    assert!(Pay::url_request_with("http://pay.example/", UrlPolicy::Development).is_ok());
    assert_eq!(
        Pay::from_reply(&json!({"action": "accept"})),
        Ok(UrlOutcome::Accept)
    );
}
