//! What a field's type is, as far as the syntax shows. Types the syntax cannot classify (a
//! path to a user type, an alias) are left to the `ElicitField` trait, whose
//! `#[diagnostic::on_unimplemented]` message states the same rule.

use syn::{GenericArgument, PathArguments, Type};

/// The kind of a field's type.
#[derive(Debug, Clone)]
pub enum Class {
    String,
    Bool,
    /// An integer type and its range.
    Int {
        name: &'static str,
        min: i128,
        max: i128,
    },
    /// `f32` or `f64`.
    Float {
        name: &'static str,
    },
    /// `mcp_elicit::schema::Choice`: a single-select with run-time options.
    Choice,
    /// `mcp_elicit::schema::Choices`: a multi-select with run-time options.
    Choices,
    /// A path the syntax cannot classify: an options enum (or a type the trait will refuse).
    Select(Type),
    /// `Vec`/`BTreeSet`/`HashSet` of an options enum.
    Multi(Type),
    /// `Option<T>`.
    Optional(Box<Class>),
    /// Not a form field, and why; what to do instead.
    Forbidden(String),
}

impl Class {
    /// The class with any `Option` removed.
    pub fn inner(&self) -> &Class {
        match self {
            Class::Optional(inner) => inner.inner(),
            other => other,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self.inner(), Class::String)
    }
    pub fn is_numeric(&self) -> bool {
        matches!(self.inner(), Class::Int { .. } | Class::Float { .. })
    }
    pub fn is_multi(&self) -> bool {
        matches!(self.inner(), Class::Multi(_) | Class::Choices)
    }
    pub fn is_single_select(&self) -> bool {
        matches!(self.inner(), Class::Select(_) | Class::Choice)
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

fn single_generic(segment: &syn::PathSegment) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

fn is_path_to(ty: &Type, names: &[&str]) -> bool {
    last_segment(ty).is_some_and(|s| names.iter().any(|n| s.ident == n))
}

const SECRET_TYPES: &[&str] = &[
    "SecretString",
    "SecretBox",
    "Secret",
    "SecretVec",
    "SecretSlice",
    "SecretBytes",
];

/// Whether `ty` is spelled `SecretString` (`secrecy::SecretString`, `mcp_elicit::page::SecretString`):
/// the type of a page's field. The compiler confirms it (`__private::SecretField`).
pub fn is_secret_string(ty: &Type) -> bool {
    last_segment(ty)
        .is_some_and(|s| s.ident == "SecretString" && matches!(s.arguments, PathArguments::None))
}

/// Classify a field type.
pub fn classify(ty: &Type) -> Class {
    match ty {
        Type::Group(g) => return classify(&g.elem),
        Type::Paren(p) => return classify(&p.elem),
        Type::Reference(_) => {
            return Class::Forbidden(
                "a reference cannot hold a reply; use an owned type such as `String`".into(),
            );
        }
        Type::Tuple(t) if t.elems.is_empty() => {
            return Class::Forbidden("`()` carries no answer; remove the field".into());
        }
        Type::Tuple(_) => {
            return Class::Forbidden(
                "a tuple is not a flat primitive; make each element its own field".into(),
            );
        }
        Type::Array(_) | Type::Slice(_) => {
            return Class::Forbidden(
                "free-form arrays are not part of form mode; for a multi-select use `Vec<E>` of a unit-only enum deriving `Elicit`".into(),
            );
        }
        Type::Path(_) => {}
        _ => {
            return Class::Forbidden(
                "this type cannot be a form field; form fields are flat primitives".into(),
            );
        }
    }
    let Some(segment) = last_segment(ty) else {
        return Class::Forbidden(
            "a qualified path cannot be checked as a form field; name the type directly".into(),
        );
    };
    let name = segment.ident.to_string();
    match name.as_str() {
        "String" => Class::String,
        "bool" => Class::Bool,
        "i8" => Class::Int { name: "i8", min: i8::MIN.into(), max: i8::MAX.into() },
        "i16" => Class::Int { name: "i16", min: i16::MIN.into(), max: i16::MAX.into() },
        "i32" => Class::Int { name: "i32", min: i32::MIN.into(), max: i32::MAX.into() },
        "i64" => Class::Int { name: "i64", min: i64::MIN.into(), max: i64::MAX.into() },
        "isize" => Class::Int { name: "isize", min: i64::MIN.into(), max: i64::MAX.into() },
        "u8" => Class::Int { name: "u8", min: 0, max: u8::MAX.into() },
        "u16" => Class::Int { name: "u16", min: 0, max: u16::MAX.into() },
        "u32" => Class::Int { name: "u32", min: 0, max: u32::MAX.into() },
        "u64" => Class::Int { name: "u64", min: 0, max: u64::MAX.into() },
        "usize" => Class::Int { name: "usize", min: 0, max: u64::MAX.into() },
        "i128" | "u128" => Class::Forbidden(format!(
            "`{name}` exceeds what a JSON number carries exactly; use `i64` or `u64`"
        )),
        "f32" => Class::Float { name: "f32" },
        "f64" => Class::Float { name: "f64" },
        "char" => Class::Forbidden(
            "`char` has no form-mode schema; use `String` with `max_length = 1`".into(),
        ),
        "str" => Class::Forbidden("`str` is unsized; use `String`".into()),
        "Choice" => Class::Choice,
        "Choices" => Class::Choices,
        "Option" => match single_generic(segment) {
            Some(inner) if is_path_to(inner, &["Option"]) => Class::Forbidden(
                "`Option<Option<T>>` cannot be told apart on the wire (absent and null mean the same); use `Option<T>`".into(),
            ),
            Some(inner) => match classify(inner) {
                Class::Forbidden(reason) => Class::Forbidden(reason),
                class => Class::Optional(Box::new(class)),
            },
            None => Class::Forbidden("`Option` needs a type argument".into()),
        },
        "Vec" | "BTreeSet" | "HashSet" => match single_generic(segment) {
            Some(inner) => match classify(inner) {
                Class::Select(t) => Class::Multi(t),
                Class::String | Class::Bool | Class::Int { .. } | Class::Float { .. } | Class::Choice => {
                    Class::Forbidden(format!(
                        "free-form arrays are not part of form mode (only multi-selects of fixed options are); derive `Elicit` on a unit-only enum of the allowed values and use `{name}<ThatEnum>`, or use `mcp_elicit::schema::Choices` for options known only at run time"
                    ))
                }
                _ => Class::Forbidden(format!(
                    "`{name}` of this element is not a multi-select; form mode holds arrays of enum options only, never arrays of objects or arrays"
                )),
            },
            None => Class::Forbidden(format!("`{name}` needs a type argument")),
        },
        "VecDeque" | "LinkedList" | "BinaryHeap" => Class::Forbidden(format!(
            "`{name}` is not a multi-select type; use `Vec<E>`, `BTreeSet<E>` or `HashSet<E>` of a unit-only enum deriving `Elicit`"
        )),
        "HashMap" | "BTreeMap" | "IndexMap" | "Map" => Class::Forbidden(
            "a map is a nested object, which form mode does not allow; use one field per key".into(),
        ),
        "Value" => Class::Forbidden(
            "arbitrary JSON is not a flat primitive; declare the fields you need".into(),
        ),
        "Box" | "Rc" | "Arc" | "Cow" | "RefCell" | "Cell" | "Mutex" | "RwLock" => {
            Class::Forbidden(format!("`{name}` wraps the value; use the inner type directly"))
        }
        n if SECRET_TYPES.contains(&n) => Class::Forbidden(format!(
            "`{n}` holds a secret, and form mode MUST NOT ask for secrets (passwords, API keys, tokens, payment credentials); ask for it on a page: `#[elicit(mode = \"url\")]` with a `SecretString` field, so the secret never passes through the client"
        )),
        _ => Class::Select(ty.clone()),
    }
}
