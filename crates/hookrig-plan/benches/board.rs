//! Benchmarks of `plan board` on generated plans (divan): 1,000 and 10,000 tasks, each
//! with a readiness rule on the previous task and three claim/unclaim actions appended
//! (claim, unclaim, claim) in the form `Plan::prepare` writes them. Parsing, reasoning
//! (building the `Plan`) and the whole board (parse, reason, JSON) are timed apart.
//!
//! Run with `cargo bench -p hookrig-plan --bench board`.

use std::path::Path;

use divan::{Bencher, black_box};
use hookrig_plan::board::Board;
use hookrig_plan::plan::Plan;
use hookrig_plan::spl;

#[path = "support/plan_gen.rs"]
mod plan_gen;

use plan_gen::generate;

fn main() {
    divan::main();
}

const SIZES: [usize; 2] = [1_000, 10_000];

#[divan::bench(args = SIZES, sample_count = 10)]
fn parse(bencher: Bencher<'_, '_>, tasks: usize) {
    let text = generate(tasks);
    bencher.bench(|| spl::parse(Path::new("plan.spl"), black_box(&text)).expect("valid"));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn reason(bencher: Bencher<'_, '_>, tasks: usize) {
    let text = generate(tasks);
    let statements = spl::parse(Path::new("plan.spl"), &text).expect("valid");
    bencher.bench(|| Plan::new(black_box(&statements)));
}

#[divan::bench(args = SIZES, sample_count = 10)]
fn board(bencher: Bencher<'_, '_>, tasks: usize) {
    let text = generate(tasks);
    bencher.bench(|| {
        let statements = spl::parse(Path::new("plan.spl"), black_box(&text)).expect("valid");
        let plan = Plan::new(&statements);
        assert_eq!(
            plan.tasks[tasks - 1].state,
            hookrig_plan::plan::TaskState::InProgress
        );
        serde_json::to_string(&Board::new("plan.spl", &plan)).expect("serializable")
    });
}
