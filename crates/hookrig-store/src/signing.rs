//! The operator's key, and the signatures it makes over the rows of the shared plugin
//! registry (docs/postgres.md, "Plugins").
//!
//! Anyone who can write the database can write a registry row, and a registered package
//! runs as the user whose emit runs it. So a node runs a package of the shared registry
//! only when its rows carry an HMAC-SHA256 that only a holder of the operator's key
//! makes: the key is 32 random bytes in the operator's own configuration directory,
//! beside config.toml, copied to every node of the operator.
//!
//! What is signed is a canonical encoding of the row: a tag naming the kind of row, then
//! each field as its length (8 bytes, big-endian) and its bytes. The lengths keep
//! `("ab", "c")` from signing as `("a", "bc")`; the tag keeps a registration's signature
//! from verifying as an enablement's. The package id is in both kinds, so a signature
//! copied onto another package's row, or onto another agent's enablement, verifies not.

use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::errors::StoreError;

/// The key file's name, in the operator's configuration directory (`hookrig/`).
pub const REGISTRY_KEY_FILE: &str = "registry.key";

/// How long the key is, in bytes.
const KEY_LEN: usize = 32;

/// The operator's key to the shared plugin registry.
#[derive(Clone, PartialEq, Eq)]
pub struct RegistryKey {
    bytes: [u8; KEY_LEN],
}

/// Never printed: a key in a log is a key given away.
impl std::fmt::Debug for RegistryKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RegistryKey(..)")
    }
}

impl RegistryKey {
    /// Where the key of the user whose configuration directory is `config_home` is
    /// kept: `config_home/hookrig/registry.key`.
    pub fn path(config_home: &Path) -> PathBuf {
        config_home.join("hookrig").join(REGISTRY_KEY_FILE)
    }

    /// The key at `path`, or `None` when there is no file. A file of another length is
    /// an error that says so: a truncated copy must not sign or verify anything.
    pub fn load(path: &Path) -> Result<Option<RegistryKey>, StoreError> {
        let fail = |source| StoreError::RegistryKey {
            path: path.to_owned(),
            source,
        };
        let file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(fail(err)),
        };
        let mut bytes = Vec::with_capacity(KEY_LEN + 1);
        file.take(KEY_LEN as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(fail)?;
        let bytes = <[u8; KEY_LEN]>::try_from(bytes.as_slice()).map_err(|_| {
            fail(std::io::Error::new(
                ErrorKind::InvalidData,
                format!("a registry key is {KEY_LEN} bytes; copy the operator's file again"),
            ))
        })?;
        Ok(Some(RegistryKey { bytes }))
    }

    /// The key at `path`, made when there is none yet: 32 bytes of the system's random
    /// source, in a file only its owner reads (mode 0600), created exclusively so that
    /// two first writes at once keep the same key.
    pub fn load_or_create(path: &Path) -> Result<RegistryKey, StoreError> {
        if let Some(key) = Self::load(path)? {
            return Ok(key);
        }
        let fail = |source| StoreError::RegistryKey {
            path: path.to_owned(),
            source,
        };
        let mut bytes = [0u8; KEY_LEN];
        // The kernel's random source: the workspace has no random crate, and this one
        // is what such a crate reads on the systems hookrig runs on.
        std::fs::File::open("/dev/urandom")
            .and_then(|mut random| random.read_exact(&mut bytes))
            .map_err(fail)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let created = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
        };
        match created {
            Ok(mut file) => {
                file.write_all(&bytes)
                    .and_then(|()| file.sync_all())
                    .map_err(fail)?;
                Ok(RegistryKey { bytes })
            }
            // Another process made it first: its key is the one.
            Err(err) if err.kind() == ErrorKind::AlreadyExists => {
                Self::load(path)?.ok_or_else(|| fail(std::io::Error::from(ErrorKind::NotFound)))
            }
            Err(err) => Err(fail(err)),
        }
    }

    /// The signature of a registry row: the package `id`, its `path` and the `digest`
    /// of its directory's content, in lowercase hex.
    pub fn sign_plugin(&self, id: &str, path: &str, digest: &str) -> String {
        hex(&self.plugin_mac(id, path, digest).finalize().into_bytes())
    }

    /// Whether `signature` is this key's over the registry row (`id`, `path`,
    /// `digest`); compared in constant time.
    pub fn verifies_plugin(&self, id: &str, path: &str, digest: &str, signature: &str) -> bool {
        unhex(signature).is_some_and(|bytes| {
            self.plugin_mac(id, path, digest)
                .verify_slice(&bytes)
                .is_ok()
        })
    }

    /// The signature of an enablement row: the package `id` is `enabled` or not for
    /// `agent` (`*` for every agent).
    pub fn sign_enablement(&self, id: &str, agent: &str, enabled: bool) -> String {
        hex(&self
            .enablement_mac(id, agent, enabled)
            .finalize()
            .into_bytes())
    }

    /// Whether `signature` is this key's over the enablement row.
    pub fn verifies_enablement(
        &self,
        id: &str,
        agent: &str,
        enabled: bool,
        signature: &str,
    ) -> bool {
        unhex(signature).is_some_and(|bytes| {
            self.enablement_mac(id, agent, enabled)
                .verify_slice(&bytes)
                .is_ok()
        })
    }

    fn plugin_mac(&self, id: &str, path: &str, digest: &str) -> Hmac<Sha256> {
        self.mac(
            b"hookrig plugin v1",
            &[id.as_bytes(), path.as_bytes(), digest.as_bytes()],
        )
    }

    fn enablement_mac(&self, id: &str, agent: &str, enabled: bool) -> Hmac<Sha256> {
        let enabled: &[u8] = if enabled { b"1" } else { b"0" };
        self.mac(
            b"hookrig enablement v1",
            &[id.as_bytes(), agent.as_bytes(), enabled],
        )
    }

    /// The signature of a row of another kind (`tag` names it) over `fields`, for the
    /// other shared tables the operator signs (`crate::signed_automations`).
    pub(crate) fn sign_row(&self, tag: &[u8], fields: &[&[u8]]) -> String {
        hex(&self.mac(tag, fields).finalize().into_bytes())
    }

    /// Whether `signature` is this key's over the row (`tag`, `fields`).
    pub(crate) fn verifies_row(&self, tag: &[u8], fields: &[&[u8]], signature: &str) -> bool {
        unhex(signature).is_some_and(|bytes| self.mac(tag, fields).verify_slice(&bytes).is_ok())
    }

    fn mac(&self, tag: &[u8], fields: &[&[u8]]) -> Hmac<Sha256> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.bytes).expect("HMAC takes a key of any length");
        for field in std::iter::once(&tag).chain(fields) {
            mac.update(&(field.len() as u64).to_be_bytes());
            mac.update(field);
        }
        mac
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut text, byte| {
        let _ = write!(text, "{byte:02x}");
        text
    })
}

/// The bytes of lowercase or uppercase hex, or `None` for anything else.
fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> RegistryKey {
        RegistryKey {
            bytes: [7; KEY_LEN],
        }
    }

    #[test]
    fn a_signature_verifies_only_the_row_it_was_made_for() {
        let key = key();
        let signed = key.sign_plugin("gate", "/opt/gate", "abc");
        assert!(key.verifies_plugin("gate", "/opt/gate", "abc", &signed));
        assert!(!key.verifies_plugin("other", "/opt/gate", "abc", &signed));
        assert!(!key.verifies_plugin("gate", "/opt/gate2", "abc", &signed));
        assert!(!key.verifies_plugin("gate", "/opt/gate", "abd", &signed));
        // The lengths are signed: moving a byte from one field to the next changes it.
        assert!(!key.verifies_plugin("gat", "e/opt/gate", "abc", &signed));
        let other = RegistryKey {
            bytes: [8; KEY_LEN],
        };
        assert!(!other.verifies_plugin("gate", "/opt/gate", "abc", &signed));
        assert!(!key.verifies_plugin("gate", "/opt/gate", "abc", ""));
        assert!(!key.verifies_plugin("gate", "/opt/gate", "abc", "zz"));
    }

    #[test]
    fn an_enablement_signature_names_its_package_agent_and_answer() {
        let key = key();
        let signed = key.sign_enablement("gate", "coder", true);
        assert!(key.verifies_enablement("gate", "coder", true, &signed));
        assert!(!key.verifies_enablement("gate", "coder", false, &signed));
        assert!(!key.verifies_enablement("gate", "*", true, &signed));
        assert!(!key.verifies_enablement("other", "coder", true, &signed));
        // Nor does it verify as a registration.
        assert!(!key.verifies_plugin("gate", "coder", "1", &signed));
    }

    #[test]
    fn the_first_write_makes_a_key_only_its_owner_reads_and_later_ones_keep_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let path = RegistryKey::path(dir.path());
        assert_eq!(RegistryKey::load(&path).expect("load"), None);
        let created = RegistryKey::load_or_create(&path).expect("create");
        let mode = std::fs::metadata(&path).expect("stat").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(RegistryKey::load_or_create(&path).expect("again"), created);
        assert_eq!(RegistryKey::load(&path).expect("load"), Some(created));
    }

    #[test]
    fn a_key_file_of_another_length_says_so() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(REGISTRY_KEY_FILE);
        std::fs::write(&path, b"short").expect("write");
        let error = RegistryKey::load(&path).expect_err("short key");
        let text = error.to_string();
        assert!(text.contains(REGISTRY_KEY_FILE), "{text}");
        let cause = std::error::Error::source(&error).map(ToString::to_string);
        assert!(
            cause
                .as_deref()
                .is_some_and(|cause| cause.contains("copy the operator's file again")),
            "{cause:?}"
        );
    }
}
