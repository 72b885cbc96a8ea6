use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Env {
    Staging,
    Production,
}

// How a server asks for any form.
fn ask<T: Elicit>() -> mcp_elicit::FormRequest<T> {
    T::form_request()
}

fn main() {
    let _ = ask::<Env>();
    let _ = Env::form_request();
}
