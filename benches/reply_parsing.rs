//! Reply parsing: an `ElicitResult` from bytes into the typed form.
//!
//! - `elicit`: `Signup::from_reply_str`, every constraint checked, every violation reported;
//! - `serde`: `serde_json::from_slice` into an equivalent `#[derive(Deserialize)]` struct, no
//!   checks at all (what `serde_json::from_value::<T>` on rmcp's content gives);
//! - `jsonschema + serde`: parse to `Value`, validate the content with the `jsonschema` crate
//!   (formats on; the validator built once, outside the loop) against the same
//!   `requestedSchema`, then `serde_json::from_value`.
//!
//! Three replies: a valid one, the same with escapes in a string (which a reader must decode),
//! and one breaking three rules.
//!
//! Two more groups read what the integrations hand over, a reply already parsed by an SDK:
//! - `&Value`: `Signup::from_reply(&value)` against serde's own borrowed, unchecked
//!   `ReplySerde::deserialize(&value)` (the floor for reading a `Value` into a typed struct);
//! - rmcp: `mcp_elicit::rmcp::form_outcome` on rmcp's `ElicitResult` against what an rmcp user
//!   writes without this crate, `serde_json::from_value::<SignupSerde>(Value::Object(content))`.
//!   Both consume what they read (an owned result hands its strings over), so each call is given
//!   a fresh clone; the cost of each clone alone is its own row, to be subtracted.
//!
//! Run: `cargo bench --bench reply_parsing`.

mod common;

use common::forms::{ACCEPT, ActionSerde, ESCAPED, REJECT, ReplySerde, Signup, SignupSerde};
use common::{Counting, case, compare, keep};
use mcp_elicit::{Elicit, Elicitation};
use serde::Deserialize;
use serde_json::Value;

#[global_allocator]
static ALLOC: Counting = Counting;

fn elicit_parse(bytes: &[u8]) -> Result<Elicitation<Signup>, mcp_elicit::reply::ReplyError> {
    // A reply arrives as bytes; the UTF-8 check is part of the cost.
    Signup::from_reply_str(std::str::from_utf8(bytes).expect("utf-8"))
}

/// Validation with a JSON Schema validator, then serde. Returns the typed value, or the error
/// messages of every violation.
fn jsonschema_parse(
    validator: &jsonschema::Validator,
    bytes: &[u8],
) -> Result<Option<SignupSerde>, Vec<String>> {
    let mut reply: Value = serde_json::from_slice(bytes).map_err(|e| vec![e.to_string()])?;
    let action = reply.get("action").and_then(Value::as_str);
    if action != Some("accept") {
        return Ok(None);
    }
    let content = reply
        .get_mut("content")
        .map(Value::take)
        .unwrap_or_default();
    let errors: Vec<String> = validator
        .iter_errors(&content)
        .map(|e| e.to_string())
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    serde_json::from_value(content)
        .map(Some)
        .map_err(|e| vec![e.to_string()])
}

fn main() {
    let schema = serde_json::to_value(Signup::requested_schema()).expect("schema");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("valid schema");

    // Everyone agrees on what the replies mean before anything is timed.
    let accepted = elicit_parse(ACCEPT.as_bytes()).expect("valid reply");
    assert!(accepted.is_accepted());
    let plain: ReplySerde = serde_json::from_slice(ACCEPT.as_bytes()).expect("serde");
    assert_eq!(plain.action, ActionSerde::Accept);
    assert!(
        jsonschema_parse(&validator, ACCEPT.as_bytes())
            .expect("valid")
            .is_some()
    );
    let escaped = elicit_parse(ESCAPED.as_bytes()).expect("valid reply");
    assert_eq!(
        escaped.accepted().map(|form| form.name),
        Some("Ada \"Countess\"\nLovelace".to_owned())
    );
    assert!(
        jsonschema_parse(&validator, ESCAPED.as_bytes())
            .expect("valid")
            .is_some()
    );
    let rejected = elicit_parse(REJECT.as_bytes()).expect_err("three violations");
    assert_eq!(
        rejected.violations().map(|v| v.len()),
        Some(3),
        "{rejected}"
    );
    assert_eq!(
        jsonschema_parse(&validator, REJECT.as_bytes())
            .expect_err("invalid")
            .len(),
        3
    );

    compare(
        "accept: valid reply -> typed value",
        vec![
            case("elicit from_reply_str (all checks)", || {
                keep(elicit_parse(std::hint::black_box(ACCEPT.as_bytes())))
            }),
            case("serde from_slice (no checks)", || {
                keep(serde_json::from_slice::<ReplySerde>(std::hint::black_box(
                    ACCEPT.as_bytes(),
                )))
            }),
            case("jsonschema validate + serde", || {
                keep(jsonschema_parse(
                    &validator,
                    std::hint::black_box(ACCEPT.as_bytes()),
                ))
            }),
        ],
    );
    compare(
        "accept, escapes in a string (a quote, a line break) -> typed value",
        vec![
            case("elicit from_reply_str, escapes (all checks)", || {
                keep(elicit_parse(std::hint::black_box(ESCAPED.as_bytes())))
            }),
            case("serde from_slice, escapes (no checks)", || {
                keep(serde_json::from_slice::<ReplySerde>(std::hint::black_box(
                    ESCAPED.as_bytes(),
                )))
            }),
            case("jsonschema validate + serde, escapes", || {
                keep(jsonschema_parse(
                    &validator,
                    std::hint::black_box(ESCAPED.as_bytes()),
                ))
            }),
        ],
    );
    let accept_value: Value = serde_json::from_str(ACCEPT).expect("JSON");
    assert!(
        Signup::from_reply(&accept_value)
            .expect("valid")
            .is_accepted()
    );
    assert_eq!(
        ReplySerde::deserialize(&accept_value)
            .expect("serde")
            .action,
        ActionSerde::Accept
    );
    compare(
        "accept, already parsed: &Value -> typed value",
        vec![
            case("elicit from_reply(&Value) (all checks)", || {
                keep(Signup::from_reply(std::hint::black_box(&accept_value)))
            }),
            case("serde ReplySerde::deserialize(&Value) (no checks)", || {
                keep(ReplySerde::deserialize(std::hint::black_box(&accept_value)))
            }),
        ],
    );

    let result: rmcp::model::ElicitResult = serde_json::from_str(ACCEPT).expect("ElicitResult");
    let request = Signup::form_request();
    assert!(
        mcp_elicit::rmcp::form_outcome(&request, result.clone())
            .expect("valid")
            .is_accepted()
    );
    let content = result.content.clone().expect("content");
    assert!(serde_json::from_value::<SignupSerde>(content.clone()).is_ok());
    compare(
        "accept, from rmcp: ElicitResult -> typed value",
        vec![
            case(
                "elicit rmcp::form_outcome(result.clone()) (all checks)",
                || {
                    keep(mcp_elicit::rmcp::form_outcome(
                        &request,
                        std::hint::black_box(&result).clone(),
                    ))
                },
            ),
            case("rmcp user: from_value(content.clone()) (no checks)", || {
                keep(serde_json::from_value::<SignupSerde>(
                    std::hint::black_box(&content).clone(),
                ))
            }),
            case("result.clone() alone (part of the first row)", || {
                keep(std::hint::black_box(&result).clone())
            }),
            case("content.clone() alone (part of the second row)", || {
                keep(std::hint::black_box(&content).clone())
            }),
        ],
    );

    compare(
        "reject: reply with three violations -> every violation",
        vec![
            case("elicit from_reply_str (3 violations)", || {
                keep(elicit_parse(std::hint::black_box(REJECT.as_bytes())))
            }),
            case("serde from_slice (stops at the first)", || {
                keep(serde_json::from_slice::<ReplySerde>(std::hint::black_box(
                    REJECT.as_bytes(),
                )))
            }),
            case("jsonschema iter_errors (3 violations)", || {
                keep(jsonschema_parse(
                    &validator,
                    std::hint::black_box(REJECT.as_bytes()),
                ))
            }),
        ],
    );
}
