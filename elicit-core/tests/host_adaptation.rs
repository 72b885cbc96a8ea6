//! A form adapted to what a host draws (`hosts::adapt`) round-trips: adapt, answer as the host
//! would (text for numbers, an option's text for a small integer, booleans for a
//! multi-select), restore, and the form reads the same typed value, or refuses with the same
//! reasons, as it does the same answer from a host that drew the form as it was.

use elicit_core::hosts::FieldKinds;
use elicit_core::reply::Action;
use elicit_core::schema::{
    EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Property, RequestedSchema,
    StringSchema,
};
use elicit_core::{Elicitation, FormRequest, Revision};
use serde_json::{Map, Value, json};

fn form() -> FormRequest {
    let schema = RequestedSchema::new(vec![
        Property::new("name", StringSchema::new()).title("Name"),
        Property::new("size", IntegerSchema::new().minimum(1).maximum(12)).title("Party size"),
        Property::new("budget", NumberSchema::new().minimum(10.0).maximum(500.0)).title("Budget"),
        Property::new("guests", IntegerSchema::new().minimum(0).maximum(100))
            .title("Guests")
            .optional(),
        Property::new(
            "diet",
            MultiSelectSchema::new(vec![
                EnumOption::titled("veg", "Vegetarian"),
                EnumOption::titled("gf", "Gluten free"),
                EnumOption::titled("nuts", "No nuts"),
            ])
            .min_items(1)
            .max_items(2),
        )
        .title("Diet"),
    ])
    .unwrap();
    FormRequest::new("Book a table", schema).unwrap()
}

/// What the form reads from `original` (as a host that draws everything sends it) and from
/// `adapted` (what Codex sends for the adapted form), in words: the typed value, or why not.
fn read_both(original: Value, adapted: Value) -> (String, String) {
    let form = form();
    let (_, adaptation) = form.adapted(FieldKinds::BASIC).expect("adapted");
    let words = |read: Result<Elicitation<Map<String, Value>>, _>| match read {
        Ok(Elicitation::Accept(map)) => format!("accept {}", Value::Object(map)),
        Ok(other) => format!("{other:?}"),
        Err(error) => format!("re-ask: {}", form.explain(&error)),
    };
    (
        words(form.parse_parts(Action::Accept, Some(original))),
        words(form.parse_parts(Action::Accept, adaptation.restore(Some(adapted)))),
    )
}

#[test]
fn an_adapted_answer_reads_as_the_same_typed_value() {
    let (original, adapted) = read_both(
        json!({"name": "Ada", "size": 4, "budget": 80.5, "guests": 3, "diet": ["veg", "nuts"]}),
        json!({"name": "Ada", "size": "4", "budget": "80.5", "guests": "3",
               "diet.0": true, "diet.1": false, "diet.2": true}),
    );
    assert_eq!(original, adapted);
    assert!(original.starts_with("accept "), "{original}");
}

#[test]
fn an_adapted_answer_out_of_bounds_is_reasked_for_the_same_reasons() {
    let (original, adapted) = read_both(
        json!({"name": "Ada", "size": 4, "budget": 900, "guests": 300, "diet": ["veg", "gf", "nuts"]}),
        json!({"name": "Ada", "size": "4", "budget": "900", "guests": "300",
               "diet.0": true, "diet.1": true, "diet.2": true}),
    );
    assert_eq!(original, adapted);
    assert!(
        original.contains("Budget must be at most 500"),
        "{original}"
    );
    assert!(original.contains("Diet"), "{original}");
}

#[test]
fn nothing_ticked_is_reasked_as_an_empty_list() {
    let (original, adapted) = read_both(
        json!({"name": "Ada", "size": 2, "budget": 20, "diet": []}),
        json!({"name": "Ada", "size": "2", "budget": "20", "guests": "",
               "diet.0": false, "diet.1": false, "diet.2": false}),
    );
    assert_eq!(original, adapted);
    assert!(original.starts_with("re-ask: Diet"), "{original}");
}

#[test]
fn text_that_spells_no_number_is_refused_as_the_wrong_type() {
    let (original, adapted) = read_both(
        json!({"name": "Ada", "size": 2, "budget": "lots", "diet": ["gf"]}),
        json!({"name": "Ada", "size": "2", "budget": "lots", "diet.1": true}),
    );
    assert_eq!(original, adapted);
    assert!(original.starts_with("re-ask: Budget"), "{original}");
}

#[test]
fn a_multi_select_is_sent_on_2025_06_18_as_booleans() {
    let form = form();
    // Unadapted, 2025-06-18 cannot write a multi-select: refused before it is sent.
    assert!(form.for_revision(Revision::V2025_06_18).is_err());
    let (sent, _) = form.adapted(FieldKinds::BASIC).unwrap();
    let wire = serde_json::to_value(sent.for_revision(Revision::V2025_06_18).unwrap()).unwrap();
    let properties = &wire["requestedSchema"]["properties"];
    assert_eq!(
        properties["diet.2"],
        json!({"type": "boolean", "title": "Diet: No nuts"})
    );
    assert_eq!(properties["size"]["enum"][0], "1");
    assert_eq!(properties["guests"]["type"], "string");
    assert_eq!(
        properties["guests"]["description"],
        "A whole number from 0 to 100."
    );
    assert_eq!(wire["message"], "Book a table");
}

#[test]
fn a_host_that_draws_everything_gets_the_form_as_it_is() {
    assert!(form().adapted(FieldKinds::ALL).is_none());
}
