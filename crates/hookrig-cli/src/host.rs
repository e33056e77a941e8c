//! `--dialect`: the host's input and output format, as the dialect whose host mode
//! reads the input and writes the answer.

use clap::ValueEnum;
use hookrig_core::Dialect;

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
    /// Gemini CLI's hook input in, Gemini CLI's hook output out.
    Gemini,
    /// Codex CLI's hook input in, Codex's strictly read hook output out.
    Codex,
    /// Cursor's hook input in, Cursor's hook output out.
    Cursor,
}

impl HostDialect {
    /// The dialect this host speaks, as the ledger records it.
    pub(crate) fn dialect(self) -> Dialect {
        match self {
            HostDialect::Native => Dialect::Native,
            HostDialect::Claude => Dialect::Claude,
            HostDialect::Hygge => Dialect::Hygge,
            HostDialect::Xcode => Dialect::Xcode,
            HostDialect::Gemini => Dialect::Gemini,
            HostDialect::Codex => Dialect::Codex,
            HostDialect::Cursor => Dialect::Cursor,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_value_names_a_host_mode_of_the_same_name() {
        for value in HostDialect::value_variants() {
            let name = value.to_possible_value().expect("not hidden");
            let host = hookrig_runtime::host_mode(value.dialect());
            assert_eq!(host.dialect().as_str(), name.get_name());
        }
    }

    #[test]
    fn a_host_that_proceeds_exits_as_hookrig_does_when_it_succeeds() {
        assert_eq!(
            hookrig_dialects::HostAnswer::PROCEED,
            crate::exit_codes::PROCEED
        );
    }
}
