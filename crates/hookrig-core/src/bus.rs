//! The in-process event bus: Rust plugins subscribe closures to events, with the
//! semantics of OpenHermit's `AgentEventBus` (listener, transform and veto chains).
//!
//! A [`Bus`] belongs to one agent; there is no global bus, so plugin state cannot leak
//! from one agent to another. Handlers are synchronous closures: OpenHermit's chains
//! are synchronous (each handler sees the result of the one before), the core has no
//! async runtime, and an in-process plugin on a hot path (`tool.before`,
//! `prompt.assemble`) should answer in microseconds. Work that waits on I/O belongs in
//! a command or HTTP hook, which the dispatcher awaits.
//!
//! Handlers get the payload as `&Payload` and return owned values. [`Payload`] has no
//! interior mutability, so the borrow checker makes an accidental mutation impossible:
//! a handler can change what later handlers see only through a transform's or veto's
//! result. Handlers that only read (listeners, most vetoes) cost no copy at all; one
//! that changes the payload pays for the one clone it makes.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use serde_json::{Map, Value};

use crate::errors::BusError;
use crate::event::{BusShape, CATALOG, CatalogEntry, EventNames};
use crate::payload::Payload;

mod chain;

/// What a handler returns when it fails: any error. Its `Display` (and its sources')
/// becomes the `message` of `plugin.error`.
pub type HandlerError = Box<dyn std::error::Error + Send + Sync>;

type ListenerFn = dyn Fn(&Payload) -> Result<(), HandlerError> + Send + Sync;
type TransformFn = dyn Fn(&Payload) -> Result<Option<Payload>, HandlerError> + Send + Sync;
type VetoFn = dyn Fn(&Payload) -> Result<VetoReply, HandlerError> + Send + Sync;

/// A handler of one of the three shapes. Its shape must be the event's shape.
#[derive(Clone)]
pub struct BusHandler(HandlerFn);

#[derive(Clone)]
enum HandlerFn {
    Listener(Arc<ListenerFn>),
    Transform(Arc<TransformFn>),
    Veto(Arc<VetoFn>),
}

impl BusHandler {
    /// A listener: runs for its side effects.
    pub fn listener(
        f: impl Fn(&Payload) -> Result<(), HandlerError> + Send + Sync + 'static,
    ) -> Self {
        Self(HandlerFn::Listener(Arc::new(f)))
    }

    /// A transform: `Some(payload)` replaces the payload for the handlers after it,
    /// `None` keeps it.
    pub fn transform(
        f: impl Fn(&Payload) -> Result<Option<Payload>, HandlerError> + Send + Sync + 'static,
    ) -> Self {
        Self(HandlerFn::Transform(Arc::new(f)))
    }

    /// A veto: allows (maybe with a new payload) or ends the chain with a refusal.
    pub fn veto(
        f: impl Fn(&Payload) -> Result<VetoReply, HandlerError> + Send + Sync + 'static,
    ) -> Self {
        Self(HandlerFn::Veto(Arc::new(f)))
    }

    /// The handler's shape.
    pub fn shape(&self) -> BusShape {
        match self.0 {
            HandlerFn::Listener(_) => BusShape::Listener,
            HandlerFn::Transform(_) => BusShape::Transform,
            HandlerFn::Veto(_) => BusShape::Veto,
        }
    }
}

impl fmt::Debug for BusHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BusHandler({})", self.shape())
    }
}

/// What a veto handler answers (OpenHermit's `{allow, reason?}`, plus the payload a
/// handler may pass on when it allows).
#[derive(Debug, Clone, PartialEq)]
pub enum VetoReply {
    /// Allow; the payload goes on unchanged.
    Allow,
    /// Allow, and the handlers after this one see this payload instead.
    Replace(Payload),
    /// Refuse: the chain ends and this is the result.
    Deny {
        /// Why, for the user.
        reason: Option<String>,
    },
}

impl VetoReply {
    /// A refusal with a reason.
    pub fn deny(reason: impl Into<String>) -> Self {
        VetoReply::Deny {
            reason: Some(reason.into()),
        }
    }
}

/// The result of a veto chain.
#[derive(Debug, Clone, PartialEq)]
pub enum VetoOutcome {
    /// Every handler allowed.
    Allow {
        /// The payload as the last handler left it.
        payload: Payload,
    },
    /// A handler refused; the handlers after it did not run.
    Deny {
        /// The plugin whose handler refused.
        plugin_id: String,
        /// Its reason.
        reason: Option<String>,
    },
}

/// What a failing handler (an error or a panic) does to the call it runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailureMode {
    /// The handler is skipped (a listener that did nothing, a transform that kept the
    /// payload, a veto that allowed), the chain goes on, and `plugin.error` is emitted.
    #[default]
    Skip,
    /// The call is aborted with [`BusError::HandlerFailed`]; no `plugin.error`.
    Fail,
}

/// How a handler subscribes: its priority and its failure mode. An `i32` converts into
/// options with that priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscribeOptions {
    /// Lower runs first; equal priorities run in registration order.
    pub priority: i32,
    /// What a failure of the handler does.
    pub failure_mode: FailureMode,
}

impl SubscribeOptions {
    /// The default priority, as OpenHermit's and the dispatcher's.
    pub const DEFAULT_PRIORITY: i32 = 100;

    /// Options with `failure_mode = fail`.
    #[must_use]
    pub fn fail(self) -> Self {
        Self {
            failure_mode: FailureMode::Fail,
            ..self
        }
    }
}

impl Default for SubscribeOptions {
    fn default() -> Self {
        Self {
            priority: Self::DEFAULT_PRIORITY,
            failure_mode: FailureMode::Skip,
        }
    }
}

impl From<i32> for SubscribeOptions {
    fn from(priority: i32) -> Self {
        Self {
            priority,
            ..Self::default()
        }
    }
}

/// One subscription in a chain.
#[derive(Clone)]
struct Sub {
    /// Registration order, unique for the bus's lifetime.
    id: u64,
    plugin_id: Arc<str>,
    priority: i32,
    failure_mode: FailureMode,
    /// The versioned name the handler subscribed to (`tool.before@v1`), for
    /// `plugin.error` and [`BusError::HandlerFailed`].
    label: Arc<str>,
    handler: HandlerFn,
}

/// Which chain a subscription is in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// A catalog row (every version and alias of it), by index.
    Entry(usize),
    /// A custom event, by its name as given.
    Custom(Arc<str>),
}

/// An event name resolved against the bus's catalog.
struct Resolved<'e> {
    /// The catalog row and the version named, `None` for a custom event.
    entry: Option<(usize, &'static str)>,
    /// The canonical name, or a custom event's name as given.
    name: &'e str,
    shape: BusShape,
}

impl Resolved<'_> {
    fn key(&self) -> Key {
        match self.entry {
            Some((index, _)) => Key::Entry(index),
            None => Key::Custom(self.name.into()),
        }
    }

    /// `name@version` for catalog events, the name for custom ones.
    fn label(&self) -> String {
        match self.entry {
            Some((_, version)) => format!("{}@{version}", self.name),
            None => self.name.to_owned(),
        }
    }
}

/// A per-agent event bus. Cloning gives another handle to the same bus.
///
/// `emit`, `transform` and `veto` run the event's chain as it was when the call began:
/// a handler that subscribes or unsubscribes during a call changes later calls only,
/// and can do so without deadlocking, because no lock is held while handlers run.
#[derive(Clone)]
pub struct Bus {
    inner: Arc<Inner>,
}

struct Inner {
    catalog: &'static [CatalogEntry],
    /// Canonical names and aliases (without versions) → catalog index.
    spellings: HashMap<&'static str, usize>,
    /// The shape of each catalog row's handlers, by index.
    shapes: Vec<BusShape>,
    state: Mutex<State>,
}

/// The chains. Each is replaced whole when a subscription changes, so a call takes its
/// snapshot with one reference-count increment and runs without the lock.
struct State {
    next_id: u64,
    /// One chain per catalog row, by index.
    entries: Vec<Arc<[Sub]>>,
    /// Custom events' chains, by name.
    custom: HashMap<Arc<str>, Arc<[Sub]>>,
}

impl State {
    fn chains(&self) -> impl Iterator<Item = &Arc<[Sub]>> {
        self.entries.iter().chain(self.custom.values())
    }

    fn chains_mut(&mut self) -> impl Iterator<Item = &mut Arc<[Sub]>> {
        self.entries.iter_mut().chain(self.custom.values_mut())
    }

    fn get(&self, resolved: &Resolved<'_>) -> Option<&Arc<[Sub]>> {
        match resolved.entry {
            Some((index, _)) => self.entries.get(index),
            None => self.custom.get(resolved.name),
        }
    }

    fn get_mut(&mut self, key: &Key) -> Option<&mut Arc<[Sub]>> {
        match key {
            Key::Entry(index) => self.entries.get_mut(*index),
            Key::Custom(name) => self.custom.get_mut(name),
        }
    }
}

impl Default for Bus {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Bus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.lock();
        let subscriptions: usize = state.chains().map(|c| c.len()).sum();
        f.debug_struct("Bus")
            .field("subscriptions", &subscriptions)
            .finish_non_exhaustive()
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Handlers never run while the lock is held and nothing else in here panics,
        // so a poisoned lock still holds consistent chains.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Bus {
    /// A bus over hookrig's catalog ([`CATALOG`]) that knows canonical names only,
    /// each event with the shape of its kind. An agent's bus is built with
    /// [`Bus::with_names`] and the dialects' table, so that plugins can name events
    /// as their tools do and keep OpenHermit's shapes.
    pub fn new() -> Self {
        Self::with_catalog(CATALOG, &EventNames::new())
    }

    /// A bus over hookrig's catalog that also knows the names and bus shapes of `names`
    /// (`hookrig_dialects::events::bus` builds it with every dialect's).
    pub fn with_names(names: &EventNames) -> Self {
        Self::with_catalog(CATALOG, names)
    }

    /// A bus over another catalog: an embedder's own events, or a catalog that declares
    /// a deprecation window, with the aliases and shapes of `names` for its rows. Names
    /// the catalog does not know are custom listener events.
    pub fn with_catalog(catalog: &'static [CatalogEntry], names: &EventNames) -> Self {
        let mut spellings = HashMap::new();
        for (index, entry) in catalog.iter().enumerate() {
            spellings.entry(entry.name).or_insert(index);
        }
        for (alias, canonical) in names.aliases() {
            if let Some(index) = catalog.iter().position(|e| e.name == canonical) {
                spellings.entry(alias).or_insert(index);
            }
        }
        let shapes = catalog
            .iter()
            .map(|entry| names.shape(entry.name, entry.kind))
            .collect();
        Self {
            inner: Arc::new(Inner {
                catalog,
                spellings,
                shapes,
                state: Mutex::new(State {
                    next_id: 0,
                    entries: vec![Arc::from([]); catalog.len()],
                    custom: HashMap::new(),
                }),
            }),
        }
    }

    /// Subscribes `handler` of `plugin_id` to `event` (any spelling the catalog accepts,
    /// with or without a version). `options` is a priority or [`SubscribeOptions`].
    ///
    /// Dropping the returned [`Subscription`] keeps the handler subscribed, as ignoring
    /// OpenHermit's unsubscribe function does; call [`Subscription::unsubscribe`] or
    /// [`Bus::remove_plugin`] to remove it.
    pub fn on(
        &self,
        event: &str,
        plugin_id: &str,
        handler: BusHandler,
        options: impl Into<SubscribeOptions>,
    ) -> Result<Subscription, BusError> {
        let options = options.into();
        let resolved = self.resolve(event)?;
        if handler.shape() != resolved.shape {
            return Err(BusError::HandlerShape {
                event: resolved.name.to_owned(),
                shape: resolved.shape,
                handler: handler.shape(),
            });
        }
        let mut state = self.inner.lock();
        let id = state.next_id;
        state.next_id += 1;
        let sub = Sub {
            id,
            plugin_id: plugin_id.into(),
            priority: options.priority,
            failure_mode: options.failure_mode,
            label: resolved.label().into(),
            handler: handler.0,
        };
        let key = resolved.key();
        let chain = match &key {
            Key::Entry(index) => &mut state.entries[*index],
            Key::Custom(name) => state.custom.entry(name.clone()).or_default(),
        };
        // The new id is the largest, so it goes after every subscription of the same
        // priority: ties keep registration order.
        let at = chain.partition_point(|s| s.priority <= sub.priority);
        let mut subs = Vec::with_capacity(chain.len() + 1);
        subs.extend_from_slice(&chain[..at]);
        subs.push(sub);
        subs.extend_from_slice(&chain[at..]);
        *chain = subs.into();
        Ok(Subscription {
            bus: Arc::downgrade(&self.inner),
            key,
            id,
        })
    }

    /// Runs every handler of a listener event, in order; what they return is ignored.
    pub fn emit(&self, event: &str, payload: &Payload) -> Result<(), BusError> {
        let (resolved, chain) = self.chain(event, BusShape::Listener)?;
        self.run_listeners(&resolved, &chain, payload, false)
    }

    /// Runs a transform event's handlers, each on the payload as the ones before left
    /// it, and returns the final payload.
    pub fn transform(&self, event: &str, mut payload: Payload) -> Result<Payload, BusError> {
        let (resolved, chain) = self.chain(event, BusShape::Transform)?;
        for sub in chain.iter() {
            let HandlerFn::Transform(handler) = &sub.handler else {
                continue; // `on` admits only handlers of the event's shape
            };
            if let Some(Some(next)) = self.call(&resolved, sub, false, || handler(&payload))? {
                payload = next;
            }
        }
        Ok(payload)
    }

    /// Runs a veto event's handlers until one refuses.
    pub fn veto(&self, event: &str, mut payload: Payload) -> Result<VetoOutcome, BusError> {
        let (resolved, chain) = self.chain(event, BusShape::Veto)?;
        for sub in chain.iter() {
            let HandlerFn::Veto(handler) = &sub.handler else {
                continue; // `on` admits only handlers of the event's shape
            };
            match self.call(&resolved, sub, false, || handler(&payload))? {
                Some(VetoReply::Deny { reason }) => {
                    return Ok(VetoOutcome::Deny {
                        plugin_id: sub.plugin_id.to_string(),
                        reason,
                    });
                }
                Some(VetoReply::Replace(next)) => payload = next,
                Some(VetoReply::Allow) | None => {}
            }
        }
        Ok(VetoOutcome::Allow { payload })
    }

    /// Removes every subscription of `plugin_id`, on every event; returns how many.
    pub fn remove_plugin(&self, plugin_id: &str) -> usize {
        let mut state = self.inner.lock();
        let mut removed = 0;
        for chain in state.chains_mut() {
            if chain.iter().any(|s| &*s.plugin_id == plugin_id) {
                let kept: Vec<Sub> = chain
                    .iter()
                    .filter(|s| &*s.plugin_id != plugin_id)
                    .cloned()
                    .collect();
                removed += chain.len() - kept.len();
                *chain = kept.into();
            }
        }
        removed
    }

    /// The ids of the plugins with at least one subscription, sorted.
    pub fn plugin_ids(&self) -> Vec<String> {
        let state = self.inner.lock();
        let mut ids: Vec<String> = state
            .chains()
            .flat_map(|chain| chain.iter().map(|s| s.plugin_id.to_string()))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The subscriptions of `event` (every version of it), in the order they run:
    /// `(priority, plugin_id)`. Empty for a version the catalog does not declare.
    pub fn list_subscriptions(&self, event: &str) -> Vec<(i32, String)> {
        let Ok(resolved) = self.resolve(event) else {
            return Vec::new();
        };
        let state = self.inner.lock();
        state
            .get(&resolved)
            .map(|chain| {
                chain
                    .iter()
                    .map(|s| (s.priority, s.plugin_id.to_string()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn resolve<'e>(&self, event: &'e str) -> Result<Resolved<'e>, BusError> {
        let (base, version) = match event.rsplit_once('@') {
            Some((base, version)) => (base, Some(version)),
            None => (event, None),
        };
        let Some(&index) = self.inner.spellings.get(base) else {
            return Ok(Resolved {
                entry: None,
                name: event,
                shape: BusShape::Listener,
            });
        };
        let entry = &self.inner.catalog[index];
        // A plain name denotes the oldest version still dispatched: the one the name
        // meant before a newer version was declared.
        let version = match version {
            None => entry.versions.first().copied().unwrap_or("v1"),
            Some(v) => entry
                .versions
                .iter()
                .copied()
                .find(|&known| known == v)
                .ok_or_else(|| BusError::UnknownVersion {
                    event: entry.name.to_owned(),
                    version: v.to_owned(),
                    dispatched: entry.versions.join(", "),
                })?,
        };
        Ok(Resolved {
            entry: Some((index, version)),
            name: entry.name,
            shape: self.inner.shapes[index],
        })
    }

    fn chain<'e>(
        &self,
        event: &'e str,
        called: BusShape,
    ) -> Result<(Resolved<'e>, Arc<[Sub]>), BusError> {
        let resolved = self.resolve(event)?;
        if resolved.shape != called {
            return Err(BusError::WrongShape {
                event: resolved.name.to_owned(),
                shape: resolved.shape,
                called: called.method(),
            });
        }
        let chain = self
            .inner
            .lock()
            .get(&resolved)
            .cloned()
            .unwrap_or_else(|| Arc::from([]));
        Ok((resolved, chain))
    }

    fn run_listeners(
        &self,
        resolved: &Resolved<'_>,
        chain: &[Sub],
        payload: &Payload,
        reporting: bool,
    ) -> Result<(), BusError> {
        for sub in chain {
            let HandlerFn::Listener(handler) = &sub.handler else {
                continue; // `on` admits only handlers of the event's shape
            };
            self.call(resolved, sub, reporting, || handler(payload))?;
        }
        Ok(())
    }

    /// Runs one handler. `Ok(Some(answer))` when it answered, `Ok(None)` when it failed
    /// and was skipped, `Err` when it failed and its failure mode is `fail`.
    ///
    /// `reporting` is true while the bus delivers its own `plugin.error`: a handler
    /// failing then is dropped silently whatever its failure mode, because reporting
    /// it would recurse and there is no call of the host's to abort.
    fn call<T>(
        &self,
        resolved: &Resolved<'_>,
        sub: &Sub,
        reporting: bool,
        run: impl FnOnce() -> Result<T, HandlerError>,
    ) -> Result<Option<T>, BusError> {
        let message = match invoke(run) {
            Ok(answer) => return Ok(Some(answer)),
            Err(message) => message,
        };
        if reporting {
            return Ok(None);
        }
        if sub.failure_mode == FailureMode::Fail {
            return Err(BusError::HandlerFailed {
                plugin_id: sub.plugin_id.to_string(),
                event: sub.label.to_string(),
                message,
            });
        }
        // Errors inside plugin.error handlers are not reported: that would recurse.
        if resolved.name != PLUGIN_ERROR {
            self.report(sub, message);
        }
        Ok(None)
    }

    /// Emits `plugin.error@v1` `{plugin_id, event, message}` for a skipped handler.
    fn report(&self, sub: &Sub, message: String) {
        let Ok((resolved, chain)) = self.chain(PLUGIN_ERROR, BusShape::Listener) else {
            return; // an embedder's catalog made plugin.error another shape
        };
        let mut map = Map::new();
        map.insert("plugin_id".to_owned(), Value::from(&*sub.plugin_id));
        map.insert("event".to_owned(), Value::from(&*sub.label));
        map.insert("message".to_owned(), Value::String(message));
        // With `reporting` set nothing can fail this call.
        let _ = self.run_listeners(&resolved, &chain, &Payload::from_map(map), true);
    }
}

const PLUGIN_ERROR: &str = "plugin.error";

/// A handle on one subscription.
pub struct Subscription {
    bus: Weak<Inner>,
    key: Key,
    id: u64,
}

impl Subscription {
    /// Removes the subscription. Returns false when it was already gone (its plugin
    /// was removed, or the bus was dropped).
    pub fn unsubscribe(self) -> bool {
        let Some(inner) = self.bus.upgrade() else {
            return false;
        };
        let mut state = inner.lock();
        let Some(chain) = state.get_mut(&self.key) else {
            return false;
        };
        let Some(at) = chain.iter().position(|s| s.id == self.id) else {
            return false;
        };
        let mut subs = chain.to_vec();
        subs.remove(at);
        *chain = subs.into();
        true
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("key", &self.key)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// Runs a handler, catching a panic: its answer, or the message of its error or panic.
fn invoke<T>(run: impl FnOnce() -> Result<T, HandlerError>) -> Result<T, String> {
    // AssertUnwindSafe is sound here: the closure captures the handler and a shared
    // reference to a payload without interior mutability, so a panic cannot leave
    // anything the bus or the later handlers read half-changed, and no lock is held
    // (the chain is a snapshot). State inside the handler itself (a Mutex, a RefCell)
    // is the plugin's own; a Mutex poisons as usual.
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(error)) => Err(error_message(&*error)),
        Err(panic) => Err(format!("panicked: {}", panic_message(&*panic))),
    }
}

/// An error and its sources, `outer: inner`.
pub(crate) fn error_message(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// The text a panic was raised with (`panic!("...")` gives a `&str` or a `String`).
pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use test_case::test_case;

    use super::*;
    use crate::event::EventKind;
    use crate::event::tests::stand_in_names;

    /// A bus with the stand-in for the dialects' names (aliases, OpenHermit's shapes),
    /// as an agent builds one.
    fn bus() -> Bus {
        Bus::with_names(&stand_in_names())
    }

    fn payload(value: Value) -> Payload {
        match value {
            Value::Object(map) => Payload::from_map(map),
            _ => panic!("test payloads are objects"),
        }
    }

    /// What handlers saw, in the order they ran.
    type Log = hookrig_test_support::Recorder<String>;

    /// A handler of `shape` that logs `name` and otherwise answers "no change".
    fn logging(shape: BusShape, log: &Log, name: &str) -> BusHandler {
        let (log, name) = (log.clone(), name.to_owned());
        match shape {
            BusShape::Listener => BusHandler::listener(move |_| {
                log.push(&name);
                Ok(())
            }),
            BusShape::Transform => BusHandler::transform(move |_| {
                log.push(&name);
                Ok(None)
            }),
            BusShape::Veto => BusHandler::veto(move |_| {
                log.push(&name);
                Ok(VetoReply::Allow)
            }),
        }
    }

    /// A handler of `shape` that logs `name`, then fails by error or by panic.
    fn failing(shape: BusShape, log: &Log, name: &str, panics: bool) -> BusHandler {
        let (log, name) = (log.clone(), name.to_owned());
        let fail = move || -> HandlerError {
            log.push(&name);
            assert!(!panics, "boom in {name}");
            "disk full".into()
        };
        match shape {
            BusShape::Listener => BusHandler::listener(move |_| Err(fail())),
            BusShape::Transform => BusHandler::transform(move |_| Err(fail())),
            BusShape::Veto => BusHandler::veto(move |_| Err(fail())),
        }
    }

    /// Calls the method of `shape` on `event`, keeping only whether it failed.
    fn run(bus: &Bus, shape: BusShape, event: &str) -> Result<(), BusError> {
        let p = payload(json!({"tool": {"name": "bash"}}));
        match shape {
            BusShape::Listener => bus.emit(event, &p),
            BusShape::Transform => bus.transform(event, p).map(drop),
            BusShape::Veto => bus.veto(event, p).map(drop),
        }
    }

    /// One event of each shape.
    fn event_of(shape: BusShape) -> &'static str {
        match shape {
            BusShape::Listener => "tool.after",
            BusShape::Transform => "prompt.assemble",
            BusShape::Veto => "tool.before",
        }
    }

    #[test_case(BusShape::Listener)]
    #[test_case(BusShape::Transform)]
    #[test_case(BusShape::Veto)]
    fn priority_ascending_then_registration_order(shape: BusShape) {
        let bus = bus();
        let log = Log::default();
        let event = event_of(shape);
        for (name, priority) in [("a", 100), ("b", 10), ("c", 100), ("d", 50), ("e", -5)] {
            bus.on(event, name, logging(shape, &log, name), priority)
                .expect("subscribes");
        }
        bus.on(
            event,
            "f",
            logging(shape, &log, "f"),
            SubscribeOptions::default(),
        )
        .expect("subscribes");

        run(&bus, shape, event).expect("runs");

        assert_eq!(log.take(), ["e", "b", "d", "a", "c", "f"]);
        assert_eq!(
            bus.list_subscriptions(event),
            [
                (-5, "e"),
                (10, "b"),
                (50, "d"),
                (100, "a"),
                (100, "c"),
                (100, "f")
            ]
            .map(|(p, id)| (p, id.to_owned()))
        );
    }

    #[test]
    fn listeners_all_run_and_see_the_payload_as_emitted() {
        let bus = bus();
        let seen = Log::default();
        for id in ["a", "b"] {
            let seen = seen.clone();
            bus.on(
                "session.opened@v1",
                id,
                BusHandler::listener(move |p| {
                    // A handler can change only its own copy: the next one still sees
                    // the payload as emitted.
                    let mut mine = p.clone();
                    mine.as_map_mut().insert("touched".to_owned(), json!(true));
                    seen.push(format!("{id}:{}", Value::Object(p.as_map().clone())));
                    Ok(())
                }),
                100,
            )
            .expect("subscribes");
        }

        bus.emit("session.start", &payload(json!({"n": 1})))
            .expect("emits");

        assert_eq!(seen.take(), [r#"a:{"n":1}"#, r#"b:{"n":1}"#]);
    }

    fn appending(id: &'static str) -> BusHandler {
        BusHandler::transform(move |p| {
            let mut next = p.clone();
            let sections = next
                .as_map_mut()
                .entry("sections")
                .or_insert_with(|| json!([]));
            sections
                .as_array_mut()
                .ok_or("sections is not an array")?
                .push(json!(id));
            Ok(Some(next))
        })
    }

    #[test]
    fn transforms_append_in_order_and_none_keeps_the_payload() {
        let bus = bus();
        bus.on("prompt.assemble@v1", "late", appending("late"), 200)
            .expect("subscribes");
        bus.on(
            "prompt.assemble",
            "keeps",
            BusHandler::transform(|_| Ok(None)),
            150,
        )
        .expect("subscribes");
        bus.on("prompt.assemble", "early", appending("early"), 10)
            .expect("subscribes");
        bus.on("prompt.assemble", "middle", appending("middle"), 100)
            .expect("subscribes");

        let out = bus
            .transform("prompt.assemble", payload(json!({"sections": ["base"]})))
            .expect("transforms");

        assert_eq!(
            Value::Object(out.into_map()),
            json!({"sections": ["base", "early", "middle", "late"]})
        );
    }

    #[test]
    fn session_message_received_is_a_transform() {
        let bus = bus();
        bus.on("session.message.received@v1", "p", appending("p"), 100)
            .expect("subscribes");

        let out = bus
            .transform("UserPromptSubmit", payload(json!({})))
            .expect("transforms");

        assert_eq!(out.as_map()["sections"], json!(["p"]));
    }

    #[test]
    fn first_disallow_ends_the_veto_chain() {
        let bus = bus();
        let log = Log::default();
        bus.on(
            "tool.before",
            "allow",
            logging(BusShape::Veto, &log, "allow"),
            1,
        )
        .expect("subscribes");
        let deny_log = log.clone();
        bus.on(
            "tool.before",
            "gate",
            BusHandler::veto(move |_| {
                deny_log.push("gate");
                Ok(VetoReply::deny("no rm -rf"))
            }),
            2,
        )
        .expect("subscribes");
        bus.on(
            "tool.before",
            "later",
            logging(BusShape::Veto, &log, "later"),
            3,
        )
        .expect("subscribes");

        let outcome = bus
            .veto("tool.before@v1", payload(json!({})))
            .expect("vetoes");

        assert_eq!(
            outcome,
            VetoOutcome::Deny {
                plugin_id: "gate".to_owned(),
                reason: Some("no rm -rf".to_owned())
            }
        );
        assert_eq!(log.take(), ["allow", "gate"]);
    }

    #[test]
    fn allow_with_payload_replaces_it_for_later_handlers() {
        let bus = bus();
        bus.on(
            "tool.before",
            "rewrite",
            BusHandler::veto(|p| {
                let mut next = p.clone();
                next.as_map_mut().insert("dry_run".to_owned(), json!(true));
                Ok(VetoReply::Replace(next))
            }),
            1,
        )
        .expect("subscribes");
        bus.on(
            "tool.before",
            "needs-dry-run",
            BusHandler::veto(|p| {
                Ok(if p.as_map().get("dry_run") == Some(&json!(true)) {
                    VetoReply::Allow
                } else {
                    VetoReply::Deny { reason: None }
                })
            }),
            2,
        )
        .expect("subscribes");

        let outcome = bus
            .veto("tool.before", payload(json!({"x": 1})))
            .expect("vetoes");

        assert_eq!(
            outcome,
            VetoOutcome::Allow {
                payload: payload(json!({"x": 1, "dry_run": true}))
            }
        );
    }

    /// Subscribes a listener to plugin.error that logs each payload it gets.
    fn watch_errors(bus: &Bus, log: &Log) {
        let log = log.clone();
        bus.on(
            "plugin.error@v1",
            "watcher",
            BusHandler::listener(move |p| {
                log.push(Value::Object(p.as_map().clone()).to_string());
                Ok(())
            }),
            100,
        )
        .expect("subscribes");
    }

    #[test_case(BusShape::Listener, false, "tool.after@v1", "disk full")]
    #[test_case(BusShape::Listener, true, "tool.after@v1", "panicked: boom in bad")]
    #[test_case(BusShape::Transform, false, "prompt.assemble@v1", "disk full")]
    #[test_case(
        BusShape::Transform,
        true,
        "prompt.assemble@v1",
        "panicked: boom in bad"
    )]
    #[test_case(BusShape::Veto, false, "tool.before@v1", "disk full")]
    #[test_case(BusShape::Veto, true, "tool.before@v1", "panicked: boom in bad")]
    fn failing_handler_is_skipped_and_reported(
        shape: BusShape,
        panics: bool,
        label: &str,
        message: &str,
    ) {
        let bus = bus();
        let log = Log::default();
        let errors = Log::default();
        watch_errors(&bus, &errors);
        let event = event_of(shape);
        bus.on(event, "first", logging(shape, &log, "first"), 1)
            .expect("subscribes");
        bus.on(event, "bad", failing(shape, &log, "bad", panics), 2)
            .expect("subscribes");
        bus.on(event, "last", logging(shape, &log, "last"), 3)
            .expect("subscribes");

        run(&bus, shape, event).expect("a skipped failure does not fail the call");

        assert_eq!(log.take(), ["first", "bad", "last"]);
        assert_eq!(
            errors.take(),
            [json!({"plugin_id": "bad", "event": label, "message": message}).to_string()]
        );
    }

    #[test]
    fn failed_transform_keeps_the_payload_and_failed_veto_allows() {
        let bus = bus();
        let log = Log::default();
        bus.on(
            "prompt.assemble",
            "bad",
            failing(BusShape::Transform, &log, "bad", false),
            1,
        )
        .expect("subscribes");
        bus.on(
            "tool.before",
            "bad",
            failing(BusShape::Veto, &log, "bad", true),
            1,
        )
        .expect("subscribes");

        let kept = bus
            .transform("prompt.assemble", payload(json!({"a": 1})))
            .expect("transforms");
        let vetoed = bus
            .veto("tool.before", payload(json!({"b": 2})))
            .expect("vetoes");

        assert_eq!(kept, payload(json!({"a": 1})));
        assert_eq!(
            vetoed,
            VetoOutcome::Allow {
                payload: payload(json!({"b": 2}))
            }
        );
    }

    #[test]
    fn error_sources_are_part_of_the_message() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read policy")]
        struct Outer(#[source] std::io::Error);

        let bus = bus();
        let errors = Log::default();
        watch_errors(&bus, &errors);
        bus.on(
            "tool.after",
            "bad",
            BusHandler::listener(|_| Err(Outer(std::io::Error::other("denied")).into())),
            100,
        )
        .expect("subscribes");

        bus.emit("tool.after", &Payload::new()).expect("emits");

        assert_eq!(
            errors.take(),
            [json!({"plugin_id": "bad", "event": "tool.after@v1", "message": "cannot read policy: denied"}).to_string()]
        );
    }

    #[test_case(BusShape::Listener, false)]
    #[test_case(BusShape::Listener, true)]
    #[test_case(BusShape::Transform, false)]
    #[test_case(BusShape::Transform, true)]
    #[test_case(BusShape::Veto, false)]
    #[test_case(BusShape::Veto, true)]
    fn fail_mode_aborts_the_call(shape: BusShape, panics: bool) {
        let bus = bus();
        let log = Log::default();
        let errors = Log::default();
        watch_errors(&bus, &errors);
        let event = event_of(shape);
        bus.on(event, "first", logging(shape, &log, "first"), 1)
            .expect("subscribes");
        bus.on(
            event,
            "strict",
            failing(shape, &log, "strict", panics),
            SubscribeOptions::from(2).fail(),
        )
        .expect("subscribes");
        bus.on(event, "last", logging(shape, &log, "last"), 3)
            .expect("subscribes");

        let error = run(&bus, shape, event).expect_err("fail mode aborts");

        let message = if panics {
            "panicked: boom in strict"
        } else {
            "disk full"
        };
        assert_eq!(
            error.to_string(),
            format!("plugin `strict` failed on {event}@v1: {message}")
        );
        assert_eq!(log.take(), ["first", "strict"]);
        assert!(
            errors.take().is_empty(),
            "fail mode does not emit plugin.error"
        );
    }

    #[test]
    fn failures_inside_plugin_error_handlers_are_not_reported() {
        let bus = bus();
        let log = Log::default();
        bus.on(
            "plugin.error",
            "broken-watcher",
            failing(BusShape::Listener, &log, "broken-watcher", false),
            1,
        )
        .expect("subscribes");
        bus.on(
            "plugin.error",
            "panicking-strict-watcher",
            failing(BusShape::Listener, &log, "panicking-strict-watcher", true),
            SubscribeOptions::from(2).fail(),
        )
        .expect("subscribes");
        let errors = Log::default();
        watch_errors(&bus, &errors);
        bus.on(
            "tool.after",
            "bad",
            failing(BusShape::Listener, &log, "bad", false),
            100,
        )
        .expect("subscribes");

        bus.emit("tool.after", &Payload::new())
            .expect("the failure was skipped");

        // Each watcher ran once: the two failures inside plugin.error were dropped,
        // not reported again, and the strict watcher's failure did not abort anything.
        assert_eq!(
            log.take(),
            ["bad", "broken-watcher", "panicking-strict-watcher"]
        );
        assert_eq!(errors.take().len(), 1);
    }

    #[test]
    fn plugin_error_emitted_by_the_host_follows_failure_modes_without_recursion() {
        let bus = bus();
        let log = Log::default();
        bus.on(
            "plugin.error",
            "broken",
            failing(BusShape::Listener, &log, "broken", false),
            1,
        )
        .expect("subscribes");
        bus.on(
            "plugin.error",
            "after",
            logging(BusShape::Listener, &log, "after"),
            2,
        )
        .expect("subscribes");

        bus.emit("plugin.error@v1", &Payload::new())
            .expect("skipped");
        assert_eq!(log.take(), ["broken", "after"]);

        bus.on(
            "plugin.error",
            "strict",
            failing(BusShape::Listener, &log, "strict", false),
            SubscribeOptions::from(0).fail(),
        )
        .expect("subscribes");
        let error = bus
            .emit("plugin.error", &Payload::new())
            .expect_err("a host's emit is aborted by fail mode");
        assert_eq!(
            error.to_string(),
            "plugin `strict` failed on plugin.error@v1: disk full"
        );
        assert_eq!(log.take(), ["strict"]);
    }

    #[test]
    fn remove_plugin_removes_its_handlers_on_every_event() {
        let bus = bus();
        let log = Log::default();
        bus.on(
            "tool.after",
            "p",
            logging(BusShape::Listener, &log, "p1"),
            1,
        )
        .expect("subscribes");
        bus.on("tool.after", "q", logging(BusShape::Listener, &log, "q"), 2)
            .expect("subscribes");
        bus.on(
            "tool.after@v1",
            "p",
            logging(BusShape::Listener, &log, "p2"),
            3,
        )
        .expect("subscribes");
        bus.on("tool.before", "p", logging(BusShape::Veto, &log, "p3"), 1)
            .expect("subscribes");
        bus.on(
            "deploy.done",
            "p",
            logging(BusShape::Listener, &log, "p4"),
            1,
        )
        .expect("subscribes");

        assert_eq!(bus.remove_plugin("p"), 4);
        assert_eq!(bus.remove_plugin("p"), 0);

        bus.emit("tool.after", &Payload::new()).expect("emits");
        bus.veto("tool.before", Payload::new()).expect("vetoes");
        bus.emit("deploy.done", &Payload::new()).expect("emits");
        assert_eq!(log.take(), ["q"]);
        assert_eq!(bus.list_subscriptions("tool.after"), [(2, "q".to_owned())]);
        assert!(bus.list_subscriptions("tool.before").is_empty());
    }

    #[test_case(
        BusShape::Listener,
        "tool.before",
        "`emit` called on tool.before, a veto event (use `veto`)"
    )]
    #[test_case(
        BusShape::Listener,
        "prompt.assemble@v1",
        "`emit` called on prompt.assemble, a transform event (use `transform`)"
    )]
    #[test_case(
        BusShape::Transform,
        "PreToolUse",
        "`transform` called on tool.before, a veto event (use `veto`)"
    )]
    #[test_case(
        BusShape::Transform,
        "tool.after",
        "`transform` called on tool.after, a listener event (use `emit`)"
    )]
    #[test_case(
        BusShape::Veto,
        "session.message.received",
        "`veto` called on prompt.submit, a transform event (use `transform`)"
    )]
    #[test_case(
        BusShape::Veto,
        "deploy.done",
        "`veto` called on deploy.done, a listener event (use `emit`)"
    )]
    fn wrong_method_names_the_event_and_its_shape(called: BusShape, event: &str, message: &str) {
        let bus = bus();
        let error = run(&bus, called, event).expect_err("wrong shape");
        assert_eq!(error.to_string(), message);
    }

    #[test_case(
        BusShape::Listener,
        "tool.before",
        "a listener handler cannot subscribe to tool.before, a veto event"
    )]
    #[test_case(
        BusShape::Veto,
        "schedule.fired@v1",
        "a veto handler cannot subscribe to schedule.fired, a transform event"
    )]
    #[test_case(
        BusShape::Transform,
        "custom.thing",
        "a transform handler cannot subscribe to custom.thing, a listener event"
    )]
    fn wrong_handler_shape_is_refused(handler: BusShape, event: &str, message: &str) {
        let bus = bus();
        let error = bus
            .on(event, "p", logging(handler, &Log::default(), "p"), 100)
            .expect_err("wrong shape");
        assert_eq!(error.to_string(), message);
        assert!(bus.list_subscriptions(event).is_empty());
    }

    static WINDOW: &[CatalogEntry] = &[
        CatalogEntry {
            name: "tool.before",
            kind: EventKind::Decision,
            async_allowed: false,
            versions: &["v1", "v2"],
        },
        CatalogEntry {
            name: "plugin.error",
            kind: EventKind::Notify,
            async_allowed: true,
            versions: &["v1"],
        },
    ];

    #[test_case("tool.before"; "plain")]
    #[test_case("tool.before@v1"; "v1")]
    #[test_case("tool.before@v2"; "v2")]
    #[test_case("PreToolUse@v2"; "alias v2")]
    fn both_versions_receive_an_emit_during_a_window(emitted: &str) {
        let bus = Bus::with_catalog(WINDOW, &stand_in_names());
        let log = Log::default();
        bus.on(
            "tool.before@v2",
            "new",
            logging(BusShape::Veto, &log, "new"),
            100,
        )
        .expect("subscribes");
        bus.on(
            "tool.before@v1",
            "old",
            logging(BusShape::Veto, &log, "old"),
            100,
        )
        .expect("subscribes");
        bus.on(
            "tool.before",
            "plain",
            logging(BusShape::Veto, &log, "plain"),
            50,
        )
        .expect("subscribes");

        bus.veto(emitted, Payload::new()).expect("vetoes");

        assert_eq!(log.take(), ["plain", "new", "old"]);
    }

    #[test]
    fn failures_name_the_version_subscribed_to() {
        let bus = Bus::with_catalog(WINDOW, &stand_in_names());
        let errors = Log::default();
        watch_errors(&bus, &errors);
        let log = Log::default();
        bus.on(
            "tool.before@v2",
            "new",
            failing(BusShape::Veto, &log, "new", false),
            1,
        )
        .expect("subscribes");
        bus.on(
            "tool.before",
            "plain",
            failing(BusShape::Veto, &log, "plain", false),
            2,
        )
        .expect("subscribes");

        bus.veto("tool.before@v1", Payload::new()).expect("vetoes");

        assert_eq!(
            errors.take(),
            [
                json!({"plugin_id": "new", "event": "tool.before@v2", "message": "disk full"})
                    .to_string(),
                json!({"plugin_id": "plain", "event": "tool.before@v1", "message": "disk full"})
                    .to_string(),
            ]
        );
    }

    #[test_case(
        CATALOG,
        "tool.before@v2",
        "tool.before has no version v2 (dispatched versions: v1)"
    )]
    #[test_case(
        WINDOW,
        "PreToolUse@v3",
        "tool.before has no version v3 (dispatched versions: v1, v2)"
    )]
    fn undeclared_version_is_an_error(
        catalog: &'static [CatalogEntry],
        event: &str,
        message: &str,
    ) {
        let bus = Bus::with_catalog(catalog, &stand_in_names());
        let on = bus
            .on(
                event,
                "p",
                logging(BusShape::Veto, &Log::default(), "p"),
                100,
            )
            .expect_err("unknown version");
        let veto = bus
            .veto(event, Payload::new())
            .expect_err("unknown version");
        assert_eq!(on.to_string(), message);
        assert_eq!(veto, on);
        assert!(bus.list_subscriptions(event).is_empty());
    }

    #[test]
    fn unsubscribe_removes_only_that_subscription_and_drop_keeps_it() {
        let bus = bus();
        let log = Log::default();
        let first = bus
            .on(
                "tool.after",
                "p",
                logging(BusShape::Listener, &log, "first"),
                100,
            )
            .expect("subscribes");
        let dropped = bus
            .on(
                "tool.after",
                "p",
                logging(BusShape::Listener, &log, "dropped"),
                100,
            )
            .expect("subscribes");
        drop(dropped);

        assert!(first.unsubscribe());
        bus.emit("tool.after", &Payload::new()).expect("emits");

        assert_eq!(log.take(), ["dropped"]);
    }

    #[test]
    fn unsubscribe_after_the_plugin_or_the_bus_is_gone_is_false() {
        let bus = bus();
        let handler = || logging(BusShape::Listener, &Log::default(), "h");
        let removed = bus.on("tool.after", "p", handler(), 1).expect("subscribes");
        let orphan = bus
            .on("deploy.done", "q", handler(), 1)
            .expect("subscribes");
        bus.remove_plugin("p");
        assert!(!removed.unsubscribe());

        drop(bus);
        assert!(!orphan.unsubscribe());
    }

    #[test]
    fn buses_are_per_agent() {
        let (one, two) = (bus(), bus());
        let log = Log::default();
        one.on(
            "tool.after",
            "p",
            logging(BusShape::Listener, &log, "one"),
            1,
        )
        .expect("subscribes");

        two.emit("tool.after", &Payload::new()).expect("emits");
        assert!(log.take().is_empty());

        // A clone is a handle on the same bus.
        one.clone()
            .emit("tool.after", &Payload::new())
            .expect("emits");
        assert_eq!(log.take(), ["one"]);
    }

    #[test]
    fn custom_events_are_listeners_under_their_own_name() {
        let bus = bus();
        let log = Log::default();
        bus.on(
            "deploy.done",
            "p",
            logging(BusShape::Listener, &log, "p"),
            1,
        )
        .expect("subscribes");
        bus.on(
            "deploy.done@v9",
            "q",
            logging(BusShape::Listener, &log, "q"),
            1,
        )
        .expect("subscribes");

        bus.emit("deploy.done", &Payload::new()).expect("emits");

        assert_eq!(log.take(), ["p"]);
    }

    #[test]
    fn handlers_may_subscribe_during_a_call_without_deadlock() {
        let bus = bus();
        let log = Log::default();
        let (inner_bus, inner_log) = (bus.clone(), log.clone());
        bus.on(
            "tool.after",
            "spawner",
            BusHandler::listener(move |_| {
                inner_log.push("spawner");
                inner_bus.on(
                    "tool.after",
                    "spawned",
                    logging(BusShape::Listener, &inner_log, "spawned"),
                    100,
                )?;
                Ok(())
            }),
            1,
        )
        .expect("subscribes");

        bus.emit("tool.after", &Payload::new()).expect("emits");
        // The call ran the chain as it was when it began.
        assert_eq!(log.take(), ["spawner"]);

        bus.emit("tool.after", &Payload::new()).expect("emits");
        assert_eq!(log.take(), ["spawner", "spawned"]);
    }
}
