//! A project with hooks and test files under a [`TestEnv`].

use std::ffi::OsString;
use std::path::PathBuf;

use hookrig_config::Environment;
use hookrig_test_support::TestEnv;
use hookrig_testing::{Report, RunOptions, Sandbox, discover, run};

/// A temporary world: nothing here starts `hookrig`.
pub(crate) fn world() -> TestEnv {
    TestEnv::new("hookrig")
}

/// The variables `hookrig` would run with in `env`: its home, XDG directories, PATH.
/// The test's trust store trusts no project: the sandbox trusts the project itself.
pub(crate) fn vars(env: &TestEnv) -> Vec<(OsString, OsString)> {
    env.untrusted_command(["test"])
        .get_envs()
        .filter_map(|(name, value)| Some((name.to_owned(), value?.to_owned())))
        .collect()
}

/// The environment of `env`'s project, as `hookrig test` resolves it there (untrusted:
/// the sandbox trusts the project itself).
pub(crate) fn environment(env: &TestEnv) -> Environment {
    Environment {
        home: env.home(),
        config_home: env.config_home(),
        state_home: env.state_home(),
        data_home: env.data_home(),
        xcode_home: env.home().join(".x-code"),
        cwd: env.project(),
        trust_all: false,
    }
}

/// Writes `toml` as the project's test file `name`.
pub(crate) fn write_tests(env: &TestEnv, name: &str, toml: &str) -> PathBuf {
    env.write_file(format!(".hookrig/tests/{name}"), toml)
}

/// Runs every test of `env`'s project with `options`.
pub(crate) fn run_all(env: &TestEnv, options: &RunOptions) -> Report {
    let environment = environment(env);
    let suite = discover(&environment).expect("the test files are listed");
    let sandbox = Sandbox::new(vars(env)).expect("a sandbox");
    run(&suite, options, &sandbox, &env.project())
}

/// `report` with its durations zeroed, for a snapshot.
pub(crate) fn timeless(mut report: Report) -> Report {
    for case in &mut report.cases {
        case.duration_ms = 0.0;
    }
    report
}
