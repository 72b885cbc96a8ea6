//! Bounded work for hostile input (issue 25, points 4 and 5): the worst case of each reader at
//! the limits, against the least any reader of the same input must do.
//!
//! - `read_request`: a client reading the largest form the limits let through, built to make
//!   every check work hardest: the longest message, the most properties, each with the longest
//!   name, title and description (titles and descriptions all spaces but for a closing tag: the
//!   worst text for the credential lexicon's search, which once tried a match at every space; and
//!   in a second case one-letter words, `a a a …`, the worst of the texts tried on the lexicon's
//!   one-pass reader: a word every two bytes); the most options a form may offer, in the fewest
//!   selects (each with the most options a select may have), every option value and title as long as
//!   allowed, all values sharing their first 250 bytes (so telling two apart reads them to the
//!   end), every multi-select defaulting to all of its options; the other properties text with
//!   the longest default, a `uri` format and a `maxLength` to count it against. Its floor is a
//!   deep copy of the params (`Value::clone`): a reader that keeps what it shows copies at least
//!   that much.
//! - the server's reply check: the largest multi-select a schema may hold (`MAX_OPTIONS`
//!   options of `MAX_NAME_BYTES` bytes, sharing their first 250), and a reply that selects every
//!   option, read from text by `FormRequest::parse_reply_str`. Its floor is
//!   `serde_json::from_str::<Value>` of the same text (parsing, no checks). A second row builds
//!   that schema (`RequestedSchema::new`), which checks its options are unique.
//!
//! Run: `cargo bench -p elicit-benches --bench bounded_work`.

mod common;

use common::{Counting, case, compare, keep};
use mcp_elicit::FormRequest;
use mcp_elicit::Revision;
use mcp_elicit::client::read_request;
use mcp_elicit::schema::{EnumOption, MultiSelectSchema, Property, RequestedSchema};
use serde_json::{Map, Value, json};

#[global_allocator]
static ALLOC: Counting = Counting;

// The limits, at which each case is built.
use mcp_elicit::limits::{
    MAX_DEFAULT_BYTES as DEFAULT_BYTES, MAX_DESCRIPTION_BYTES as DESCRIPTION_BYTES,
    MAX_FORM_OPTIONS as FORM_OPTIONS, MAX_MESSAGE_BYTES as MESSAGE_BYTES,
    MAX_NAME_BYTES as NAME_BYTES, MAX_OPTIONS as OPTIONS, MAX_PROPERTIES as PROPERTIES,
    MAX_TITLE_BYTES as TITLE_BYTES,
};

/// `len` bytes: a shared prefix, then `tag` in decimal, right-aligned, so that values differ
/// only in their last bytes.
fn padded(prefix: char, tag: usize, len: usize) -> String {
    let tag = tag.to_string();
    let mut text = prefix.to_string().repeat(len - tag.len());
    text.push_str(&tag);
    text
}

/// `len` bytes of one-letter words, `a a a …`, then `tag`.
fn one_letter_words(tag: usize, len: usize) -> String {
    let tag = format!(" {tag}");
    let mut text = "a ".repeat(len / 2);
    text.truncate(len - tag.len());
    text.push_str(&tag);
    text
}

/// The worst form, its titles and descriptions made by `text(tag, len)`.
fn worst_form(text: fn(usize, usize) -> String) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in 0..PROPERTIES {
        let name = padded('n', p, NAME_BYTES);
        // The form's options, `OPTIONS` to a select, until there are `FORM_OPTIONS`.
        let count = FORM_OPTIONS.saturating_sub(p * OPTIONS).min(OPTIONS);
        let mut property = if count > 0 {
            let values: Vec<String> = (0..count)
                .map(|o| padded('v', p * OPTIONS + o, NAME_BYTES))
                .collect();
            let options: Vec<Value> = values
                .iter()
                .enumerate()
                .map(|(o, v)| json!({"const": v, "title": padded('t', o, TITLE_BYTES)}))
                .collect();
            json!({"type": "array", "items": {"anyOf": options}, "minItems": 0,
                   "maxItems": count, "default": values})
        } else {
            // A URI as long as a default may be: a path of `a`s.
            let default = format!("https://example.com/{}", "a".repeat(DEFAULT_BYTES - 20));
            json!({"type": "string", "format": "uri", "maxLength": DEFAULT_BYTES,
                   "default": default})
        };
        property["title"] = Value::String(text(p, TITLE_BYTES));
        property["description"] = Value::String(text(p, DESCRIPTION_BYTES));
        properties.insert(name.clone(), property);
        required.push(name);
    }
    json!({
        "mode": "form",
        "message": "m".repeat(MESSAGE_BYTES),
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
    })
}

fn largest_multi_select() -> RequestedSchema {
    let options = (0..OPTIONS).map(|o| EnumOption::new(padded('v', o, NAME_BYTES)));
    RequestedSchema::new(vec![Property::new(
        "pick",
        MultiSelectSchema::new(options.collect::<Vec<_>>()),
    )])
    .expect("a valid schema")
}

fn main() {
    let params = worst_form(|tag, len| padded(' ', tag, len));
    let words = worst_form(one_letter_words);
    for params in [&params, &words] {
        let read = read_request(params, Revision::V2026_07_28);
        assert!(read.is_ok(), "the worst form is read: {read:?}");
    }
    compare(
        "client: read_request, the worst form at the limits",
        vec![
            case("read_request", || {
                keep(read_request(&params, Revision::V2026_07_28));
            }),
            case("read_request, one-letter words", || {
                keep(read_request(&words, Revision::V2026_07_28));
            }),
            case("Value::clone (floor)", || keep(params.clone())),
        ],
    );

    let schema = largest_multi_select();
    let request = FormRequest::new("Pick.", schema.clone()).expect("a valid request");
    let all: Vec<String> = (0..OPTIONS).map(|o| padded('v', o, NAME_BYTES)).collect();
    let reply = json!({"action": "accept", "content": {"pick": all}}).to_string();
    assert!(request.parse_reply_str(&reply).is_ok());
    let properties = schema.properties().to_vec();
    compare(
        "server: the reply to the largest multi-select, every option selected",
        vec![
            case("parse_reply_str", || keep(request.parse_reply_str(&reply))),
            case("from_str::<Value> (floor)", || {
                keep(serde_json::from_str::<Value>(&reply))
            }),
            case("RequestedSchema::new", || {
                keep(RequestedSchema::new(properties.clone()))
            }),
            case("Vec<Property>::clone", || keep(properties.clone())),
        ],
    );
}
