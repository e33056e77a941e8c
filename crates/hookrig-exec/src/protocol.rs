//! Dialect protocols: how an event is presented to a command hook and how its reply is
//! read. The core never sees these rules; each dialect is one variant here.

use hookrig_core::{EventContext, Invocation, Reply};

use crate::command::Limits;
use crate::native;
use crate::process::{EnvPolicy, ProcessOutput};

/// The rules a command hook was written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Protocol {
    /// hookrig's own protocol (see `docs/protocol.md`).
    #[default]
    Native,
}

impl Protocol {
    /// The dialect name, as the Outcome reports it.
    pub fn dialect(self) -> &'static str {
        match self {
            Protocol::Native => "native",
        }
    }

    /// The bytes written to the hook's stdin.
    pub(crate) fn stdin(self, hook: &str, invocation: &Invocation) -> Vec<u8> {
        match self {
            Protocol::Native => native::stdin(hook, invocation),
        }
    }

    /// The hook's environment.
    pub(crate) fn env(
        self,
        hook: &str,
        context: &EventContext,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        match self {
            Protocol::Native => native::env(hook, context, configured),
        }
    }

    /// Reads what the process did as a reply.
    pub(crate) fn reply(self, hook: &str, limits: &Limits, output: &ProcessOutput) -> Reply {
        match self {
            Protocol::Native => native::reply(hook, limits, output),
        }
    }
}
