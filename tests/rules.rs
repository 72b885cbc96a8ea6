//! Every value rule of a schema, one test each, named after the core's function that states it
//! (`elicit-core/src/requested/rules.rs`): a schema built by hand that breaks the rule, and the
//! error it gets at run time. A derived form that breaks the same rule fails to compile, through
//! the same function: `tests/ui/rules/<the same name>.rs`.

use std::borrow::Cow;

use mcp_elicit::{
    FormRequest, UrlRequest,
    schema::{
        EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Property, PropertyKind,
        RequestedSchema, SchemaError, SelectSchema, StringSchema,
    },
    url_mode::UrlRequestError,
};

fn refused(properties: Vec<Property>) -> SchemaError {
    RequestedSchema::new(properties).expect_err("the schema breaks a rule")
}

fn invalid_default(property: Property) -> String {
    match refused(vec![property]) {
        SchemaError::InvalidDefault { property, reason } => {
            assert_eq!(property, "p");
            reason
        }
        other => panic!("expected an invalid default, got {other:?}"),
    }
}

fn options(values: &[&'static str]) -> Vec<EnumOption> {
    values.iter().copied().map(EnumOption::new).collect()
}

fn items(values: &[&'static str]) -> Vec<Cow<'static, str>> {
    values.iter().copied().map(Cow::Borrowed).collect()
}

#[test]
fn message_is_not_empty() {
    let schema = RequestedSchema::new(vec![Property::new("p", StringSchema::new())]).unwrap();
    for message in ["", "   ", "\n\t", "\u{3000}"] {
        assert_eq!(
            FormRequest::new(message, schema.clone()).unwrap_err(),
            SchemaError::EmptyMessage
        );
        assert_eq!(
            UrlRequest::new(message, "https://example.com/connect").unwrap_err(),
            UrlRequestError::EmptyMessage
        );
    }
    assert!(FormRequest::new(" Why? ", schema).is_ok());
}

#[test]
fn name_is_not_empty() {
    assert_eq!(
        refused(vec![Property::new("", StringSchema::new())]),
        SchemaError::EmptyName
    );
}

#[test]
fn name_is_unique() {
    assert_eq!(
        refused(vec![
            Property::new("email", StringSchema::new()),
            Property::new("name", StringSchema::new()),
            Property::new("email", IntegerSchema::new()),
        ]),
        SchemaError::DuplicateProperty {
            name: "email".into()
        }
    );
}

#[test]
fn option_value_is_unique() {
    // Owned values too: the rule compares the text, however it is held.
    let values = vec![
        EnumOption::new(String::from("a")),
        EnumOption::new("b"),
        EnumOption::titled(String::from("a"), "A again"),
    ];
    let kinds: [PropertyKind; 2] = [
        SelectSchema::new(values.clone()).into(),
        MultiSelectSchema::new(values).into(),
    ];
    for kind in kinds {
        assert_eq!(
            refused(vec![Property::new("p", kind)]),
            SchemaError::DuplicateOption {
                property: "p".into(),
                value: "a".into()
            }
        );
    }
}

#[test]
fn option_count_fits() {
    let options = |count: usize| -> Vec<EnumOption> {
        (0..count)
            .map(|o| EnumOption::new(format!("o{o}")))
            .collect()
    };
    let most = mcp_elicit::limits::MAX_OPTIONS;
    let kinds = |count| -> [PropertyKind; 2] {
        [
            SelectSchema::new(options(count)).into(),
            MultiSelectSchema::new(options(count)).into(),
        ]
    };
    for kind in kinds(most) {
        assert!(RequestedSchema::new(vec![Property::new("p", kind)]).is_ok());
    }
    for kind in kinds(most + 1) {
        assert_eq!(
            refused(vec![Property::new("p", kind)]),
            SchemaError::TooManyOptions {
                property: "p".into(),
                count: most + 1,
                limit: most
            }
        );
    }
}

#[test]
fn option_index() {
    assert_eq!(
        invalid_default(Property::new(
            "p",
            SelectSchema::new(options(&["a", "b"])).default_value("c")
        )),
        "\"c\" is not one of the offered options"
    );
    assert_eq!(
        invalid_default(Property::new(
            "p",
            MultiSelectSchema::new(options(&["a", "b"])).default_value(items(&["a", "c"]))
        )),
        "\"c\" is not one of the offered options"
    );
}

#[test]
fn min_items_fit_the_options() {
    let too_many = SchemaError::MinItemsExceedsOptions {
        property: "p".into(),
    };
    assert_eq!(
        refused(vec![Property::new(
            "p",
            MultiSelectSchema::new(options(&["a", "b"])).min_items(3)
        )]),
        too_many
    );
    // Options supplied at run time are held to it when they are supplied.
    let schema = RequestedSchema::new(vec![Property::new(
        "p",
        MultiSelectSchema::dynamic().min_items(3),
    )])
    .unwrap();
    let request = FormRequest::new("Pick three.", schema).unwrap();
    assert_eq!(
        request.with_options("p", options(&["a", "b"])).unwrap_err(),
        too_many
    );
}

#[test]
fn lengths_are_ordered() {
    assert_eq!(
        refused(vec![Property::new(
            "p",
            StringSchema::new().min_length(3).max_length(2)
        )]),
        SchemaError::InvertedBounds {
            property: "p".into(),
            bounds: "minLength > maxLength"
        }
    );
}

#[test]
fn item_counts_are_ordered() {
    assert_eq!(
        refused(vec![Property::new(
            "p",
            MultiSelectSchema::new(options(&["a", "b", "c"]))
                .min_items(2)
                .max_items(1)
        )]),
        SchemaError::InvertedBounds {
            property: "p".into(),
            bounds: "minItems > maxItems"
        }
    );
}

#[test]
fn integer_bounds_are_ordered() {
    assert_eq!(
        refused(vec![Property::new(
            "p",
            IntegerSchema::new().minimum(1).maximum(0)
        )]),
        SchemaError::InvertedBounds {
            property: "p".into(),
            bounds: "minimum > maximum"
        }
    );
}

#[test]
fn number_bounds_are_ordered() {
    assert_eq!(
        refused(vec![Property::new(
            "p",
            NumberSchema::new().minimum(0.5).maximum(0.25)
        )]),
        SchemaError::InvertedBounds {
            property: "p".into(),
            bounds: "minimum > maximum"
        }
    );
}

#[test]
fn number_is_finite() {
    for kind in [
        NumberSchema::new().minimum(f64::NAN),
        NumberSchema::new().maximum(f64::INFINITY),
        NumberSchema::new().default_value(f64::NEG_INFINITY),
    ] {
        assert_eq!(
            refused(vec![Property::new("p", kind)]),
            SchemaError::NotFinite {
                property: "p".into()
            }
        );
    }
}

#[test]
fn string_fits_a_reply() {
    let huge = "x".repeat(mcp_elicit::limits::MAX_STRING_BYTES + 1);
    assert_eq!(
        invalid_default(Property::new("p", StringSchema::new().default_value(huge))),
        format!(
            "is {} bytes, more than the {}-byte limit for a string in a reply",
            mcp_elicit::limits::MAX_STRING_BYTES + 1,
            mcp_elicit::limits::MAX_STRING_BYTES
        )
    );
}

#[test]
fn length_is_within() {
    assert_eq!(
        invalid_default(Property::new(
            "p",
            StringSchema::new().min_length(4).default_value("abc")
        )),
        "must be at least 4 characters long (minLength) but has 3"
    );
    // Characters, not bytes: three characters in nine bytes.
    assert_eq!(
        invalid_default(Property::new(
            "p",
            StringSchema::new().max_length(2).default_value("日本語")
        )),
        "must be at most 2 characters long (maxLength) but has 3"
    );
}

#[test]
fn integer_is_within() {
    assert_eq!(
        invalid_default(Property::new(
            "p",
            IntegerSchema::new().minimum(1).default_value(0)
        )),
        "must be at least 1 (minimum)"
    );
    assert_eq!(
        invalid_default(Property::new(
            "p",
            IntegerSchema::new().maximum(12).default_value(20)
        )),
        "must be at most 12 (maximum)"
    );
}

#[test]
fn number_is_within() {
    assert_eq!(
        invalid_default(Property::new(
            "p",
            NumberSchema::new().minimum(0.5).default_value(0.25)
        )),
        "must be at least 0.5 (minimum)"
    );
    assert_eq!(
        invalid_default(Property::new(
            "p",
            NumberSchema::new().maximum(4.0).default_value(4.25)
        )),
        "must be at most 4 (maximum)"
    );
}

#[test]
fn item_count_is_within() {
    let abc = || MultiSelectSchema::new(options(&["a", "b", "c"]));
    assert_eq!(
        invalid_default(Property::new(
            "p",
            abc().min_items(2).default_value(items(&["a"]))
        )),
        "must select at least 2 (minItems) but selects 1"
    );
    assert_eq!(
        invalid_default(Property::new(
            "p",
            abc().max_items(1).default_value(items(&["a", "b"]))
        )),
        "must select at most 1 (maxItems) but selects 2"
    );
}

#[test]
fn selection_is_new() {
    assert_eq!(
        invalid_default(Property::new(
            "p",
            MultiSelectSchema::new(options(&["a", "b"])).default_value(items(&["b", "a", "b"]))
        )),
        "selects \"b\" more than once"
    );
}

/// A derived schema is built by the same checking constructor, after the derive held it to the
/// same rules at compile time: an error there is a bug of this crate, and says so.
#[test]
#[should_panic(expected = "bug in mcp-elicit: a derived schema passed its rules at compile time")]
fn a_derived_schema_breaking_a_rule_at_run_time_is_a_bug_of_mcp_elicit() {
    let _ = mcp_elicit::__private::schema(vec![Property::new(
        "p",
        StringSchema::new().min_length(3).max_length(2),
    )]);
}
