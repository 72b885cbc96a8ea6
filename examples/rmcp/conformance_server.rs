//! The tool contracts of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance` 0.2.0-alpha.12), over streamable HTTP with `rmcp`, every
//! elicitation built with this crate's derive.
//!
//! ```sh
//! PORT=3001 cargo run -p elicit-examples --features http --example conformance_server   # http://127.0.0.1:3001/mcp
//! .ci/conformance.sh                                                  # runs the suite against it
//! ```
//!
//! - `test_elicitation`, `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`
//!   (protocol 2025-11-25): the server sends `elicitation/create` through the peer.
//! - the `test_input_required_result_*` tools and prompt (protocol 2026-07-28, stateless): the
//!   server answers with an input-required result, and reads the client's retry, through
//!   `mcp_elicit::mrtr` rounds whose state is sealed (a tampered state is `-32602`).
//!
//! The tools are `#[tool]` functions and the prompt a `#[prompt]` function, each taking an
//! [`Asker`], served by [`AskingHttpService`]: rmcp's streamable HTTP service, recording each
//! call before its parameters are built. Sampling and roots go through the asker's
//! [`Round`](mcp_elicit::mrtr::Round).

use mcp_elicit::mrtr::{Ask, Capability, Rounds};
use mcp_elicit::rmcp::{
    AskConfig, Asker, AskingHttpService, AskingServer, PromptResponse, SessionBinding,
    ToolResponse, respond, respond_prompt,
};
use mcp_elicit::{Elicit, Elicitation, FormRequest, Mode, reply::FromContent};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, PromptMessage, Role, ServerCapabilities,
    ServerConfig,
};
use rmcp::{
    ServerHandler, prompt, prompt_handler, prompt_router, schemars, tool, tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::{Value, json};

// ------------------------------------------------------------------------ the legacy forms

/// Please provide your information.
#[derive(Elicit)]
struct UserInfo {
    #[elicit(description = "User's response")]
    username: String,
    #[elicit(description = "User's email address")]
    email: String,
}

/// Please review and update the form fields with defaults.
#[derive(Elicit)]
struct Sep1034Defaults {
    #[elicit(description = "User name", default = "John Doe")]
    name: Option<String>,
    #[elicit(description = "User age", maximum = 150, default = 30)]
    age: Option<u8>,
    #[elicit(
        description = "User score",
        minimum = 0.0,
        maximum = 100.0,
        default = 95.5
    )]
    score: Option<f64>,
    #[elicit(description = "User status", default = Status::Active)]
    status: Option<Status>,
    #[elicit(description = "Verification status", default = true)]
    verified: Option<bool>,
}

#[derive(Elicit, Clone, Copy, PartialEq, Debug)]
#[elicit(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// Please select options from the enum fields.
#[derive(Elicit)]
#[elicit(rename_all = "camelCase")]
struct Sep1330Enums {
    /// Select one option.
    untitled_single: Untitled,
    /// Select one option with titles.
    titled_single: TitledSingle,
    /// Select one option (legacy).
    #[elicit(legacy_enum_names)]
    legacy_enum: Legacy,
    /// Select multiple options.
    untitled_multi: Vec<Untitled>,
    /// Select multiple options with titles.
    titled_multi: Vec<TitledMulti>,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, Ord, PartialOrd, Debug)]
#[elicit(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, Ord, PartialOrd, Debug)]
#[elicit(rename_all = "lowercase")]
enum TitledSingle {
    #[elicit(title = "First Option")]
    Value1,
    #[elicit(title = "Second Option")]
    Value2,
    #[elicit(title = "Third Option")]
    Value3,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, Ord, PartialOrd, Debug)]
#[elicit(rename_all = "lowercase")]
enum Legacy {
    #[elicit(title = "Option One")]
    Opt1,
    #[elicit(title = "Option Two")]
    Opt2,
    #[elicit(title = "Option Three")]
    Opt3,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, Ord, PartialOrd, Debug)]
#[elicit(rename_all = "lowercase")]
enum TitledMulti {
    #[elicit(title = "First Choice")]
    Value1,
    #[elicit(title = "Second Choice")]
    Value2,
    #[elicit(title = "Third Choice")]
    Value3,
}

// -------------------------------------------------------------- the 2026-07-28 (MRTR) forms

/// What is your name?
#[derive(Elicit)]
struct Name {
    name: String,
}

/// Please confirm
#[derive(Elicit)]
struct Confirm {
    ok: bool,
}

/// Step 2: What is your favorite color?
#[derive(Elicit)]
struct Color {
    color: String,
}

/// What context should the prompt use?
#[derive(Elicit)]
struct PromptContext {
    context: String,
}

// ------------------------------------------------------------------------------- the server

#[derive(Clone)]
struct Conformance {
    asking: AskConfig,
}

impl AskingServer for Conformance {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

/// `action=…, content={…}`: what the legacy scenarios suggest a tool reports.
fn describe<T: Elicit>(outcome: &Elicitation<T>) -> String {
    match outcome {
        Elicitation::Accept(value) => format!(
            "action=accept, content={}",
            Value::Object(value.to_content())
        ),
        other => match other.action() {
            Some(action) => format!("action={action}"),
            None => "no reply".to_owned(),
        },
    }
}

/// The text of a `CreateMessageResult`.
fn sampled_text(result: &Value) -> &str {
    result["content"]["text"].as_str().unwrap_or("(no text)")
}

fn greeting(outcome: Elicitation<Name>) -> String {
    match outcome {
        Elicitation::Accept(who) => format!("Hello, {}!", who.name),
        other => format!("Nobody greeted: {}.", describe(&other)),
    }
}

/// A form asked under `key`, the `inputRequests` key the suite's scenarios expect.
fn keyed<T: FromContent>(form: FormRequest<T>, key: &'static str) -> FormRequest<T> {
    form.with_name(key)
}

#[derive(Deserialize, schemars::JsonSchema)]
struct MessageArgument {
    /// The message to show the user.
    message: String,
}

#[tool_router]
impl Conformance {
    #[tool(description = "Requests user input via elicitation/create")]
    async fn test_elicitation(
        &self,
        mut asker: Asker,
        Parameters(argument): Parameters<MessageArgument>,
    ) -> ToolResponse {
        respond(async {
            let form = UserInfo::form_request().with_message(argument.message)?;
            let outcome = asker.form_request(keyed(form, "form")).await?;
            Ok(text(format!("User response: {}", describe(&outcome))))
        })
        .await
    }

    #[tool(description = "Elicitation with a default on every kind of field (SEP-1034)")]
    async fn test_elicitation_sep1034_defaults(&self, asker: Asker) -> ToolResponse {
        completed::<Sep1034Defaults>(asker).await
    }

    #[tool(description = "Elicitation with every kind of enum (SEP-1330)")]
    async fn test_elicitation_sep1330_enums(&self, asker: Asker) -> ToolResponse {
        completed::<Sep1330Enums>(asker).await
    }

    #[tool(description = "Asks the user's name (input-required result)")]
    async fn test_input_required_result_elicitation(&self, mut asker: Asker) -> ToolResponse {
        // The suite's `ignore-extra-params` answers this question in its very first request,
        // without a `requestState`: a stateless tool may accept such an up-front answer (the
        // name is not consent; consent asks never read answers given before they were asked).
        asker.answerable_before_asked();
        respond(async {
            let outcome = asker
                .form_request(keyed(Name::form_request(), "user_name"))
                .await?;
            Ok(text(greeting(outcome)))
        })
        .await
    }

    #[tool(description = "Asks for confirmation, with sealed request state")]
    async fn test_input_required_result_request_state(&self, asker: Asker) -> ToolResponse {
        confirm(asker).await
    }

    #[tool(description = "Asks for confirmation; refuses a tampered request state")]
    async fn test_input_required_result_tampered_state(&self, asker: Asker) -> ToolResponse {
        confirm(asker).await
    }

    #[tool(description = "Asks two questions, one round each")]
    async fn test_input_required_result_multi_round(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let step1 = Name::form_request().with_message("Step 1: What is your name?")?;
            let name = match asker.form_request(keyed(step1, "step1")).await? {
                Elicitation::Accept(who) => who.name,
                other => return Ok(text(format!("Stopped at step 1: {}.", describe(&other)))),
            };
            Ok(
                match asker
                    .form_request(keyed(Color::form_request(), "step2"))
                    .await?
                {
                    Elicitation::Accept(color) => text(format!("{name} likes {}.", color.color)),
                    other => text(format!("Stopped at step 2: {}.", describe(&other))),
                },
            )
        })
        .await
    }

    #[tool(description = "Asks the client's model a question (input-required result)")]
    async fn test_input_required_result_sampling(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let sampled = asker.answer_all(capital()).await?;
            Ok(text(format!("Sampled: {}", sampled_text(&sampled))))
        })
        .await
    }

    #[tool(description = "Asks for the client's roots (input-required result)")]
    async fn test_input_required_result_list_roots(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let roots = asker.answer_all(Ask::roots("client_roots")).await?;
            let uris: Vec<&str> = roots["roots"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|root| root["uri"].as_str())
                .collect();
            Ok(text(format!("Roots: {}", uris.join(", "))))
        })
        .await
    }

    #[tool(description = "Asks for a form, a sample and the roots in one round")]
    async fn test_input_required_result_multiple_inputs(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let greet = Ask::sampling(
                "greeting",
                json!({"messages": [{"role": "user", "content": {"type": "text",
                    "text": "Generate a greeting"}}], "maxTokens": 50}),
            );
            let asks = (
                Ask::form::<Name>("user_name"),
                greet,
                Ask::roots("client_roots"),
            );
            let (name, sampled, roots) = asker.answer_all(asks).await?;
            Ok(text(format!(
                "{} Sampled: {}. Roots: {}.",
                greeting(name),
                sampled_text(&sampled),
                roots["roots"].as_array().map_or(0, Vec::len)
            )))
        })
        .await
    }

    #[tool(description = "Asks only what the request's capabilities allow")]
    async fn test_input_required_result_capabilities(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            // Ask only what this request declared it can answer.
            let Some(round) = asker.round().await? else {
                return Ok(text("This tool speaks protocol 2026-07-28 only."));
            };
            let declared = round.capabilities();
            let form = declared.supports(Capability::Elicitation(Mode::Form));
            let sampling = declared.supports(Capability::Sampling);
            if form {
                let name = asker
                    .form_request(keyed(Name::form_request(), "user_name"))
                    .await?;
                Ok(text(greeting(name)))
            } else if sampling {
                let sampled = asker.answer_all(capital()).await?;
                Ok(text(format!("Sampled: {}", sampled_text(&sampled))))
            } else {
                Ok(text(
                    "The client declared neither elicitation nor sampling: nothing to ask.",
                ))
            }
        })
        .await
    }
}

/// "Elicitation completed: …" after asking the derived form `T`.
async fn completed<T: Elicit + 'static>(mut asker: Asker) -> ToolResponse {
    respond(async {
        let outcome = asker.form_request(keyed(T::form_request(), "form")).await?;
        Ok(text(format!(
            "Elicitation completed: {}",
            describe(&outcome)
        )))
    })
    .await
}

/// A confirmation whose round state is sealed; a tampered state never opens.
async fn confirm(mut asker: Asker) -> ToolResponse {
    respond(async {
        Ok(
            match asker
                .form_request(keyed(Confirm::form_request(), "confirm"))
                .await?
            {
                Elicitation::Accept(confirm) => text(format!("state-ok: confirmed={}", confirm.ok)),
                other => text(format!("state-ok: {}", describe(&other))),
            },
        )
    })
    .await
}

fn capital() -> Ask<Value> {
    Ask::sampling(
        "capital_question",
        json!({"messages": [{"role": "user", "content": {"type": "text",
            "text": "What is the capital of France?"}}], "maxTokens": 100}),
    )
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            "elicit-conformance",
            env!("CARGO_PKG_VERSION"),
        ))
    }
}

#[prompt_router]
impl Conformance {
    #[prompt(description = "A prompt that asks the user for its context (input-required result)")]
    async fn test_input_required_result_prompt(&self, mut asker: Asker) -> PromptResponse {
        respond_prompt(async {
            let form = keyed(PromptContext::form_request(), "user_context");
            let context_text = match asker.form_request(form).await? {
                Elicitation::Accept(answer) => answer.context,
                _ => "(no context given)".to_owned(),
            };
            Ok(vec![PromptMessage::new_text(
                Role::User,
                format!("Use this context: {context_text}"),
            )])
        })
        .await
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port.parse()?,
        Err(_) => 3001,
    };
    // Nobody authenticates to this test server, so there is one principal; keys are made for
    // the life of the process (replicas would load shared keys: `AskConfig::per_user`).
    // Its rounds have no replay guard (`single_user()` would set one): the suite's
    // `ignore-extra-params` answers a question before it is asked, which a guard cannot make
    // single use, so it refuses such an ask.
    let asking = AskConfig::single_user_with("me", Rounds::generate()?)?;
    let conformance = Conformance { asking };
    // Nobody authenticates, so there is no principal to bind a session to: its sessions bind
    // nothing, an explicit choice for a test server on loopback.
    let service = AskingHttpService::new(
        move || Ok(conformance.clone()),
        SessionBinding::Unbound,
        Default::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("conformance server on http://127.0.0.1:{port}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
