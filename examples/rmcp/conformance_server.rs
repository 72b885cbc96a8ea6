//! The tool contracts of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance` 0.2.0-alpha.12), over streamable HTTP with `rmcp`, every
//! elicitation built with this crate's derive.
//!
//! ```sh
//! PORT=3001 cargo run -p elicit-examples --features rmcp --example conformance_server   # http://127.0.0.1:3001/mcp
//! .ci/conformance.sh                                                  # runs the suite against it
//! ```
//!
//! - `test_elicitation`, `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`
//!   (protocol 2025-11-25): the server sends `elicitation/create` through the peer.
//! - the `test_input_required_result_*` tools and prompt (protocol 2026-07-28, stateless): the
//!   server answers with an input-required result, and reads the client's retry, through
//!   `mcp_elicit::mrtr` rounds whose state is sealed (a tampered state is `-32602`).

use std::ops::ControlFlow;
use std::sync::Arc;

use mcp_elicit::mrtr::{Answer, Ask, Capability, Rounds};
use mcp_elicit::rmcp::{AskError, Asked, Asker, headless_result, input_required, mrtr_error};
use mcp_elicit::{Elicit, Elicitation, FormRequest, Mode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, JsonObject, ListPromptsResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage, Role, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
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

/// Nobody authenticates to this test server, so there is no principal to bind round state to.
const NO_PRINCIPAL: &str = "";

#[derive(Clone)]
struct Conformance {
    rounds: Arc<Rounds>,
}

fn text(message: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(message.into())]).into()
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(object) => Arc::new(object),
        _ => Arc::default(),
    }
}

fn internal(error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
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

impl Conformance {
    /// A legacy (≤ 2025-11-25) elicitation through the peer, with the headless path.
    async fn ask_legacy<T: Elicit + 'static>(
        &self,
        context: &RequestContext<RoleServer>,
        form: FormRequest<T>,
        request: &CallToolRequestParams,
    ) -> Result<ControlFlow<CallToolResponse, Elicitation<T>>, ErrorData> {
        let mut asker = self.asker(request, context)?;
        Ok(match asker.form("form", form).await {
            Ok(asked) => stop(asked),
            Err(AskError::Rejected(reply)) => ControlFlow::Break(
                CallToolResult::error(vec![ContentBlock::text(format!(
                    "The answer was rejected: {reply}"
                ))])
                .into(),
            ),
            Err(other) => return Err(other.into()),
        })
    }

    async fn test_elicitation(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let message = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("message"))
            .and_then(Value::as_str)
            .unwrap_or(UserInfo::message())
            .to_owned();
        let form = UserInfo::form_request()
            .with_message(message)
            .map_err(internal)?;
        Ok(match self.ask_legacy(context, form, request).await? {
            ControlFlow::Continue(outcome) => {
                text(format!("User response: {}", describe(&outcome)))
            }
            ControlFlow::Break(response) => response,
        })
    }

    async fn test_form<T: Elicit + 'static>(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(
            match self.ask_legacy(context, T::form_request(), request).await? {
                ControlFlow::Continue(outcome) => {
                    text(format!("Elicitation completed: {}", describe(&outcome)))
                }
                ControlFlow::Break(response) => response,
            },
        )
    }
}

/// The answer, or what the tool returns instead: the input-required result, or the headless one.
fn stop<T>(asked: Asked<T>) -> ControlFlow<CallToolResponse, T> {
    match asked {
        Asked::Answered(answer) => ControlFlow::Continue(answer),
        Asked::Suspend(input_required) => ControlFlow::Break(input_required.into()),
        Asked::CannotAsk(headless) => ControlFlow::Break(headless_result(&headless).into()),
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

impl Conformance {
    fn asker<'r>(
        &'r self,
        request: &'r CallToolRequestParams,
        context: &'r RequestContext<RoleServer>,
    ) -> Result<Asker<'r>, ErrorData> {
        Ok(Asker::for_tool_call(
            &self.rounds,
            NO_PRINCIPAL,
            request,
            context,
        )?)
    }

    /// `test_input_required_result_elicitation`: one form, "Hello, <name>!".
    async fn mrtr_elicitation(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The suite's `ignore-extra-params` answers this question in its very first request,
        // without a `requestState`: a stateless tool may accept such an up-front answer (the
        // name is not consent; consent asks never read answers given before they were asked).
        let mut asker = self.asker(request, context)?.answering_before_asked();
        Ok(
            match stop(asker.form("user_name", Name::form_request()).await?) {
                ControlFlow::Continue(outcome) => text(greeting(outcome)),
                ControlFlow::Break(response) => response,
            },
        )
    }

    /// `test_input_required_result_request_state` and `..._tampered_state`: a confirmation whose
    /// round state is sealed; a tampered state never opens.
    async fn mrtr_confirm(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut asker = self.asker(request, context)?;
        Ok(
            match stop(asker.form("confirm", Confirm::form_request()).await?) {
                ControlFlow::Continue(Elicitation::Accept(confirm)) => {
                    text(format!("state-ok: confirmed={}", confirm.ok))
                }
                ControlFlow::Continue(other) => text(format!("state-ok: {}", describe(&other))),
                ControlFlow::Break(response) => response,
            },
        )
    }

    /// `test_input_required_result_multi_round`: two forms, one round each; the first answer
    /// travels in the sealed state.
    async fn mrtr_multi_round(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut asker = self.asker(request, context)?;
        let step1 = Name::form_request()
            .with_message("Step 1: What is your name?")
            .map_err(internal)?;
        let name = match stop(asker.form("step1", step1).await?) {
            ControlFlow::Continue(Elicitation::Accept(who)) => who.name,
            ControlFlow::Continue(other) => {
                return Ok(text(format!("Stopped at step 1: {}.", describe(&other))));
            }
            ControlFlow::Break(response) => return Ok(response),
        };
        Ok(
            match stop(asker.form("step2", Color::form_request()).await?) {
                ControlFlow::Continue(Elicitation::Accept(color)) => {
                    text(format!("{name} likes {}.", color.color))
                }
                ControlFlow::Continue(other) => {
                    text(format!("Stopped at step 2: {}.", describe(&other)))
                }
                ControlFlow::Break(response) => response,
            },
        )
    }

    /// Sampling, roots, or all three kinds at once, through the round itself.
    async fn mrtr_round(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut asker = self.asker(request, context)?;
        let Some(round) = asker.round() else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "This tool speaks protocol 2026-07-28 only.",
            )])
            .into());
        };
        let capital = || {
            Ask::sampling(
                "capital_question",
                json!({"messages": [{"role": "user", "content": {"type": "text",
                    "text": "What is the capital of France?"}}], "maxTokens": 100}),
            )
        };
        let answer = match request.name.as_ref() {
            "test_input_required_result_sampling" => round
                .answer(capital())
                .map(|a| a.map(|s| format!("Sampled: {}", sampled_text(&s)))),
            "test_input_required_result_list_roots" => {
                round.answer(Ask::roots("client_roots")).map(|a| {
                    a.map(|roots| {
                        let uris: Vec<&str> = roots["roots"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|r| r["uri"].as_str())
                            .collect();
                        format!("Roots: {}", uris.join(", "))
                    })
                })
            }
            "test_input_required_result_capabilities" => {
                // Ask only what this request declared it can answer.
                if round
                    .capabilities()
                    .supports(Capability::Elicitation(Mode::Form))
                {
                    round
                        .answer(Ask::form::<Name>("user_name"))
                        .map(|a| a.map(greeting))
                } else if round.capabilities().supports(Capability::Sampling) {
                    round
                        .answer(capital())
                        .map(|a| a.map(|s| format!("Sampled: {}", sampled_text(&s))))
                } else {
                    return Ok(text(
                        "The client declared neither elicitation nor sampling: nothing to ask.",
                    ));
                }
            }
            _ => round
                .answer((
                    Ask::form::<Name>("user_name"),
                    Ask::sampling(
                        "greeting",
                        json!({"messages": [{"role": "user", "content": {"type": "text",
                            "text": "Generate a greeting"}}], "maxTokens": 50}),
                    ),
                    Ask::roots("client_roots"),
                ))
                .map(|a| {
                    a.map(|(name, sampled, roots)| {
                        format!(
                            "{} Sampled: {}. Roots: {}.",
                            greeting(name),
                            sampled_text(&sampled),
                            roots["roots"].as_array().map_or(0, Vec::len)
                        )
                    })
                }),
        }
        .map_err(|e| mrtr_error(&e))?;
        Ok(match answer {
            Answer::Ready(message) => text(message),
            Answer::Ask(result) => input_required(&result).map_err(internal)?.into(),
        })
    }
}

trait MapAnswer<T> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U>;
}

impl<T> MapAnswer<T> for Answer<T> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        match self {
            Answer::Ready(answer) => Answer::Ready(f(answer)),
            Answer::Ask(result) => Answer::Ask(result),
        }
    }
}

const EMPTY_INPUT: fn() -> Value = || json!({"type": "object", "properties": {}});

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

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = vec![Tool::new(
            "test_elicitation",
            "Requests user input via elicitation/create",
            schema(json!({"type": "object", "properties": {
                "message": {"type": "string", "description": "The message to show the user"}},
                "required": ["message"]})),
        )];
        for (name, description) in [
            (
                "test_elicitation_sep1034_defaults",
                "Elicitation with a default on every kind of field (SEP-1034)",
            ),
            (
                "test_elicitation_sep1330_enums",
                "Elicitation with every kind of enum (SEP-1330)",
            ),
            (
                "test_input_required_result_elicitation",
                "Asks the user's name (input-required result)",
            ),
            (
                "test_input_required_result_sampling",
                "Asks the client's model a question (input-required result)",
            ),
            (
                "test_input_required_result_list_roots",
                "Asks for the client's roots (input-required result)",
            ),
            (
                "test_input_required_result_request_state",
                "Asks for confirmation, with sealed request state",
            ),
            (
                "test_input_required_result_multiple_inputs",
                "Asks for a form, a sample and the roots in one round",
            ),
            (
                "test_input_required_result_multi_round",
                "Asks two questions, one round each",
            ),
            (
                "test_input_required_result_tampered_state",
                "Asks for confirmation; refuses a tampered request state",
            ),
            (
                "test_input_required_result_capabilities",
                "Asks only what the request's capabilities allow",
            ),
        ] {
            tools.push(Tool::new(name, description, schema(EMPTY_INPUT())));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "test_elicitation" => self.test_elicitation(&request, &context).await,
            "test_elicitation_sep1034_defaults" => {
                self.test_form::<Sep1034Defaults>(&request, &context).await
            }
            "test_elicitation_sep1330_enums" => {
                self.test_form::<Sep1330Enums>(&request, &context).await
            }
            "test_input_required_result_elicitation" => {
                self.mrtr_elicitation(&request, &context).await
            }
            "test_input_required_result_request_state"
            | "test_input_required_result_tampered_state" => {
                self.mrtr_confirm(&request, &context).await
            }
            "test_input_required_result_multi_round" => {
                self.mrtr_multi_round(&request, &context).await
            }
            "test_input_required_result_sampling"
            | "test_input_required_result_list_roots"
            | "test_input_required_result_multiple_inputs"
            | "test_input_required_result_capabilities" => {
                self.mrtr_round(&request, &context).await
            }
            other => Err(ErrorData::invalid_params(
                format!("unknown tool `{other}`"),
                None,
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "test_input_required_result_prompt",
            Some("A prompt that asks the user for its context (input-required result)"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "test_input_required_result_prompt" {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt `{}`", request.name),
                None,
            ));
        }
        let mut asker = Asker::for_prompt(&self.rounds, NO_PRINCIPAL, &request, &context)?;
        let context_text = match asker
            .form("user_context", PromptContext::form_request())
            .await?
        {
            Asked::Answered(Elicitation::Accept(answer)) => answer.context,
            Asked::Answered(_) => "(no context given)".to_owned(),
            Asked::Suspend(input_required) => return Ok(input_required.into()),
            Asked::CannotAsk(headless) => headless.to_string(),
        };
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Use this context: {context_text}"),
        )])
        .into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port.parse()?,
        Err(_) => 3001,
    };
    // One key for the life of the process; replicas would share key material instead
    // (`Rounds::from_env`).
    let rounds = Arc::new(Rounds::generate()?);
    let service: StreamableHttpService<Conformance, LocalSessionManager> =
        StreamableHttpService::new(
            move || {
                Ok(Conformance {
                    rounds: rounds.clone(),
                })
            },
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
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
