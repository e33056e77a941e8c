//! The shared plugin registry as a node reads it: rows with the operator's signatures,
//! and which of them a node may run (docs/postgres.md, "Plugins").

use std::path::Path;

use serde::Serialize;

use crate::plugins::{ALL_AGENTS, PluginRow};
use crate::signing::RegistryKey;

/// A registry row of the shared database, with what the operator signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignedPlugin {
    /// The package.
    #[serde(flatten)]
    pub plugin: PluginRow,
    /// The content digest of its directory when the operator registered it.
    pub digest: String,
    /// The operator's signature over (id, path, digest); empty when unsigned.
    pub signature: String,
    /// Its enablement rows, `*` first, then by agent name.
    pub agents: Vec<SignedEnablement>,
}

/// An enablement row of the shared database, with its signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignedEnablement {
    /// The agent, or [`ALL_AGENTS`].
    pub agent: String,
    /// Enabled or explicitly disabled.
    pub enabled: bool,
    /// The operator's signature over (package id, agent, enabled); empty when unsigned.
    pub signature: String,
}

/// What a node may run of the shared registry, and why it left the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verified {
    /// The packages enabled for the agent whose rows verify, in registration order.
    pub packages: Vec<PluginRow>,
    /// One per row left out: which package, and why.
    pub skipped: Vec<LeftOut>,
}

/// A row of the shared registry a node does not run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The package's id.
    pub id: String,
    /// Why, in a sentence that names the package and the row.
    pub why: String,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// What the operator's signatures let a node run for one agent, before its copies of
/// the packages are checked ([`Signed::checked`]): what a node keeps between emits
/// while the registry does not change, as only its copies may change meanwhile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signed {
    /// In registration order, so that the lines left out read in the registry's order.
    entries: Vec<SignedEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum SignedEntry {
    /// Runs if its copy has the digest signed.
    Candidate { plugin: PluginRow, digest: String },
    /// Left out whatever its copy holds.
    LeftOut(LeftOut),
}

impl SignedPlugin {
    /// Whether the registry row carries `key`'s signature.
    pub fn verifies(&self, key: &RegistryKey) -> bool {
        key.verifies_plugin(
            &self.plugin.id,
            &self.plugin.path,
            &self.digest,
            &self.signature,
        )
    }

    /// Why a node holding `key` does not run this package whatever its enablement
    /// rows say: its registry row does not carry the key's signature. `None` when it
    /// does.
    pub fn unsigned(&self, key: &RegistryKey) -> Option<String> {
        (!self.verifies(key)).then(|| {
            format!(
                "shared plugin `{}` is not run: its registry row does not carry this node's \
                 registry key signature (written without `hookrig plugins register --store`, \
                 changed since, or signed with another key)",
                self.plugin.id
            )
        })
    }

    /// Why a node does not run this package: `digest_of` its copy at the row's path is
    /// not the digest signed. `None` when it is.
    pub fn changed(&self, digest_of: &mut dyn FnMut(&Path) -> Option<String>) -> Option<String> {
        changed(&self.plugin, &self.digest, digest_of)
    }

    /// Of `plugins`, the packages a node holding `key` runs for `agent` (for `*` only
    /// with `None`): the registry row verifies, the enablement rule of the registry
    /// (the agent's own row wins over `*`) gives enabled counting only the enablement
    /// rows that verify, and `digest_of` the package's directory (the node's own copy at
    /// the row's path) is the digest signed. Every row left out for another reason than
    /// being disabled is named in [`Verified::skipped`]; a row the node does not need
    /// (another agent's) is not checked.
    pub fn verified_for(
        plugins: &[SignedPlugin],
        key: &RegistryKey,
        agent: Option<&str>,
        digest_of: &mut dyn FnMut(&Path) -> Option<String>,
    ) -> Verified {
        Self::signed_for(plugins, key, agent).checked(digest_of)
    }

    /// The first half of [`SignedPlugin::verified_for`]: the rows and enablement rows
    /// that verify with `key`, the copies not checked yet.
    pub fn signed_for(plugins: &[SignedPlugin], key: &RegistryKey, agent: Option<&str>) -> Signed {
        let agent = agent.unwrap_or(ALL_AGENTS);
        let mut signed = Signed::default();
        let leave_out = |id: &str, why: String| {
            SignedEntry::LeftOut(LeftOut {
                id: id.to_owned(),
                why,
            })
        };
        for entry in plugins {
            let id = &entry.plugin.id;
            if let Some(why) = entry.unsigned(key) {
                signed.entries.push(leave_out(id, why));
                continue;
            }
            // The agent's own row first, then `*`: the first that verifies decides.
            let mut enabled = None;
            let names: &[&str] = if agent == ALL_AGENTS {
                &[ALL_AGENTS]
            } else {
                &[agent, ALL_AGENTS]
            };
            for row in names
                .iter()
                .filter_map(|name| entry.agents.iter().find(|row| row.agent == *name))
            {
                if key.verifies_enablement(id, &row.agent, row.enabled, &row.signature) {
                    enabled = Some(row.enabled);
                    break;
                }
                signed.entries.push(leave_out(
                    id,
                    format!(
                        "shared plugin `{id}`: its enablement row for agent `{}` does not carry \
                         this node's registry key signature; the row is ignored",
                        row.agent
                    ),
                ));
            }
            if enabled == Some(true) {
                signed.entries.push(SignedEntry::Candidate {
                    plugin: entry.plugin.clone(),
                    digest: entry.digest.clone(),
                });
            }
        }
        signed
    }
}

impl Signed {
    /// The packages whose copy (`digest_of` the directory at the row's path) has the
    /// digest signed, and every row left out, in registration order.
    pub fn checked(&self, digest_of: &mut dyn FnMut(&Path) -> Option<String>) -> Verified {
        let mut verified = Verified::default();
        for entry in &self.entries {
            match entry {
                SignedEntry::LeftOut(left) => verified.skipped.push(left.clone()),
                SignedEntry::Candidate { plugin, digest } => {
                    match changed(plugin, digest, digest_of) {
                        Some(why) => verified.skipped.push(LeftOut {
                            id: plugin.id.clone(),
                            why,
                        }),
                        None => verified.packages.push(plugin.clone()),
                    }
                }
            }
        }
        verified
    }
}

/// Why a node does not run `plugin`: its copy's digest is not `signed`.
fn changed(
    plugin: &PluginRow,
    signed: &str,
    digest_of: &mut dyn FnMut(&Path) -> Option<String>,
) -> Option<String> {
    let (id, path) = (&plugin.id, Path::new(&plugin.path));
    match digest_of(path) {
        Some(found) if found == signed => None,
        Some(_) => Some(format!(
            "shared plugin `{id}` is not run: its files at {} differ from those the \
             operator signed; copy the operator's package there again",
            path.display()
        )),
        None => Some(format!(
            "shared plugin `{id}` is not run: its directory {} cannot be read on this \
             node; copy the operator's package there",
            path.display()
        )),
    }
}
