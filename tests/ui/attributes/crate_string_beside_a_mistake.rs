// As `crate_path_beside_a_mistake`, with the path written in a string.
use mcp_elicit::Elicit;

mod runtime {
    pub use mcp_elicit as inner;
}

/// How do we reach you?
#[derive(Elicit)]
#[elicit(crate = "crate::runtime::inner")]
struct Contact {
    #[elicit(titel = "Phone")]
    phone: String,
}

fn ask<T: Elicit>() -> mcp_elicit::FormRequest<T> {
    T::form_request()
}

fn main() {
    let _ = ask::<Contact>();
}
