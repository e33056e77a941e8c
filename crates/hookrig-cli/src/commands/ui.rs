//! `hookrig ui`: opens the dashboard of the running `hookrig serve --ui` in a browser,
//! starting such a serve first (on a free loopback port, for the project of the working
//! directory) when none answers; prints the link, which carries the token.

use std::path::Path;
use std::time::{Duration, Instant};

use clap::Args;
use hookrig_runtime::Scope;
use hookrig_runtime::http;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

/// How long `hookrig ui` waits for the serve it started to listen.
const START_LIMIT: Duration = Duration::from_secs(15);

/// `hookrig ui`'s options.
#[derive(Debug, Args)]
pub(crate) struct UiArgs {
    /// Print the link without opening a browser.
    #[arg(long)]
    pub(crate) no_open: bool,
}

pub(crate) fn run(scope: &Scope, args: &UiArgs) -> Result<u8, ExpectedError> {
    let state = &scope.env.state_home;
    let address = match hookrig_ui::running(state) {
        Some(address) => address,
        None => start_serve(scope)?,
    };
    let token = http::token(state).map_err(ExpectedError::Token)?;
    let url = hookrig_ui::url(address, &token);
    let opened = !args.no_open && open(&url, scope.cwd());
    print(&if opened {
        format!("opened {url}\n")
    } else {
        format!("{url}\n")
    })?;
    Ok(exit_codes::PROCEED)
}

/// Starts `hookrig serve --ui 127.0.0.1:0` in a session of its own, in the scope's
/// directory, and waits until its dashboard answers.
fn start_serve(scope: &Scope) -> Result<std::net::SocketAddr, ExpectedError> {
    let program = std::env::current_exe()
        .map_err(|err| ExpectedError::UiStart(format!("cannot find hookrig: {err}")))?;
    let state = &scope.env.state_home;
    let log = state.join("hookrig").join("serve-ui.log");
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let stream = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .map_or(hookrig_exec::Stream::Null, hookrig_exec::Stream::File)
    };
    let mut command =
        hookrig_exec::Command::exec(program, ["serve", "--ui", "127.0.0.1:0"], scope.cwd());
    // The serve acts for the same plan and agent as this command.
    for (name, value) in scope.child_env() {
        command = command.env(name, value.to_string_lossy());
    }
    command
        .spawn_detached(hookrig_exec::Detached {
            stdout: stream(),
            stderr: stream(),
            grouping: hookrig_exec::Grouping::Session,
        })
        .map_err(|err| ExpectedError::UiStart(err.to_string()))?;
    let started = Instant::now();
    while started.elapsed() < START_LIMIT {
        if let Some(address) = hookrig_ui::running(state) {
            return Ok(address);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(ExpectedError::UiStart(format!(
        "the serve started for it did not listen within {}s (a serve without --ui may be running: stop it, then run `hookrig serve --ui 127.0.0.1:PORT`); see {}",
        START_LIMIT.as_secs(),
        log.display()
    )))
}

/// Opens `url` with `$BROWSER`, else the desktop's opener; whether one was started.
fn open(url: &str, cwd: &Path) -> bool {
    let browser = std::env::var_os("BROWSER").filter(|b| !b.is_empty());
    let candidates = browser
        .into_iter()
        .map(std::path::PathBuf::from)
        .chain(["xdg-open", "open"].map(std::path::PathBuf::from));
    for program in candidates {
        let Some(found) = on_path(&program) else {
            continue;
        };
        let started = hookrig_exec::Command::exec(found, [url], cwd.to_owned()).spawn_detached(
            hookrig_exec::Detached {
                stdout: hookrig_exec::Stream::Null,
                stderr: hookrig_exec::Stream::Null,
                grouping: hookrig_exec::Grouping::Session,
            },
        );
        if started.is_ok() {
            return true;
        }
    }
    false
}

/// `program` itself when it names a path, else the first executable of that name on
/// `PATH`.
fn on_path(program: &Path) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        return executable(program).then(|| program.to_owned());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| executable(path))
}
