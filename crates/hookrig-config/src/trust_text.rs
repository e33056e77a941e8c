//! The text of what was trusted: a project hook's definition and its script as they
//! were when the user trusted them, so that a hook that changed since can be shown as a
//! diff of what changed before it is trusted again.
//!
//! Kept in files of their own beside the trust store (`trusted-text/`, one per hook),
//! not in the store: every emit in a project with hooks reads the store to check the
//! hashes, and must not read scripts it does not need. Only `hookrig trust` (and the
//! dashboard's trust action, which is the same call) writes these files, and only a
//! review of untrusted hooks reads them. They never decide trust: the hashes in the
//! store do, so a recorded text that was edited or lost changes what a review shows,
//! never what runs.

use std::io::{ErrorKind, Read as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::errors::TrustError;
use crate::trust::content_hash;

/// The largest script whose text is kept; above it only the store's hash is.
pub const SCRIPT_TEXT_CAP: u64 = 64 * 1024;

/// What was recorded of one trusted hook, for showing what changed since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustedText {
    /// The definition document the store's definition hash is taken of.
    pub definition: String,
    /// The script file its command names, when it names one.
    #[serde(default)]
    pub script: Option<ScriptText>,
}

/// A script file's text, or why it is not kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptText {
    /// The file.
    pub path: PathBuf,
    /// Its text; `None` when it was missing, larger than [`SCRIPT_TEXT_CAP`] or not
    /// UTF-8 (see `size`).
    #[serde(default)]
    pub text: Option<String>,
    /// Its size in bytes; `None` when it was missing or unreadable.
    #[serde(default)]
    pub size: Option<u64>,
}

impl ScriptText {
    /// Reads `path`, keeping its text up to the cap. Only as much as the cap is read,
    /// so a huge file costs no more than a small one.
    pub fn read(path: &Path) -> ScriptText {
        let missing = ScriptText {
            path: path.to_owned(),
            text: None,
            size: None,
        };
        let Ok(mut file) = std::fs::File::open(path) else {
            return missing;
        };
        let Ok(size) = file.metadata().map(|m| m.len()) else {
            return missing;
        };
        let mut bytes = Vec::new();
        let text = if size > SCRIPT_TEXT_CAP {
            None
        } else {
            // In one read call at its size (as `read_source_bytes` does); one byte past the cap,
            // in case the file grew since its size was taken.
            bytes.reserve_exact(usize::try_from(size).unwrap_or_default());
            match file
                .by_ref()
                .take(SCRIPT_TEXT_CAP + 1)
                .read_to_end(&mut bytes)
            {
                Ok(read) if read as u64 <= SCRIPT_TEXT_CAP => String::from_utf8(bytes).ok(),
                _ => None,
            }
        };
        ScriptText {
            path: path.to_owned(),
            text,
            size: Some(size),
        }
    }

    /// Why the text is not kept, said for a reader; `None` when it is.
    pub fn without_text(&self) -> Option<String> {
        match (self.size, &self.text) {
            (_, Some(_)) => None,
            (None, None) => Some(format!("{} did not exist", self.path.display())),
            (Some(size), None) if size > SCRIPT_TEXT_CAP => Some(format!(
                "{} is {size} bytes, larger than the {} KiB whose text is kept; only its hash was",
                self.path.display(),
                SCRIPT_TEXT_CAP / 1024
            )),
            (Some(_), None) => Some(format!(
                "{} is not text (UTF-8); only its hash was kept",
                self.path.display()
            )),
        }
    }
}

/// The recorded texts of trusted hooks: a directory beside the trust store holding one
/// file per hook, named by the SHA-256 of the hook's store key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedTexts {
    dir: PathBuf,
}

/// One file of [`TrustedTexts`]: the key it is for, so that a reader can tell.
#[derive(Serialize, Deserialize)]
struct Recorded {
    key: String,
    text: TrustedText,
}

impl TrustedTexts {
    /// The texts kept beside the trust store at `store_path`.
    pub fn beside(store_path: &Path) -> TrustedTexts {
        TrustedTexts {
            dir: store_path.with_file_name("trusted-text"),
        }
    }

    fn file(&self, key: &str) -> PathBuf {
        self.dir
            .join(format!("{}.json", content_hash(key.as_bytes())))
    }

    /// Records `text` for the hook under `key`, replacing what was recorded (atomically,
    /// as the store is written).
    ///
    /// # Panics
    ///
    /// Never: the record is plain data that always serializes.
    pub fn record(&self, key: &str, text: &TrustedText) -> Result<(), TrustError> {
        let path = self.file(key);
        let write = |source| TrustError::Write {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&self.dir).map_err(write)?;
        let recorded = Recorded {
            key: key.to_owned(),
            text: text.clone(),
        };
        let json = serde_json::to_string(&recorded).expect("a recorded text serializes");
        let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&temporary, json).map_err(write)?;
        std::fs::rename(&temporary, &path).map_err(write)
    }

    /// What was recorded for `key`; `None` when nothing was (the hook was trusted before
    /// texts were kept) or the file is unreadable or for another key: a review then says
    /// that no earlier text is known, which is all a damaged file can mean.
    pub fn get(&self, key: &str) -> Option<TrustedText> {
        let bytes = std::fs::read(self.file(key)).ok()?;
        let recorded: Recorded = serde_json::from_slice(&bytes).ok()?;
        (recorded.key == key).then_some(recorded.text)
    }

    /// Forgets what was recorded for `key` (its trust was revoked).
    pub fn forget(&self, key: &str) -> Result<(), TrustError> {
        let path = self.file(key);
        match std::fs::remove_file(&path) {
            Err(err) if err.kind() != ErrorKind::NotFound => {
                Err(TrustError::Write { path, source: err })
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_is_kept_up_to_the_cap_and_only_its_size_above() {
        let dir = tempfile::tempdir().expect("tempdir");
        let small = dir.path().join("small.sh");
        std::fs::write(&small, "#!/bin/sh\necho hi\n").expect("write");
        let kept = ScriptText::read(&small);
        assert_eq!(kept.text.as_deref(), Some("#!/bin/sh\necho hi\n"));
        assert_eq!(kept.size, Some(18));
        assert_eq!(kept.without_text(), None);

        let cap = usize::try_from(SCRIPT_TEXT_CAP).expect("fits");
        let at_cap = dir.path().join("at-cap.sh");
        std::fs::write(&at_cap, "x".repeat(cap)).expect("write");
        assert_eq!(ScriptText::read(&at_cap).text.map(|t| t.len()), Some(cap));

        let large = dir.path().join("large.sh");
        std::fs::write(&large, "x".repeat(cap + 1)).expect("write");
        let capped = ScriptText::read(&large);
        assert_eq!(capped.text, None);
        assert_eq!(capped.size, Some(SCRIPT_TEXT_CAP + 1));
        let why = capped.without_text().expect("said why");
        assert!(why.contains("larger than the 64 KiB"), "{why}");

        let binary = dir.path().join("binary");
        std::fs::write(&binary, [0xff, 0xfe, 0x00]).expect("write");
        let why = ScriptText::read(&binary).without_text().expect("said why");
        assert!(why.contains("not text"), "{why}");

        let gone = ScriptText::read(&dir.path().join("gone.sh"));
        assert_eq!((gone.text, gone.size), (None, None));
    }

    #[test]
    fn texts_are_recorded_read_back_and_forgotten_by_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        let texts = TrustedTexts::beside(&dir.path().join("trust.json"));
        assert_eq!(texts.get("a"), None, "nothing recorded yet");
        let text = TrustedText {
            definition: r#"{"name":"a"}"#.to_owned(),
            script: Some(ScriptText::read(&dir.path().join("none.sh"))),
        };
        texts.record("a", &text).expect("record");
        assert_eq!(texts.get("a"), Some(text.clone()));
        assert_eq!(texts.get("b"), None);
        assert!(
            dir.path().join("trusted-text").is_dir(),
            "kept beside the store, not in it"
        );
        texts.forget("a").expect("forget");
        texts.forget("a").expect("forgetting twice is no error");
        assert_eq!(texts.get("a"), None);
    }

    #[test]
    fn a_damaged_record_reads_as_none() {
        // guards: nothing a damaged record holds reaches a review as if it had been
        // recorded for this hook
        let dir = tempfile::tempdir().expect("tempdir");
        let texts = TrustedTexts::beside(&dir.path().join("trust.json"));
        let text = TrustedText {
            definition: "{}".to_owned(),
            script: None,
        };
        texts.record("a", &text).expect("record");
        std::fs::write(texts.file("a"), b"{not json").expect("damage");
        assert_eq!(texts.get("a"), None);
        std::fs::write(
            texts.file("a"),
            serde_json::json!({"key": "b", "text": {"definition": "{}"}}).to_string(),
        )
        .expect("another key");
        assert_eq!(texts.get("a"), None);
    }
}
