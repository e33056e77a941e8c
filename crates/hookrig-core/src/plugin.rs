//! The Rust plugin API: a [`Plugin`] registers itself through a scoped
//! [`PluginContext`] that lets it subscribe to the agent's bus, add in-process tools,
//! read the session and memory, and log. There is no way to reach the store or the
//! runner's state through the context: schema changes behind it do not break plugins.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::Value;

use crate::bus::{Bus, BusHandler, HandlerError, SubscribeOptions, Subscription, VetoOutcome};
use crate::errors::{BusError, PluginError};
use crate::payload::Payload;

/// An in-process plugin.
pub trait Plugin: Send + Sync {
    /// The plugin's id: what its subscriptions, tools, log lines and `plugin.error`
    /// reports are filed under.
    fn id(&self) -> &str;

    /// Subscribes handlers and adds tools. Called once per agent the plugin is
    /// installed in; an error undoes everything the plugin registered.
    fn register(&self, ctx: &mut PluginContext<'_>) -> Result<(), HandlerError>;
}

/// What a plugin sees of the agent while it registers.
pub struct PluginContext<'a> {
    plugin_id: &'a str,
    bus: &'a Bus,
    tools: &'a mut Tools,
    session: &'a SessionView,
    memory: &'a Arc<dyn MemoryView>,
    log: &'a Arc<dyn LogSink>,
}

impl fmt::Debug for PluginContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginContext")
            .field("plugin_id", &self.plugin_id)
            .finish_non_exhaustive()
    }
}

impl PluginContext<'_> {
    /// The agent's bus, with every subscription filed under this plugin.
    pub fn bus(&self) -> PluginBus<'_> {
        PluginBus {
            plugin_id: self.plugin_id,
            bus: self.bus,
        }
    }

    /// The agent's in-process tools, with every tool filed under this plugin.
    pub fn tools(&mut self) -> PluginTools<'_> {
        PluginTools {
            plugin_id: self.plugin_id,
            tools: self.tools,
        }
    }

    /// The session the agent runs in.
    pub fn session(&self) -> &SessionView {
        self.session
    }

    /// The agent's memory, read-only. Clone the `Arc` into a handler to read memory
    /// when events fire.
    pub fn memory(&self) -> &Arc<dyn MemoryView> {
        self.memory
    }

    /// A logger that names this plugin on every line; clone it into handlers.
    pub fn logger(&self) -> Logger {
        Logger {
            plugin_id: self.plugin_id.into(),
            sink: self.log.clone(),
        }
    }
}

/// The bus as a plugin sees it: `on` without a plugin id, since it is always the
/// plugin's own (a plugin cannot subscribe, or be removed, under another's id).
#[derive(Debug, Clone, Copy)]
pub struct PluginBus<'a> {
    plugin_id: &'a str,
    bus: &'a Bus,
}

impl PluginBus<'_> {
    /// Subscribes `handler` to `event`; see [`Bus::on`].
    pub fn on(
        &self,
        event: &str,
        handler: BusHandler,
        options: impl Into<SubscribeOptions>,
    ) -> Result<Subscription, BusError> {
        self.bus.on(event, self.plugin_id, handler, options)
    }

    /// An emit-only handle on the bus, for a plugin whose handlers emit events
    /// themselves (a handler may emit on the bus it runs on). It cannot subscribe or
    /// remove handlers: a plugin subscribes only through [`PluginBus::on`], under its own
    /// id, and cannot remove another plugin's handlers.
    pub fn handle(&self) -> BusEmitter {
        BusEmitter {
            bus: self.bus.clone(),
        }
    }
}

/// What a plugin may do with the bus outside `register`: emit, transform and veto.
/// There is no way from here to the [`Bus`] itself, so a plugin cannot subscribe under
/// another plugin's id or remove another plugin's handlers (a `policy-gate` veto stays
/// in the chain whatever the other plugins of the agent do).
///
/// ```
/// # use hookrig_core::{BusEmitter, Payload};
/// fn announce(bus: &BusEmitter) {
///     let _ = bus.emit("note.created", &Payload::new());
/// }
/// ```
///
/// ```compile_fail,E0599
/// # use hookrig_core::PluginContext;
/// // guards: a plugin must not remove another plugin's handlers through its handle
/// fn unplug(ctx: &mut PluginContext<'_>) {
///     ctx.bus().handle().remove_plugin("policy-gate");
/// }
/// ```
///
/// ```compile_fail,E0599
/// # use hookrig_core::{BusHandler, PluginContext, VetoReply};
/// // guards: a plugin must not subscribe under another plugin's id through its handle
/// fn impersonate(ctx: &mut PluginContext<'_>) {
///     let veto = BusHandler::veto(|_| Ok(VetoReply::Allow));
///     let _ = ctx.bus().handle().on("tool.before", "policy-gate", veto, 0);
/// }
/// ```
#[derive(Clone)]
pub struct BusEmitter {
    bus: Bus,
}

impl fmt::Debug for BusEmitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BusEmitter").finish_non_exhaustive()
    }
}

impl BusEmitter {
    /// Runs every handler of a listener event; see [`Bus::emit`].
    pub fn emit(&self, event: &str, payload: &Payload) -> Result<(), BusError> {
        self.bus.emit(event, payload)
    }

    /// Runs a transform event's handlers; see [`Bus::transform`].
    pub fn transform(&self, event: &str, payload: Payload) -> Result<Payload, BusError> {
        self.bus.transform(event, payload)
    }

    /// Runs a veto event's handlers until one refuses; see [`Bus::veto`].
    pub fn veto(&self, event: &str, payload: Payload) -> Result<VetoOutcome, BusError> {
        self.bus.veto(event, payload)
    }
}

type ToolFn = dyn Fn(&Value) -> Result<Value, HandlerError> + Send + Sync;

/// An in-process tool: a name, the JSON schema of its input, and its handler.
#[derive(Clone)]
pub struct Tool {
    /// The tool's name, as the model calls it.
    pub name: String,
    /// The JSON schema of its input, as the model is shown it.
    pub schema: Value,
    handler: Arc<ToolFn>,
    plugin_id: Arc<str>,
}

impl Tool {
    /// The plugin that added it.
    pub fn plugin_id(&self) -> &str {
        &self.plugin_id
    }

    /// Runs the tool. A handler that panics is an error (`panicked: ...`), as on the
    /// bus; nothing it does unwinds into the host.
    pub fn call(&self, input: &Value) -> Result<Value, PluginError> {
        // Sound for the same reason as on the bus: the handler gets a shared reference
        // to a value without interior mutability, and no lock is held.
        let result = catch_unwind(AssertUnwindSafe(|| (self.handler)(input)));
        let message = match result {
            Ok(Ok(output)) => return Ok(output),
            Ok(Err(error)) => crate::bus::error_message(&*error),
            Err(panic) => format!("panicked: {}", crate::bus::panic_message(&*panic)),
        };
        Err(PluginError::ToolFailed {
            plugin_id: self.plugin_id.to_string(),
            tool: self.name.clone(),
            message,
        })
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("schema", &self.schema)
            .field("plugin_id", &self.plugin_id)
            .finish_non_exhaustive()
    }
}

/// The agent's in-process tools, by name.
#[derive(Debug, Clone, Default)]
pub struct Tools {
    tools: BTreeMap<String, Tool>,
}

impl Tools {
    /// No tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.get(name)
    }

    /// Every tool, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.tools.values()
    }

    /// Removes every tool of `plugin_id`; returns how many.
    pub fn remove_plugin(&mut self, plugin_id: &str) -> usize {
        let before = self.tools.len();
        self.tools.retain(|_, t| &*t.plugin_id != plugin_id);
        before - self.tools.len()
    }
}

/// The tools as a plugin sees them: it can add its own.
#[derive(Debug)]
pub struct PluginTools<'a> {
    plugin_id: &'a str,
    tools: &'a mut Tools,
}

impl PluginTools<'_> {
    /// Adds a tool. A name already taken (by this plugin or another) is an error: a
    /// model calling a tool by name must get one answer.
    pub fn add(
        &mut self,
        name: &str,
        schema: Value,
        handler: impl Fn(&Value) -> Result<Value, HandlerError> + Send + Sync + 'static,
    ) -> Result<(), PluginError> {
        if let Some(existing) = self.tools.tools.get(name) {
            return Err(PluginError::ToolExists {
                tool: name.to_owned(),
                owner: existing.plugin_id.to_string(),
            });
        }
        if !schema.is_object() {
            return Err(PluginError::ToolSchema {
                tool: name.to_owned(),
            });
        }
        self.tools.tools.insert(
            name.to_owned(),
            Tool {
                name: name.to_owned(),
                schema,
                handler: Arc::new(handler),
                plugin_id: self.plugin_id.into(),
            },
        );
        Ok(())
    }
}

/// The session an agent runs in, as plugins may read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionView {
    /// The session id.
    pub id: String,
    /// The working directory.
    pub cwd: String,
    /// The model, when known.
    pub model: Option<String>,
    /// The agent's name, when known.
    pub agent: Option<String>,
}

/// The agent's memory, read-only: plugins read it here and change it only through
/// events (`memory.upsert`), so the host keeps its own storage.
pub trait MemoryView: Send + Sync {
    /// The value stored under `key`.
    fn get(&self, key: &str) -> Option<Value>;
    /// Every key, sorted.
    fn keys(&self) -> Vec<String>;
}

impl MemoryView for BTreeMap<String, Value> {
    fn get(&self, key: &str) -> Option<Value> {
        BTreeMap::get(self, key).cloned()
    }

    fn keys(&self) -> Vec<String> {
        BTreeMap::keys(self).cloned().collect()
    }
}

/// Log levels of plugin log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// Detail for whoever debugs the plugin.
    Debug,
    /// Something the operator may want to know.
    Info,
    /// Something went wrong but the plugin goes on.
    Warn,
    /// Something failed.
    Error,
}

/// Where plugin log lines go. The host decides (tracing, the ledger, stderr); the core
/// prints nothing itself.
pub trait LogSink: Send + Sync {
    /// Records one line of `plugin_id`.
    fn log(&self, plugin_id: &str, level: LogLevel, message: &str);
}

/// A plugin's logger.
#[derive(Clone)]
pub struct Logger {
    plugin_id: Arc<str>,
    sink: Arc<dyn LogSink>,
}

impl fmt::Debug for Logger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Logger")
            .field("plugin_id", &self.plugin_id)
            .finish_non_exhaustive()
    }
}

impl Logger {
    /// Logs at `level`.
    pub fn log(&self, level: LogLevel, message: &str) {
        self.sink.log(&self.plugin_id, level, message);
    }

    /// Logs at debug level.
    pub fn debug(&self, message: &str) {
        self.log(LogLevel::Debug, message);
    }

    /// Logs at info level.
    pub fn info(&self, message: &str) {
        self.log(LogLevel::Info, message);
    }

    /// Logs at warn level.
    pub fn warn(&self, message: &str) {
        self.log(LogLevel::Warn, message);
    }

    /// Logs at error level.
    pub fn error(&self, message: &str) {
        self.log(LogLevel::Error, message);
    }
}

/// What an agent gives its plugins: its bus, its tools, read-only views and a log sink.
pub struct PluginHost<'a> {
    /// The agent's bus.
    pub bus: &'a Bus,
    /// The agent's tools.
    pub tools: &'a mut Tools,
    /// The agent's session.
    pub session: &'a SessionView,
    /// The agent's memory.
    pub memory: &'a Arc<dyn MemoryView>,
    /// Where plugin log lines go.
    pub log: &'a Arc<dyn LogSink>,
}

impl fmt::Debug for PluginHost<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginHost")
            .field("bus", self.bus)
            .field("tools", self.tools)
            .field("session", self.session)
            .finish_non_exhaustive()
    }
}

impl PluginHost<'_> {
    /// Runs `plugin.register`. When it fails (an error or a panic), every subscription
    /// and tool it registered is removed again, so a plugin is installed whole or not
    /// at all; a plugin id already present on the bus or in the tools is refused, since
    /// removing one of two plugins of one id would remove both.
    pub fn install(&mut self, plugin: &dyn Plugin) -> Result<(), PluginError> {
        let plugin_id = plugin.id().to_owned();
        let taken = self.bus.plugin_ids().contains(&plugin_id)
            || self.tools.iter().any(|t| *t.plugin_id == plugin_id);
        if taken {
            return Err(PluginError::AlreadyInstalled { plugin_id });
        }
        let mut ctx = PluginContext {
            plugin_id: &plugin_id,
            bus: self.bus,
            tools: self.tools,
            session: self.session,
            memory: self.memory,
            log: self.log,
        };
        // Sound: on a panic everything the plugin touched through the context is
        // removed below, and the views it could read are immutable.
        let result = catch_unwind(AssertUnwindSafe(|| plugin.register(&mut ctx)));
        let message = match result {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(error)) => crate::bus::error_message(&*error),
            Err(panic) => format!("panicked: {}", crate::bus::panic_message(&*panic)),
        };
        self.bus.remove_plugin(&plugin_id);
        self.tools.remove_plugin(&plugin_id);
        Err(PluginError::RegisterFailed { plugin_id, message })
    }

    /// Removes everything `plugin_id` registered; returns how many subscriptions and
    /// tools that was.
    pub fn uninstall(&mut self, plugin_id: &str) -> usize {
        self.bus.remove_plugin(plugin_id) + self.tools.remove_plugin(plugin_id)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;
    use crate::bus::{VetoOutcome, VetoReply};
    use crate::payload::Payload;

    #[derive(Default)]
    struct Lines(Mutex<Vec<(String, LogLevel, String)>>);

    impl LogSink for Lines {
        fn log(&self, plugin_id: &str, level: LogLevel, message: &str) {
            self.0.lock().expect("test lock").push((
                plugin_id.to_owned(),
                level,
                message.to_owned(),
            ));
        }
    }

    /// A plugin made of a closure, for tests.
    struct FnPlugin<F>(&'static str, F);

    impl<F> Plugin for FnPlugin<F>
    where
        F: Fn(&mut PluginContext<'_>) -> Result<(), HandlerError> + Send + Sync,
    {
        fn id(&self) -> &str {
            self.0
        }

        fn register(&self, ctx: &mut PluginContext<'_>) -> Result<(), HandlerError> {
            (self.1)(ctx)
        }
    }

    struct Agent {
        bus: Bus,
        tools: Tools,
        session: SessionView,
        memory: Arc<dyn MemoryView>,
        lines: Arc<Lines>,
        sink: Arc<dyn LogSink>,
    }

    impl Agent {
        fn new() -> Self {
            let lines = Arc::new(Lines::default());
            Self {
                bus: Bus::with_names(&crate::event::tests::stand_in_names()),
                tools: Tools::new(),
                session: SessionView {
                    id: "s1".to_owned(),
                    cwd: "/work".to_owned(),
                    model: None,
                    agent: Some("coder".to_owned()),
                },
                memory: Arc::new(BTreeMap::from([("style".to_owned(), json!("terse"))])),
                lines: lines.clone(),
                sink: lines,
            }
        }

        fn host(&mut self) -> PluginHost<'_> {
            PluginHost {
                bus: &self.bus,
                tools: &mut self.tools,
                session: &self.session,
                memory: &self.memory,
                log: &self.sink,
            }
        }
    }

    #[test]
    fn a_plugin_subscribes_adds_tools_reads_views_and_logs_under_its_id() {
        let mut agent = Agent::new();
        let plugin = FnPlugin("gate", |ctx: &mut PluginContext<'_>| {
            let agent = ctx.session().agent.clone().unwrap_or_default();
            let style = ctx.memory().get("style");
            ctx.logger().info(&format!(
                "agent {agent}, style {style:?}, keys {:?}",
                ctx.memory().keys()
            ));
            ctx.bus().on(
                "tool.before",
                BusHandler::veto(|_| Ok(VetoReply::deny("closed"))),
                5,
            )?;
            ctx.tools()
                .add("echo", json!({"type": "object"}), |input| {
                    Ok(json!({"echo": input}))
                })?;
            Ok(())
        });

        agent.host().install(&plugin).expect("installs");

        assert_eq!(
            agent.bus.list_subscriptions("tool.before"),
            [(5, "gate".to_owned())]
        );
        assert_eq!(
            agent.bus.veto("tool.before", Payload::new()),
            Ok(VetoOutcome::Deny {
                plugin_id: "gate".to_owned(),
                reason: Some("closed".to_owned())
            })
        );
        let tool = agent.tools.get("echo").expect("added");
        assert_eq!(tool.plugin_id(), "gate");
        assert_eq!(tool.schema, json!({"type": "object"}));
        assert_eq!(tool.call(&json!(1)), Ok(json!({"echo": 1})));
        assert_eq!(
            *agent.lines.0.lock().expect("test lock"),
            [(
                "gate".to_owned(),
                LogLevel::Info,
                r#"agent coder, style Some(String("terse")), keys ["style"]"#.to_owned()
            )]
        );
    }

    /// Registers a subscription and a tool, then fails by error or panic.
    fn half_registered(id: &'static str, panics: bool) -> impl Plugin {
        FnPlugin(id, move |ctx: &mut PluginContext<'_>| {
            ctx.bus()
                .on("tool.after", BusHandler::listener(|_| Ok(())), 100)?;
            ctx.tools().add("half", json!({}), |_| Ok(Value::Null))?;
            assert!(!panics, "register blew up");
            ctx.bus().on(
                "tool.after",
                BusHandler::veto(|_| Ok(VetoReply::Allow)),
                100,
            )?;
            Ok(())
        })
    }

    #[test_case::test_case(false, "plugin `half` failed to register: a veto handler cannot subscribe to tool.after, a listener event"; "error")]
    #[test_case::test_case(true, "plugin `half` failed to register: panicked: register blew up"; "panic")]
    fn failed_register_keeps_nothing(panics: bool, message: &str) {
        let mut agent = Agent::new();

        let error = agent
            .host()
            .install(&half_registered("half", panics))
            .expect_err("fails");

        assert_eq!(error.to_string(), message);
        assert!(agent.bus.list_subscriptions("tool.after").is_empty());
        assert!(agent.tools.get("half").is_none());
        assert!(agent.bus.plugin_ids().is_empty());
    }

    #[test]
    fn ids_and_tool_names_are_unique() {
        let mut agent = Agent::new();
        let first = FnPlugin("one", |ctx: &mut PluginContext<'_>| {
            ctx.tools().add("t", json!({}), |_| Ok(Value::Null))?;
            Ok(())
        });
        agent.host().install(&first).expect("installs");

        let again = agent.host().install(&first).expect_err("same id");
        assert_eq!(
            again.to_string(),
            "a plugin with id `one` is installed already"
        );

        let clash = FnPlugin("two", |ctx: &mut PluginContext<'_>| {
            ctx.tools().add("t", json!({}), |_| Ok(Value::Null))?;
            Ok(())
        });
        let error = agent.host().install(&clash).expect_err("same tool");
        assert_eq!(
            error.to_string(),
            "plugin `two` failed to register: tool `t` exists already (added by plugin `one`)"
        );

        let bad_schema = FnPlugin("three", |ctx: &mut PluginContext<'_>| {
            ctx.tools().add("u", json!("string"), |_| Ok(Value::Null))?;
            Ok(())
        });
        let error = agent.host().install(&bad_schema).expect_err("schema");
        assert_eq!(
            error.to_string(),
            "plugin `three` failed to register: the input schema of tool `u` is not a JSON object"
        );
    }

    #[test]
    fn tool_failures_are_errors_not_panics() {
        let mut agent = Agent::new();
        let plugin = FnPlugin("p", |ctx: &mut PluginContext<'_>| {
            ctx.tools()
                .add("err", json!({}), |_| Err("no input".into()))?;
            ctx.tools()
                .add("panic", json!({}), |_| panic!("tool blew up"))?;
            Ok(())
        });
        agent.host().install(&plugin).expect("installs");

        let call = |name: &str| {
            agent
                .tools
                .get(name)
                .expect("added")
                .call(&Value::Null)
                .expect_err("fails")
                .to_string()
        };
        assert_eq!(call("err"), "tool `err` of plugin `p` failed: no input");
        assert_eq!(
            call("panic"),
            "tool `panic` of plugin `p` failed: panicked: tool blew up"
        );
    }

    #[test]
    fn a_handler_emits_through_the_plugins_handle() {
        let mut agent = Agent::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let listener = FnPlugin("listener", {
            let seen = Arc::clone(&seen);
            move |ctx: &mut PluginContext<'_>| {
                let seen = Arc::clone(&seen);
                ctx.bus().on(
                    "note.created",
                    BusHandler::listener(move |p| {
                        seen.lock().expect("test lock").push(p.clone());
                        Ok(())
                    }),
                    0,
                )?;
                Ok(())
            }
        });
        let announcer = FnPlugin("announcer", |ctx: &mut PluginContext<'_>| {
            let bus = ctx.bus().handle();
            ctx.bus().on(
                "tool.after",
                BusHandler::listener(move |p| Ok(bus.emit("note.created", p)?)),
                0,
            )?;
            Ok(())
        });
        agent.host().install(&listener).expect("installs");
        agent.host().install(&announcer).expect("installs");

        agent
            .bus
            .emit("tool.after", &Payload::new())
            .expect("emits");

        assert_eq!(seen.lock().expect("test lock").len(), 1);
        assert_eq!(
            agent.bus.plugin_ids(),
            ["announcer".to_owned(), "listener".to_owned()]
        );
    }

    #[test]
    fn uninstall_removes_subscriptions_and_tools() {
        let mut agent = Agent::new();
        let plugin = FnPlugin("p", |ctx: &mut PluginContext<'_>| {
            ctx.bus()
                .on("tool.after", BusHandler::listener(|_| Ok(())), 1)?;
            ctx.bus()
                .on("tool.before", BusHandler::veto(|_| Ok(VetoReply::Allow)), 1)?;
            ctx.tools().add("t", json!({}), |_| Ok(Value::Null))?;
            Ok(())
        });
        agent.host().install(&plugin).expect("installs");

        assert_eq!(agent.host().uninstall("p"), 3);
        assert!(agent.bus.plugin_ids().is_empty());
        assert_eq!(agent.tools.iter().count(), 0);
        agent.host().install(&plugin).expect("installs again");
    }
}
