use mcp_elicit::Elicit;

/// What is your name?
#[derive(Elicit)]
struct Name<'a> {
    name: String,
    nick: std::marker::PhantomData<&'a str>,
}

fn main() {}
