//! Multi round-trip requests (2026-07-28), a form adapted to what a host draws
//! (`Ask::form_request_drawn`): the round seals the kinds the form was adapted to, so a retry is
//! read, and asked again, against the schema its question had, whatever its client would be
//! given now (another host, or none); a form sent as it is stays as it is; an answer carried
//! forward keeps its adaptation; the state grows by one small entry, and only for an adapted
//! form; a derived form's cached question is never the adapted one, and an adapted one is
//! cached per adaptation.
//!
//! `cargo test -p elicit-core --test mrtr_host_adaptation`

use elicit_core::hosts::{FieldKind, FieldKinds};
use elicit_core::mrtr::{Ask, InputRequiredResult};
use elicit_core::schema::{
    EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Property, RequestedSchema,
};
use elicit_core::{Elicit, Elicitation, FormRequest};
use serde_json::{Map, Value, json};

mod common;

use common::*;

/// A table for how many, a budget, and diets: an integer, a number and a multi-select, none of
/// which Codex draws.
fn booking() -> FormRequest {
    let schema = RequestedSchema::new(vec![
        Property::new("size", IntegerSchema::new().minimum(1).maximum(12)).title("Party size"),
        Property::new("budget", NumberSchema::new().minimum(10.0).maximum(500.0)).title("Budget"),
        Property::new(
            "diet",
            MultiSelectSchema::new(vec![
                EnumOption::titled("veg", "Vegetarian"),
                EnumOption::titled("gf", "Gluten free"),
            ])
            .min_items(1),
        )
        .title("Diet"),
    ])
    .unwrap();
    FormRequest::new("Book a table", schema).unwrap()
}

/// The booking asked as a host that draws `kinds` draws it.
fn book(kinds: FieldKinds) -> Ask<Elicitation<Map<String, Value>>> {
    Ask::form_request_drawn("book", booking(), kinds)
}

/// What Codex sends for the adapted booking: text for the numbers, a box per diet.
fn adapted_answer() -> Value {
    accept(json!({"size": "4", "budget": "80.5", "diet.0": true, "diet.1": false}))
}

/// What a host that draws the whole booking sends.
fn whole_answer() -> Value {
    accept(json!({"size": 4, "budget": 80.5, "diet": ["veg"]}))
}

fn booked() -> Elicitation<Map<String, Value>> {
    let content = json!({"size": 4, "budget": 80.5, "diet": ["veg"]});
    let Value::Object(content) = content else {
        unreachable!()
    };
    Elicitation::Accept(content)
}

/// The `requestedSchema` properties of the request under `key`.
fn properties<'a>(result: &'a InputRequiredResult, key: &str) -> &'a Map<String, Value> {
    let request = result.input_requests().get(key).unwrap();
    request["params"]["requestedSchema"]["properties"]
        .as_object()
        .unwrap()
}

/// The round's sealed state, opened.
fn envelope(params: &Value, result: &InputRequiredResult) -> Value {
    let state = result.request_state().unwrap();
    keys()
        .open::<Value>(state, &binding(params), NOW)
        .unwrap()
        .into_value()
}

/// The kinds a retry's client may be given: Codex's, another host's, none to adapt.
const RETRIES: [FieldKinds; 3] = [
    FieldKinds::BASIC,
    FieldKinds::ALL.without(FieldKind::Number),
    FieldKinds::ALL,
];

#[test]
fn a_retry_is_read_with_the_adaptation_its_question_was_sent_with() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, book(FieldKinds::BASIC));
    assert_eq!(properties(&first, "book")["size"]["enum"][3], "4");
    assert_eq!(properties(&first, "book")["diet.0"]["type"], "boolean");
    let retried = retry(&params, &first, json!({ "book": adapted_answer() }));
    for kinds in RETRIES {
        let mut run = round::<()>(&rounds, &retried).unwrap();
        let answer = ready(run.answer(book(kinds)).unwrap());
        assert_eq!(answer, booked(), "a retry whose client is given {kinds:?}");
    }
}

#[test]
fn an_answer_that_does_not_fit_the_sealed_form_is_asked_again_as_sealed() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, book(FieldKinds::BASIC));
    // The retry's client claims to draw everything, and answers the whole form: read against
    // the adapted question, its diet is no box ticked, which the form's rules refuse.
    let retried = retry(&params, &first, json!({ "book": whole_answer() }));
    let mut run = round::<()>(&rounds, &retried).unwrap();
    let again = ask(run.answer(book(FieldKinds::ALL)).unwrap());
    let [(key, reason)] = run.unusable_answers() else {
        panic!("one unusable answer")
    };
    assert_eq!(key, "book");
    assert!(reason.contains("diet"), "{reason}");
    // Asked again as the question was first sent: adapted.
    assert_eq!(properties(&again, "book")["diet.0"]["type"], "boolean");
    assert_eq!(properties(&again, "book")["budget"]["type"], "string");
    assert!(properties(&again, "book").get("diet").is_none());
    assert!(
        message_of(&again, "book").contains("Diet"),
        "{}",
        message_of(&again, "book")
    );
}

#[test]
fn a_form_sent_as_it_is_is_read_as_it_is_whatever_the_retry_claims() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, book(FieldKinds::ALL));
    assert_eq!(properties(&first, "book")["size"]["type"], "integer");
    let retried = retry(&params, &first, json!({ "book": whole_answer() }));
    for kinds in RETRIES {
        let mut run = round::<()>(&rounds, &retried).unwrap();
        let answer = ready(run.answer(book(kinds)).unwrap());
        assert_eq!(answer, booked(), "a retry whose client is given {kinds:?}");
    }
}

#[test]
fn an_answer_carried_forward_keeps_its_adaptation() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, book(FieldKinds::BASIC));
    let retried = retry(&params, &first, json!({ "book": adapted_answer() }));
    // Round 2: the booking is read, then the window is asked; the booking is carried.
    let mut run = round::<()>(&rounds, &retried).unwrap();
    assert_eq!(
        ready(run.answer(book(FieldKinds::BASIC)).unwrap()),
        booked()
    );
    let second = ask(run.answer(Ask::form::<Window>("window")).unwrap());
    // Round 3, from a client that would be given the whole form: the carried booking is read
    // as it was asked.
    let retried = retry(
        &params,
        &second,
        json!({ "window": accept(json!({"hour": 9})) }),
    );
    let mut run = round::<()>(&rounds, &retried).unwrap();
    assert_eq!(ready(run.answer(book(FieldKinds::ALL)).unwrap()), booked());
    let window = ready(run.answer(Ask::form::<Window>("window")).unwrap());
    assert_eq!(window, Elicitation::Accept(Window { hour: 9 }));
}

/// The state grows by `"d":{"<key>":<kinds>}` for an adapted form only (`,"d":{"book":0}`: 15
/// bytes before sealing); a form sent as it is, or any other question, adds nothing.
#[test]
fn the_state_records_only_an_adapted_forms_kinds() {
    let rounds = rounds();
    let params = call();
    let adapted = asked(&rounds, &params, book(FieldKinds::BASIC));
    assert_eq!(envelope(&params, &adapted)["d"], json!({"book": 0}));
    let some = FieldKinds::ALL.without(FieldKind::MultiSelect);
    let adapted = asked(&rounds, &params, book(some));
    assert_eq!(envelope(&params, &adapted)["d"], json!({"book": 3}));
    for unadapted in [
        asked(&rounds, &params, book(FieldKinds::ALL)),
        asked(&rounds, &params, Ask::form_request("book", booking())),
        // A form with nothing Codex cannot draw is sent as it is, even to Codex.
        asked(
            &rounds,
            &params,
            Ask::form_request_drawn("window", Window::form_request(), FieldKinds::ALL),
        ),
    ] {
        assert!(envelope(&params, &unadapted).get("d").is_none());
    }
}

/// A derived form's question is cached once per type, unadapted; adapted, it is cached apart,
/// per adaptation, never in its place: asked either way in any order, each asks its own schema.
#[test]
fn a_derived_forms_cached_question_is_never_the_adapted_one() {
    let hour = |ask: &Ask<Elicitation<Window>>| {
        ask.request()["params"]["requestedSchema"]["properties"]["hour"]["type"].clone()
    };
    let drawn = |kinds| Ask::form_request_drawn("window", Window::form_request(), kinds);
    for _ in 0..2 {
        assert_eq!(hour(&Ask::form::<Window>("window")), "integer");
        assert_eq!(hour(&drawn(FieldKinds::BASIC)), "string");
        assert_eq!(hour(&drawn(FieldKinds::ALL)), "integer");
        assert_eq!(hour(&drawn(FieldKinds::BASIC)), "string");
    }
}

/// A party: an integer and a multi-select, so each adaptation asks its own schema.
#[derive(elicit_derive::Elicit, Debug, PartialEq)]
#[elicit(crate = elicit_core)]
struct Party {
    /// How many.
    #[elicit(minimum = 1, maximum = 8)]
    size: u8,
    /// Diets.
    diets: Vec<Diet>,
}

#[derive(elicit_derive::Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(crate = elicit_core, rename_all = "lowercase")]
enum Diet {
    Vegetarian,
    Vegan,
}

/// A derived form is adapted once per adaptation (its type and the kinds): a second ask for
/// the same kinds sends the same cached question (the same request, not one made again);
/// other kinds send their own; none is the unadapted question, nor another form changed at
/// run time.
#[test]
fn a_derived_form_is_cached_per_adaptation() {
    let drawn = |kinds| Ask::form_request_drawn("party", Party::form_request(), kinds);
    let no_multi = FieldKinds::ALL.without(FieldKind::MultiSelect);
    let no_integer = FieldKinds::ALL.without(FieldKind::Integer);
    let kinds = [FieldKinds::BASIC, no_multi, no_integer];
    let unadapted = Ask::form::<Party>("party");
    for _ in 0..2 {
        let first: Vec<_> = kinds.iter().map(|&k| drawn(k)).collect();
        let again: Vec<_> = kinds.iter().map(|&k| drawn(k)).collect();
        for (a, b) in first.iter().zip(&again) {
            // The same question, borrowed from one cache slot: the same address.
            assert!(std::ptr::eq(a.request(), b.request()));
            assert!(!std::ptr::eq(a.request(), unadapted.request()));
            assert_ne!(a.request(), unadapted.request());
        }
        for (i, a) in first.iter().enumerate() {
            for b in first.iter().skip(i + 1) {
                assert_ne!(a.request(), b.request());
            }
        }
        let schema = |ask: &Ask<_>, field: &str| {
            ask.request()["params"]["requestedSchema"]["properties"][field].clone()
        };
        let [basic, no_multi, no_integer] = [&first[0], &first[1], &first[2]];
        assert_eq!(schema(basic, "size")["type"], "string");
        assert_eq!(schema(basic, "diets"), Value::Null);
        assert_eq!(schema(no_multi, "size")["type"], "integer");
        assert_eq!(schema(no_multi, "diets"), Value::Null);
        assert_eq!(schema(no_integer, "size")["type"], "string");
        assert_eq!(schema(no_integer, "diets")["type"], "array");
        // Unadapted, still the type's own question.
        assert_eq!(
            schema(&Ask::form::<Party>("party"), "size")["type"],
            "integer"
        );
        // A form changed at run time is not the type's: never taken from its cache.
        let changed = Party::form_request().with_message("Who comes?").unwrap();
        let changed = Ask::form_request_drawn("party", changed, FieldKinds::BASIC);
        assert_eq!(changed.request()["params"]["message"], "Who comes?");
        assert!(!std::ptr::eq(changed.request(), basic.request()));
    }
}
