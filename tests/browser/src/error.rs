use std::fmt;

/// What went wrong in the harness, in words that say what to do: a missing binary names the
/// package that brings it.
///
/// `Debug` prints the same text as `Display`, so a test returning `Result<(), Error>` (or a
/// `Box<dyn std::error::Error>`) shows the message as it is.
pub struct Error(String);

/// The harness's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    /// Wraps an error from a dependency with what the harness was doing.
    pub(crate) fn context<E: fmt::Display>(doing: impl fmt::Display) -> impl FnOnce(E) -> Self {
        move |e| Self(format!("{doing}: {e}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}
