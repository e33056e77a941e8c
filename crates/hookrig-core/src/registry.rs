//! The registry: every hook known to this process, in registration order.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use crate::bus::Bus;
use crate::event::EventName;
use crate::hook::Hook;

/// Hooks in registration order, and the plugin bus whose subscriptions join them.
#[derive(Debug, Default, Clone)]
pub struct Registry {
    pub(crate) hooks: Vec<Arc<Hook>>,
    bus: Option<Bus>,
    suppressed: bool,
    side_effects_held: bool,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a hook after the ones already registered. Two hooks may share a name (the
    /// same name in a global and a project file): both run.
    pub fn register(&mut self, hook: Hook) {
        self.hooks.push(Arc::new(hook));
    }

    /// Keeps every hook (and plugin subscription) registered but runs none of them:
    /// each is recorded as skipped because hooks are suppressed (x-code's `--no-hooks`,
    /// to find out whether a hook is what makes an agent hang or slow).
    pub fn suppress_hooks(&mut self) {
        self.suppressed = true;
    }

    /// Keeps every hook registered but runs only those that declared they have no side
    /// effects ([`crate::HookSpec::side_effects`] false): the others are recorded as
    /// skipped because they may have side effects (`hookrig replay`).
    pub fn hold_side_effects(&mut self) {
        self.side_effects_held = true;
    }

    /// Whether [`Registry::hold_side_effects`] was called.
    pub fn side_effects_held(&self) -> bool {
        self.side_effects_held
    }

    /// Whether [`Registry::suppress_hooks`] was called.
    pub fn hooks_suppressed(&self) -> bool {
        self.suppressed
    }

    /// Removes every hook with this name; returns how many were removed.
    pub fn unregister(&mut self, name: &str) -> usize {
        let before = self.hooks.len();
        self.hooks.retain(|h| h.spec.name != name);
        before - self.hooks.len()
    }

    /// Every hook, in registration order (duplicates included).
    pub fn hooks(&self) -> &[Arc<Hook>] {
        &self.hooks
    }

    /// Every hook once per name (the first registered wins), sorted by name, for
    /// listings.
    pub fn all(&self) -> Vec<&Hook> {
        let mut seen = HashSet::new();
        let mut hooks: Vec<&Hook> = self
            .hooks
            .iter()
            .filter(|h| seen.insert(h.spec.name.as_str()))
            .map(AsRef::as_ref)
            .collect();
        hooks.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
        hooks
    }

    /// The hooks that listen to `event`, in registration order.
    pub fn for_event<'a>(&'a self, event: &'a EventName) -> impl Iterator<Item = &'a Hook> + 'a {
        self.hooks
            .iter()
            .map(AsRef::as_ref)
            .filter(move |h| h.spec.listens_to(event))
    }

    /// Makes the subscriptions of `bus` part of every dispatch's chain: each runs as a
    /// hook of dialect `plugin` named for its plugin, at its priority. Attaching
    /// another bus replaces this one.
    ///
    /// The bus is read when a dispatch begins, so subscriptions added or removed after
    /// attaching are seen from the next dispatch on. In "registration order" every
    /// plugin subscription (in the order the bus took them) comes before every hook
    /// of this registry: plugins are installed when the agent starts, before its
    /// configuration is loaded, so at equal priority a plugin runs first.
    pub fn attach_bus(&mut self, bus: &Bus) {
        self.bus = Some(bus.clone());
    }

    /// The attached bus.
    pub fn bus(&self) -> Option<&Bus> {
        self.bus.as_ref()
    }

    /// The hooks a dispatch of `event` considers, in registration order: the attached
    /// bus's subscriptions to `event` as they are now, then every registered hook.
    pub fn chain_for(&self, event: &EventName) -> Cow<'_, [Arc<Hook>]> {
        match &self.bus {
            None => Cow::Borrowed(&self.hooks),
            Some(bus) => {
                let mut hooks = bus.hooks_for(event);
                if hooks.is_empty() {
                    return Cow::Borrowed(&self.hooks);
                }
                hooks.extend(self.hooks.iter().cloned());
                Cow::Owned(hooks)
            }
        }
    }

    /// Number of registered hooks.
    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// Whether no hook is registered.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }
}
