//! An MCP host in the terminal: starts any MCP server command over stdio, lists its tools, calls
//! one with JSON arguments, and lets its user answer the server's elicitations in the terminal.
//!
//! ```sh
//! cargo run -p elicit-examples --features terminal --example terminal_client -- \
//!     target/debug/examples/booking
//! cargo run -p elicit-examples --features terminal --example terminal_client -- \
//!     --revision 2026-07-28 --call book_table target/debug/examples/booking
//! cargo run -p elicit-examples --features terminal --example terminal_client -- \
//!     python3 my_server.py
//! ```
//!
//! Options, before the server command (or before `--`):
//! - `--revision 2025-06-18 | 2025-11-25 | 2026-07-28`: the protocol revision to ask for (by
//!   default 2025-11-25, which every server speaks; 2026-07-28 is opened by discovery, and the
//!   call's input-required rounds are driven by rmcp's client through the same answerer);
//! - `--call <tool>` and `--args <JSON object>`: call one tool and exit (its exit code is 3 if the
//!   result is an error or the call was cancelled); without `--call` it asks which tool to call,
//!   until an empty line;
//! - `--server-log`: show the server's standard error (hidden, as it would draw over the forms).
//!
//! A page the user agreed to open is not a step done. On 2025-11-25, while a page accepted
//! during a call waits for the server to report it complete (`notifications/elicitation/complete`),
//! the terminal shows the wait, says when the step completes, and offers *Check again* (the call
//! is sent again; one still running is cancelled first) and *Cancel* (one still running is
//! cancelled; after it returned, the wait ends). On 2026-07-28 a server that finds the step not
//! finished asks about the same page again: the terminal offers *Check again* (the call is
//! retried with the answer) and *Cancel* there.
use std::error::Error;
use std::pin::pin;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use mcp_elicit::Revision;
use mcp_elicit::client::Answerer;
use mcp_elicit::client::terminal::{Terminal, Waited, printable_line, quoted};
use mcp_elicit::rmcp::AnsweringClient;
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value};

const USAGE: &str = "usage: terminal_client [--revision 2025-06-18|2025-11-25|2026-07-28] \
    [--call <tool> [--args <JSON object>]] [--server-log] [--] <server command> [args...]";

type Client = RunningService<RoleClient, AnsweringClient<Terminal>>;

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(code) => code,
        Err(error) => {
            let _screen = Terminal::screen();
            eprint!("{}", quoted(&format!("terminal_client: {error}")));
            ExitCode::from(1)
        }
    }
}

async fn run() -> Result<ExitCode, Box<dyn Error>> {
    let Some(options) = Options::parse(std::env::args().skip(1))? else {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    };
    // Bad arguments are said before any server starts.
    let call_arguments = arguments(options.args.as_deref().unwrap_or(""))?;
    let (program, args) = options.server.split_first().ok_or(USAGE)?;
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let stderr = if options.server_log {
        Stdio::piped()
    } else {
        Stdio::null()
    };
    let (transport, server_log) = TokioChildProcess::builder(command)
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    if let Some(server_log) = server_log {
        tokio::spawn(show_log(server_log));
    }

    let terminal = Arc::new(Terminal::new());
    if terminal.modes().is_empty() {
        eprintln!("Not a terminal: the client declares no elicitation, so no server asks.");
    }
    // Who asks, as this host knows it: the command it started (a server names itself as it
    // likes, and any server can call itself "booking"), its paths cut to file names.
    let label: Vec<String> = options
        .server
        .iter()
        .map(|part| match std::path::Path::new(part).file_name() {
            Some(name) => name.to_string_lossy().into_owned(),
            None => part.clone(),
        })
        .collect();
    let label = label.join(" ");
    let client = AnsweringClient::new(Arc::clone(&terminal))
        .with_name("terminal_client")
        .with_server_label(label.clone());
    let client: Client = client.connect(transport, options.revision).await?;

    let server = client
        .peer_info()
        .and_then(|info| info.server_info.as_ref().map(|s| s.name.clone()))
        .unwrap_or_default();
    let tools = client.list_all_tools().await?;
    {
        let _screen = Terminal::screen();
        // The name this host gives it (the command), and the one it gives itself. Everything the
        // server wrote is `quoted`: in the gutter, so that no row of it passes for this host's
        // own, nor for a prompt's.
        print!(
            "{}",
            quoted(&format!(
                "{} (calling itself \"{}\") offers {} tool(s):",
                printable_line(&label),
                printable_line(&server),
                tools.len()
            ))
        );
        for tool in &tools {
            let description = tool.description.as_deref().unwrap_or("");
            print!(
                "{}",
                quoted(&format!("{}  {}", printable_line(&tool.name), description))
            );
        }
    }

    let code = match options.call {
        Some(tool) => {
            if call(&client, &terminal, tool, call_arguments).await? {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(3)
            }
        }
        None => {
            while let Some(tool) = line("Call which tool? (empty line: quit) ").await? {
                if !tools.iter().any(|t| t.name == tool) {
                    let _screen = Terminal::screen();
                    println!("No tool `{}` here.", printable_line(&tool));
                    continue;
                }
                let text = line("Arguments, a JSON object (empty line: none) ").await?;
                match arguments(text.as_deref().unwrap_or("")) {
                    Ok(arguments) => {
                        call(&client, &terminal, tool, arguments).await?;
                    }
                    Err(error) => {
                        let _screen = Terminal::screen();
                        println!("{error}");
                    }
                }
            }
            ExitCode::SUCCESS
        }
    };
    client.cancel().await?;
    // A prompt the server withdrew may still be on the screen: it ends before the host does,
    // so the terminal is not left in its raw mode.
    drop(Terminal::screen());
    Ok(code)
}

/// The server's standard error, line by line, made printable and never drawn over a prompt.
async fn show_log(log: tokio::process::ChildStderr) {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(log).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let shown = tokio::task::spawn_blocking(move || {
            let _screen = Terminal::screen();
            eprint!("{}", quoted(&format!("server: {line}")));
        });
        if shown.await.is_err() {
            return;
        }
    }
}

/// Call `tool` and print its result; whether it succeeded. While a page the user accepted waits
/// for the server to report its step complete, the terminal shows the wait: *Check again* sends
/// the call again, *Cancel* gives it up.
async fn call(
    client: &Client,
    terminal: &Terminal,
    tool: String,
    arguments: Map<String, Value>,
) -> Result<bool, Box<dyn Error>> {
    let params = CallToolRequestParams::new(tool.clone()).with_arguments(arguments);
    loop {
        let called = match during(client, terminal, params.clone()).await {
            During::Returned(called) => called,
            During::Waited(Waited::CheckAgain) => {
                let _screen = Terminal::screen();
                println!(
                    "── {} cancelled, to be sent again ──",
                    printable_line(&tool)
                );
                continue;
            }
            During::Waited(_) => {
                let _screen = Terminal::screen();
                println!("── {} cancelled ──", printable_line(&tool));
                return Ok(false);
            }
        };
        let succeeded = show(&tool, called);
        // The call returned, and a page the user accepted still waits (the tool may have said
        // to call it again once the step is done): the user checks again or stops waiting.
        if !terminal.waiting() {
            return Ok(succeeded);
        }
        loop {
            match terminal.wait().await {
                Waited::GaveWay => {}
                Waited::CheckAgain => break,
                _ => return Ok(succeeded),
            }
        }
        let _screen = Terminal::screen();
        println!("── {} sent again ──", printable_line(&tool));
    }
}

/// How a call ended: it returned, or the user chose in the wait for a page.
enum During {
    Returned(Result<CallToolResult, ServiceError>),
    Waited(Waited),
}

/// Send `params`; while a page the user accepted waits, show the wait, whose *Check again* or
/// *Cancel* ends the call (dropped: rmcp sends `notifications/cancelled` for it).
async fn during(client: &Client, terminal: &Terminal, params: CallToolRequestParams) -> During {
    let mut called = pin!(client.call_tool(params));
    loop {
        tokio::select! {
            called = &mut called => return During::Returned(called),
            waited = once_waiting(terminal) => match waited {
                // Another page may still wait, or the request that came first is answered.
                Waited::Completed | Waited::GaveWay => {}
                waited => return During::Waited(waited),
            },
        }
    }
}

/// The wait, once a page the user accepted waits.
async fn once_waiting(terminal: &Terminal) -> Waited {
    while !terminal.waiting() {
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    terminal.wait().await
}

/// Print what the call returned; whether it succeeded.
fn show(tool: &str, called: Result<CallToolResult, ServiceError>) -> bool {
    // After the call, and after any prompt still on the screen.
    let _screen = Terminal::screen();
    match called {
        Ok(result) => {
            let failed = result.is_error == Some(true);
            let heading = if failed { "failed" } else { "returned" };
            println!("── {} {heading} ──", printable_line(tool));
            print!("{}", quoted(&text_of(&result)));
            !failed
        }
        // A JSON-RPC error (an unknown tool, bad arguments): the session goes on.
        Err(error) => {
            println!("── {} failed ──", printable_line(tool));
            print!("{}", quoted(&error.to_string()));
            false
        }
    }
}

/// A result's text content, one block a line (other content by its kind).
fn text_of(result: &CallToolResult) -> String {
    let mut lines: Vec<String> = result
        .content
        .iter()
        .map(|content| match content.as_text() {
            Some(text) => text.text.clone(),
            None => "(content that is not text)".to_owned(),
        })
        .collect();
    if let Some(structured) = &result.structured_content {
        lines.push(structured.to_string());
    }
    lines.join("\n")
}

/// A tool's arguments: a JSON object, or nothing.
fn arguments(text: &str) -> Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(arguments)) => Ok(arguments),
        Ok(_) => Err("the arguments must be a JSON object".to_owned()),
        Err(error) => Err(format!("the arguments are not JSON: {error}")),
    }
}

/// One line the user types after `prompt`; `None` at an empty line or the end of input.
async fn line(prompt: &'static str) -> Result<Option<String>, Box<dyn Error>> {
    let read = tokio::task::spawn_blocking(move || {
        let _screen = Terminal::screen();
        eprint!("{prompt}");
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    });
    let line = read.await??;
    let line = line.trim();
    Ok((!line.is_empty()).then(|| line.to_owned()))
}

/// The command line.
struct Options {
    revision: Revision,
    call: Option<String>,
    args: Option<String>,
    server_log: bool,
    server: Vec<String>,
}

impl Options {
    /// The options, or `None` when the user asked for the usage (`--help`).
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Self>, String> {
        let mut options = Options {
            revision: Revision::V2025_11_25,
            call: None,
            args: None,
            server_log: false,
            server: Vec::new(),
        };
        while let Some(arg) = args.next() {
            let mut value =
                |name: &str| args.next().ok_or(format!("{name} needs a value\n{USAGE}"));
            match arg.as_str() {
                "--revision" => {
                    let revision = value("--revision")?;
                    options.revision = revision.parse().map_err(|e| format!("{e}\n{USAGE}"))?;
                }
                "--call" => options.call = Some(value("--call")?),
                "--args" => options.args = Some(value("--args")?),
                "--server-log" => options.server_log = true,
                "--help" | "-h" => return Ok(None),
                "--" => {
                    options.server.extend(args);
                    break;
                }
                flag if flag.starts_with("--") => {
                    return Err(format!("no option `{flag}`\n{USAGE}"));
                }
                _ => {
                    options.server.push(arg);
                    options.server.extend(args);
                    break;
                }
            }
        }
        if options.server.is_empty() {
            return Err(format!("no server command\n{USAGE}"));
        }
        if options.args.is_some() && options.call.is_none() {
            return Err(format!("--args needs --call\n{USAGE}"));
        }
        Ok(Some(options))
    }
}
