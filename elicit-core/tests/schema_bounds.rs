//! The server's side of the bounds (issue 25): a select holds at most `MAX_OPTIONS` options, on
//! every way of building one, and a reply to the largest is checked by the same rules, in order,
//! to its last item.

use elicit_core::FormRequest;
use elicit_core::limits::MAX_OPTIONS;
use elicit_core::reply::ReplyError;
use elicit_core::schema::{
    EnumOption, MultiSelectSchema, Property, RequestedSchema, Rule, SchemaError, SelectSchema,
};
use serde_json::{Value, json};

/// `len` bytes: `x`s, then `tag`, so that values of one length differ only at their end.
fn padded(tag: usize, len: usize) -> String {
    let tag = tag.to_string();
    format!("{}{tag}", "x".repeat(len - tag.len()))
}

fn options(count: usize) -> Vec<EnumOption> {
    (0..count)
        .map(|o| EnumOption::new(padded(o, 256)))
        .collect()
}

#[test]
fn a_select_offers_at_most_max_options_however_it_is_built() {
    let too_many = SchemaError::TooManyOptions {
        property: "pick".to_owned(),
        count: MAX_OPTIONS + 1,
        limit: MAX_OPTIONS,
    };
    let multi = |count| Property::new("pick", MultiSelectSchema::new(options(count)));
    let single = |count| Property::new("pick", SelectSchema::new(options(count)));
    assert!(RequestedSchema::new(vec![multi(MAX_OPTIONS)]).is_ok());
    assert!(RequestedSchema::new(vec![single(MAX_OPTIONS)]).is_ok());
    assert_eq!(
        RequestedSchema::new(vec![multi(MAX_OPTIONS + 1)]),
        Err(too_many.clone())
    );
    assert_eq!(
        RequestedSchema::new(vec![single(MAX_OPTIONS + 1)]),
        Err(too_many.clone())
    );
    assert_eq!(
        too_many.to_string(),
        format!(
            "property `pick` offers {} options, more than the limit of {MAX_OPTIONS} (`limits::MAX_OPTIONS`); a list that long is not one to scroll through: let the user type and check the value, or narrow the list first",
            MAX_OPTIONS + 1
        )
    );

    // Options supplied at run time: refused, and the request left as it was.
    let schema = RequestedSchema::new(vec![Property::new("pick", MultiSelectSchema::dynamic())])
        .unwrap_or_else(|e| panic!("{e}"));
    let request = FormRequest::new("Pick.", schema).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        request
            .clone()
            .with_options("pick", options(MAX_OPTIONS + 1))
            .unwrap_err(),
        too_many
    );
    assert!(request.with_options("pick", options(MAX_OPTIONS)).is_ok());
}

/// The rule broken by a reply to `request` selecting `items`, if any.
fn verdict(request: &FormRequest, items: &[String]) -> Result<(), Rule> {
    let reply = json!({"action": "accept", "content": {"pick": items}});
    match request.parse_reply_str(&reply.to_string()) {
        Ok(_) => Ok(()),
        Err(ReplyError::Invalid(violations)) => {
            let mut violations = violations.into_iter();
            let first = violations.next().unwrap_or_else(|| panic!("no violation"));
            assert_eq!(first.property, "pick");
            assert!(violations.next().is_none());
            Err(first.rule)
        }
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn a_reply_to_the_largest_multi_select_is_checked_item_by_item_to_its_end() {
    // The same replies to the longest select a schema may hold (checked through hash sets)
    // and to a short one (through the rules' own loops), with the same verdicts.
    for count in [MAX_OPTIONS, 4] {
        let offered = options(count);
        let schema = RequestedSchema::new(vec![Property::new(
            "pick",
            MultiSelectSchema::new(offered.clone()).min_items(1),
        )])
        .unwrap_or_else(|e| panic!("{e}"));
        let request = FormRequest::new("Pick.", schema).unwrap_or_else(|e| panic!("{e}"));
        let all: Vec<String> = offered.iter().map(|o| o.value().to_owned()).collect();
        let (first, last) = (all[0].clone(), all[count - 1].clone());
        let not_offered = padded(count, 256);

        assert_eq!(verdict(&request, &all), Ok(()), "{count}");
        let mut again = all.clone();
        again.push(last.clone());
        assert_eq!(
            verdict(&request, &again),
            Err(Rule::DuplicateSelection {
                value: short(&last)
            }),
            "{count}"
        );
        // The first broken rule, in order: a repeat before a stranger…
        let mut repeat_first = all.clone();
        repeat_first[count - 1] = first.clone();
        repeat_first.push(not_offered.clone());
        assert_eq!(
            verdict(&request, &repeat_first),
            Err(Rule::DuplicateSelection {
                value: short(&first)
            }),
            "{count}"
        );
        // …and a stranger before a repeat.
        let mut stranger_first = all.clone();
        stranger_first[count - 1] = not_offered.clone();
        stranger_first.push(first.clone());
        assert_eq!(
            verdict(&request, &stranger_first),
            Err(Rule::NotAnOption {
                value: short(&not_offered)
            }),
            "{count}"
        );
        assert_eq!(
            verdict(&request, &[]),
            Err(Rule::MinItems {
                min_items: 1,
                count: 0
            })
        );
    }
}

/// A value as a rule quotes it: shortened.
fn short(value: &str) -> String {
    let Err(Rule::NotAnOption { value: quoted }) =
        Property::new("p", SelectSchema::new(vec![EnumOption::new("a")]))
            .check(Some(&Value::String(value.to_owned())))
    else {
        panic!("not an option")
    };
    quoted
}
