//! [`AskingService`]: what rmcp's types cannot leave out, left out on the wire.

use std::borrow::Cow;
use std::future::Future;

use super::asker::{CallDigest, PromptRetry, call_digest};
use super::convert;
use ::rmcp::model::{
    CallToolRequestParams, ClientNotification, ClientRequest, CustomResult, GetPromptRequestParams,
    ProtocolVersion, ServerConfig, ServerResult,
};
use ::rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, Service};
use ::rmcp::{ErrorData, RoleServer};

/// A server that asks as the spec says: serve a server whose tools take an
/// [`Asker`](super::Asker) through it. It does two things rmcp's types cannot:
///
/// - **It records the call the client sent.** Before the tool's parameters are built, it puts
///   the digest of each `tools/call`'s name and arguments in the request's extensions, where
///   the asker reads it to bind its round state. (rmcp's `Parameters<..>` takes the arguments
///   out of the tool's context; served through `AskingService`, the order of the tool's
///   parameters does not matter.) For a `prompts/get` it also keeps a 2026-07-28 retry's
///   `inputResponses` and `requestState`, which rmcp's `#[prompt]` router drops: a `#[prompt]`
///   that asks on 2026-07-28 needs it.
/// - **It writes what the revision says.** rmcp's URL elicitation type always has an
///   `elicitationId`; 2026-07-28 removed the field, and rmcp writes `"elicitationId": ""` into
///   every URL request of an input-required result. Those results go out without it.
///
/// Everything else passes through as it is: requests, notifications, the server's info, and
/// every other result.
///
/// It is an rmcp [`Service`], which `serve` takes (stdio, any byte stream). rmcp's
/// `StreamableHttpService` takes a `ServerHandler` instead, so a streamable HTTP server cannot
/// be wrapped: there, put the `Asker` before `Parameters<..>`, and rmcp writes the empty
/// `elicitationId` (2026-07-28's schema allows members it does not name).
///
/// Wrap the server where it is served, `AskingService(server).serve(rmcp::transport::stdio())`:
///
/// ```
/// use mcp_elicit::rmcp::AskingService;
/// use rmcp::{RoleServer, ServerHandler, Service};
///
/// struct Server;
/// impl ServerHandler for Server {}
///
/// fn served(server: Server) -> impl Service<RoleServer> {
///     AskingService(server)
/// }
/// # let _ = served(Server);
/// ```
#[derive(Debug, Clone)]
pub struct AskingService<S>(pub S);

impl<S: Service<RoleServer>> Service<RoleServer> for AskingService<S> {
    fn handle_request(
        &self,
        request: ClientRequest,
        mut context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ServerResult, ErrorData>> + MaybeSendFuture + '_ {
        match &request {
            ClientRequest::CallToolRequest(call) => record_call(&call.params, &mut context),
            ClientRequest::GetPromptRequest(get) => record_prompt(&get.params, &mut context),
            _ => {}
        }
        let response = self.0.handle_request(request, context);
        async move { response.await.map(without_empty_elicitation_ids) }
    }

    fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.0.handle_notification(notification, context)
    }

    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.0.supported_protocol_versions()
    }
}

/// Records a `tools/call`'s digest in its context, for the asker, before the tool's parameters
/// are built (the rule [`AskingService`] and `AskingHandler` share).
pub(super) fn record_call(call: &CallToolRequestParams, context: &mut RequestContext<RoleServer>) {
    let digest = call_digest(&call.name, call.arguments.as_ref());
    context.extensions.insert(CallDigest(digest));
}

/// Records a `prompts/get`'s digest and retry fields in its context, for the asker: rmcp's
/// `#[prompt]` router drops the retry's fields.
pub(super) fn record_prompt(
    get: &GetPromptRequestParams,
    context: &mut RequestContext<RoleServer>,
) {
    context.extensions.insert(PromptRetry {
        digest: call_digest(&get.name, get.arguments.as_ref()),
        input_responses: get.input_responses.clone(),
        request_state: get.request_state.clone(),
    });
}

/// An input-required result with a URL request whose `elicitationId` is `""` (which only rmcp's
/// type puts there), as the same JSON without it. Anything else is returned as it is.
fn without_empty_elicitation_ids(result: ServerResult) -> ServerResult {
    let ServerResult::InputRequiredResult(input_required) = &result else {
        return result;
    };
    let Ok(mut value) = serde_json::to_value(input_required) else {
        return result;
    };
    if convert::without_empty_elicitation_ids(&mut value) {
        ServerResult::CustomResult(CustomResult(value))
    } else {
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::rmcp::model::{ElicitRequest, ElicitRequestParams, InputRequest, InputRequiredResult};

    fn url_request(elicitation_id: &str) -> InputRequest {
        InputRequest::Elicitation(ElicitRequest::new(
            ElicitRequestParams::UrlElicitationParams {
                meta: None,
                message: "Connect your account.".to_owned(),
                url: "https://example.com/connect".to_owned(),
                elicitation_id: elicitation_id.to_owned(),
            },
        ))
    }

    fn input_required(request: InputRequest) -> ServerResult {
        let mut requests = ::rmcp::model::InputRequests::new();
        requests.insert("connect".to_owned(), request);
        ServerResult::InputRequiredResult(InputRequiredResult::new(
            Some(requests),
            Some("state".to_owned()),
        ))
    }

    #[test]
    fn an_empty_elicitation_id_is_left_out_and_nothing_else_changes() {
        let before = serde_json::to_value(input_required(url_request(""))).unwrap();
        let after = serde_json::to_value(without_empty_elicitation_ids(input_required(
            url_request(""),
        )))
        .unwrap();
        let mut expected = before.clone();
        let params = &mut expected["inputRequests"]["connect"]["params"];
        assert_eq!(params["elicitationId"], "");
        params.as_object_mut().unwrap().remove("elicitationId");
        assert_eq!(after, expected);
    }

    #[test]
    fn a_real_elicitation_id_and_other_results_pass_through() {
        let with_id = input_required(url_request("flow-1"));
        let before = serde_json::to_value(&with_id).unwrap();
        let after = without_empty_elicitation_ids(with_id);
        assert!(matches!(after, ServerResult::InputRequiredResult(_)));
        assert_eq!(serde_json::to_value(after).unwrap(), before);

        let empty = ServerResult::empty(());
        assert!(matches!(
            without_empty_elicitation_ids(empty),
            ServerResult::EmptyResult(_)
        ));
    }
}
