//! The one typed view of each event ([`View`], [`Event::view`] and its
//! `as_*` shortcuts), and the catalogue of every object view's known keys
//! ([`CATALOG`]).

use super::*;

/// A typed view of one event, from [`Event::view`]: one variant per kind of
/// the reference and of the extras real streams carry.
///
/// Every `result` kind (known subtype or not) is [`View::Result`]; a
/// `system` event with an unknown subtype and an event of an unknown type
/// are [`View::Other`], reachable through the generic accessor.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum View<'d> {
    /// `system/init`.
    Init(InitView<'d>),
    /// `system/status`.
    Status(StatusView<'d>),
    /// `system/task_summary`.
    TaskSummary(TaskSummaryView<'d>),
    /// `system/post_turn_summary`.
    PostTurnSummary(PostTurnSummaryView<'d>),
    /// `system/thinking_tokens`.
    ThinkingTokens(ThinkingTokensView<'d>),
    /// `system/api_retry`.
    ApiRetry(ApiRetryView<'d>),
    /// `system/permission_denied`.
    PermissionDenied(PermissionDeniedView<'d>),
    /// `system/hook_started`.
    HookStarted(HookStartedView<'d>),
    /// `system/hook_response`.
    HookResponse(HookResponseView<'d>),
    /// `system/hook_progress` (real streams).
    HookProgress(HookProgressView<'d>),
    /// `system/background_tasks_changed`.
    BackgroundTasksChanged(BackgroundTasksChangedView<'d>),
    /// `system/task_started`.
    TaskStarted(TaskStartedView<'d>),
    /// `system/task_progress`.
    TaskProgress(TaskProgressView<'d>),
    /// `system/task_updated`.
    TaskUpdated(TaskUpdatedView<'d>),
    /// `system/task_notification`.
    TaskNotification(TaskNotificationView<'d>),
    /// `system/compact_boundary` (real streams).
    CompactBoundary(CompactBoundaryView<'d>),
    /// `system/notification` (real streams).
    Notification(NotificationView<'d>),
    /// `system/vcs_state_changed` (real streams).
    VcsStateChanged(VcsStateChangedView<'d>),
    /// `system/dev_intent` (public record).
    DevIntent(DevIntentView<'d>),
    /// `system/turn_preempted` (public record).
    TurnPreempted(TurnPreemptedView<'d>),
    /// `system/peer_message_hold` (public record).
    PeerMessageHold(PeerMessageHoldView<'d>),
    /// `system/cloud_session_delta` (public record).
    CloudSessionDelta(CloudSessionDeltaView<'d>),
    /// `system/per_turn_effort_changed` (public record).
    PerTurnEffortChanged(PerTurnEffortChangedView<'d>),
    /// `assistant`.
    Assistant(AssistantView<'d>),
    /// `user`.
    User(UserView<'d>),
    /// `stream_event`.
    StreamEvent(StreamEventView<'d>),
    /// `result`, any subtype.
    Result(ResultView<'d>),
    /// `active_goal`.
    ActiveGoal(ActiveGoalView<'d>),
    /// `autocompact_state`.
    AutocompactState(AutocompactStateView<'d>),
    /// `rate_limit_event`.
    RateLimitEvent(RateLimitEventView<'d>),
    /// `control_request` (real streams).
    ControlRequest(ControlRequestView<'d>),
    /// `control_response` (real streams).
    ControlResponse(ControlResponseView<'d>),
    /// `control_cancel_request` (real streams).
    ControlCancelRequest(ControlCancelRequestView<'d>),
    /// `tool_progress` (real streams).
    ToolProgress(ToolProgressView<'d>),
    /// Any other event (unknown `type`, or `system` with an unknown
    /// subtype): the root object.
    Other(Value<'d>),
}

/// Names every `View` variant but `Other` once, with its kind(s).
macro_rules! view_dispatch {
    ($($var:ident => $($kind:ident)|+),* $(,)?) => {
        impl<'d> View<'d> {
            /// The view for an event of `kind` whose root object is `root`.
            pub fn new(kind: EventKind, root: Value<'d>) -> View<'d> {
                match kind {
                    $($(EventKind::$kind)|+ => View::$var(ObjectView::wrap(root)),)*
                    _ => View::Other(root),
                }
            }

            /// The raw root object.
            pub fn value(&self) -> Value<'d> {
                match self {
                    $(View::$var(v) => v.value(),)*
                    View::Other(v) => *v,
                }
            }

            /// The view's name (`"system/init"`, `"result"`, ...), or
            /// `"other"`.
            pub fn name(&self) -> &'static str {
                match self {
                    $(View::$var(v) => view_name(v),)*
                    View::Other(_) => "other",
                }
            }

            /// The top-level fields the view has no accessor for (every
            /// field for [`View::Other`]).
            pub fn unknown_fields(&self) -> UnknownFields<'d> {
                match self {
                    $(View::$var(v) => v.unknown_fields(),)*
                    View::Other(v) => UnknownFields::new(*v, &[]),
                }
            }

            /// Enter the event (with the view's name), call every accessor
            /// of its view, walk every nested view, leave. For
            /// [`View::Other`] only `enter` and `leave` are called.
            /// Allocates nothing.
            pub fn visit_all(&self, vis: &mut dyn Visitor<'d>) {
                let name = self.name();
                vis.enter(name, name, self.value());
                match self {
                    $(View::$var(v) => v.visit_all(vis),)*
                    View::Other(_) => {}
                }
                vis.leave();
            }
        }
    };
}

fn view_name<'d, V: ObjectView<'d>>(_: &V) -> &'static str {
    V::NAME
}

view_dispatch! {
    Init => SystemInit,
    Status => SystemStatus,
    TaskSummary => SystemTaskSummary,
    PostTurnSummary => SystemPostTurnSummary,
    ThinkingTokens => SystemThinkingTokens,
    ApiRetry => SystemApiRetry,
    PermissionDenied => SystemPermissionDenied,
    HookStarted => SystemHookStarted,
    HookResponse => SystemHookResponse,
    HookProgress => SystemHookProgress,
    BackgroundTasksChanged => SystemBackgroundTasksChanged,
    TaskStarted => SystemTaskStarted,
    TaskProgress => SystemTaskProgress,
    TaskUpdated => SystemTaskUpdated,
    TaskNotification => SystemTaskNotification,
    CompactBoundary => SystemCompactBoundary,
    Notification => SystemNotification,
    VcsStateChanged => SystemVcsStateChanged,
    DevIntent => SystemDevIntent,
    TurnPreempted => SystemTurnPreempted,
    PeerMessageHold => SystemPeerMessageHold,
    CloudSessionDelta => SystemCloudSessionDelta,
    PerTurnEffortChanged => SystemPerTurnEffortChanged,
    Assistant => Assistant,
    User => User,
    StreamEvent => StreamEvent,
    Result => ResultSuccess | ResultErrorDuringExecution | ResultErrorMaxTurns | ResultErrorMaxBudgetUsd | ResultOther,
    ActiveGoal => ActiveGoal,
    AutocompactState => AutocompactState,
    RateLimitEvent => RateLimitEvent,
    ControlRequest => ControlRequest,
    ControlResponse => ControlResponse,
    ControlCancelRequest => ControlCancelRequest,
    ToolProgress => ToolProgress,
}

impl<'d> View<'d> {
    /// An owned copy of the whole event (see [`to_json`]).
    pub fn to_owned_json(&self) -> serde_json::Value {
        to_json(self.value())
    }
}

impl<'d> Answer<'d> for View<'d> {
    fn is_present(&self) -> bool {
        true
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        Some(to_json(self.value()))
    }
    fn walk(&self, _key: &'static str, vis: &mut dyn Visitor<'d>) {
        self.visit_all(vis);
    }
}

macro_rules! event_shortcuts {
    ($($(#[$m:meta])* $fn:ident => $var:ident($ty:ident)),* $(,)?) => {
        impl<'t> Event<'t> {
            /// The typed view of this event, by its kind.
            ///
            /// ```
            /// use cctape::SliceEvents;
            /// use cctape::views::View;
            ///
            /// let mut events = SliceEvents::new(br#"{"type":"system","subtype":"init","model":"m","tools":["Bash","Read"]}"#);
            /// let ev = events.next_event().unwrap().unwrap();
            /// let View::Init(init) = ev.view() else { panic!("an init event") };
            /// assert_eq!(init.model(), Some("m"));
            /// assert_eq!(init.tools().unwrap().collect::<Vec<_>>(), ["Bash", "Read"]);
            /// ```
            pub fn view(&self) -> View<'_> {
                View::new(self.kind(), self.root())
            }

            $(
                $(#[$m])*
                pub fn $fn(&self) -> Option<$ty<'_>> {
                    match self.view() {
                        View::$var(v) => Some(v),
                        _ => None,
                    }
                }
            )*
        }
    };
}

event_shortcuts! {
    /// The `system/init` view, if this is one.
    as_init => Init(InitView),
    /// The `system/status` view, if this is one.
    as_status => Status(StatusView),
    /// The `system/task_summary` view, if this is one.
    as_task_summary => TaskSummary(TaskSummaryView),
    /// The `system/post_turn_summary` view, if this is one.
    as_post_turn_summary => PostTurnSummary(PostTurnSummaryView),
    /// The `system/thinking_tokens` view, if this is one.
    as_thinking_tokens => ThinkingTokens(ThinkingTokensView),
    /// The `system/api_retry` view, if this is one.
    as_api_retry => ApiRetry(ApiRetryView),
    /// The `system/permission_denied` view, if this is one.
    as_permission_denied => PermissionDenied(PermissionDeniedView),
    /// The `system/hook_started` view, if this is one.
    as_hook_started => HookStarted(HookStartedView),
    /// The `system/hook_response` view, if this is one.
    as_hook_response => HookResponse(HookResponseView),
    /// The `system/hook_progress` view, if this is one.
    as_hook_progress => HookProgress(HookProgressView),
    /// The `system/background_tasks_changed` view, if this is one.
    as_background_tasks_changed => BackgroundTasksChanged(BackgroundTasksChangedView),
    /// The `system/task_started` view, if this is one.
    as_task_started => TaskStarted(TaskStartedView),
    /// The `system/task_progress` view, if this is one.
    as_task_progress => TaskProgress(TaskProgressView),
    /// The `system/task_updated` view, if this is one.
    as_task_updated => TaskUpdated(TaskUpdatedView),
    /// The `system/task_notification` view, if this is one.
    as_task_notification => TaskNotification(TaskNotificationView),
    /// The `system/compact_boundary` view, if this is one.
    as_compact_boundary => CompactBoundary(CompactBoundaryView),
    /// The `system/notification` view, if this is one.
    as_notification => Notification(NotificationView),
    /// The `system/vcs_state_changed` view, if this is one.
    as_vcs_state_changed => VcsStateChanged(VcsStateChangedView),
    /// The `system/dev_intent` view, if this is one.
    as_dev_intent => DevIntent(DevIntentView),
    /// The `system/turn_preempted` view, if this is one.
    as_turn_preempted => TurnPreempted(TurnPreemptedView),
    /// The `system/peer_message_hold` view, if this is one.
    as_peer_message_hold => PeerMessageHold(PeerMessageHoldView),
    /// The `system/cloud_session_delta` view, if this is one.
    as_cloud_session_delta => CloudSessionDelta(CloudSessionDeltaView),
    /// The `system/per_turn_effort_changed` view, if this is one.
    as_per_turn_effort_changed => PerTurnEffortChanged(PerTurnEffortChangedView),
    /// The `assistant` view, if this is one.
    as_assistant => Assistant(AssistantView),
    /// The `user` view, if this is one.
    as_user => User(UserView),
    /// The `stream_event` view, if this is one.
    as_stream_event => StreamEvent(StreamEventView),
    /// The `result` view (any subtype), if this is one.
    as_result => Result(ResultView),
    /// The `active_goal` view, if this is one.
    as_active_goal => ActiveGoal(ActiveGoalView),
    /// The `autocompact_state` view, if this is one.
    as_autocompact_state => AutocompactState(AutocompactStateView),
    /// The `rate_limit_event` view, if this is one.
    as_rate_limit_event => RateLimitEvent(RateLimitEventView),
    /// The `control_request` view, if this is one.
    as_control_request => ControlRequest(ControlRequestView),
    /// The `control_response` view, if this is one.
    as_control_response => ControlResponse(ControlResponseView),
    /// The `control_cancel_request` view, if this is one.
    as_control_cancel_request => ControlCancelRequest(ControlCancelRequestView),
    /// The `tool_progress` view, if this is one.
    as_tool_progress => ToolProgress(ToolProgressView),
}

/// The name and known keys of one object view, for catalogues and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewInfo {
    /// [`ObjectView::NAME`].
    pub name: &'static str,
    /// [`ObjectView::KNOWN`].
    pub known: &'static [&'static str],
    /// [`ObjectView::EXTRA`].
    pub extra: &'static [&'static str],
    /// [`ObjectView::OPEN`].
    pub open: bool,
}

macro_rules! catalog {
    ($($ty:ident),* $(,)?) => {
        /// Every object view with its known keys: the field catalogue.
        pub const CATALOG: &[ViewInfo] = &[
            $(ViewInfo {
                name: <$ty<'static> as ObjectView<'static>>::NAME,
                known: <$ty<'static> as ObjectView<'static>>::KNOWN,
                extra: <$ty<'static> as ObjectView<'static>>::EXTRA,
                open: <$ty<'static> as ObjectView<'static>>::OPEN,
            },)*
        ];
    };
}

catalog! {
    InitView, McpServer, Plugin, MemoryPaths, StartupTiming,
    StatusView, TaskSummaryView, PostTurnSummaryView, ThinkingTokensView, ApiRetryView,
    PermissionDeniedView, HookStartedView, HookResponseView, HookProgressView,
    BackgroundTasksChangedView, BackgroundTask,
    TaskStartedView, TaskProgressView, WorkflowPhase, WorkflowAgent, OtherProgressItem,
    TaskUpdatedView, TaskPatch, TaskNotificationView, TaskUsage,
    CompactBoundaryView, CompactMetadata, NotificationView, VcsStateChangedView, DevIntentView,
    TurnPreemptedView, PeerMessageHoldView, CloudSessionDeltaView, PerTurnEffortChangedView,
    AssistantView, AssistantMessage, ContextManagement,
    TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock, ServerToolUseBlock,
    ServerToolResultBlock, OtherBlock, Caller, ToolInput,
    Usage, CacheCreation, OutputTokensDetails, ServerToolUse, UsageIteration, ModelUsage,
    UserView, UserMessage, ToolResultMeta,
    BashResult, ReadResult, ReadFile, WriteResult, EditResult, Hunk, SkillResult,
    WorkflowResult, AgentResult, HandbackReport, ToolStats, OtherToolResult,
    StreamEventView, MessageStart, ContentBlockStart, ContentBlockDelta, ContentBlockStop,
    MessageDelta, MessageDeltaBody, MessageStop, OtherApiEvent,
    TextDelta, ThinkingDelta, SignatureDelta, InputJsonDelta, OtherDelta,
    ResultView, PermissionDenial, SubagentStats, SubagentRequested, SubagentKilled,
    SubagentRefused, Origin, RunnerExit,
    ActiveGoalView, AutocompactStateView, AutocompactValue, RateLimitEventView, RateLimitInfo,
    UnifiedWindows, UsageWindow, ControlRequestView, ControlRequestBody, PermissionSuggestion,
    ControlResponseView, ControlResponseBody, ControlCancelRequestView, ToolProgressView,
}
