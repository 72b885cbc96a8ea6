//! Which attributes apply to which field types, checked by the compiler where the derive cannot
//! tell a field's kind from its spelling (an alias such as `type Email = String`, or an options
//! enum): generated code asserts the kind on the attribute's tokens.

use super::{Bound, Choices, Select};

/// A string field: `format`, `min_length` and `max_length` apply.
#[diagnostic::on_unimplemented(
    message = "`format`, `min_length` and `max_length` apply only to string fields, and `{Self}` is not a string",
    label = "this attribute needs a `String` (or `Option<String>`) field",
    note = "remove the attribute, or change the field's type to `String`"
)]
pub trait StringField {}
impl StringField for String {}
impl<T: StringField> StringField for Option<T> {}

/// An integer or number field: `minimum` and `maximum` apply. `INT_RANGE` is the range of an
/// integer type (`None` for `f32`/`f64`), so bounds on an alias are range-checked at compile time.
#[diagnostic::on_unimplemented(
    message = "`minimum` and `maximum` apply only to integer and number fields, and `{Self}` is neither",
    label = "this attribute needs an integer, `f32` or `f64` field",
    note = "remove the attribute, or change the field's type to an integer or a float"
)]
pub trait NumberField {
    /// `(MIN, MAX)` of an integer type; `None` for a float.
    const INT_RANGE: Option<(i128, i128)>;
}
macro_rules! number_fields {
    ($($ty:ty),*) => {$(
        impl NumberField for $ty {
            const INT_RANGE: Option<(i128, i128)> = Some((<$ty>::MIN as i128, <$ty>::MAX as i128));
        }
    )*};
}
number_fields!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
impl NumberField for f32 {
    const INT_RANGE: Option<(i128, i128)> = None;
}
impl NumberField for f64 {
    const INT_RANGE: Option<(i128, i128)> = None;
}
impl<T: NumberField> NumberField for Option<T> {
    const INT_RANGE: Option<(i128, i128)> = T::INT_RANGE;
}

/// Whether an attribute's bound fits a number type: a whole number inside an integer type's
/// range, or any bound for a float (a `const fn`: checked at compile time).
pub const fn bound_fits<T: NumberField>(bound: Bound) -> bool {
    match (T::INT_RANGE, bound) {
        (Some((lo, hi)), Bound::Int(n)) => lo <= n && n <= hi,
        (Some(_), Bound::Float(_)) => false,
        (None, _) => true,
    }
}

/// A multi-select field: `min_items` and `max_items` apply.
#[diagnostic::on_unimplemented(
    message = "`min_items` and `max_items` apply only to multi-select fields, and `{Self}` is not one",
    label = "this attribute needs a `Vec`/`BTreeSet`/`HashSet` of an options enum, or `mcp_elicit::schema::Choices`",
    note = "remove the attribute, or make the field a multi-select"
)]
pub trait MultiSelectField {
    /// How many options the field offers: known at compile time for an options enum, `None` for
    /// [`Choices`] (supplied with the request). So `min_items` is checked against the options
    /// however the field's type is spelled (an alias too).
    const OPTION_COUNT: Option<usize>;
}
impl<E: Select> MultiSelectField for Vec<E> {
    const OPTION_COUNT: Option<usize> = Some(E::OPTIONS.len());
}
impl<E: Select> MultiSelectField for std::collections::BTreeSet<E> {
    const OPTION_COUNT: Option<usize> = Some(E::OPTIONS.len());
}
impl<E: Select, S> MultiSelectField for std::collections::HashSet<E, S> {
    const OPTION_COUNT: Option<usize> = Some(E::OPTIONS.len());
}
impl MultiSelectField for Choices {
    const OPTION_COUNT: Option<usize> = None;
}
impl<T: MultiSelectField> MultiSelectField for Option<T> {
    const OPTION_COUNT: Option<usize> = T::OPTION_COUNT;
}

/// Whether `min_items` can be met by a multi-select of type `T`: at most its number of options
/// (a `const fn`, so generated code checks it at compile time, for any spelling of the type).
pub const fn min_items_fit<T: MultiSelectField + ?Sized>(min_items: u32) -> bool {
    match T::OPTION_COUNT {
        Some(options) => {
            crate::requested::rules::min_items_fit_the_options(Some(min_items), options)
        }
        None => true,
    }
}

/// A boolean field: `consent` applies.
#[diagnostic::on_unimplemented(
    message = "`consent` applies only to boolean fields, and `{Self}` is not `bool`",
    label = "a consent checkbox is a `bool` field",
    note = "remove `consent`, or change the field's type to `bool`"
)]
pub trait BoolField {}
impl BoolField for bool {}
impl<T: BoolField> BoolField for Option<T> {}

/// Asserts `T: StringField` where the derive puts the call (on the attribute).
pub const fn assert_string_field<T: StringField + ?Sized>() {}
/// Asserts `T: NumberField` where the derive puts the call (on the attribute).
pub const fn assert_number_field<T: NumberField + ?Sized>() {}
/// Asserts `T: MultiSelectField` where the derive puts the call (on the attribute).
pub const fn assert_multi_select_field<T: MultiSelectField + ?Sized>() {}
/// Asserts `T: BoolField` where the derive puts the call (on the attribute).
pub const fn assert_bool_field<T: BoolField + ?Sized>() {}
