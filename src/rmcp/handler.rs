//! [`AskingHandler`]: [`AskingService`](super::AskingService)'s recording for a transport that
//! takes a `ServerHandler` (rmcp's streamable HTTP service, the test kit's HTTP serving).

use std::borrow::Cow;
use std::future::Future;

use super::wire::{record_call, record_prompt};
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use ::rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, SubscriptionContext};
use ::rmcp::{ErrorData, RoleServer, ServerHandler};

/// The same recording for a transport that takes a `ServerHandler` rather than a `Service`
/// (rmcp's `StreamableHttpService`; the test kit's [`Served::StreamableHttp`](super::Served)):
/// every method passes through, and `call_tool` and `get_prompt` record the request first, as
/// [`AskingService`](super::AskingService) does. It cannot leave out the empty `elicitationId`: rmcp turns a tool's
/// result into a `ServerResult` past it. `AskingHttpService` does
/// that on the HTTP response.
#[derive(Debug, Clone)]
pub(super) struct AskingHandler<S>(pub(super) S);

// Logging and `resources/subscribe` are deprecated by rmcp (SEP-2577, 2026-07-28): a server
// that still implements them keeps them.
#[expect(deprecated)]
impl<S: ServerHandler> ServerHandler for AskingHandler<S> {
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + MaybeSendFuture + '_ {
        record_call(&request, &mut context);
        self.0.call_tool(request, context)
    }

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetPromptResponse, ErrorData>> + MaybeSendFuture + '_ {
        record_prompt(&request, &mut context);
        self.0.get_prompt(request, context)
    }

    // Everything else, as it is: each of `ServerHandler`'s methods (rmcp 3.11), since one left
    // out here would answer with rmcp's default rather than the server's.

    fn ping(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.0.ping(context)
    }

    fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<InitializeResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.initialize(request, context)
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        self.0.negotiate_initialize(request)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.0.supported_protocol_versions()
    }

    fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<DiscoverResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.discover(context)
    }

    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CompleteResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.complete(request, context)
    }

    fn set_level(
        &self,
        request: ::rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.0.set_level(request, context)
    }

    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.list_prompts(request, context)
    }

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.list_resources(request, context)
    }

    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourceTemplatesResult, ErrorData>> + MaybeSendFuture + '_
    {
        self.0.list_resource_templates(request, context)
    }

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceResponse, ErrorData>> + MaybeSendFuture + '_ {
        self.0.read_resource(request, context)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.0.accepted_subscription_filter(requested)
    }

    fn listen(
        &self,
        context: SubscriptionContext,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.0.listen(context)
    }

    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.0.subscribe(request, context)
    }

    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.0.unsubscribe(request, context)
    }

    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.list_tools(request, context)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.0.get_tool(name)
    }

    fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CustomResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.on_custom_request(request, context)
    }

    fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.0.on_cancelled(notification, context)
    }

    fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.0.on_progress(notification, context)
    }

    fn on_initialized(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.0.on_initialized(context)
    }

    fn on_roots_list_changed(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.0.on_roots_list_changed(context)
    }

    fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.0.on_custom_notification(notification, context)
    }

    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }

    fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetTaskResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.get_task(request, context)
    }

    fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.0.update_task(request, context)
    }

    fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.0.cancel_task(request, context)
    }

    fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListSkillsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.list_skills(request, context)
    }

    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetSkillResult, ErrorData>> + MaybeSendFuture + '_ {
        self.0.get_skill(request, context)
    }

    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceDirectoryResult, ErrorData>> + MaybeSendFuture + '_
    {
        self.0.read_resource_directory(request, context)
    }
}

/// `AskingHandler` passes every method of `ServerHandler` to the server it wraps: one it left out
/// would answer with rmcp's default, silently. Each method of a server that marks what reached
/// it is called through the wrapper (rmcp 3.11's methods; `listen` is left out: rmcp alone can
/// make its `SubscriptionContext`).
#[cfg(test)]
#[expect(deprecated)]
mod forwards {
    use std::borrow::Cow;
    use std::future::Future;
    use std::sync::{Arc, Mutex};

    use ::rmcp::model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
        CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
        DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
        GetSkillResult, GetTaskParams, GetTaskResult, Implementation, InitializeRequestParams,
        InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
        ListSkillsResult, ListToolsResult, NumberOrString, PaginatedRequestParams,
        ProgressNotificationParam, ProtocolVersion, ReadResourceDirectoryRequestParams,
        ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
        SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, Tool,
        UnsubscribeRequestParams, UpdateTaskParams,
    };
    use ::rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
    use ::rmcp::{ErrorData, RoleServer, ServerHandler};
    use serde_json::{Value, json};
    use tokio::io::AsyncWriteExt;

    use super::AskingHandler;

    /// A server whose every method says its name: as an error, or in `reached`.
    #[derive(Clone, Default)]
    struct Marks {
        reached: Arc<Mutex<Vec<&'static str>>>,
    }

    impl Marks {
        fn mark(&self, method: &'static str) {
            self.reached.lock().unwrap().push(method);
        }
    }

    fn mark<T>(method: &'static str) -> Result<T, ErrorData> {
        Err(ErrorData::internal_error(method, None))
    }

    impl ServerHandler for Marks {
        async fn call_tool(
            &self,
            _: CallToolRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            mark("call_tool")
        }
        async fn get_prompt(
            &self,
            _: GetPromptRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<GetPromptResponse, ErrorData> {
            mark("get_prompt")
        }
        async fn ping(&self, _: RequestContext<RoleServer>) -> Result<(), ErrorData> {
            mark("ping")
        }
        async fn initialize(
            &self,
            _: InitializeRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<InitializeResult, ErrorData> {
            mark("initialize")
        }
        fn negotiate_initialize(
            &self,
            _: &InitializeRequestParams,
        ) -> Result<InitializeResult, ErrorData> {
            mark("negotiate_initialize")
        }
        fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
            self.mark("supported_protocol_versions");
            Cow::Owned(Vec::new())
        }
        async fn discover(
            &self,
            _: RequestContext<RoleServer>,
        ) -> Result<DiscoverResult, ErrorData> {
            mark("discover")
        }
        async fn complete(
            &self,
            _: CompleteRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<CompleteResult, ErrorData> {
            mark("complete")
        }
        async fn set_level(
            &self,
            _: SetLevelRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<(), ErrorData> {
            mark("set_level")
        }
        async fn list_prompts(
            &self,
            _: Option<PaginatedRequestParams>,
            _: RequestContext<RoleServer>,
        ) -> Result<ListPromptsResult, ErrorData> {
            mark("list_prompts")
        }
        async fn list_resources(
            &self,
            _: Option<PaginatedRequestParams>,
            _: RequestContext<RoleServer>,
        ) -> Result<ListResourcesResult, ErrorData> {
            mark("list_resources")
        }
        async fn list_resource_templates(
            &self,
            _: Option<PaginatedRequestParams>,
            _: RequestContext<RoleServer>,
        ) -> Result<ListResourceTemplatesResult, ErrorData> {
            mark("list_resource_templates")
        }
        async fn read_resource(
            &self,
            _: ReadResourceRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<ReadResourceResponse, ErrorData> {
            mark("read_resource")
        }
        fn accepted_subscription_filter(
            &self,
            _: &SubscriptionFilter,
        ) -> Option<SubscriptionFilter> {
            self.mark("accepted_subscription_filter");
            None
        }
        async fn listen(&self, _: SubscriptionContext) -> Result<(), ErrorData> {
            mark("listen")
        }
        async fn subscribe(
            &self,
            _: SubscribeRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<(), ErrorData> {
            mark("subscribe")
        }
        async fn unsubscribe(
            &self,
            _: UnsubscribeRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<(), ErrorData> {
            mark("unsubscribe")
        }
        async fn list_tools(
            &self,
            _: Option<PaginatedRequestParams>,
            _: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            mark("list_tools")
        }
        fn get_tool(&self, _: &str) -> Option<Tool> {
            self.mark("get_tool");
            None
        }
        async fn on_custom_request(
            &self,
            _: CustomRequest,
            _: RequestContext<RoleServer>,
        ) -> Result<CustomResult, ErrorData> {
            mark("on_custom_request")
        }
        async fn on_cancelled(
            &self,
            _: CancelledNotificationParam,
            _: NotificationContext<RoleServer>,
        ) {
            self.mark("on_cancelled");
        }
        async fn on_progress(
            &self,
            _: ProgressNotificationParam,
            _: NotificationContext<RoleServer>,
        ) {
            self.mark("on_progress");
        }
        async fn on_initialized(&self, _: NotificationContext<RoleServer>) {
            self.mark("on_initialized");
        }
        async fn on_roots_list_changed(&self, _: NotificationContext<RoleServer>) {
            self.mark("on_roots_list_changed");
        }
        async fn on_custom_notification(
            &self,
            _: CustomNotification,
            _: NotificationContext<RoleServer>,
        ) {
            self.mark("on_custom_notification");
        }
        fn get_info(&self) -> ServerConfig {
            self.mark("get_info");
            ServerConfig::default()
        }
        async fn get_task(
            &self,
            _: GetTaskParams,
            _: RequestContext<RoleServer>,
        ) -> Result<GetTaskResult, ErrorData> {
            mark("get_task")
        }
        async fn update_task(
            &self,
            _: UpdateTaskParams,
            _: RequestContext<RoleServer>,
        ) -> Result<(), ErrorData> {
            mark("update_task")
        }
        async fn cancel_task(
            &self,
            _: CancelTaskParams,
            _: RequestContext<RoleServer>,
        ) -> Result<(), ErrorData> {
            mark("cancel_task")
        }
        async fn list_skills(
            &self,
            _: Option<PaginatedRequestParams>,
            _: RequestContext<RoleServer>,
        ) -> Result<ListSkillsResult, ErrorData> {
            mark("list_skills")
        }
        async fn get_skill(
            &self,
            _: GetSkillRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<GetSkillResult, ErrorData> {
            mark("get_skill")
        }
        async fn read_resource_directory(
            &self,
            _: ReadResourceDirectoryRequestParams,
            _: RequestContext<RoleServer>,
        ) -> Result<ReadResourceDirectoryResult, ErrorData> {
            mark("read_resource_directory")
        }
    }

    fn from<T: serde::de::DeserializeOwned>(value: Value) -> T {
        serde_json::from_value(value)
            .unwrap_or_else(|e| panic!("{} from this JSON: {e}", std::any::type_name::<T>()))
    }

    /// The error a method answered with: its name, if the call reached it.
    async fn reached<T>(call: impl Future<Output = Result<T, ErrorData>>) -> String {
        match call.await {
            Err(error) => error.message.into_owned(),
            Ok(_) => "an answer of rmcp's default".to_owned(),
        }
    }

    #[test]
    fn every_method_reaches_the_server() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            // The wrapper served on one end of a pipe: its peer goes in the requests' contexts,
            // and notifications (whose context only rmcp makes) are written into the other end.
            let marks = Marks::default();
            let handler = AskingHandler(marks.clone());
            let (ours, mut theirs) = tokio::io::duplex(64 * 1024);
            let running = ::rmcp::service::serve_directly(handler.clone(), ours, None);
            let peer = running.peer().clone();
            let request = || RequestContext::new(NumberOrString::Number(1), peer.clone());

            let initialize: InitializeRequestParams = from(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": Implementation::new("test", "1"),
            }));
            // Each method with its params, then a context: what it answered.
            macro_rules! call {
                ($method:ident $(, $param:expr)*) => {
                    (
                        stringify!($method),
                        reached(handler.$method($($param,)* request())).await,
                    )
                };
            }
            let answered = [
                call!(call_tool, CallToolRequestParams::new("t")),
                call!(get_prompt, from(json!({"name": "p"}))),
                call!(ping),
                call!(initialize, initialize.clone()),
                (
                    "negotiate_initialize",
                    reached(async { handler.negotiate_initialize(&initialize) }).await,
                ),
                call!(discover),
                call!(
                    complete,
                    from(json!({
                        "ref": {"type": "ref/prompt", "name": "p"},
                        "argument": {"name": "a", "value": "v"},
                    }))
                ),
                call!(set_level, from(json!({"level": "info"}))),
                call!(list_prompts, None),
                call!(list_resources, None),
                call!(list_resource_templates, None),
                call!(read_resource, from(json!({"uri": "file:///a"}))),
                call!(subscribe, from(json!({"uri": "file:///a"}))),
                call!(unsubscribe, from(json!({"uri": "file:///a"}))),
                call!(list_tools, None),
                call!(on_custom_request, CustomRequest::new("x/y", None)),
                call!(get_task, from(json!({"taskId": "t"}))),
                call!(
                    update_task,
                    from(json!({"taskId": "t", "inputResponses": {}}))
                ),
                call!(cancel_task, from(json!({"taskId": "t"}))),
                call!(list_skills, None),
                call!(get_skill, from(json!({"uri": "skill://s"}))),
                call!(read_resource_directory, from(json!({"uri": "file:///a/"}))),
            ];
            for (method, answer) in answered {
                assert_eq!(answer, method, "`{method}` did not reach the server");
            }

            let _ = handler.supported_protocol_versions();
            let _ = handler.accepted_subscription_filter(&from(json!({})));
            let _ = handler.get_tool("t");
            let _ = handler.get_info();

            let notifications = [
                json!({"method": "notifications/cancelled", "params": {"requestId": 1}}),
                json!({"method": "notifications/progress",
                       "params": {"progressToken": 1, "progress": 1.0}}),
                json!({"method": "notifications/initialized"}),
                json!({"method": "notifications/roots/list_changed"}),
                json!({"method": "x/y", "params": {}}),
            ];
            for mut notification in notifications {
                notification["jsonrpc"] = json!("2.0");
                let line = format!("{notification}\n");
                theirs.write_all(line.as_bytes()).await.expect("the pipe");
            }
            let expected = [
                "supported_protocol_versions",
                "accepted_subscription_filter",
                "get_tool",
                "get_info",
                "on_cancelled",
                "on_progress",
                "on_initialized",
                "on_roots_list_changed",
                "on_custom_notification",
            ];
            // (rmcp itself calls `get_info` when it starts serving: what matters is that each
            // call reached the server.)
            let missing = || {
                let reached = marks.reached.lock().unwrap();
                expected
                    .iter()
                    .filter(|method| !reached.contains(method))
                    .copied()
                    .collect::<Vec<_>>()
            };
            for _ in 0..500 {
                if missing().is_empty() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            assert_eq!(missing(), [] as [&str; 0], "these did not reach the server");
            running.cancel().await.ok();
        });
    }
}
