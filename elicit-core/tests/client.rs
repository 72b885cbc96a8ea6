//! The client's side: what a host reads from a server's `elicitation/create`, what it refuses,
//! what it notes, and the answer it builds.

use elicit_core::{
    FormRequest, Revision, UrlRequest,
    reply::Action,
    schema::{
        BooleanSchema, EnumOption, Format, IntegerSchema, MultiSelectSchema, NumberSchema,
        Property, PropertyKind, RequestedSchema, SchemaError, SelectSchema, StringSchema,
    },
    url_mode::UrlError,
};
use elicit_core::{
    client::{
        Incoming, IncomingError, IncomingInput, Note, answer, read_input_required, read_request,
    },
    limits::{
        MAX_DEFAULT_BYTES, MAX_DESCRIPTION_BYTES, MAX_FORM_OPTIONS, MAX_INPUT_REQUESTS,
        MAX_MESSAGE_BYTES, MAX_NAME_BYTES, MAX_OPTIONS, MAX_PROPERTIES, MAX_TITLE_BYTES,
    },
};
use serde_json::{Map, Value, json};

const REVISIONS: [Revision; 3] = [
    Revision::V2025_06_18,
    Revision::V2025_11_25,
    Revision::V2026_07_28,
];

/// A form with every kind of field, in an order that is not alphabetical.
fn every_kind() -> RequestedSchema {
    RequestedSchema::new(vec![
        Property::new(
            "name",
            StringSchema::new()
                .min_length(1)
                .max_length(40)
                .default_value("Ada"),
        )
        .title("Name"),
        Property::new("email", StringSchema::new().format(Format::Email))
            .description("Where to write")
            .optional(),
        Property::new(
            "replicas",
            IntegerSchema::new().minimum(1).maximum(10).default_value(2),
        ),
        Property::new("ratio", NumberSchema::new().minimum(0.0).maximum(1.0)).optional(),
        Property::new("confirm", BooleanSchema::new().default_value(false)),
        Property::new(
            "env",
            SelectSchema::new(vec![
                EnumOption::titled("stg", "Staging"),
                EnumOption::titled("prd", "Production"),
            ])
            .default_value("stg"),
        ),
        Property::new(
            "regions",
            MultiSelectSchema::new(vec![
                EnumOption::new("eu"),
                EnumOption::new("us"),
                EnumOption::new("ap"),
            ])
            .min_items(1)
            .max_items(2),
        )
        .optional(),
    ])
    .expect("a valid schema")
}

fn form_of(incoming: Incoming) -> elicit_core::client::IncomingForm {
    match incoming {
        Incoming::Form(form) => form,
        Incoming::Url(url) => panic!("expected a form, got {url:?}"),
    }
}

fn url_of(incoming: Incoming) -> elicit_core::client::IncomingUrl {
    match incoming {
        Incoming::Url(url) => url,
        Incoming::Form(form) => panic!("expected a URL request, got {form:?}"),
    }
}

fn names(schema: &RequestedSchema) -> Vec<&str> {
    schema.properties().iter().map(Property::name).collect()
}

/// The properties by name: the order a host reads is its `serde_json::Map`'s (sorted, unless
/// serde_json's `preserve_order` is on), which `a_form_keeps_the_servers_field_order` checks.
fn by_name(schema: &RequestedSchema) -> Vec<Property> {
    let mut properties = schema.properties().to_vec();
    properties.sort_by(|a, b| a.name().cmp(b.name()));
    properties
}

#[test]
fn what_this_crate_writes_for_a_revision_it_reads_back_unchanged() {
    let request = FormRequest::new("Deploy where?", every_kind()).unwrap();
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let params = serde_json::to_value(request.for_revision(revision).unwrap()).unwrap();
        let form = form_of(read_request(&params, revision).unwrap());
        assert_eq!(form.message(), "Deploy where?");
        assert_eq!(
            by_name(form.schema()),
            by_name(request.schema()),
            "{revision}"
        );
        assert_eq!(form.notes(), [], "{revision}");
    }
}

#[test]
fn the_oldest_revision_reads_back_with_its_own_shapes() {
    // 2025-06-18 writes selects as `enum` + `enumNames`, keeps only boolean defaults and has
    // no multi-select: without `regions`, the fields and their rules come back.
    let mut properties = every_kind().properties().to_vec();
    properties.retain(|p| p.name() != "regions");
    let schema = RequestedSchema::new(properties).unwrap();
    let request = FormRequest::new("Deploy where?", schema).unwrap();
    let params =
        serde_json::to_value(request.for_revision(Revision::V2025_06_18).unwrap()).unwrap();
    let form = form_of(read_request(&params, Revision::V2025_06_18).unwrap());
    let mut read = names(form.schema());
    read.sort_unstable();
    assert_eq!(
        read,
        ["confirm", "email", "env", "name", "ratio", "replicas"]
    );
    assert_eq!(form.notes(), []);
    let PropertyKind::Select(env) = form.schema().property("env").unwrap().kind() else {
        panic!("env is a select")
    };
    assert_eq!(env.options()[1].title(), Some("Production"));
}

#[test]
fn a_form_keeps_the_servers_field_order() {
    let params = json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object",
        "properties": {"zeta": {"type": "string"}, "alpha": {"type": "string"}, "mid": {"type": "boolean"}}}});
    let form = form_of(read_request(&params, Revision::V2025_11_25).unwrap());
    // serde_json keeps the text's order only with `preserve_order`; without it the map sorts.
    let expected: Vec<&str> = params["requestedSchema"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(names(form.schema()), expected);
}

#[test]
fn what_a_revision_does_not_have_is_noted() {
    let multi = json!({"type": "object", "properties": {
        "regions": {"type": "array", "items": {"enum": ["eu", "us"]}}}});
    let cases = [
        (
            json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
            Revision::V2025_11_25,
            "2025-11-25 requires `mode`",
        ),
        (
            json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
            Revision::V2025_06_18,
            "2025-06-18 has no `mode`",
        ),
        (
            json!({"message": "m", "requestedSchema": multi}),
            Revision::V2025_06_18,
            "`regions` is a multi-select, which 2025-06-18 does not have",
        ),
        (
            json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {
                "phone": {"type": "string", "format": "phone"}}}}),
            Revision::V2026_07_28,
            "`phone` has the format \"phone\", which no revision defines; it is read as plain text",
        ),
        (
            json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object",
                "properties": {}, "required": ["ghost"]}}),
            Revision::V2025_11_25,
            "`ghost` is required but is not a property",
        ),
        (
            json!({"mode": "url", "message": "m", "url": "https://example.com/a", "elicitationId": "x"}),
            Revision::V2026_07_28,
            "2026-07-28 has no `elicitationId`",
        ),
        (
            json!({"mode": "url", "message": "m", "url": "https://example.com/a"}),
            Revision::V2025_11_25,
            "2025-11-25 requires `elicitationId`",
        ),
    ];
    for (params, revision, rule) in cases {
        let incoming = read_request(&params, revision).unwrap();
        assert_eq!(
            incoming.notes(),
            [Note::Nonconformant(rule.to_owned())],
            "{params}"
        );
    }
}

#[test]
fn a_field_named_like_a_credential_is_noted() {
    let params = json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object",
        "properties": {"apiKey": {"type": "string"}, "card_number": {"type": "string"},
        "spinner": {"type": "boolean"}, "password": {"type": "string"}}}});
    let form = form_of(read_request(&params, Revision::V2025_11_25).unwrap());
    let noted: Vec<(&str, &str)> = form
        .notes()
        .iter()
        .map(|note| match note {
            Note::Credential { property, kind } => (property.as_str(), *kind),
            other => panic!("unexpected note {other:?}"),
        })
        .collect();
    assert_eq!(
        noted,
        [
            ("apiKey", "an API key"),
            ("card_number", "a payment card number"),
            ("password", "a password")
        ]
    );
    assert_eq!(
        form.notes()[0].to_string(),
        "`apiKey` looks like an API key: a server must not ask for one in a form"
    );
}

/// The name is not the only disguise: a field named `p` but titled "GitHub password", or named
/// `pw` and described as a PIN, is read with the same lexicon and noted the same way.
#[test]
fn a_field_titled_or_described_like_a_credential_is_noted() {
    let params = json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object",
    "properties": {
        "p": {"type": "string", "title": "GitHub password"},
        "pw": {"type": "string", "description": "The PIN of your card"},
        "code": {"type": "string", "title": "Code", "description": "Your one-time code"},
        "user": {"type": "string", "title": "User name", "description": "Who you are"},
        "spin": {"type": "boolean", "title": "Spinner", "description": "Show a spinner"}
    }}});
    let form = form_of(read_request(&params, Revision::V2025_11_25).unwrap());
    let mut noted: Vec<(&str, &str)> = form
        .notes()
        .iter()
        .map(|note| match note {
            Note::Credential { property, kind } => (property.as_str(), *kind),
            other => panic!("unexpected note {other:?}"),
        })
        .collect();
    // In the properties' order, which is the JSON's with serde_json's `preserve_order` (rmcp
    // turns it on) and sorted without it: compared sorted.
    noted.sort_unstable();
    assert_eq!(
        noted,
        [
            ("code", "a one-time password"),
            ("p", "a password"),
            ("pw", "a PIN")
        ]
    );
}

#[test]
fn a_request_a_host_cannot_show_is_refused_naming_the_member_and_the_rule() {
    let form = |properties: Value| json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": properties}});
    let refused = |params: Value| read_request(&params, Revision::V2026_07_28).unwrap_err();

    let nested = refused(form(
        json!({"address": {"type": "object", "properties": {}}}),
    ));
    assert_eq!(
        nested.to_string(),
        "`address` is a nested object: a form holds strings, numbers, booleans and selects only"
    );
    assert!(matches!(
        refused(form(json!({"when": {"type": "date"}}))),
        IncomingError::UnsupportedProperty { property, found } if property == "when" && found == "of type \"date\""
    ));
    assert_eq!(
        refused(form(json!({"n": {"type": "integer", "minimum": 1.5}}))).to_string(),
        "`requestedSchema.properties.n.minimum` must be a whole number within 64 bits"
    );
    assert_eq!(
        refused(json!({"mode": "form", "message": "m"})).to_string(),
        "`requestedSchema` must be an object"
    );
    assert_eq!(
        refused(json!("hello")).to_string(),
        "`params` must be an object"
    );
    assert_eq!(
        refused(json!({"mode": "dialog", "message": "m"})),
        IncomingError::UnknownMode
    );
    assert!(matches!(
        refused(form(json!({"env": {"type": "string", "enum": ["a", "a"]}}))),
        IncomingError::Schema(SchemaError::DuplicateOption { .. })
    ));
    assert!(matches!(
        refused(form(
            json!({"n": {"type": "integer", "maximum": 3, "default": 9}})
        )),
        IncomingError::Schema(SchemaError::InvalidDefault { .. })
    ));
}

#[test]
fn sizes_are_bounded_before_anything_is_shown() {
    let long = "x".repeat(MAX_MESSAGE_BYTES + 1);
    let error = read_request(
        &json!({"mode": "form", "message": long}),
        Revision::V2026_07_28,
    );
    assert!(matches!(
        error,
        Err(IncomingError::TooLarge { what: "bytes", .. })
    ));

    let many: Map<String, Value> = (0..=MAX_PROPERTIES)
        .map(|i| (format!("f{i}"), json!({"type": "boolean"})))
        .collect();
    let params = json!({"mode": "form", "message": "m",
        "requestedSchema": {"type": "object", "properties": many}});
    let error = read_request(&params, Revision::V2026_07_28);
    assert!(matches!(
        error,
        Err(IncomingError::TooLarge {
            what: "properties",
            ..
        })
    ));

    let options: Vec<String> = (0..5000).map(|i| format!("o{i}")).collect();
    let params = json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object",
        "properties": {"pick": {"type": "string", "enum": options}}}});
    let error = read_request(&params, Revision::V2026_07_28);
    assert!(matches!(
        error,
        Err(IncomingError::TooLarge {
            what: "options",
            ..
        })
    ));
}

/// A form of one property, `p`, as sent.
fn one_property(property: Value) -> Value {
    json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object",
        "properties": {"p": property}}})
}

/// `len` bytes: `x`s, then `tag`, so that values of one length differ only at their end.
fn padded(tag: usize, len: usize) -> String {
    let tag = tag.to_string();
    format!("{}{tag}", "x".repeat(len - tag.len()))
}

#[test]
fn every_string_a_host_shows_is_bounded_and_refused_naming_the_member_and_the_limit() {
    /// A property with one string of the given length in bytes.
    type WithLength = fn(usize) -> Value;
    // (the property, where that string is, its limit)
    let cases: [(WithLength, &str, usize); 9] = [
        (
            |n| json!({"type": "boolean", "title": "t".repeat(n)}),
            "p.title",
            MAX_TITLE_BYTES,
        ),
        (
            |n| json!({"type": "boolean", "description": "d".repeat(n)}),
            "p.description",
            MAX_DESCRIPTION_BYTES,
        ),
        (
            |n| json!({"type": "string", "oneOf": [{"const": "a", "title": "t".repeat(n)}]}),
            "p.oneOf[0].title",
            MAX_TITLE_BYTES,
        ),
        (
            |n| json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "t".repeat(n)]}),
            "p.enumNames[1]",
            MAX_TITLE_BYTES,
        ),
        (
            |n| json!({"type": "array", "items": {"anyOf": [{"const": "a"}, {"const": "v".repeat(n)}]}}),
            "p.items.anyOf[1].const",
            MAX_NAME_BYTES,
        ),
        (
            |n| json!({"type": "string", "enum": ["a", "v".repeat(n)]}),
            "p.enum[1]",
            MAX_NAME_BYTES,
        ),
        (
            |n| json!({"type": "string", "default": "v".repeat(n)}),
            "p.default",
            MAX_DEFAULT_BYTES,
        ),
        (
            |n| json!({"type": "string", "enum": ["a", "v".repeat(n.min(MAX_NAME_BYTES))], "default": "v".repeat(n)}),
            "p.default",
            MAX_NAME_BYTES,
        ),
        (
            |n| json!({"type": "array", "items": {"enum": ["a", "v".repeat(n.min(MAX_NAME_BYTES))]}, "default": ["a", "v".repeat(n)]}),
            "p.default[1]",
            MAX_NAME_BYTES,
        ),
    ];
    for (property, at, limit) in cases {
        let at = format!("requestedSchema.properties.{at}");
        let at_limit = read_request(&one_property(property(limit)), Revision::V2025_11_25);
        assert!(at_limit.is_ok(), "{at} at its limit: {at_limit:?}");
        let error =
            read_request(&one_property(property(limit + 1)), Revision::V2025_11_25).expect_err(&at);
        assert_eq!(
            error,
            IncomingError::TooLarge {
                at: at.clone(),
                what: "bytes",
                limit
            }
        );
        assert_eq!(
            error.to_string(),
            format!("`{at}` has more bytes than the limit of {limit}")
        );
    }
}

#[test]
fn options_are_bounded_per_select_and_in_all_the_form() {
    let select = |from: usize, count: usize| {
        let values: Vec<String> = (from..from + count).map(|o| format!("o{o}")).collect();
        json!({"type": "array", "items": {"enum": values}})
    };
    let error = read_request(
        &one_property(select(0, MAX_OPTIONS + 1)),
        Revision::V2025_11_25,
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "`requestedSchema.properties.p.items.enum` has more options than the limit of {MAX_OPTIONS}"
        )
    );

    // Selects of `MAX_OPTIONS` each, until the form has offered `MAX_FORM_OPTIONS`.
    let full = MAX_FORM_OPTIONS / MAX_OPTIONS;
    let form = |selects: usize, last: usize| {
        let mut properties: Map<String, Value> = (0..selects)
            .map(|s| (format!("s{s}"), select(s * MAX_OPTIONS, MAX_OPTIONS)))
            .collect();
        // Last whether the map keeps the order sent or sorts its keys.
        properties.insert("z".to_owned(), select(selects * MAX_OPTIONS, last));
        json!({"mode": "form", "message": "m",
            "requestedSchema": {"type": "object", "properties": properties}})
    };
    let rest = MAX_FORM_OPTIONS - full * MAX_OPTIONS;
    assert!(read_request(&form(full, rest), Revision::V2025_11_25).is_ok());
    let error = read_request(&form(full, rest + 1), Revision::V2025_11_25).unwrap_err();
    assert_eq!(
        error,
        IncomingError::TooLarge {
            at: "requestedSchema.properties.z.items.enum".to_owned(),
            what: "options, with the form's selects before it,",
            limit: MAX_FORM_OPTIONS
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "`requestedSchema.properties.z.items.enum` has more options, with the form's selects before it, than the limit of {MAX_FORM_OPTIONS}"
        )
    );
}

#[test]
fn a_required_list_or_a_default_longer_than_its_schema_allows_is_refused_unread() {
    let names: Vec<Value> = (0..=MAX_PROPERTIES).map(|_| json!(1)).collect();
    let params = json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object",
        "properties": {}, "required": names}});
    assert_eq!(
        read_request(&params, Revision::V2025_11_25).unwrap_err(),
        IncomingError::TooLarge {
            at: "requestedSchema.required".to_owned(),
            what: "names",
            limit: MAX_PROPERTIES
        }
    );
    // Not strings: refused for its length before any item is read.
    let default: Vec<Value> = (0..=MAX_OPTIONS).map(|_| json!(1)).collect();
    let property = json!({"type": "array", "items": {"enum": ["a"]}, "default": default});
    assert_eq!(
        read_request(&one_property(property), Revision::V2025_11_25).unwrap_err(),
        IncomingError::TooLarge {
            at: "requestedSchema.properties.p.default".to_owned(),
            what: "values",
            limit: MAX_OPTIONS
        }
    );
}

#[test]
fn the_longest_selects_are_checked_by_the_same_rules_to_their_last_option() {
    // Values as long as allowed, alike but for their last bytes: the repeat is at the end.
    let values: Vec<String> = (0..MAX_OPTIONS)
        .map(|o| padded(o, MAX_NAME_BYTES))
        .collect();
    let mut repeated = values.clone();
    if let Some(last) = repeated.last_mut() {
        *last = values[0].clone();
    }
    let error = read_request(
        &one_property(json!({"type": "string", "enum": repeated})),
        Revision::V2025_11_25,
    )
    .unwrap_err();
    assert_eq!(
        error,
        IncomingError::Schema(SchemaError::DuplicateOption {
            property: "p".to_owned(),
            value: values[0].clone()
        })
    );

    // A multi-select defaulting to every option is read; a default that selects the last
    // option twice is refused, naming it.
    let every = json!({"type": "array", "items": {"enum": values}, "default": values});
    let Ok(Incoming::Form(form)) = read_request(&one_property(every), Revision::V2025_11_25) else {
        panic!("a default of every option is read")
    };
    assert_eq!(form.schema().properties().len(), 1);
    let mut twice = values.clone();
    twice[MAX_OPTIONS - 1] = values[MAX_OPTIONS - 2].clone();
    let twice = json!({"type": "array", "items": {"enum": values}, "default": twice});
    let error = read_request(&one_property(twice), Revision::V2025_11_25).unwrap_err();
    let IncomingError::Schema(SchemaError::InvalidDefault { property, reason }) = error else {
        panic!("{error:?}")
    };
    assert_eq!(property, "p");
    assert!(reason.contains("more than once"), "{reason}");
}

#[test]
fn a_url_is_checked_and_its_host_noted() {
    let url = |url: &str| json!({"mode": "url", "message": "Connect.", "url": url, "elicitationId": "e-1"});
    let read = |u: &str| read_request(&url(u), Revision::V2025_11_25);

    let page = url_of(read("https://accounts.example.com/connect?flow=7").unwrap());
    assert_eq!(page.host(), "accounts.example.com");
    assert_eq!(page.elicitation_id(), Some("e-1"));
    assert_eq!(page.notes(), []);
    assert_eq!(page.accept(), json!({"action": "accept"}));

    let notes = |u: &str| url_of(read(u).unwrap()).notes().to_vec();
    assert_eq!(
        notes("https://xn--pple-43d.com/login"),
        [Note::InternationalisedHost]
    );
    assert_eq!(notes("https://192.0.2.7/login"), [Note::IpHost]);
    assert_eq!(notes("https://[2001:db8::1]/login"), [Note::IpHost]);
    assert_eq!(
        notes("http://127.0.0.1:8080/cb"),
        [Note::IpHost, Note::Loopback]
    );

    assert!(matches!(
        read("http://example.com/a"),
        Err(IncomingError::Url(UrlError::InsecureHttp { .. }))
    ));
    assert!(matches!(
        read("javascript:alert(1)"),
        Err(IncomingError::Url(_))
    ));
    assert!(matches!(
        read("https://user:pw@example.com/"),
        Err(IncomingError::Url(UrlError::Userinfo))
    ));
}

#[test]
fn a_url_request_this_crate_writes_reads_back() {
    let request = UrlRequest::new("Connect your account.", "https://example.com/connect").unwrap();
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let params = serde_json::to_value(request.for_revision(revision).unwrap()).unwrap();
        let page = url_of(read_request(&params, revision).unwrap());
        assert_eq!(page.url().as_str(), "https://example.com/connect");
        assert_eq!(page.notes(), [], "{revision}");
        assert_eq!(
            page.elicitation_id().is_some(),
            revision.has_elicitation_id()
        );
    }
}

#[test]
fn accepting_fills_defaults_and_checks_every_rule() {
    let request = FormRequest::new("Deploy where?", every_kind()).unwrap();
    let params = serde_json::to_value(&request).unwrap();
    let form = form_of(read_request(&params, Revision::V2026_07_28).unwrap());

    let answers = json!({"name": null, "confirm": true})
        .as_object()
        .unwrap()
        .clone();
    let sent = form.accept(answers).unwrap();
    assert_eq!(
        sent,
        json!({"action": "accept", "content": {
            "name": "Ada", "confirm": true, "replicas": 2, "env": "stg"}})
    );
    // What the host sends, the server's own check accepts.
    assert!(request.parse_reply(&sent).unwrap().is_accepted());

    let wrong = json!({"name": "", "replicas": 11, "env": "dev", "regions": ["eu", "us", "ap"]});
    let violations = form.accept(wrong.as_object().unwrap().clone()).unwrap_err();
    let mut broken: Vec<&str> = violations
        .as_slice()
        .iter()
        .map(|v| v.property.as_str())
        .collect();
    broken.sort_unstable();
    assert_eq!(broken, ["env", "name", "regions", "replicas"]);

    assert_eq!(answer(Action::Decline), json!({"action": "decline"}));
    assert_eq!(answer(Action::Cancel), json!({"action": "cancel"}));
}

#[test]
fn every_revision_refuses_a_schema_that_is_not_an_object_type() {
    for revision in REVISIONS {
        let params = json!({"message": "m", "mode": "form", "requestedSchema": {"type": "array"}});
        assert_eq!(
            read_request(&params, revision).unwrap_err().to_string(),
            "`requestedSchema.type` must be \"object\""
        );
    }
}

#[test]
fn an_input_required_result_is_read_key_by_key() {
    let result = json!({
        "resultType": "input_required",
        "inputRequests": {
            "target": {"method": "elicitation/create", "params": {"mode": "form", "message": "Where?",
                "requestedSchema": {"type": "object", "properties": {"env": {"type": "string"}}}}},
            "capital": {"method": "sampling/createMessage", "params": {"maxTokens": 10, "messages": []}},
            "roots": {"method": "roots/list"}
        },
        "requestState": "opaque"
    });
    let round = read_input_required(&result).unwrap();
    assert_eq!(round.request_state.as_deref(), Some("opaque"));
    let inputs = round.inputs;
    let mut keys: Vec<&str> = inputs.iter().map(|(key, _)| key.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["capital", "roots", "target"]);
    assert!(
        inputs
            .iter()
            .any(|(k, i)| k == "roots" && *i == IncomingInput::Roots)
    );
    assert!(
        inputs
            .iter()
            .any(|(k, i)| k == "target"
                && matches!(i, IncomingInput::Elicitation(Incoming::Form(_))))
    );

    let bad = json!({"inputRequests": {"x": {"method": "tools/call"}}});
    assert_eq!(
        read_input_required(&bad).unwrap_err().to_string(),
        "`inputRequests.x.method` must be elicitation/create, sampling/createMessage or roots/list"
    );
    let nested = json!({"inputRequests": {"x": {"method": "elicitation/create", "params": {"mode": "form"}}}});
    assert_eq!(
        read_input_required(&nested).unwrap_err().to_string(),
        "`inputRequests.x.params.message` must be a string"
    );
}

#[test]
fn ten_thousand_input_requests_are_refused_before_any_is_read() {
    let requests: Map<String, Value> = (0..10_000)
        .map(|i| (format!("k{i}"), json!({"method": "roots/list"})))
        .collect();
    let result = json!({"resultType": "input_required", "inputRequests": requests});
    assert_eq!(
        read_input_required(&result).unwrap_err(),
        IncomingError::TooLarge {
            at: "inputRequests".to_owned(),
            what: "input requests",
            limit: MAX_INPUT_REQUESTS
        }
    );
}

// ------------------------------------------------------------------------------ answerers

mod answerers {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use elicit_core::Mode;
    use elicit_core::client::{Answerer, FnAnswerer, Incoming, Scripted, Step, WrongMode};
    use serde_json::json;

    use super::{Revision, read_request};

    /// The scripted and function answerers answer at once.
    fn now<F: Future>(future: F) -> F::Output {
        match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(value) => value,
            Poll::Pending => panic!("an answer that is not ready at once"),
        }
    }

    fn form(message: &str, field: &str) -> Incoming {
        let params = json!({"mode": "form", "message": message, "requestedSchema": {"type": "object",
            "properties": {field: {"type": "integer", "maximum": 10}}}});
        read_request(&params, Revision::V2025_11_25).unwrap()
    }

    fn page() -> Incoming {
        let params = json!({"mode": "url", "message": "Connect.", "url": "https://example.com/c",
            "elicitationId": "e"});
        read_request(&params, Revision::V2025_11_25).unwrap()
    }

    #[test]
    fn rules_first_then_answers_in_order_then_otherwise() {
        let user = Scripted::new()
            .when_message("Drop", Step::Decline)
            .when_field("replicas", Step::accept(json!({"replicas": 3})))
            .when_url(Step::OpenPage)
            .then(Step::Cancel)
            .then(Step::Raw(json!({"action": "maybe"})))
            .otherwise(Step::Silence);
        let answer = |request: &Incoming| now(user.answer("ops", request));
        assert_eq!(
            answer(&form("Drop `users`?", "replicas")),
            Some(json!({"action": "decline"}))
        );
        assert_eq!(
            answer(&form("How many?", "replicas")),
            Some(json!({"action": "accept", "content": {"replicas": 3}}))
        );
        assert_eq!(answer(&page()), Some(json!({"action": "accept"})));
        assert_eq!(
            answer(&form("Port?", "port")),
            Some(json!({"action": "cancel"}))
        );
        assert_eq!(
            answer(&form("Port?", "port")),
            Some(json!({"action": "maybe"}))
        );
        assert_eq!(
            answer(&form("Port?", "port")),
            None,
            "nothing left: silence, as told"
        );
        let seen: Vec<String> = user
            .seen()
            .iter()
            .map(|(server, request)| format!("{server}: {}", request.message()))
            .collect();
        assert_eq!(
            seen,
            [
                "ops: Drop `users`?",
                "ops: How many?",
                "ops: Connect.",
                "ops: Port?",
                "ops: Port?",
                "ops: Port?"
            ]
        );
    }

    #[test]
    fn a_scripted_acceptance_is_sent_unchecked_and_a_user_with_nothing_to_say_cancels() {
        // A test sends what a real client's checks would stop: the server's own check is tested.
        let user = Scripted::new().then(Step::accept(json!({"replicas": 99})));
        let request = form("How many?", "replicas");
        assert_eq!(
            now(user.answer("ops", &request)),
            Some(json!({"action": "accept", "content": {"replicas": 99}}))
        );
        assert_eq!(
            now(user.answer("ops", &request)),
            Some(json!({"action": "cancel"}))
        );
        assert_eq!(user.modes(), [Mode::Form, Mode::Url]);
        assert_eq!(
            Scripted::new().answering(&[Mode::Form]).modes(),
            [Mode::Form]
        );
    }

    /// Issue 25, point 10: a step says which mode it answers. A form's acceptance that meets a
    /// URL request does not agree to open the page: a test that expected a form fails.
    #[test]
    fn a_step_for_a_form_does_not_accept_a_url_request() {
        let user = Scripted::new().then(Step::accept(json!({"confirm": true})));
        let sent = now(user.answer("ops", &page()));
        assert_ne!(
            sent,
            Some(json!({"action": "accept"})),
            "a form's step opened a page"
        );
        assert_eq!(sent, Some(json!({"action": "cancel"})));
        assert_eq!(user.seen().len(), 1, "it was shown, and recorded");
        let wrong = WrongMode {
            step: Mode::Form,
            asked: Mode::Url,
            message: "Connect.".to_owned(),
        };
        assert_eq!(user.take_wrong_modes(), std::slice::from_ref(&wrong));
        assert!(user.take_wrong_modes().is_empty(), "each is taken once");
        assert_eq!(
            wrong.to_string(),
            "the script's step answers a form, and the server sent a URL request (\"Connect.\"): \
             it was cancelled, not accepted (`Step::Accept` answers a form; a URL request's is \
             `Step::OpenPage`)"
        );
    }

    /// The other way round: agreeing to open a page does not accept a form.
    #[test]
    fn a_step_for_a_url_request_does_not_accept_a_form() {
        let user = Scripted::new().otherwise(Step::OpenPage);
        let sent = now(user.answer("ops", &form("How many?", "replicas")));
        assert_eq!(sent, Some(json!({"action": "cancel"})));
        let wrong = user.take_wrong_modes();
        assert_eq!((wrong[0].step, wrong[0].asked), (Mode::Url, Mode::Form));
        assert_eq!(
            now(user.answer("ops", &page())),
            Some(json!({"action": "accept"}))
        );
        assert!(user.take_wrong_modes().is_empty());
    }

    #[test]
    fn a_function_answers_with_what_it_returns() {
        let answerer = FnAnswerer::new(|server: &str, request: &Incoming| match request {
            Incoming::Form(form) => form
                .accept(
                    json!({"replicas": server.len()})
                        .as_object()
                        .unwrap()
                        .clone(),
                )
                .ok(),
            Incoming::Url(_) => None,
        })
        .answering(&[Mode::Form]);
        assert_eq!(
            now(answerer.answer("ops", &form("How many?", "replicas"))),
            Some(json!({"action": "accept", "content": {"replicas": 3}}))
        );
        assert_eq!(now(answerer.answer("ops", &page())), None);
        assert_eq!(answerer.modes(), [Mode::Form]);
    }
}
