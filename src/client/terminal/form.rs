//! A form, asked field by field, each answer checked before the next, and reviewed whole
//! before anything is sent.

use inquire::list_option::ListOption;
use inquire::validator::{ErrorMessage, Validation};
use inquire::{
    CustomUserError, InquireError, MultiSelect, Password, PasswordDisplayMode, Select, Text,
};
use serde_json::{Map, Number, Value};

use super::screen::{
    Ended, discard_typeahead, fit, hanging, heading, say, shown, warnings, wide, width,
};
use crate::client::{IncomingForm, Note};
use crate::schema::{EnumOption, Property, PropertyKind};

/// What a select offers for an optional field besides its options.
const LEAVE_EMPTY: &str = "(leave empty)";
/// What a select of a field's options says about its keys.
const SELECT_KEYS: &str = "↑↓ to move, enter to choose, esc cancels the form";

/// Ask `form`, which `server` sent: the heading and the notes, then Answer or Decline, each
/// field, and the review (Send, Change an answer, Decline), as long as the answer is `wanted()`.
/// The `ElicitResult` of an accepted form, checked whole by [`IncomingForm::accept`].
pub(super) fn ask(
    server: &str,
    form: &IncomingForm,
    wanted: &dyn Fn() -> bool,
) -> Result<Value, Ended> {
    let still = || {
        if wanted() {
            Ok(())
        } else {
            Err(Ended::Withdrawn)
        }
    };
    heading(
        server,
        "A server asks you to fill in a form",
        form.message(),
    )?;
    warnings(form.notes())?;
    discard_typeahead()?;
    let start = Select::new("Answer this form?", vec!["Answer", "Decline"])
        .with_help_message(SELECT_KEYS)
        .without_filtering()
        .raw_prompt()?;
    if start.index == 1 {
        return Err(Ended::Decline);
    }
    let properties = form.schema().properties();
    // A field the core noted as a credential (its name, title or description reads like one):
    // what is typed in it is not echoed, and the review does not show it again.
    let secret: Vec<bool> = properties
        .iter()
        .map(|property| {
            form.notes().iter().any(|note| {
                matches!(note, Note::Credential { property: noted, .. } if noted == property.name())
            })
        })
        .collect();
    let mut answers = Vec::with_capacity(properties.len());
    for (property, &secret) in properties.iter().zip(&secret) {
        still()?;
        answers.push(ask_field(
            property,
            secret,
            property.sent(None),
            ESC_DISMISSES,
        )?);
    }
    let mut choices = vec!["Send", "Change an answer", "Decline"];
    if properties.is_empty() {
        choices.remove(1);
    }
    loop {
        still()?;
        review(properties, &secret, &answers)?;
        discard_typeahead()?;
        let choice = Select::new("Send these answers?", choices.clone())
            .with_help_message(SELECT_KEYS)
            .without_filtering()
            .prompt()?;
        still()?;
        match choice {
            "Send" => {
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
                                .map_or_else(|| shown(&violation.property, false).into(), label);
                            let line = format!("  ✗ {label} {}", violation.rule.for_user());
                            say(&fit(&line, width().saturating_sub(1)))?;
                        }
                    }
                }
            }
            "Change an answer" => change(properties, &secret, &mut answers)?,
            _ => return Err(Ended::Decline),
        }
    }
}

/// Ask again the field the user picks; Esc goes back to the review, not out of the form.
fn change(
    properties: &[Property],
    secret: &[bool],
    answers: &mut [Option<Value>],
) -> Result<(), Ended> {
    let labels: Vec<String> = properties.iter().map(label).collect();
    let picked = Select::new("Which answer?", labels)
        .with_help_message("↑↓ to move, enter to choose, esc to go back")
        .raw_prompt();
    let which = match picked {
        Ok(picked) => picked.index,
        Err(InquireError::OperationCanceled) => return Ok(()),
        Err(error) => return Err(error.into()),
    };
    if let (Some(property), Some(answer)) = (properties.get(which), answers.get_mut(which)) {
        let secret = secret.get(which).copied().unwrap_or(true);
        match ask_field(property, secret, answer.clone(), "esc to go back") {
            Ok(changed) => *answer = changed,
            // Esc while changing an answer keeps the one given: the form goes on.
            Err(Ended::Cancel) => {}
            Err(ended) => return Err(ended),
        }
    }
    Ok(())
}

/// What Esc does on a field of the form the first time through.
const ESC_DISMISSES: &str = "esc cancels the form";

/// Ask one field, starting from `current` (the default, or the answer being changed), its help line
/// saying what Esc does (`esc`), what is typed not echoed if it is `secret`: what will be sent
/// for it ([`Property::sent`]), `None` for a field left empty.
fn ask_field(
    property: &Property,
    secret: bool,
    current: Option<Value>,
    esc: &str,
) -> Result<Option<Value>, Ended> {
    Ok(property.sent(ask_kind(property, secret, current, esc)?))
}

/// Whether a select offers to leave the field empty: optional, and no default it would send.
fn may_leave_empty(property: &Property) -> bool {
    !property.is_required() && property.sent(None).is_none()
}

fn ask_kind(
    property: &Property,
    secret: bool,
    current: Option<Value>,
    esc: &str,
) -> Result<Option<Value>, Ended> {
    let label = label(property);
    match property.kind() {
        PropertyKind::String(_) | PropertyKind::Integer(_) | PropertyKind::Number(_) if secret => {
            // Typed as masks, never echoed; nothing is put in to edit, not even a default (the
            // help line says an empty answer sends it), so a changed answer is typed anew.
            let help = help(property, esc, None, None);
            let checked = property.clone();
            let validator = move |input: &str| -> Result<Validation, CustomUserError> {
                Ok(verdict(
                    &checked,
                    checked.sent(typed(&checked, input)).as_ref(),
                ))
            };
            let input = Password::new(&label)
                .with_display_mode(PasswordDisplayMode::Masked)
                .without_confirmation()
                .with_help_message(&help)
                .with_validator(validator)
                .prompt()?;
            Ok(typed(property, &input))
        }
        PropertyKind::String(_) | PropertyKind::Integer(_) | PropertyKind::Number(_) => {
            let initial = match &current {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Number(number)) => number.to_string(),
                _ => String::new(),
            };
            // The default (the field not answered yet, or answered with it) is shown as a
            // default, as inquire's `with_default` does: an empty answer sends it, and typing
            // replaces it (`40`, not `240`). An answer being changed is put in to edit.
            let is_default = current.is_some() && current == property.sent(None);
            // Text that would act on the terminal is not put where it would be drawn as it is,
            // nor a default too long for the field's row (inquire would wrap it into a row of
            // its own): the help line shows it, made visible and cut to fit, and an empty answer
            // still sends it.
            let safe = matches!(shown(&initial, false), std::borrow::Cow::Borrowed(_))
                && (!is_default || wide(&label) + wide(&initial) + ROW_SPARE <= width());
            let help = help(property, esc, None, (!safe).then_some(initial.as_str()));
            let checked = property.clone();
            let validator = move |input: &str| -> Result<Validation, CustomUserError> {
                Ok(verdict(
                    &checked,
                    checked.sent(typed(&checked, input)).as_ref(),
                ))
            };
            let answered = answer_room(&label);
            let formatter = move |answer: &str| fit(answer, answered).into_owned();
            let prompt = Text::new(&label)
                .with_help_message(&help)
                .with_validator(validator)
                .with_formatter(&formatter);
            let prompt = match (safe, is_default) {
                (true, true) => prompt.with_default(&initial),
                (true, false) => prompt.with_initial_value(&initial),
                (false, _) => prompt,
            };
            let input = prompt.prompt()?;
            Ok(typed(property, &input))
        }
        PropertyKind::Boolean(_) => {
            let mut options = vec!["Yes", "No"];
            let start = match current {
                Some(Value::Bool(true)) => 0,
                None if may_leave_empty(property) => 2,
                // Nothing chosen yet: the cursor starts on the answer that changes nothing.
                _ => 1,
            };
            if may_leave_empty(property) {
                options.push(LEAVE_EMPTY);
            }
            let help = help(property, esc, Some("↑↓ to move, enter to choose"), None);
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
            let default = property.sent(None);
            let mut shown_options: Vec<String> = options
                .iter()
                .map(|option| {
                    let label = option_label(option);
                    if default.as_ref().and_then(Value::as_str) == Some(option.value()) {
                        format!("{label} (default)")
                    } else {
                        label
                    }
                })
                .collect();
            if may_leave_empty(property) {
                shown_options.push(LEAVE_EMPTY.to_owned());
            }
            let start = match current.as_ref().and_then(Value::as_str) {
                Some(value) => options.iter().position(|o| o.value() == value).unwrap_or(0),
                None if may_leave_empty(property) => options.len(),
                None => 0,
            };
            let keys = "↑↓ to move, type to filter, enter to choose";
            let help = help(property, esc, Some(keys), None);
            let answered = answer_room(&label);
            let formatter =
                move |chosen: ListOption<&String>| fit(chosen.value, answered).into_owned();
            let chosen = Select::new(&label, shown_options)
                .with_help_message(&help)
                .with_starting_cursor(start)
                .with_formatter(&formatter)
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
            let keys = "↑↓ to move, space to select, enter to confirm";
            let help = help(property, esc, Some(keys), None);
            let checked = property.clone();
            let offered = options.to_vec();
            let validator =
                move |chosen: &[ListOption<&String>]| -> Result<Validation, CustomUserError> {
                    let indices: Vec<usize> = chosen.iter().map(|o| o.index).collect();
                    let value = checked.sent(items(&checked, &offered, &indices));
                    Ok(verdict(&checked, value.as_ref()))
                };
            let shown_options: Vec<String> = options.iter().map(option_label).collect();
            let answered = answer_room(&label);
            let formatter = move |chosen: &[ListOption<&String>]| {
                let all: Vec<&str> = chosen.iter().map(|o| o.value.as_str()).collect();
                fit(&all.join(", "), answered).into_owned()
            };
            let chosen = MultiSelect::new(&label, shown_options)
                .with_help_message(&help)
                .with_default(&selected)
                .with_validator(validator)
                .with_formatter(&formatter)
                .raw_prompt()?;
            let indices: Vec<usize> = chosen.iter().map(|o| o.index).collect();
            Ok(items(property, options, &indices))
        }
        // A kind this renderer does not know yet (the enum is non-exhaustive): dismissed, not
        // answered with a guess.
        _ => Err(Ended::Cancel),
    }
}

/// What was typed into a text, integer or number field, as the JSON the server will read:
/// `None` for nothing typed; text as typed; a number read as JSON reads one (serde_json's
/// grammar, so `.5` is not one), or else left as text, which the field's rules then refuse in
/// words ("must be a whole number", "must be a number").
fn typed(property: &Property, input: &str) -> Option<Value> {
    if input.is_empty() {
        return None;
    }
    let number = match property.kind() {
        PropertyKind::Integer(_) | PropertyKind::Number(_) => input.trim().parse::<Number>().ok(),
        _ => None,
    };
    Some(number.map_or_else(|| Value::String(input.to_owned()), Value::Number))
}

/// The values of the options at `indices`. None at all leaves an optional field without a
/// default empty; on a field with a default, it is a choice of its own (`[]`), not the default.
fn items(property: &Property, options: &[EnumOption], indices: &[usize]) -> Option<Value> {
    if indices.is_empty() && may_leave_empty(property) {
        return None;
    }
    let chosen = indices
        .iter()
        .filter_map(|&i| options.get(i))
        .map(|option| Value::from(option.value()));
    Some(Value::Array(chosen.collect()))
}

/// The field's rules on `value`, for the prompt: valid, or the first rule broken, in words.
fn verdict(property: &Property, value: Option<&Value>) -> Validation {
    match property.check(value) {
        Ok(()) => Validation::Valid,
        // Drawn after `# ` on a row of its own.
        Err(rule) => Validation::Invalid(ErrorMessage::Custom(
            fit(
                &format!("{} {}", label(property), rule.for_user()),
                width().saturating_sub(3),
            )
            .into_owned(),
        )),
    }
}

/// Columns a prompt's row keeps besides its label and what follows it: `? `, the spaces, the
/// parentheses of a default, and one to spare.
const ROW_SPARE: usize = 8;

/// The field's name to show: its title, or else its name; "(optional)" when it may be empty.
/// At most half the terminal's width ([`fit`]): the rest of its row is for what follows it (a
/// default, an answer; the answer at the review).
fn label(property: &Property) -> String {
    const OPTIONAL: &str = " (optional)";
    let name = shown(property.title_text().unwrap_or(property.name()), false);
    let room = (width() / 2).max(12);
    if property.is_required() {
        fit(&name, room).into_owned()
    } else {
        format!(
            "{}{OPTIONAL}",
            fit(&name, room.saturating_sub(OPTIONAL.len()))
        )
    }
}

/// The columns left for the answer on the row inquire draws once a field is answered
/// (`> label answer`).
fn answer_room(label: &str) -> usize {
    width().saturating_sub(wide(label) + ROW_SPARE).max(8)
}

/// An option to show: its title, or else its value, cut to fit its row with room for what a
/// row of options draws around it (`> [x] `, ` (default)`).
fn option_label(option: &EnumOption) -> String {
    let room = width().saturating_sub(20).max(12);
    fit(
        &shown(option.title().unwrap_or(option.value()), false),
        room,
    )
    .into_owned()
}

/// The help line under a field: its description, what a value must be, what an empty answer
/// sends (`unsafe_default`: a default not drawn in the field, shown here), the keys of a select,
/// and what Esc does.
fn help(
    property: &Property,
    esc: &str,
    keys: Option<&str>,
    unsafe_default: Option<&str>,
) -> String {
    // The line is drawn as `[help]` on a row of its own: what the server wrote in it (the
    // description, a default) is cut to leave room for the rest, and the whole to fit the row.
    let width = width();
    let mut parts: Vec<String> = Vec::new();
    let expects = property.expects();
    if !expects.is_empty() {
        parts.push(expects);
    }
    if keys.is_none() {
        if let Some(default) = unsafe_default {
            let default = shown(default, false);
            parts.push(format!("empty, it sends {}", fit(&default, width / 6)));
        } else if property.sent(None).is_some() {
            parts.push("empty, it sends the default".to_owned());
        } else if !property.is_required() {
            parts.push("enter with nothing typed leaves it empty".to_owned());
        }
    }
    let keys = keys.map_or_else(|| esc.to_owned(), |keys| format!("{keys}, {esc}"));
    parts.push(keys);
    let ours = parts.join(" · ");
    let room = width.saturating_sub(3);
    let line = match property.description_text() {
        Some(description) => {
            let left = room.saturating_sub(wide(&ours) + 4).max(8);
            format!("{} · {ours}", fit(&shown(description, false), left))
        }
        None => ours,
    };
    fit(&line, room).into_owned()
}

/// Every answer, before it is sent; a `secret` one only as given or not.
fn review(
    properties: &[Property],
    secret: &[bool],
    answers: &[Option<Value>],
) -> Result<(), Ended> {
    let labels: Vec<String> = properties.iter().map(label).collect();
    let widest = labels.iter().map(|l| wide(l)).max().unwrap_or(0);
    // Each answer whole, its rows under its first: none starts a row of its own.
    let under = " ".repeat(widest + 4);
    let mut out = String::from("\nYour answers:\n");
    for (((property, label), answer), &secret) in
        properties.iter().zip(&labels).zip(answers).zip(secret)
    {
        let pad = widest - wide(label);
        let value = match answer {
            Some(_) if secret => HIDDEN.to_owned(),
            answer => answer_text(property, answer.as_ref()),
        };
        let first = format!("  {label}{:pad$}  ", "");
        hanging(&mut out, &first, &under, &value, width());
    }
    say(&out)?;
    Ok(())
}

/// What the review shows for an answer that looks like a credential.
const HIDDEN: &str = "••••• (hidden)";

/// An answer as the review shows it: options by their whole titles, booleans as yes or no.
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
            // Whole, not cut as on the select's row: two options alike up to the cut are told
            // apart here, before anything is sent (the review wraps it under its label).
            .map_or_else(
                || shown(value, false).into_owned(),
                |o| shown(o.title().unwrap_or(o.value()), false).into_owned(),
            )
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

    use super::{items, typed};
    use crate::schema::{
        EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Property, StringSchema,
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
            typed(&replicas, "3.0"),
            Some(json!(3.0)),
            "whole, as the server reads it"
        );
        assert_eq!(replicas.check(typed(&replicas, "3.0").as_ref()), Ok(()));
        assert_eq!(
            typed(&replicas, "2.5"),
            Some(json!(2.5)),
            "refused as not whole"
        );
        assert_eq!(typed(&replicas, "seven"), Some(json!("seven")));
        assert_eq!(typed(&replicas, ""), None);
        let ratio = Property::new("ratio", NumberSchema::new());
        assert_eq!(typed(&ratio, "0.25"), Some(json!(0.25)));
        assert_eq!(typed(&ratio, "1e2"), Some(json!(100.0)));
        assert_eq!(
            typed(&ratio, ".5"),
            Some(json!(".5")),
            "not JSON: refused as not a number"
        );
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
    fn no_selection_is_empty_only_where_nothing_else_would_be_sent() {
        let values = [EnumOption::new("a"), EnumOption::new("b")];
        let ab = || MultiSelectSchema::new(values.to_vec());
        let required = Property::new("t", ab());
        assert_eq!(items(&required, &values, &[]), Some(json!([])));
        assert_eq!(items(&required, &values, &[1, 0]), Some(json!(["b", "a"])));
        let optional = Property::new("t", ab()).optional();
        assert_eq!(items(&optional, &values, &[]), None);
        // Everything unticked on a field with a default is the user's choice, not the default.
        let defaulted = Property::new("t", ab().default_value(vec!["a".into()])).optional();
        assert_eq!(
            defaulted.sent(items(&defaulted, &values, &[])),
            Some(json!([]))
        );
    }
}
