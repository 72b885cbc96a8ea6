//! A form, asked field by field, each answer checked before the next, and reviewed whole
//! before anything is sent.

use std::fmt::Write;

use inquire::list_option::ListOption;
use inquire::validator::{ErrorMessage, Validation};
use inquire::{CustomUserError, MultiSelect, Select, Text};
use serde_json::{Map, Number, Value};

use super::shown::shown;
use super::{Ended, heading, warnings};
use crate::client::IncomingForm;
use crate::{EnumOption, Property, PropertyKind};

/// What a select offers for an optional field besides its options.
const LEAVE_EMPTY: &str = "(leave empty)";
/// What a select of a field's options says about its keys.
const SELECT_KEYS: &str = "↑↓ to move, enter to choose, esc to dismiss";

/// Ask `form`, which `server` sent: the heading and the notes, then Answer or Decline, each
/// field, and the review (Send, Change an answer, Decline). The `ElicitResult` of an accepted
/// form, checked whole by [`IncomingForm::accept`].
pub(super) fn ask(server: &str, form: &IncomingForm) -> Result<Value, Ended> {
    heading(server, "asks", form.message());
    warnings(form.notes());
    let start = Select::new("Answer this form?", vec!["Answer", "Decline"])
        .with_help_message(SELECT_KEYS)
        .without_filtering()
        .raw_prompt()?;
    if start.index == 1 {
        return Err(Ended::Decline);
    }
    let properties = form.schema().properties();
    let mut answers = Vec::with_capacity(properties.len());
    for property in properties {
        answers.push(ask_field(property, property.kind().default_json())?);
    }
    loop {
        review(properties, &answers);
        let choice = Select::new(
            "Send these answers?",
            vec!["Send", "Change an answer", "Decline"],
        )
        .with_help_message(SELECT_KEYS)
        .without_filtering()
        .raw_prompt()?;
        match choice.index {
            0 => {
                let content: Map<String, Value> = properties
                    .iter()
                    .zip(&answers)
                    .filter_map(|(p, answer)| Some((p.name().to_owned(), answer.clone()?)))
                    .collect();
                match form.accept(content) {
                    Ok(result) => return Ok(result),
                    // Each field was checked as it was answered, by the same rules; shown all
                    // the same, should a rule ever see the whole form differently.
                    Err(violations) => {
                        for violation in &violations {
                            let label = form
                                .schema()
                                .property(&violation.property)
                                .map_or_else(|| violation.property.clone(), label);
                            eprintln!("  ✗ {label} {}", violation.rule.for_user());
                        }
                    }
                }
            }
            1 => {
                let labels: Vec<String> = properties.iter().map(label).collect();
                let which = Select::new("Which answer?", labels)
                    .with_help_message(SELECT_KEYS)
                    .raw_prompt()?
                    .index;
                if let (Some(property), Some(answer)) =
                    (properties.get(which), answers.get_mut(which))
                {
                    *answer = ask_field(property, answer.take())?;
                }
            }
            _ => return Err(Ended::Decline),
        }
    }
}

/// Ask one field, `current` (the default, or the answer being changed) filled in: what will be
/// sent for it, `None` for a field left empty.
fn ask_field(property: &Property, current: Option<Value>) -> Result<Option<Value>, Ended> {
    Ok(sent(property, ask_kind(property, current)?))
}

/// What is sent for a field answered `value`: a field left empty sends its default, as
/// [`IncomingForm::accept`] fills it in, so the review and the prompt's check see it too.
fn sent(property: &Property, value: Option<Value>) -> Option<Value> {
    value.or_else(|| property.kind().default_json())
}

/// Whether a select offers to leave the field empty: optional, and no default it would send.
fn may_leave_empty(property: &Property) -> bool {
    !property.is_required() && property.kind().default_json().is_none()
}

fn ask_kind(property: &Property, current: Option<Value>) -> Result<Option<Value>, Ended> {
    let label = label(property);
    match property.kind() {
        PropertyKind::String(_) | PropertyKind::Integer(_) | PropertyKind::Number(_) => {
            let initial = match &current {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Number(number)) => number.to_string(),
                _ => String::new(),
            };
            let help = help(property, None);
            let checked = property.clone();
            let validator = move |input: &str| -> Result<Validation, CustomUserError> {
                Ok(verdict(
                    &checked,
                    sent(&checked, typed(&checked, input)).as_ref(),
                ))
            };
            let input = Text::new(&label)
                .with_initial_value(&initial)
                .with_help_message(&help)
                .with_validator(validator)
                .prompt()?;
            Ok(typed(property, &input))
        }
        PropertyKind::Boolean(_) => {
            let mut options = vec!["Yes", "No"];
            let start = match current {
                Some(Value::Bool(false)) => 1,
                None if may_leave_empty(property) => 2,
                _ => 0,
            };
            if may_leave_empty(property) {
                options.push(LEAVE_EMPTY);
            }
            let help = help(property, Some(SELECT_KEYS));
            let chosen = Select::new(&label, options)
                .with_help_message(&help)
                .with_starting_cursor(start)
                .without_filtering()
                .raw_prompt()?;
            Ok(match chosen.index {
                0 => Some(Value::Bool(true)),
                1 => Some(Value::Bool(false)),
                _ => None,
            })
        }
        PropertyKind::Select(select) => {
            let options = select.options();
            let mut shown_options: Vec<String> = options.iter().map(option_label).collect();
            if may_leave_empty(property) {
                shown_options.push(LEAVE_EMPTY.to_owned());
            }
            let start = match current.as_ref().and_then(Value::as_str) {
                Some(value) => options.iter().position(|o| o.value() == value).unwrap_or(0),
                None if may_leave_empty(property) => options.len(),
                None => 0,
            };
            let help = help(
                property,
                Some("↑↓ to move, type to filter, enter to choose, esc to dismiss"),
            );
            let chosen = Select::new(&label, shown_options)
                .with_help_message(&help)
                .with_starting_cursor(start)
                .raw_prompt()?;
            Ok(options
                .get(chosen.index)
                .map(|option| Value::from(option.value())))
        }
        PropertyKind::MultiSelect(multi) => {
            let options = multi.options();
            let selected: Vec<usize> = match &current {
                Some(Value::Array(items)) => options
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| items.iter().any(|item| item.as_str() == Some(o.value())))
                    .map(|(i, _)| i)
                    .collect(),
                _ => Vec::new(),
            };
            let help = help(
                property,
                Some("↑↓ to move, space to select, enter to confirm, esc to dismiss"),
            );
            let checked = property.clone();
            let values: Vec<String> = options.iter().map(|o| o.value().to_owned()).collect();
            let validator =
                move |chosen: &[ListOption<&String>]| -> Result<Validation, CustomUserError> {
                    let indices: Vec<usize> = chosen.iter().map(|o| o.index).collect();
                    let value = sent(&checked, items(&checked, &values, &indices));
                    Ok(verdict(&checked, value.as_ref()))
                };
            let shown_options: Vec<String> = options.iter().map(option_label).collect();
            let chosen = MultiSelect::new(&label, shown_options)
                .with_help_message(&help)
                .with_default(&selected)
                .with_validator(validator)
                .raw_prompt()?;
            let values: Vec<String> = options.iter().map(|o| o.value().to_owned()).collect();
            let indices: Vec<usize> = chosen.iter().map(|o| o.index).collect();
            Ok(items(property, &values, &indices))
        }
        // A kind this renderer does not know yet (the enum is non-exhaustive): dismissed, not
        // answered with a guess.
        _ => Err(Ended::Cancel),
    }
}

/// What was typed into a text, integer or number field, as the JSON the server will read:
/// `None` for nothing typed; text as typed; a number read as one, or left as text that the
/// field's rules then refuse with "must be a whole number" (or "a number").
fn typed(property: &Property, input: &str) -> Option<Value> {
    if input.is_empty() {
        return None;
    }
    let number = match property.kind() {
        PropertyKind::Integer(_) => {
            let trimmed = input.trim();
            trimmed
                .parse::<i64>()
                .map(Value::from)
                .or_else(|_| trimmed.parse::<u64>().map(Value::from))
                .ok()
                // Beyond 64 bits: the nearest number, which the bounds then refuse.
                .or_else(|| float(trimmed).filter(|_| trimmed.parse::<i128>().is_ok()))
        }
        PropertyKind::Number(_) => float(input.trim()),
        _ => None,
    };
    Some(number.unwrap_or_else(|| Value::String(input.to_owned())))
}

/// A finite decimal number.
fn float(text: &str) -> Option<Value> {
    let parsed: f64 = text.parse().ok()?;
    Number::from_f64(parsed).map(Value::Number)
}

/// The selections at `indices` of `values`; none at all is leaving an optional field empty.
fn items(property: &Property, values: &[String], indices: &[usize]) -> Option<Value> {
    if indices.is_empty() && !property.is_required() {
        return None;
    }
    let chosen = indices
        .iter()
        .filter_map(|&i| values.get(i))
        .map(|value| Value::from(value.as_str()));
    Some(Value::Array(chosen.collect()))
}

/// The field's rules on `value`, for the prompt: valid, or the first rule broken, in words.
fn verdict(property: &Property, value: Option<&Value>) -> Validation {
    match property.check(value) {
        Ok(()) => Validation::Valid,
        Err(rule) => Validation::Invalid(ErrorMessage::Custom(format!(
            "{} {}",
            label(property),
            rule.for_user()
        ))),
    }
}

/// The field's name to show: its title, or else its name; "(optional)" when it may be empty.
fn label(property: &Property) -> String {
    let name = shown(property.title_text().unwrap_or(property.name()), false);
    if property.is_required() {
        name.into_owned()
    } else {
        format!("{name} (optional)")
    }
}

/// An option to show: its title, or else its value.
fn option_label(option: &EnumOption) -> String {
    shown(option.title().unwrap_or(option.value()), false).into_owned()
}

/// The help line under a field: its description, what a value must be, and the keys.
fn help(property: &Property, keys: Option<&str>) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(description) = property.description_text() {
        parts.push(shown(description, false).into_owned());
    }
    let expected = expected(property);
    if !expected.is_empty() {
        parts.push(expected);
    }
    let has_default = property.kind().default_json().is_some();
    if !property.is_required() && keys.is_none() && !has_default {
        parts.push("enter with nothing typed leaves it empty".to_owned());
    }
    if has_default && keys.is_none() {
        parts.push("emptied, it sends the default".to_owned());
    }
    parts.push(keys.unwrap_or("esc to dismiss").to_owned());
    parts.join(" · ")
}

/// What a value of this field must be, in words (empty when anything goes).
fn expected(property: &Property) -> String {
    let mut out = String::new();
    match property.kind() {
        PropertyKind::String(text) => {
            if let Some(format) = text.required_format() {
                out.push_str(format.describe());
            }
            let (min, max) = text.length_range();
            let count = |n: u32| format!("{n} character{}", if n == 1 { "" } else { "s" });
            let length = match (min, max) {
                (Some(min), Some(max)) if min == max => Some(format!("exactly {}", count(min))),
                (Some(min), Some(max)) => Some(format!("{min} to {}", count(max))),
                (Some(min), None) if min > 0 => Some(format!("at least {}", count(min))),
                (_, Some(max)) => Some(format!("at most {}", count(max))),
                _ => None,
            };
            if let Some(length) = length {
                if !out.is_empty() {
                    out.push_str(", ");
                }
                out.push_str(&length);
            }
        }
        PropertyKind::Integer(integer) => {
            out.push_str("a whole number");
            bounds(&mut out, integer.range());
        }
        PropertyKind::Number(number) => {
            out.push_str("a number");
            bounds(&mut out, number.range());
        }
        PropertyKind::MultiSelect(multi) => match multi.items_range() {
            (Some(min), Some(max)) if min == max => {
                let _ = write!(out, "choose exactly {min}");
            }
            (Some(min), Some(max)) => {
                let _ = write!(out, "choose {min} to {max}");
            }
            (Some(min), None) if min > 0 => {
                let _ = write!(out, "choose at least {min}");
            }
            (_, Some(max)) => {
                let _ = write!(out, "choose at most {max}");
            }
            _ => {}
        },
        _ => {}
    }
    out
}

/// " from 1 to 12", " of at least 1", " of at most 12", or nothing.
fn bounds<T: std::fmt::Display>(out: &mut String, range: (Option<T>, Option<T>)) {
    let _ = match range {
        (Some(min), Some(max)) => write!(out, " from {min} to {max}"),
        (Some(min), None) => write!(out, " of at least {min}"),
        (None, Some(max)) => write!(out, " of at most {max}"),
        (None, None) => Ok(()),
    };
}

/// Every answer, before it is sent.
fn review(properties: &[Property], answers: &[Option<Value>]) {
    eprintln!();
    eprintln!("Your answers:");
    let labels: Vec<String> = properties.iter().map(label).collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for ((property, label), answer) in properties.iter().zip(&labels).zip(answers) {
        let pad = width - label.chars().count();
        eprintln!(
            "  {label}{:pad$}  {}",
            "",
            answer_text(property, answer.as_ref())
        );
    }
    eprintln!();
}

/// An answer as the review shows it: options by their titles, booleans as yes or no.
fn answer_text(property: &Property, answer: Option<&Value>) -> String {
    let option = |value: &str| {
        let options = match property.kind() {
            PropertyKind::Select(select) => select.options(),
            PropertyKind::MultiSelect(multi) => multi.options(),
            _ => &[],
        };
        options
            .iter()
            .find(|o| o.value() == value)
            .map_or_else(|| shown(value, false).into_owned(), option_label)
    };
    match answer {
        None => "(empty)".to_owned(),
        Some(Value::Bool(yes)) => if *yes { "yes" } else { "no" }.to_owned(),
        Some(Value::String(text)) => match property.kind() {
            PropertyKind::Select(_) => option(text),
            _ => shown(text, false).into_owned(),
        },
        Some(Value::Array(items)) if items.is_empty() => "(none)".to_owned(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| option(item.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(", "),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{expected, items, typed};
    use crate::{
        EnumOption, Format, IntegerSchema, MultiSelectSchema, NumberSchema, Property, StringSchema,
    };

    #[test]
    fn typed_text_is_the_json_the_server_reads() {
        let replicas = Property::new("replicas", IntegerSchema::new().maximum(10));
        assert_eq!(typed(&replicas, " 7 "), Some(json!(7)));
        assert_eq!(
            typed(&replicas, "18446744073709551615"),
            Some(json!(u64::MAX))
        );
        assert_eq!(
            typed(&replicas, "2.5"),
            Some(json!("2.5")),
            "refused as not whole"
        );
        assert_eq!(typed(&replicas, ""), None);
        let ratio = Property::new("ratio", NumberSchema::new());
        assert_eq!(typed(&ratio, "0.25"), Some(json!(0.25)));
        assert_eq!(
            typed(&ratio, "NaN"),
            Some(json!("NaN")),
            "refused as not a number"
        );
        let name = Property::new("name", StringSchema::new());
        assert_eq!(
            typed(&name, " spaced "),
            Some(json!(" spaced ")),
            "text as typed"
        );
    }

    #[test]
    fn what_a_field_expects_in_words() {
        let date = Property::new("d", StringSchema::new().format(Format::Date).max_length(10));
        assert_eq!(
            expected(&date),
            "a date like 2026-07-28 (RFC 3339 full-date), at most 10 characters"
        );
        let size = Property::new("n", IntegerSchema::new().minimum(1).maximum(12));
        assert_eq!(expected(&size), "a whole number from 1 to 12");
        let tags = Property::new(
            "t",
            MultiSelectSchema::new(vec![EnumOption::new("a"), EnumOption::new("b")]).min_items(1),
        );
        assert_eq!(expected(&tags), "choose at least 1");
    }

    #[test]
    fn no_selection_leaves_only_an_optional_field_empty() {
        let values = ["a".to_owned(), "b".to_owned()];
        let required = Property::new(
            "t",
            MultiSelectSchema::new(vec![EnumOption::new("a"), EnumOption::new("b")]),
        );
        assert_eq!(items(&required, &values, &[]), Some(json!([])));
        assert_eq!(items(&required, &values, &[1, 0]), Some(json!(["b", "a"])));
        assert_eq!(items(&required.clone().optional(), &values, &[]), None);
    }
}
