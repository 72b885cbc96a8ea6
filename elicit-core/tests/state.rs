//! Sealed request state and the replay guard, one test per rule of the MRTR spec's
//! `requestState` requirements (server requirements 4 and 5) and of this crate's design.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Barrier};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use elicit_core::limits::MAX_STATE_LEN;
use elicit_core::state::{
    Binding, KeyError, KeyId, MalformedReason, MemoryReplayGuard, Opened, ParamsDigest,
    RedeemError, ReplayGuard, RequestMismatch, SealError, StateError, StateId, StateKey, StateKeys,
    UnixTime,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Checkout {
    cart: u64,
    step: u8,
    note: String,
    items: Vec<(String, u32)>,
}

fn checkout() -> Checkout {
    Checkout {
        cart: 7,
        step: 2,
        note: "leave at the door".into(),
        items: vec![("apples".into(), 3), ("pears".into(), 1)],
    }
}

const NOW: UnixTime = UnixTime::from_secs(1_800_000_000);
const TTL: Duration = Duration::from_secs(600);
const PRINCIPAL: &str = "user-8f3a";

fn key(byte: u8) -> StateKey {
    StateKey::from_bytes([byte; 32])
}

fn keys() -> StateKeys {
    StateKeys::single(KeyId::new(1), key(1))
}

fn params() -> serde_json::Value {
    json!({ "name": "checkout", "arguments": { "cart": 7 } })
}

fn binding(params: &serde_json::Value) -> Binding<'static> {
    Binding {
        principal: PRINCIPAL,
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(params),
    }
}

fn sealed() -> String {
    keys()
        .seal(&checkout(), &binding(&params()), TTL, NOW)
        .expect("seals")
}

fn open(keys: &StateKeys, text: &str) -> Result<Opened<Checkout>, StateError> {
    keys.open::<Checkout>(text, &binding(&params()), NOW)
}

/// Polls a future that must already be complete (the in-memory guard's).
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the in-memory guard's future must be ready at once"),
    }
}

// ---------------------------------------------------------------------------------------------
// Round trip

#[test]
fn a_sealed_state_opens_to_the_same_typed_value() {
    let opened = open(&keys(), &sealed()).expect("opens");
    assert_eq!(opened.value(), &checkout());
    assert_eq!(opened.issued_at(), NOW);
    assert_eq!(
        opened.expires_at(),
        UnixTime::from_secs(NOW.as_secs() + 600)
    );
    assert_eq!(opened.key_id(), KeyId::new(1));
    assert_eq!(opened.into_value(), checkout());
}

#[test]
fn the_sealed_text_is_base64url_without_padding() {
    let text = sealed();
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{text}"
    );
}

#[test]
fn the_state_is_encrypted_not_just_signed() {
    let text = sealed();
    let bytes = URL_SAFE_NO_PAD.decode(&text).expect("base64url");
    for secret in ["leave at the door", PRINCIPAL, "tools/call", "apples"] {
        assert!(
            !bytes
                .windows(secret.len())
                .any(|window| window == secret.as_bytes()),
            "{secret:?} appears in the clear"
        );
    }
}

#[test]
fn every_seal_draws_a_fresh_id_and_nonce() {
    let (first, second) = (sealed(), sealed());
    assert_ne!(first, second);
    let first = open(&keys(), &first).expect("opens");
    let second = open(&keys(), &second).expect("opens");
    assert_ne!(first.id(), second.id());
}

#[test]
fn any_serializable_type_round_trips() {
    let keys = keys();
    let binding = binding(&json!(null));
    let text = keys.seal(&(), &binding, TTL, NOW).expect("seals");
    keys.open::<()>(&text, &binding, NOW).expect("unit opens");
    let text = keys.seal("é ✓ \u{0}", &binding, TTL, NOW).expect("seals");
    let opened = keys.open::<String>(&text, &binding, NOW).expect("opens");
    assert_eq!(opened.value(), "é ✓ \u{0}");
}

// ---------------------------------------------------------------------------------------------
// Integrity: tampering (MRTR server requirement 4)

#[test]
fn flipping_any_bit_of_a_sealed_state_is_rejected_by_the_check_that_covers_it() {
    let keys = keys();
    let bytes = URL_SAFE_NO_PAD.decode(sealed()).expect("base64url");
    for position in 0..bytes.len() {
        for bit in 0..8 {
            let mut flipped = bytes.clone();
            flipped[position] ^= 1 << bit;
            let error = open(&keys, &URL_SAFE_NO_PAD.encode(&flipped)).expect_err("rejected");
            let expected = match position {
                0 => StateError::Malformed(MalformedReason::UnsupportedVersion),
                1..=4 => StateError::UnknownKey {
                    key_id: KeyId::new(u32::from_be_bytes(
                        flipped[1..5].try_into().expect("four bytes"),
                    )),
                },
                _ => StateError::Tampered,
            };
            assert_eq!(error, expected, "byte {position}, bit {bit}");
        }
    }
}

#[test]
fn a_header_naming_another_configured_key_fails_authentication() {
    // Key ids 1 and 3 differ in one bit: the forged header picks a real key, which then
    // refuses the tag.
    let keys = StateKeys::new([(KeyId::new(1), key(1)), (KeyId::new(3), key(3))]).expect("keys");
    let mut bytes = URL_SAFE_NO_PAD.decode(sealed()).expect("base64url");
    bytes[4] ^= 0b10;
    assert_eq!(
        open(&keys, &URL_SAFE_NO_PAD.encode(&bytes)).unwrap_err(),
        StateError::Tampered
    );
}

#[test]
fn changing_any_character_of_the_text_is_rejected() {
    let keys = keys();
    let text = sealed();
    for position in 0..text.len() {
        for replacement in [
            'A', 'B', 'g', 'z', '0', '9', '-', '_', '+', '/', '=', ' ', 'é',
        ] {
            if text[position..].starts_with(replacement) {
                continue;
            }
            let mut changed = text.clone();
            changed.replace_range(position..=position, replacement.encode_utf8(&mut [0; 4]));
            let error = open(&keys, &changed).expect_err("rejected");
            assert!(
                matches!(
                    error,
                    StateError::Malformed(_) | StateError::UnknownKey { .. } | StateError::Tampered
                ),
                "position {position} → {replacement:?}: {error:?}"
            );
        }
    }
}

#[test]
fn truncating_the_sealed_bytes_at_any_length_is_rejected() {
    let keys = keys();
    let bytes = URL_SAFE_NO_PAD.decode(sealed()).expect("base64url");
    for len in 0..bytes.len() {
        let error = open(&keys, &URL_SAFE_NO_PAD.encode(&bytes[..len])).expect_err("rejected");
        // Version, key id, nonce, tag.
        let expected = if len < 1 + 4 + 12 + 16 {
            StateError::Malformed(MalformedReason::TooShort)
        } else {
            StateError::Tampered
        };
        assert_eq!(error, expected, "truncated to {len} bytes");
    }
}

#[test]
fn truncating_the_text_at_any_length_is_rejected() {
    let keys = keys();
    let text = sealed();
    for len in 0..text.len() {
        let error = open(&keys, &text[..len]).expect_err("rejected");
        assert!(
            matches!(
                error,
                StateError::Malformed(MalformedReason::TooShort | MalformedReason::NotBase64Url)
                    | StateError::Tampered
            ),
            "truncated to {len} characters: {error:?}"
        );
    }
}

#[test]
fn appending_to_a_sealed_state_is_rejected() {
    let mut bytes = URL_SAFE_NO_PAD.decode(sealed()).expect("base64url");
    bytes.extend_from_slice(b"more");
    assert_eq!(
        open(&keys(), &URL_SAFE_NO_PAD.encode(&bytes)).unwrap_err(),
        StateError::Tampered
    );
}

#[test]
fn arbitrary_input_is_rejected_without_panicking() {
    // A fixed xorshift stream: reproducible, and covers every length up to 400.
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let keys = keys();
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for round in 0..4000 {
        let len = round % 400;
        let text: String = (0..len)
            .map(|_| char::from(alphabet[(next() % 64) as usize]))
            .collect();
        assert!(open(&keys, &text).is_err());
        // Random bytes behind a valid header reach the AEAD.
        let mut bytes = vec![1, 0, 0, 0, 1];
        bytes.extend((0..len).map(|_| next() as u8));
        assert!(open(&keys, &URL_SAFE_NO_PAD.encode(&bytes)).is_err());
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed input

#[test]
fn a_state_longer_than_the_limit_is_rejected_before_decoding() {
    // Not base64url either: rejecting it as too long shows the length is checked first.
    let huge = "!".repeat(MAX_STATE_LEN + 1);
    assert_eq!(
        open(&keys(), &huge).unwrap_err(),
        StateError::Malformed(MalformedReason::TooLong)
    );
    let huge = "A".repeat(10 * 1024 * 1024);
    assert_eq!(
        open(&keys(), &huge).unwrap_err(),
        StateError::Malformed(MalformedReason::TooLong)
    );
}

#[test]
fn a_state_that_is_not_base64url_without_padding_is_malformed() {
    let text = sealed();
    let not_base64url = StateError::Malformed(MalformedReason::NotBase64Url);
    let standard_alphabet = text.replace('-', "+").replace('_', "/");
    if standard_alphabet != text {
        assert_eq!(
            open(&keys(), &standard_alphabet).unwrap_err(),
            not_base64url
        );
    }
    assert_eq!(
        open(&keys(), &format!("{text}==")).unwrap_err(),
        not_base64url
    );
    assert_eq!(
        open(&keys(), &format!(" {text}")).unwrap_err(),
        not_base64url
    );
    assert_eq!(open(&keys(), &"é".repeat(40)).unwrap_err(), not_base64url);
}

#[test]
fn a_state_too_short_to_hold_a_header_nonce_and_tag_is_malformed() {
    // Header 5 + nonce 12 + tag 16 = 33 bytes, 44 base64url characters.
    for text in ["", "AQ", &"A".repeat(43)] {
        assert_eq!(
            open(&keys(), text).unwrap_err(),
            StateError::Malformed(MalformedReason::TooShort)
        );
    }
    // One character more and the length is no longer the problem: all zeros is version 0.
    assert_eq!(
        open(&keys(), &"A".repeat(44)).unwrap_err(),
        StateError::Malformed(MalformedReason::UnsupportedVersion)
    );
}

#[test]
fn a_state_of_another_format_version_is_malformed() {
    let mut bytes = URL_SAFE_NO_PAD.decode(sealed()).expect("base64url");
    bytes[0] = 2;
    assert_eq!(
        open(&keys(), &URL_SAFE_NO_PAD.encode(&bytes)).unwrap_err(),
        StateError::Malformed(MalformedReason::UnsupportedVersion)
    );
}

// ---------------------------------------------------------------------------------------------
// Binding: principal, request, expiry (MRTR server requirement 5)

#[test]
fn a_state_presented_by_another_principal_is_rejected() {
    let params = params();
    let thief = Binding {
        principal: "user-0000",
        ..binding(&params)
    };
    assert_eq!(
        keys().open::<Checkout>(&sealed(), &thief, NOW).unwrap_err(),
        StateError::WrongPrincipal
    );
    let prefix = Binding {
        principal: "user-8f3",
        ..binding(&params)
    };
    assert_eq!(
        keys()
            .open::<Checkout>(&sealed(), &prefix, NOW)
            .unwrap_err(),
        StateError::WrongPrincipal
    );
}

#[test]
fn a_state_presented_on_another_method_is_rejected() {
    let params = params();
    let elsewhere = Binding {
        method: "prompts/get",
        ..binding(&params)
    };
    assert_eq!(
        keys()
            .open::<Checkout>(&sealed(), &elsewhere, NOW)
            .unwrap_err(),
        StateError::WrongRequest(RequestMismatch::Method)
    );
}

#[test]
fn a_state_presented_with_other_parameters_is_rejected() {
    let other = json!({ "name": "checkout", "arguments": { "cart": 8 } });
    assert_eq!(
        keys()
            .open::<Checkout>(&sealed(), &binding(&other), NOW)
            .unwrap_err(),
        StateError::WrongRequest(RequestMismatch::Params)
    );
}

#[test]
fn a_retry_carrying_input_responses_request_state_and_meta_still_matches() {
    let text = sealed();
    let retry = json!({
        "_meta": { "progressToken": "p-1" },
        "arguments": { "cart": 7 },
        "inputResponses": { "confirm": { "action": "accept", "content": { "ok": true } } },
        "name": "checkout",
        "requestState": text,
    });
    assert!(
        keys()
            .open::<Checkout>(&text, &binding(&retry), NOW)
            .is_ok()
    );
}

#[test]
fn a_state_past_its_expiry_is_rejected() {
    let text = sealed();
    let last_valid = UnixTime::from_secs(NOW.as_secs() + 599);
    let expiry = UnixTime::from_secs(NOW.as_secs() + 600);
    let params = params();
    assert!(
        keys()
            .open::<Checkout>(&text, &binding(&params), last_valid)
            .is_ok()
    );
    for later in [expiry, UnixTime::from_secs(u64::MAX)] {
        assert_eq!(
            keys()
                .open::<Checkout>(&text, &binding(&params), later)
                .unwrap_err(),
            StateError::Expired { expired_at: expiry }
        );
    }
}

#[test]
fn a_sub_second_ttl_rounds_up_and_a_zero_ttl_is_refused() {
    let params = params();
    let text = keys()
        .seal(
            &checkout(),
            &binding(&params),
            Duration::from_millis(1),
            NOW,
        )
        .expect("seals");
    let opened = open(&keys(), &text).expect("opens at once");
    assert_eq!(opened.expires_at(), UnixTime::from_secs(NOW.as_secs() + 1));
    assert!(matches!(
        keys().seal(&checkout(), &binding(&params), Duration::ZERO, NOW),
        Err(SealError::InvalidTtl)
    ));
    assert!(matches!(
        keys().seal(&checkout(), &binding(&params), Duration::MAX, NOW),
        Err(SealError::InvalidTtl)
    ));
}

#[test]
fn the_principal_check_comes_before_the_request_and_expiry_checks() {
    let everything_wrong = Binding {
        principal: "user-0000",
        method: "prompts/get",
        params_digest: ParamsDigest::of(&json!("other")),
    };
    let much_later = UnixTime::from_secs(NOW.as_secs() + 10_000);
    assert_eq!(
        keys()
            .open::<Checkout>(&sealed(), &everything_wrong, much_later)
            .unwrap_err(),
        StateError::WrongPrincipal
    );
}

#[test]
fn an_authentic_state_of_another_type_is_incompatible() {
    let params = params();
    let text = keys()
        .seal(&"not a checkout", &binding(&params), TTL, NOW)
        .expect("seals");
    assert_eq!(open(&keys(), &text).unwrap_err(), StateError::Incompatible);
}

// ---------------------------------------------------------------------------------------------
// Keys and rotation

#[test]
fn after_rotation_the_old_key_still_opens_and_the_new_key_seals() {
    let old_text = sealed();
    let rotated = StateKeys::new([(KeyId::new(2), key(2)), (KeyId::new(1), key(1))]).expect("keys");
    assert_eq!(
        open(&rotated, &old_text).expect("old state opens").key_id(),
        KeyId::new(1)
    );
    let new_text = rotated
        .seal(&checkout(), &binding(&params()), TTL, NOW)
        .expect("seals");
    assert_eq!(
        open(&rotated, &new_text).expect("opens").key_id(),
        KeyId::new(2)
    );
    // A replica not yet rotated does not know key 2.
    assert_eq!(
        open(&keys(), &new_text).unwrap_err(),
        StateError::UnknownKey {
            key_id: KeyId::new(2)
        }
    );
}

#[test]
fn once_a_key_is_removed_its_states_name_an_unknown_key() {
    let old_text = sealed();
    let only_new = StateKeys::single(KeyId::new(2), key(2));
    assert_eq!(
        open(&only_new, &old_text).unwrap_err(),
        StateError::UnknownKey {
            key_id: KeyId::new(1)
        }
    );
}

#[test]
fn other_key_material_under_the_same_key_id_fails_authentication() {
    let impostor = StateKeys::single(KeyId::new(1), key(9));
    assert_eq!(
        open(&impostor, &sealed()).unwrap_err(),
        StateError::Tampered
    );
}

#[test]
fn independent_key_sets_sharing_only_key_material_open_each_others_states() {
    let replica_a = StateKeys::new([(KeyId::new(5), key(5)), (KeyId::new(4), key(4))]).expect("a");
    let replica_b = StateKeys::new([(KeyId::new(5), key(5)), (KeyId::new(4), key(4))]).expect("b");
    let params = params();
    let from_a = replica_a
        .seal(&checkout(), &binding(&params), TTL, NOW)
        .expect("a seals");
    let from_b = replica_b
        .seal(&checkout(), &binding(&params), TTL, NOW)
        .expect("b seals");
    assert_eq!(
        open(&replica_b, &from_a).expect("b opens a's").value(),
        &checkout()
    );
    assert_eq!(
        open(&replica_a, &from_b).expect("a opens b's").value(),
        &checkout()
    );
}

#[test]
fn a_key_set_needs_at_least_one_key_and_distinct_key_ids() {
    let none: Vec<(KeyId, StateKey)> = Vec::new();
    assert_eq!(StateKeys::new(none).unwrap_err(), KeyError::NoKeys);
    let twice = StateKeys::new([
        (KeyId::new(1), key(1)),
        (KeyId::new(2), key(2)),
        (KeyId::new(2), key(3)),
    ]);
    assert_eq!(twice.unwrap_err(), KeyError::DuplicateKeyId(KeyId::new(2)));
}

#[test]
fn keys_never_appear_in_debug_output() {
    let keys =
        StateKeys::new([(KeyId::new(2), key(0xAB)), (KeyId::new(1), key(0xCD))]).expect("keys");
    let printed = format!(
        "{keys:?} {:?} {:?}",
        key(0xAB),
        StateKey::generate().expect("key")
    );
    for leak in ["171", "205", "ab", "AB", "cd", "CD"] {
        assert!(!printed.contains(leak), "{printed}");
    }
}

// ---------------------------------------------------------------------------------------------
// Sealing limits and errors

#[test]
fn a_state_too_large_to_come_back_is_refused_when_sealed() {
    let params = params();
    let huge = "x".repeat(MAX_STATE_LEN);
    assert!(matches!(
        keys().seal(&huge, &binding(&params), TTL, NOW),
        Err(SealError::TooLarge { .. })
    ));
    // The largest state that seals also opens.
    let fits = "x".repeat(MAX_STATE_LEN / 4 * 3 - 200);
    let text = keys()
        .seal(&fits, &binding(&params), TTL, NOW)
        .expect("seals");
    assert!(text.len() <= MAX_STATE_LEN);
    keys()
        .open::<String>(&text, &binding(&params), NOW)
        .expect("opens");
}

#[test]
fn a_value_that_does_not_serialize_is_a_seal_error() {
    let mut map = std::collections::BTreeMap::new();
    map.insert((1, 2), "tuple keys are not JSON");
    let error = keys()
        .seal(&map, &binding(&params()), TTL, NOW)
        .unwrap_err();
    assert!(matches!(error, SealError::Serialize(_)));
    assert_eq!(error.to_jsonrpc_error().code(), -32603);
    assert!(std::error::Error::source(&error).is_some());
}

#[test]
fn error_messages_never_echo_the_state() {
    let text = sealed();
    let mut bytes = URL_SAFE_NO_PAD.decode(&text).expect("base64url");
    bytes[40] ^= 1;
    let params = params();
    let errors = [
        open(&keys(), &URL_SAFE_NO_PAD.encode(&bytes)).unwrap_err(),
        open(&keys(), &text[..text.len() - 7]).unwrap_err(),
        keys()
            .open::<Checkout>(&text, &binding(&params), UnixTime::from_secs(u64::MAX))
            .unwrap_err(),
        keys()
            .open::<Checkout>(
                &text,
                &Binding {
                    principal: "x",
                    ..binding(&params)
                },
                NOW,
            )
            .unwrap_err(),
        keys()
            .open::<u8>(&text, &binding(&params), NOW)
            .unwrap_err(),
    ];
    for error in errors {
        let message = error.to_string();
        assert!(message.starts_with("requestState "), "{message}");
        for secret in [&text[..12], PRINCIPAL, "leave at the door", "apples"] {
            assert!(!message.contains(secret), "{message}");
        }
    }
}

#[test]
fn every_state_error_answers_invalid_params() {
    let errors = [
        StateError::Malformed(MalformedReason::TooLong),
        StateError::Malformed(MalformedReason::TooShort),
        StateError::Malformed(MalformedReason::NotBase64Url),
        StateError::Malformed(MalformedReason::UnsupportedVersion),
        StateError::UnknownKey {
            key_id: KeyId::new(1),
        },
        StateError::Tampered,
        StateError::WrongPrincipal,
        StateError::WrongRequest(RequestMismatch::Method),
        StateError::WrongRequest(RequestMismatch::Params),
        StateError::Expired {
            expired_at: UnixTime::from_secs(0),
        },
        StateError::Incompatible,
    ];
    for error in errors {
        assert_eq!(error.to_jsonrpc_error().code(), -32602, "{error}");
    }
    assert_eq!(
        RedeemError::AlreadyRedeemed.to_jsonrpc_error().code(),
        -32602
    );
    assert_eq!(
        RedeemError::Unavailable("down".into())
            .to_jsonrpc_error()
            .code(),
        -32603
    );
}

// ---------------------------------------------------------------------------------------------
// Parameter digest

#[test]
fn the_params_digest_ignores_key_order_and_whitespace() {
    let a: serde_json::Value =
        serde_json::from_str(r#"{"name":"t","arguments":{"b":[1,{"y":2,"x":1}],"a":null}}"#)
            .expect("json");
    let b: serde_json::Value = serde_json::from_str(
        r#"{ "arguments" : { "a" : null , "b" : [ 1 , { "x" : 1 , "y" : 2 } ] } , "name" : "t" }"#,
    )
    .expect("json");
    assert_eq!(ParamsDigest::of(&a), ParamsDigest::of(&b));
}

#[test]
fn the_params_digest_writes_integral_floats_as_integers() {
    assert_eq!(
        ParamsDigest::of(&json!({ "n": 1.0, "z": -0.0 })),
        ParamsDigest::of(&json!({ "n": 1, "z": 0 }))
    );
    assert_ne!(
        ParamsDigest::of(&json!({ "n": 1.5 })),
        ParamsDigest::of(&json!({ "n": 1 }))
    );
}

#[test]
fn the_params_digest_tells_values_apart() {
    let digests = [
        json!(null),
        json!(false),
        json!(0),
        json!(""),
        json!("0"),
        json!([]),
        json!({}),
        json!([[]]),
        json!({ "a": "b" }),
        json!({ "a": ["b"] }),
        json!(["a", "b"]),
        json!(["a,b"]),
    ]
    .map(|value| ParamsDigest::of(&value));
    for (i, a) in digests.iter().enumerate() {
        for b in &digests[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn only_top_level_retry_fields_are_left_out_of_the_request_digest() {
    let with_nested_meta = json!({ "name": "t", "arguments": { "_meta": 1 } });
    let without = json!({ "name": "t", "arguments": {} });
    assert_ne!(
        ParamsDigest::of_request_params(&with_nested_meta),
        ParamsDigest::of_request_params(&without)
    );
    // `of` hashes exactly what it is given.
    assert_ne!(
        ParamsDigest::of(&json!({ "name": "t", "_meta": {} })),
        ParamsDigest::of(&json!({ "name": "t" }))
    );
    // A params value that is not an object is hashed as it is.
    assert_eq!(
        ParamsDigest::of_request_params(&json!([1, 2])),
        ParamsDigest::of(&json!([1, 2]))
    );
}

// ---------------------------------------------------------------------------------------------
// Single use: the in-memory replay guard

#[test]
fn an_opened_state_redeems_once() {
    let guard = MemoryReplayGuard::new();
    let text = sealed();
    let first = open(&keys(), &text).expect("opens");
    ready(first.redeem_once(&guard, PRINCIPAL, NOW)).expect("first use");
    let second = open(&keys(), &text).expect("still opens");
    assert!(matches!(
        ready(second.redeem_once(&guard, PRINCIPAL, NOW)),
        Err(RedeemError::AlreadyRedeemed)
    ));
    // Another state is unaffected.
    let other = open(&keys(), &sealed()).expect("opens");
    ready(other.redeem_once(&guard, PRINCIPAL, NOW)).expect("a different state");
}

#[test]
fn sixty_four_threads_redeeming_one_state_succeed_exactly_once() {
    let keys = Arc::new(keys());
    let guard: Arc<dyn ReplayGuard> = Arc::new(MemoryReplayGuard::new());
    let text = Arc::new(sealed());
    let start = Arc::new(Barrier::new(64));
    let threads: Vec<_> = (0..64)
        .map(|_| {
            let (keys, guard, text, start) =
                (keys.clone(), guard.clone(), text.clone(), start.clone());
            std::thread::spawn(move || {
                let opened = open(&keys, &text).expect("opens");
                start.wait();
                ready(opened.redeem_once(&guard, PRINCIPAL, NOW))
            })
        })
        .collect();
    let outcomes: Vec<_> = threads
        .into_iter()
        .map(|thread| thread.join().expect("no panic"))
        .collect();
    assert_eq!(outcomes.iter().filter(|outcome| outcome.is_ok()).count(), 1);
    assert!(
        outcomes
            .iter()
            .filter_map(|outcome| outcome.as_ref().err())
            .all(|error| matches!(error, RedeemError::AlreadyRedeemed))
    );
}

#[test]
fn the_memory_guard_forgets_ids_once_their_states_expire() {
    let guard = MemoryReplayGuard::new();
    let soon = UnixTime::from_secs(NOW.as_secs() + 10);
    for n in 0..5000_u32 {
        let mut bytes = [0; 16];
        bytes[..4].copy_from_slice(&n.to_be_bytes());
        guard
            .redeem_now(StateId::from_bytes(bytes), PRINCIPAL, soon, NOW)
            .expect("fresh id");
    }
    assert_eq!(guard.len(), 5000);
    let later = UnixTime::from_secs(soon.as_secs() + 1);
    let far = UnixTime::from_secs(later.as_secs() + 600);
    for n in 0..5000_u32 {
        let mut bytes = [1; 16];
        bytes[..4].copy_from_slice(&n.to_be_bytes());
        guard
            .redeem_now(StateId::from_bytes(bytes), PRINCIPAL, far, later)
            .expect("fresh id");
    }
    assert!(
        guard.len() < 10_000,
        "expired ids were purged: {}",
        guard.len()
    );
    assert!(
        guard.len() >= 5000,
        "unexpired ids were kept: {}",
        guard.len()
    );
}

#[test]
fn a_full_memory_guard_fails_closed_and_recovers_when_ids_expire() {
    let guard = MemoryReplayGuard::with_max_entries(2);
    let id = |n: u8| StateId::from_bytes([n; 16]);
    let expiry = UnixTime::from_secs(NOW.as_secs() + 10);
    guard
        .redeem_now(id(1), PRINCIPAL, expiry, NOW)
        .expect("room");
    guard
        .redeem_now(id(2), PRINCIPAL, expiry, NOW)
        .expect("room");
    let full = guard.redeem_now(id(3), PRINCIPAL, expiry, NOW).unwrap_err();
    assert!(matches!(full, RedeemError::Unavailable(_)));
    assert_eq!(full.to_jsonrpc_error().code(), -32603);
    // A redeemed id is still a replay, full or not.
    assert!(matches!(
        guard.redeem_now(id(1), PRINCIPAL, expiry, NOW),
        Err(RedeemError::AlreadyRedeemed)
    ));
    guard
        .redeem_now(
            id(3),
            PRINCIPAL,
            UnixTime::from_secs(expiry.as_secs() + 10),
            expiry,
        )
        .expect("expired ids made room");
}

#[test]
fn one_principal_fills_only_its_own_share_of_the_memory_guard() {
    let guard = MemoryReplayGuard::with_max_entries(100).with_max_per_principal(10);
    let id = |n: u8| StateId::from_bytes([n; 16]);
    let expiry = UnixTime::from_secs(NOW.as_secs() + 10);
    for n in 0..10 {
        guard
            .redeem_now(id(n), "greedy", expiry, NOW)
            .expect("its share");
    }
    let refused = guard.redeem_now(id(10), "greedy", expiry, NOW).unwrap_err();
    assert!(matches!(refused, RedeemError::Unavailable(_)));
    let why = std::error::Error::source(&refused)
        .expect("the cause")
        .to_string();
    assert!(why.starts_with("this principal holds its maximum"), "{why}");
    // Everyone else goes on redeeming.
    guard
        .redeem_now(id(11), PRINCIPAL, expiry, NOW)
        .expect("another principal");
    // Once its ids expire, the share is free again.
    guard
        .redeem_now(
            id(12),
            "greedy",
            UnixTime::from_secs(expiry.as_secs() + 10),
            expiry,
        )
        .expect("expired ids made room");
}

/// A principal whose ids all expired is forgotten, and the next one may take its place in the
/// guard: each keeps its own count, never the other's.
#[test]
fn principals_that_follow_each_other_in_the_memory_guard_keep_their_own_shares() {
    let guard = MemoryReplayGuard::with_max_entries(100).with_max_per_principal(3);
    let id = |n: u8| StateId::from_bytes([n; 16]);
    let soon = UnixTime::from_secs(NOW.as_secs() + 10);
    let later = UnixTime::from_secs(NOW.as_secs() + 100);
    for n in 0..3 {
        guard.redeem_now(id(n), "first", soon, NOW).unwrap();
    }
    // At `soon` the first one's ids expire: the second one takes its place.
    for n in 3..6 {
        guard.redeem_now(id(n), "second", later, soon).unwrap();
    }
    let full = guard.redeem_now(id(6), "second", later, soon).unwrap_err();
    assert!(matches!(full, RedeemError::Unavailable(_)), "{full:?}");
    for n in 7..10 {
        guard
            .redeem_now(id(n), "first", later, soon)
            .expect("the first one's own share, anew");
    }
    assert!(guard.redeem_now(id(10), "first", later, soon).is_err());
    assert!(matches!(
        guard.redeem_now(id(3), "first", later, soon),
        Err(RedeemError::AlreadyRedeemed)
    ));
}

/// The memory guard keeps an id's first 8 bytes: two ids that share them are one to it, and
/// the later is refused as redeemed (fail closed), never let through.
#[test]
fn ids_sharing_their_first_eight_bytes_are_refused_not_admitted() {
    let guard = MemoryReplayGuard::new();
    let expiry = UnixTime::from_secs(NOW.as_secs() + 10);
    let mut other = [1; 16];
    other[15] = 2;
    guard
        .redeem_now(StateId::from_bytes([1; 16]), PRINCIPAL, expiry, NOW)
        .unwrap();
    assert!(matches!(
        guard.redeem_now(StateId::from_bytes(other), PRINCIPAL, expiry, NOW),
        Err(RedeemError::AlreadyRedeemed)
    ));
    let mut apart = [1; 16];
    apart[7] = 2;
    guard
        .redeem_now(StateId::from_bytes(apart), PRINCIPAL, expiry, NOW)
        .expect("a first 8 bytes of its own");
}

#[test]
fn a_redemption_evicts_a_bounded_number_of_expired_ids_not_the_whole_guard() {
    let guard = MemoryReplayGuard::with_max_entries(1000).with_max_per_principal(1000);
    let expiry = UnixTime::from_secs(NOW.as_secs() + 10);
    for n in 0..1000_u32 {
        let mut bytes = [0; 16];
        bytes[..4].copy_from_slice(&n.to_be_bytes());
        guard
            .redeem_now(StateId::from_bytes(bytes), PRINCIPAL, expiry, NOW)
            .expect("room");
    }
    // Full of ids that have all expired: one redemption evicts a few of them, the oldest, and
    // takes a place; it does not scan the other thousand.
    let later = UnixTime::from_secs(expiry.as_secs() + 1);
    guard
        .redeem_now(StateId::from_bytes([9; 16]), PRINCIPAL, later, later)
        .expect("expired ids made room");
    assert_eq!(guard.len(), 1000 - MemoryReplayGuard::EVICT_PER_REDEEM + 1);
}
