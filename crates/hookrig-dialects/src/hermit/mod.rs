//! OpenHermit's dialect: its event names, the versioned names its plugins subscribe
//! with (`session.opened@v1`), and the shape of each event's handlers on the
//! in-process bus (listener, transform, veto). OpenHermit plugins load in a later step;
//! today this folder gives the bus and the resolver OpenHermit's names and shapes.

pub(crate) mod events;
