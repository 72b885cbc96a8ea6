// As `crate_path_beside_a_mistake`, with the mistake in the container's own `#[elicit(..)]`:
// darling then gives none of its keys, and the stub must still find the `crate` path.
use mcp_elicit::Elicit;

mod runtime {
    pub use mcp_elicit as inner;
}

/// How do we reach you?
#[derive(Elicit)]
#[elicit(crate = crate::runtime::inner, mesage = "How do we reach you?")]
struct Contact {
    phone: String,
}

fn ask<T: Elicit>() -> mcp_elicit::FormRequest<T> {
    T::form_request()
}

fn main() {
    let _ = ask::<Contact>();
}
