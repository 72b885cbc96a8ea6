//! The emitter and the client reader agree on every revision: each form kind, emitted with
//! `FormRequest::for_revision` and read back with `client::read_request` on the same revision,
//! gives no `Note` and describes the same fields; a kind a revision cannot express is refused
//! with a `RevisionError` before anything is written.

use elicit_core::client::{Incoming, read_request};
use elicit_core::{
    FormRequest, Revision,
    protocol::RevisionError,
    schema::{
        BooleanSchema, EnumOption, Format, IntegerSchema, MultiSelectSchema, NumberSchema,
        Property, PropertyKind, RequestedSchema, SelectSchema, SelectStyle, StringSchema, Text,
    },
};
use serde_json::Value;

fn untitled() -> Vec<EnumOption> {
    vec![EnumOption::new("stg"), EnumOption::new("prd")]
}

fn titled() -> Vec<EnumOption> {
    vec![
        EnumOption::titled("stg", "Staging"),
        EnumOption::titled("prd", "Production"),
    ]
}

/// Every kind a form can hold, each without and with a default: (what it is, the kind).
fn kinds() -> Vec<(String, PropertyKind)> {
    let mut kinds: Vec<(String, PropertyKind)> = vec![
        ("boolean".into(), BooleanSchema::new().into()),
        (
            "boolean, default".into(),
            BooleanSchema::new().default_value(true).into(),
        ),
        ("integer".into(), IntegerSchema::new().into()),
        (
            "integer, bounded, default".into(),
            IntegerSchema::new()
                .minimum(1)
                .maximum(10)
                .default_value(2)
                .into(),
        ),
        ("number".into(), NumberSchema::new().into()),
        (
            "number, bounded, default".into(),
            NumberSchema::new()
                .minimum(0.0)
                .maximum(1.0)
                .default_value(0.5)
                .into(),
        ),
        ("string".into(), StringSchema::new().into()),
        (
            "string, default".into(),
            StringSchema::new().default_value("x").into(),
        ),
        (
            "string, length bounds".into(),
            StringSchema::new().min_length(1).max_length(8).into(),
        ),
        (
            "string, length bounds, default".into(),
            StringSchema::new()
                .min_length(1)
                .max_length(8)
                .default_value("abc")
                .into(),
        ),
    ];
    for (format, default) in [
        (Format::Email, "ada@example.com"),
        (Format::Uri, "https://example.com/a"),
        (Format::Date, "2026-07-28"),
        (Format::DateTime, "2026-07-28T12:00:00Z"),
    ] {
        let name = format.as_str();
        kinds.push((
            format!("string, {name}"),
            StringSchema::new().format(format).into(),
        ));
        kinds.push((
            format!("string, {name}, default"),
            StringSchema::new()
                .format(format)
                .default_value(default)
                .into(),
        ));
    }
    kinds.extend([
        (
            "single-select, untitled".into(),
            SelectSchema::new(untitled()).into(),
        ),
        (
            "single-select, untitled, default".into(),
            SelectSchema::new(untitled()).default_value("prd").into(),
        ),
        (
            "single-select, titled (oneOf)".into(),
            SelectSchema::new(titled()).into(),
        ),
        (
            "single-select, titled (oneOf), default".into(),
            SelectSchema::new(titled()).default_value("prd").into(),
        ),
        (
            "single-select, titled (enumNames)".into(),
            SelectSchema::new(titled())
                .style(SelectStyle::Legacy)
                .into(),
        ),
        (
            "single-select, titled (enumNames), default".into(),
            SelectSchema::new(titled())
                .style(SelectStyle::Legacy)
                .default_value("prd")
                .into(),
        ),
        (
            "multi-select, untitled".into(),
            MultiSelectSchema::new(untitled()).into(),
        ),
        (
            "multi-select, untitled, bounded, default".into(),
            MultiSelectSchema::new(untitled())
                .min_items(1)
                .max_items(2)
                .default_value(vec![Text::from("stg")])
                .into(),
        ),
        (
            "multi-select, titled".into(),
            MultiSelectSchema::new(titled()).into(),
        ),
        (
            "multi-select, titled, default".into(),
            MultiSelectSchema::new(titled())
                .default_value(vec![Text::from("stg"), Text::from("prd")])
                .into(),
        ),
    ]);
    kinds
}

/// Every kind, required and optional, with a title and a description on some.
fn properties() -> Vec<(String, Property)> {
    let mut all = Vec::new();
    for (index, (what, kind)) in kinds().into_iter().enumerate() {
        for required in [true, false] {
            let mut property = Property::new("field", kind.clone()).required(required);
            if index % 2 == 0 {
                property = property
                    .title("The field")
                    .description("What the field is for.");
            }
            let what = format!("{what}, {}", if required { "required" } else { "optional" });
            all.push((what, property));
        }
    }
    all
}

fn form(property: &Property) -> FormRequest {
    let schema = RequestedSchema::new(vec![property.clone()])
        .unwrap_or_else(|e| panic!("{}: {e}", property.name()));
    FormRequest::new("Answer, please.", schema).unwrap_or_else(|e| panic!("{e}"))
}

fn emit(request: &FormRequest, revision: Revision) -> Result<Value, RevisionError> {
    let revisioned = request.for_revision(revision)?;
    Ok(serde_json::to_value(revisioned).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn every_kind_reads_back_on_every_revision_that_can_express_it_without_notes() {
    let mut checked = 0;
    for revision in Revision::ALL {
        for (what, property) in properties() {
            let request = form(&property);
            let multi = matches!(property.kind(), PropertyKind::MultiSelect(_));
            let params = match emit(&request, revision) {
                Ok(params) => params,
                Err(error) => {
                    assert!(
                        multi && !revision.has_multi_select(),
                        "{what} on {revision}: refused: {error}"
                    );
                    assert_eq!(
                        error,
                        RevisionError::MultiSelectUnsupported {
                            property: "field".to_owned(),
                            revision,
                        },
                        "{what} on {revision}"
                    );
                    continue;
                }
            };
            assert!(
                !multi || revision.has_multi_select(),
                "{what} on {revision}: written although the revision has no multi-select"
            );
            let Incoming::Form(read) = read_request(&params, revision)
                .unwrap_or_else(|e| panic!("{what} on {revision}: not read back: {e}\n{params}"))
            else {
                panic!("{what} on {revision}: read back as a URL request");
            };
            assert_eq!(
                read.notes(),
                [],
                "{what} on {revision}: the reader notes what the emitter wrote:\n{params}"
            );
            assert_eq!(read.message(), "Answer, please.");

            // The same fields: names, required, title and description as asked, and the read
            // form writes the same request again.
            let [back] = read.schema().properties() else {
                panic!("{what} on {revision}: not one property read back");
            };
            assert_eq!(back.name(), property.name(), "{what} on {revision}");
            assert_eq!(back.is_required(), property.is_required(), "{what}");
            assert_eq!(back.title_text(), property.title_text(), "{what}");
            assert_eq!(
                back.description_text(),
                property.description_text(),
                "{what}"
            );
            let again = FormRequest::new(read.message().to_owned(), read.schema().clone())
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                emit(&again, revision).unwrap_or_else(|e| panic!("{e}")),
                params,
                "{what} on {revision}: the read-back form is written differently"
            );
            // Where the revision drops nothing (every default, `oneOf`), the very same property.
            if revision.has_defaults_beyond_booleans() && revision.has_one_of_selects() {
                assert_eq!(back, &property, "{what} on {revision}");
            }
            checked += 1;
        }
    }
    // 3 revisions × 56 properties, less the 2025-06-18 multi-selects (4 kinds × 2).
    assert_eq!(checked, 3 * properties().len() - 8);
}

/// The reader knows the profile too: what 2025-06-18 lacks, written anyway, is noted. (Without
/// this, the test above could not catch an emitter that wrote it.)
#[test]
fn what_2025_06_18_lacks_is_a_note_when_read_back() {
    let revision = Revision::V2025_06_18;
    let written_for_later = |property: Property| {
        let params =
            emit(&form(&property), Revision::V2025_11_25).unwrap_or_else(|e| panic!("{e}"));
        let mut params = params;
        if let Some(params) = params.as_object_mut() {
            params.remove("mode");
        }
        read_request(&params, revision).unwrap_or_else(|e| panic!("{e}"))
    };
    for (what, property) in [
        (
            "a string's default",
            Property::new("name", StringSchema::new().default_value("x")),
        ),
        (
            "an integer's default",
            Property::new("count", IntegerSchema::new().default_value(2)),
        ),
        (
            "a number's default",
            Property::new("ratio", NumberSchema::new().default_value(0.5)),
        ),
        (
            "a select's default",
            Property::new("env", SelectSchema::new(untitled()).default_value("stg")),
        ),
        (
            "a oneOf select",
            Property::new("env", SelectSchema::new(titled())),
        ),
        (
            "a multi-select",
            Property::new("envs", MultiSelectSchema::new(untitled())),
        ),
    ] {
        let incoming = written_for_later(property);
        assert_eq!(incoming.notes().len(), 1, "{what}: {:?}", incoming.notes());
    }
    // A boolean's default and an `enumNames` select are 2025-06-18's own.
    for property in [
        Property::new("ok", BooleanSchema::new().default_value(true)),
        Property::new(
            "env",
            SelectSchema::new(titled()).style(SelectStyle::Legacy),
        ),
    ] {
        assert_eq!(written_for_later(property).notes(), []);
    }
}
