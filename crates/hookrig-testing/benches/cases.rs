//! `hookrig test`'s runner: the same suite of cases run serially (one thread, the
//! baseline) and in parallel (one thread per core), in one process, one after the other.
//!
//! Not a divan bench: one run of a suite is seconds of real hook processes, and what is
//! reported is the ratio of the two runs and the cost of one case, on one line of
//! `key=value` pairs. Each case is one emit in the sandbox running one command hook
//! (`sh -c 'cat >/dev/null'`). `cargo bench -p hookrig-testing --bench cases` runs it
//! with 1,000 cases; a number as its argument sets another count.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use hookrig_test_support::TestEnv;
use hookrig_testing::{RunOptions, Sandbox, discover, run};

fn main() {
    let cases: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(1000);
    let env = TestEnv::new("hookrig");
    env.write_project_config(
        "[[hooks]]\nname = \"drain\"\nevents = [\"tool.before\"]\nexec = [\"sh\", \"-c\", \"cat >/dev/null\"]\n",
    );
    let mut file = String::new();
    for n in 0..cases {
        let _ = write!(
            file,
            "[[case]]\nname = \"case {n}\"\nevent = \"tool.before\"\npayload = {{ tool = {{ name = \"Bash\" }} }}\nexpect = {{ decision = \"allow\", ran = [\"drain\"] }}\n\n"
        );
    }
    env.write_file(".hookrig/tests/bench.toml", &file);
    let environment = hookrig_config::Environment {
        home: env.home(),
        config_home: env.config_home(),
        state_home: env.state_home(),
        data_home: env.data_home(),
        xcode_home: env.home().join(".x-code"),
        cwd: env.project(),
        trust_all: false,
    };
    let vars: Vec<_> = env
        .command(["test"])
        .get_envs()
        .filter_map(|(name, value)| Some((name.to_owned(), value?.to_owned())))
        .collect();
    let suite = discover(&environment).expect("the bench's test file is listed");
    let timed = |jobs: usize| {
        let sandbox = Sandbox::new(vars.clone()).expect("a sandbox");
        let started = Instant::now();
        let report = run(
            &suite,
            &RunOptions { filter: None, jobs },
            &sandbox,
            &env.project(),
        );
        let elapsed = started.elapsed();
        assert!(report.success(), "{}", report.text());
        assert_eq!(report.passed, cases);
        elapsed
    };
    #[expect(
        clippy::cast_precision_loss,
        reason = "a count of cases is far below 2^52"
    )]
    let per_case = |elapsed: Duration| elapsed.as_secs_f64() * 1000.0 / cases as f64;
    let serial = timed(1);
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let parallel = timed(0);
    println!(
        "cases={cases} threads={threads} serial_s={:.2} parallel_s={:.2} ratio={:.2} serial_ms_per_case={:.2} parallel_ms_per_case={:.2}",
        serial.as_secs_f64(),
        parallel.as_secs_f64(),
        serial.as_secs_f64() / parallel.as_secs_f64(),
        per_case(serial),
        per_case(parallel)
    );
}
