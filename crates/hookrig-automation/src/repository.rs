//! Where an automation works, as its preamble tells the LLM: the workspace path, and
//! when the workspace is a git repository with a remote, the remote's URL (without
//! credentials) and its default branch.
//!
//! The repository is asked through git itself (two commands run by hookrig-exec, each
//! with a timeout) rather than by reading `.git/config` and `refs/remotes/*/HEAD`: git
//! knows the layouts a reader would have to relearn (a linked worktree's `.git` file
//! and common directory, `include`d config files, packed refs), and a timeout keeps a
//! git stuck on a network file system from holding the run beyond it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::steps::process;

/// How long one git command may take.
const TIMEOUT: Duration = Duration::from_secs(5);
/// Characters of git's output kept: a remote URL and a branch name are short.
const OUTPUT_CHARS: usize = 4_000;

/// The remote preferred when a repository has several.
const PREFERRED_REMOTE: &str = "origin";

/// An automation's workspace, described.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// The workspace directory.
    pub path: PathBuf,
    /// Its repository's remote, when it is a git repository with one.
    pub repository: Option<Repository>,
}

/// The remote of a workspace's git repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    /// The remote's URL, without user name, password or query (see
    /// [`without_credentials`]).
    pub url: String,
    /// The remote's default branch (what its `HEAD` names), when the clone recorded it.
    pub default_branch: Option<String>,
}

/// Describes the workspace at `path`: its repository's `origin` remote (else its first
/// remote) and that remote's default branch. Anything git cannot answer (not a
/// repository, no remote, git missing or too slow) leaves the part out.
pub async fn describe(path: &Path) -> Workspace {
    Workspace {
        path: path.to_owned(),
        repository: repository(path).await,
    }
}

async fn repository(path: &Path) -> Option<Repository> {
    // `--local`: the repository's own config, never a remote set in the user's global
    // file (and an error outside a repository).
    let remotes = git(
        path,
        &["config", "--local", "--get-regexp", r"^remote\..*\.url$"],
    )
    .await?;
    let (name, url) = pick_remote(&remotes)?;
    let head = format!("refs/remotes/{name}/HEAD");
    let default_branch = git(path, &["symbolic-ref", "--quiet", "--short", &head])
        .await
        .and_then(|branch| {
            branch
                .trim()
                .strip_prefix(&format!("{name}/"))
                .map(str::to_owned)
        })
        .filter(|b| !b.is_empty());
    Some(Repository {
        url: without_credentials(url),
        default_branch,
    })
}

/// git's stdout when it exits 0.
async fn git(cwd: &Path, args: &[&str]) -> Option<String> {
    let finished = process::run("git", args, cwd, TIMEOUT, (OUTPUT_CHARS, OUTPUT_CHARS))
        .await
        .ok()?;
    (finished.exit_code == Some(0)).then_some(finished.stdout)
}

/// The remote to describe from `git config --get-regexp` lines (`remote.NAME.url URL`):
/// `origin`, else the first.
fn pick_remote(lines: &str) -> Option<(&str, &str)> {
    let remotes: Vec<(&str, &str)> = lines
        .lines()
        .filter_map(|line| {
            let (key, url) = line.split_once(' ')?;
            let name = key.strip_prefix("remote.")?.strip_suffix(".url")?;
            Some((name, url.trim())).filter(|(_, url)| !url.is_empty())
        })
        .collect();
    remotes
        .iter()
        .find(|(name, _)| *name == PREFERRED_REMOTE)
        .or_else(|| remotes.first())
        .copied()
}

/// `url` with what could be a secret removed before it reaches an LLM: the user name
/// and password of a URL (a token is often given as either), its query and fragment.
/// An `ssh://` URL keeps its user name, which ssh never treats as a secret, as does the
/// scp-like form (`git@host:path`), which cannot carry a password; a local path is
/// kept as it is.
pub fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    if let Ok(mut parsed) = url::Url::parse(url)
        && parsed.has_host()
    {
        // Setting these fails only for URLs without a host, excluded above.
        let _ = parsed.set_password(None);
        if parsed.scheme() != "ssh" {
            let _ = parsed.set_username("");
        }
        parsed.set_query(None);
        parsed.set_fragment(None);
        return parsed.to_string();
    }
    // Not a URL the parser takes: drop everything up to the last `@` of the authority,
    // and the query, by hand.
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    format!("{scheme}://{host}{path}")
}

#[cfg(test)]
mod tests {
    use hookrig_test_support::git;
    use test_case::test_case;

    use super::*;

    #[test_case("https://example.com/org/repo.git", "https://example.com/org/repo.git"; "plain https")]
    #[test_case("https://x-token:s3cr3t@example.com/org/repo.git", "https://example.com/org/repo.git"; "user and password")]
    #[test_case("https://ghp_s3cr3t@example.com/org/repo.git", "https://example.com/org/repo.git"; "token as user")]
    #[test_case("https://example.com/org/repo.git?private_token=s3cr3t#x", "https://example.com/org/repo.git"; "token in query")]
    #[test_case("ssh://git:s3cr3t@example.com:2222/org/repo.git", "ssh://git@example.com:2222/org/repo.git"; "ssh keeps its user")]
    #[test_case("git@example.com:org/repo.git", "git@example.com:org/repo.git"; "scp-like form")]
    #[test_case("/srv/git/repo.git", "/srv/git/repo.git"; "local path")]
    #[test_case("weird+scheme://us%er:s3cr3t@[bad/org/repo?t=s3cr3t", "weird+scheme://[bad/org/repo"; "unparsable url")]
    fn credentials_never_reach_the_preamble(url: &str, expected: &str) {
        let stripped = without_credentials(url);
        assert_eq!(stripped, expected);
        assert!(!stripped.contains("s3cr3t"), "{stripped}");
    }

    #[test]
    fn origin_is_preferred_else_the_first_remote() {
        let lines = "remote.fork.url https://example.com/fork.git\nremote.origin.url https://example.com/main.git\n";
        assert_eq!(
            pick_remote(lines),
            Some(("origin", "https://example.com/main.git"))
        );
        let lines = "remote.up.stream.url https://example.com/a.git\nremote.fork.url https://example.com/b.git\n";
        assert_eq!(
            pick_remote(lines),
            Some(("up.stream", "https://example.com/a.git"))
        );
        assert_eq!(pick_remote(""), None);
    }

    /// A repository on branch `trunk` with one commit, cloned, so that the clone knows
    /// its remote's default branch.
    fn clone_of_a_trunk_repository(root: &Path) -> PathBuf {
        let upstream = root.join("upstream");
        std::fs::create_dir_all(&upstream).expect("mkdir");
        git(&upstream, &["init", "-q", "-b", "trunk"]);
        git(&upstream, &["commit", "-q", "--allow-empty", "-m", "start"]);
        git(root, &["clone", "-q", "upstream", "work"]);
        root.join("work")
    }

    #[tokio::test]
    async fn a_clone_is_described_by_its_remote_and_default_branch_without_credentials() {
        let dir = tempfile::tempdir().expect("temp");
        let work = clone_of_a_trunk_repository(dir.path());
        git(
            &work,
            &[
                "remote",
                "set-url",
                "origin",
                "https://bot:s3cr3t@example.com/org/repo.git",
            ],
        );
        let expected = Some(Repository {
            url: "https://example.com/org/repo.git".to_owned(),
            default_branch: Some("trunk".to_owned()),
        });
        let described = describe(&work).await;
        assert_eq!(described.path, work);
        assert_eq!(described.repository, expected);
        // A linked worktree shares its repository's remote.
        git(&work, &["worktree", "add", "-q", "../linked"]);
        let linked = describe(&dir.path().join("linked")).await;
        assert_eq!(linked.repository, expected);
    }

    #[tokio::test]
    async fn a_remote_without_a_recorded_head_has_no_default_branch() {
        let dir = tempfile::tempdir().expect("temp");
        git(dir.path(), &["init", "-q"]);
        git(
            dir.path(),
            &["remote", "add", "fork", "git@example.com:org/repo.git"],
        );
        let described = describe(dir.path()).await;
        assert_eq!(
            described.repository,
            Some(Repository {
                url: "git@example.com:org/repo.git".to_owned(),
                default_branch: None,
            })
        );
    }

    #[tokio::test]
    async fn no_repository_or_no_remote_leaves_the_repository_out() {
        let dir = tempfile::tempdir().expect("temp");
        assert_eq!(describe(dir.path()).await.repository, None);
        git(dir.path(), &["init", "-q"]);
        assert_eq!(describe(dir.path()).await.repository, None);
    }

    #[tokio::test]
    async fn the_preamble_names_the_workspace_its_repository_and_default_branch() {
        let dir = tempfile::tempdir().expect("temp");
        let work = clone_of_a_trunk_repository(dir.path());
        git(
            &work,
            &[
                "remote",
                "set-url",
                "origin",
                "https://bot:s3cr3t@example.com/org/repo.git",
            ],
        );
        let automation = crate::definition::parse_automation(
            &work.join("review.toml"),
            "name = \"Review\"\n[trigger]\ntype = \"event\"\nevent_type = \"task.completed\"\n",
            "work",
            0.0,
        )
        .expect("automation");
        let described = describe(&work).await;
        let text =
            crate::engine::preamble(&automation, "event:task.completed", None, Some(&described));
        let text = text.replace(&work.display().to_string(), "[WORK]");
        insta::assert_snapshot!(text, @r"
        ## Automation context

        - Automation: Review (review)
        - Project: work
        - Workspace: [WORK]
        - Trigger: event:task.completed
        - Repository: https://example.com/org/repo.git
        - Default branch: trunk

        ## Task
        ");
        // Without a workspace (an embedder's step runner), the lines are left out.
        let bare = crate::engine::preamble(&automation, "manual", None, None);
        assert!(!bare.contains("Workspace"), "{bare}");
    }
}
