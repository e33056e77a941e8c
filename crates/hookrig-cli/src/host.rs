//! `--dialect`: the host's input and output format, mapped to hookrig-dialects' host
//! modes, which read the input and write the answers.

use clap::ValueEnum;
use hookrig_core::{Dialect, Dispatched, Outcome};
use hookrig_dialects::{Host, HostAnswer, HostError, HostInput};

use crate::errors::ExpectedError;

/// The input and output format of the host calling `hookrig emit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum HostDialect {
    /// hookrig's own: a payload object in, an Outcome object out.
    #[default]
    Native,
    /// Claude Code's hook input in, Claude Code's hook output and exit codes out (also
    /// Codex, Cursor, Gemini and other agents that read that format).
    Claude,
    /// hygge's `Input` in, hygge's `Action` out.
    Hygge,
    /// x-code's plugin payload in, x-code's hook reply out.
    Xcode,
}

impl HostDialect {
    /// The dialect this host speaks, as the ledger records it.
    pub(crate) fn dialect(self) -> Dialect {
        match self {
            HostDialect::Native => Dialect::Native,
            HostDialect::Claude => Dialect::Claude,
            HostDialect::Hygge => Dialect::Hygge,
            HostDialect::Xcode => Dialect::Xcode,
        }
    }

    /// The host mode this flag value selects.
    fn host(self) -> Host {
        Host::of(self.dialect()).expect("every --dialect value names a host mode")
    }

    /// Reads the host's stdin. `event` is the EVENT argument.
    pub(crate) fn read(
        self,
        event: Option<&str>,
        stdin: &[u8],
    ) -> Result<HostInput, ExpectedError> {
        self.host().read(event, stdin).map_err(|err| match err {
            HostError::PayloadNotJson(err) => ExpectedError::PayloadNotJson(err),
            HostError::PayloadNotObject(what) => ExpectedError::PayloadNotObject(what),
            HostError::NoEvent => ExpectedError::NoEvent,
        })
    }

    /// The answer for this host.
    pub(crate) fn answer(self, outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
        self.host().answer(outcome, dispatched)
    }

    /// The answer when the emit failed before any hook could decide, for a host that
    /// would read hookrig's exit code 1 as a decision.
    pub(crate) fn failure(self, error: &str) -> Option<HostAnswer> {
        self.host().failure(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_value_names_a_host_mode_of_the_same_name() {
        for value in HostDialect::value_variants() {
            let name = value.to_possible_value().expect("not hidden");
            assert_eq!(value.host().dialect().as_str(), name.get_name());
        }
    }

    #[test]
    fn a_host_that_proceeds_exits_as_hookrig_does_when_it_succeeds() {
        assert_eq!(HostAnswer::PROCEED, crate::exit_codes::PROCEED);
    }
}
