//! What a property expects, in the words a person reads: for a host to show before the user
//! answers, as [`Rule::for_user`](crate::schema::Rule::for_user) words what an answer broke.

use std::fmt::{Display, Write};

use super::{Property, PropertyKind};
use crate::violation::plural;

impl Property {
    /// What a value of this property must be, in words, or nothing when anything of its kind
    /// goes: `"a whole number from 1 to 12"`, `"an email address like name@example.com, at most
    /// 80 characters"`, `"choose 1 to 3"`.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{schema::{IntegerSchema, Property}};
    /// let size = Property::new("size", IntegerSchema::new().minimum(1).maximum(12));
    /// assert_eq!(size.expects(), "a whole number from 1 to 12");
    /// ```
    pub fn expects(&self) -> String {
        let mut out = String::new();
        match &self.kind {
            PropertyKind::String(text) => {
                if let Some(format) = text.format {
                    out.push_str(format.describe());
                }
                let count = |n: u32| format!("{n} character{}", plural(n));
                let length = match (text.min_length, text.max_length) {
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
                bounds(&mut out, integer.minimum, integer.maximum);
            }
            PropertyKind::Number(number) => {
                out.push_str("a number");
                bounds(&mut out, number.minimum, number.maximum);
            }
            PropertyKind::MultiSelect(multi) => {
                let _ = match (multi.min_items, multi.max_items) {
                    (Some(min), Some(max)) if min == max => write!(out, "choose exactly {min}"),
                    (Some(min), Some(max)) => write!(out, "choose {min} to {max}"),
                    (Some(min), None) if min > 0 => write!(out, "choose at least {min}"),
                    (_, Some(max)) => write!(out, "choose at most {max}"),
                    _ => Ok(()),
                };
            }
            PropertyKind::Boolean(_) | PropertyKind::Select(_) => {}
        }
        out
    }
}

/// `" from 1 to 12"`, `" of at least 1"`, `" of at most 12"`, or nothing.
fn bounds<T: Display>(out: &mut String, minimum: Option<T>, maximum: Option<T>) {
    let _ = match (minimum, maximum) {
        (Some(min), Some(max)) => write!(out, " from {min} to {max}"),
        (Some(min), None) => write!(out, " of at least {min}"),
        (None, Some(max)) => write!(out, " of at most {max}"),
        (None, None) => Ok(()),
    };
}

#[cfg(test)]
mod tests {
    use crate::format::Format;
    use crate::requested::{
        EnumOption, MultiSelectSchema, NumberSchema, Property, PropertyKind, SelectSchema,
        StringSchema,
    };

    #[test]
    fn every_constraint_in_words() {
        let cases: [(PropertyKind, &str); 8] = [
            (
                StringSchema::new()
                    .format(Format::Date)
                    .max_length(10)
                    .into(),
                "a date like 2026-07-28 (RFC 3339 full-date), at most 10 characters",
            ),
            (
                StringSchema::new().min_length(1).into(),
                "at least 1 character",
            ),
            (
                StringSchema::new().min_length(2).max_length(2).into(),
                "exactly 2 characters",
            ),
            (StringSchema::new().min_length(0).into(), ""),
            (
                NumberSchema::new().minimum(0.5).into(),
                "a number of at least 0.5",
            ),
            (
                MultiSelectSchema::new(vec![EnumOption::new("a")])
                    .min_items(1)
                    .into(),
                "choose at least 1",
            ),
            (
                MultiSelectSchema::new(vec![EnumOption::new("a")])
                    .max_items(1)
                    .into(),
                "choose at most 1",
            ),
            (SelectSchema::new(vec![EnumOption::new("a")]).into(), ""),
        ];
        for (kind, words) in cases {
            assert_eq!(Property::new("p", kind).expects(), words);
        }
    }
}
