//! [`PageError`]: why the pages could not be set up.

use std::fmt;

use crate::state::KeyError;
use crate::url_mode::FlowsError;

/// Why the pages could not be set up.
#[derive(Debug)]
#[non_exhaustive]
pub enum PageError {
    /// A page's name is not 1 to 64 ASCII letters, digits, `_` or `-`.
    Name {
        /// The name (at most 64 characters of it).
        name: String,
    },
    /// A secret page has no field.
    NoFields,
    /// A secret page's field is not a string.
    NotAString {
        /// The field.
        field: String,
    },
    /// A field is named `_csrf`, the token's name.
    ReservedField,
    /// A rule of a form's fields is broken (names, titles, lengths).
    Schema(crate::schema::SchemaError),
    /// A field's `pattern` ([`SecretPage::with_pattern`](super::SecretPage::with_pattern)) cannot
    /// be used.
    Pattern {
        /// The field (at most 64 characters of its name).
        field: String,
        /// Why: the `regex` crate's own error (where in the pattern, and what is wrong), or the
        /// rule broken.
        why: String,
    },
    /// The flows' base URL.
    Flows(FlowsError),
    /// The keys that seal the CSRF tokens.
    Keys(KeyError),
    /// The loopback listener could not be bound, or served.
    Io(std::io::Error),
    /// A provider's URL is not one.
    Url(String),
    /// [`Pages::serve`](super::Pages::serve) on pages that were not bound to loopback: mount
    /// [`router`](super::Pages::router) in the server's own app instead.
    NotBound,
    /// An account given to [`TokenSignIn::new`](super::TokenSignIn::new) that breaks a rule.
    Accounts {
        /// Which account: its place among the accounts, from 1.
        account: usize,
        /// The rule it breaks.
        why: &'static str,
    },
    /// A line of [`TokenSignIn::from_lines`](super::TokenSignIn::from_lines)'s text that breaks
    /// a rule ([`AccountsFileLine`](PageError::AccountsFileLine) for a file's).
    AccountLine {
        /// Which line, from 1.
        line: usize,
        /// The rule it breaks.
        why: &'static str,
    },
    /// A line of [`TokenSignIn::from_file`](super::TokenSignIn::from_file)'s file that breaks a
    /// rule: the file and the line, so that a server reading several files says which to fix.
    AccountsFileLine {
        /// The file, as given.
        path: std::path::PathBuf,
        /// Which line, from 1.
        line: usize,
        /// The rule it breaks.
        why: &'static str,
    },
    /// The file of [`TokenSignIn::from_file`](super::TokenSignIn::from_file) could not be read.
    AccountsFile {
        /// The file, as given.
        path: std::path::PathBuf,
        /// Why it could not be read.
        error: std::io::Error,
    },
    /// A principal that is empty or only white space
    /// ([`SingleUser::named`](super::SingleUser::named),
    /// [`Pages::bind_loopback`](super::Pages::bind_loopback)): it would name no one.
    EmptyPrincipal,
    /// A claim lease under two seconds
    /// ([`Pages::with_claim_lease`](super::Pages::with_claim_lease)).
    ClaimLease {
        /// The lease given.
        lease: std::time::Duration,
    },
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PageError::Name { name } => write!(
                f,
                "page name `{name}` must be 1 to 64 ASCII letters, digits, `_` or `-`"
            ),
            PageError::NoFields => f.write_str("a secret page needs at least one field"),
            PageError::NotAString { field } => write!(
                f,
                "field `{field}` of a secret page must be a string (`StringSchema`): a secret is typed"
            ),
            PageError::ReservedField => {
                f.write_str("no field of a page may be named `_csrf`: the page's token has it")
            }
            PageError::Schema(error) => fmt::Display::fmt(error, f),
            PageError::Pattern { field, why } => write!(
                f,
                "field `{field}`: `pattern` must be a regular expression the page can check \
                 (the `regex` crate's syntax): {why}"
            ),
            PageError::Flows(error) => fmt::Display::fmt(error, f),
            PageError::Keys(error) => fmt::Display::fmt(error, f),
            PageError::Io(error) => write!(f, "the pages' listener: {error}"),
            PageError::Url(why) => write!(f, "a provider's URL: {why}"),
            PageError::NotBound => f.write_str(
                "these pages were not bound to loopback (`Pages::bind_loopback`): mount \
                 `Pages::router` in the server's own app instead of calling `serve`",
            ),
            PageError::Accounts { account, why } => {
                write!(f, "the token sign-in's account {account}: {why}")
            }
            PageError::AccountLine { line, why } => {
                write!(f, "the token sign-in's accounts, line {line}: {why}")
            }
            PageError::AccountsFileLine { path, line, why } => write!(
                f,
                "the token sign-in's accounts file {}, line {line}: {why}",
                path.display()
            ),
            PageError::AccountsFile { path, error } => write!(
                f,
                "the token sign-in's accounts file {}: {error}",
                path.display()
            ),
            PageError::EmptyPrincipal => f.write_str(
                "the single user's principal is empty or only white space: name the user \
                 (`SingleUser::named(\"me\")`), as `AskConfig::single_user` does",
            ),
            PageError::ClaimLease { lease } => write!(
                f,
                "claim lease {lease:?} must be at least two seconds (flows count whole seconds, \
                 and the page keeps the last one to record how the sink ended)"
            ),
        }
    }
}

impl std::error::Error for PageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PageError::Schema(error) => Some(error),
            PageError::Flows(error) => Some(error),
            PageError::Keys(error) => Some(error),
            PageError::Io(error) => Some(error),
            PageError::AccountsFile { error, .. } => Some(error),
            _ => None,
        }
    }
}
