//! The agent orchestrator's events: the names its automations and plugins fire and
//! listen to. It names events as hookrig does (`task.completed`, `note.created`,
//! `file.changed`), so its table adds no alias; it says which canonical events the
//! orchestrator sends, for the resolver and for readers. It has no files of its own to
//! load and no hook format of its own yet.

pub(crate) mod events;
