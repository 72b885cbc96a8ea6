//! Answers one elicitation request in this terminal and prints the `ElicitResult` it would
//! send: the terminal answerer without a server, for `tests/terminal.rs` to drive in a real
//! pseudo-terminal, and for trying a request's look by hand.
//!
//! `answer_in_terminal <server name> <revision> <request params as JSON>`; prints
//! `sent: <ElicitResult>` on standard output, or `refused: <why>` (exit code 2) for a request a
//! host cannot show.
use mcp_elicit::Revision;
use mcp_elicit::client::read_request;
use mcp_elicit::client::terminal::{Terminal, printable_line};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [server, revision, params] = &args[..] else {
        eprintln!("usage: answer_in_terminal <server name> <revision> <request params as JSON>");
        std::process::exit(2);
    };
    let request = revision
        .parse::<Revision>()
        .map_err(|e| e.to_string())
        .and_then(|revision| {
            let params = serde_json::from_str(params).map_err(|e| e.to_string())?;
            read_request(&params, revision).map_err(|e| e.to_string())
        });
    match request {
        Ok(request) => println!(
            "sent: {}",
            Terminal::new().answer_blocking(server, &request)
        ),
        Err(why) => {
            println!("refused: {}", printable_line(&why));
            std::process::exit(2);
        }
    }
}
