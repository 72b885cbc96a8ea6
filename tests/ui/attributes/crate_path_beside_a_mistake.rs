// The runtime named by a path (`crate = some::path`, as darling reads it): beside a mistake the
// derive emits a stub impl, which must name the runtime by that same path. Here the real
// expansion's path and `::mcp_elicit` are one crate; where `::mcp_elicit` does not exist (a
// renamed dependency, or the runtime used without the facade) a stub that ignored the path
// added an `unresolved import` to the real error.
use mcp_elicit::Elicit;

mod runtime {
    pub use mcp_elicit as inner;
}

/// How do we reach you?
#[derive(Elicit)]
#[elicit(crate = crate::runtime::inner)]
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
