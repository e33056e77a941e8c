//! Builds the board of one generated plan once, for instruction counts with callgrind
//! (`docs/PERFORMANCE.md`) or a profiler: `board_profile N [parse|reason|board] [REPEAT]`
//! (with REPEAT, the reasoning step runs that many times, for a warm-cache profile).
//! `board_profile N write FILE` writes the generated plan to FILE instead, for timing
//! the `hookrig plan board` command itself (`scripts/bench-plan-board.sh`).

#[path = "../benches/support/plan_gen.rs"]
mod plan_gen;

use std::path::Path;

use hookrig_plan::board::Board;
use hookrig_plan::plan::Plan;
use hookrig_plan::spl;

fn main() {
    let mut args = std::env::args().skip(1);
    let tasks: usize = args
        .next()
        .and_then(|n| n.parse().ok())
        .expect("usage: board_profile N [parse|reason|board]");
    let what = args.next().unwrap_or_else(|| "board".to_owned());
    let text = plan_gen::generate(tasks);
    if what == "write" {
        let file = args.next().expect("usage: board_profile N write FILE");
        std::fs::write(&file, &text).expect("write the plan");
        return;
    }
    let path = Path::new("plan.spl");
    let statements = spl::parse(path, &text).expect("valid");
    if what == "parse" {
        return;
    }
    let repeat: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    for _ in 1..repeat {
        std::hint::black_box(Plan::new(&statements));
    }
    let plan = Plan::new(&statements);
    if what == "reason" {
        return;
    }
    let json = serde_json::to_string(&Board::new("plan.spl", &plan)).expect("serializable");
    println!("{} bytes of board JSON", json.len());
}
