//! Running git in test repositories.

use std::path::Path;
use std::process::Command;

/// Runs `git ARGS` in `dir` with a fixed identity, `main` as the default branch, no
/// signing and neither the user's nor the system's configuration, and returns its
/// stdout.
///
/// # Panics
///
/// When git cannot be run or fails (the message holds its stderr), or its stdout is
/// not UTF-8.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap_or_else(|err| panic!("cannot run git {args:?}: {err}"));
    assert!(
        output.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("git writes UTF-8")
}
