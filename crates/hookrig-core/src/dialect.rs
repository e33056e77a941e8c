//! The dialects hookrig speaks: whose rules a hook was written to, and whose format a
//! host calls in. Each has its own folder in hookrig-dialects; this is the one list of
//! their names, so that a ledger column or an Outcome field holding one cannot be
//! misspelled.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::errors::UnknownDialect;

/// A dialect: how hooks are declared, presented with an event and read, or how a host
/// sends an event and reads the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// hookrig's own `hooks.toml` and protocol.
    Native,
    /// hygge's `hooks.toml` layers, `Input` and `Action`.
    Hygge,
    /// x-code's plugin directories and replies.
    Xcode,
    /// Claude Code's settings files, hook input and output.
    Claude,
    /// Gemini CLI's settings files, hook input and output.
    Gemini,
    /// Hence's lifecycle hook scripts.
    Hence,
    /// OpenHermit's plugins and versioned event names.
    Hermit,
    /// Cursor's `hooks.json` files, hook input and output.
    Cursor,
    /// A Rust plugin subscribed on the in-process bus.
    Plugin,
    /// Codex CLI's `hooks.json` and `[hooks]` tables, hook input and output.
    Codex,
}

impl Dialect {
    /// Every dialect, in the order their sources are loaded.
    pub const ALL: [Dialect; 10] = [
        Dialect::Native,
        Dialect::Hygge,
        Dialect::Xcode,
        Dialect::Claude,
        Dialect::Gemini,
        Dialect::Hence,
        Dialect::Hermit,
        Dialect::Cursor,
        Dialect::Plugin,
        Dialect::Codex,
    ];

    /// The lowercase name the Outcome, the ledger and the command line use.
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::Native => "native",
            Dialect::Hygge => "hygge",
            Dialect::Xcode => "xcode",
            Dialect::Claude => "claude",
            Dialect::Gemini => "gemini",
            Dialect::Hence => "hence",
            Dialect::Hermit => "hermit",
            Dialect::Cursor => "cursor",
            Dialect::Plugin => "plugin",
            Dialect::Codex => "codex",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|dialect| dialect.as_str() == name)
            .ok_or_else(|| UnknownDialect(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_dialect() {
        for dialect in Dialect::ALL {
            assert_eq!(dialect.as_str().parse::<Dialect>(), Ok(dialect));
            assert_eq!(
                serde_json::to_value(dialect).expect("serializes"),
                serde_json::Value::from(dialect.as_str())
            );
        }
        assert_eq!(
            "claude-code".parse::<Dialect>(),
            Err(UnknownDialect("claude-code".to_owned()))
        );
    }
}
