//! Benchmarks of the matcher (divan): the literal fast path against the regex engine,
//! for compiling a pattern (config loading does it for every hook) and for testing a
//! tool name (dispatch does it for every hook on the event).
//!
//! Run with `cargo bench -p hookrig-core --bench matcher`.

use divan::{Bencher, black_box};
use hookrig_core::Matcher;
use regex::Regex;

fn main() {
    divan::main();
}

/// A typical literal alternation, as config files write them.
const LITERALS: &str = "write_file|edit|multi_edit";
/// A typical pattern that needs the regex engine.
const REGEX: &str = "^mcp__.*__(write|edit)$";

/// Building a matcher from its pattern, as config loading does for every hook.
#[divan::bench(args = [LITERALS, REGEX])]
fn compile(pattern: &str) -> Matcher {
    Matcher::regex(black_box(pattern)).expect("valid")
}

/// Compiling the literal alternation with the regex crate, which the fast path avoids.
#[divan::bench]
fn compile_literals_as_regex() -> Regex {
    Regex::new(black_box(LITERALS)).expect("valid")
}

/// Testing a tool name that matches (`multi_edit`) and one that does not (`bash`).
#[divan::bench(args = ["multi_edit", "bash"])]
fn literals(bencher: Bencher<'_, '_>, tool: &str) {
    let matcher = Matcher::regex(LITERALS).expect("valid");
    assert!(matches!(matcher, Matcher::Literals(_)));
    bencher.bench_local(|| black_box(&matcher).matches(Some(black_box(tool))));
}

/// The same alternation and tool names through the regex engine.
#[divan::bench(args = ["multi_edit", "bash"])]
fn literals_as_regex(bencher: Bencher<'_, '_>, tool: &str) {
    let regex = Regex::new(LITERALS).expect("valid");
    bencher.bench_local(|| black_box(&regex).is_match(black_box(tool)));
}

/// A real regex, on a tool name that matches and one that does not.
#[divan::bench(args = ["mcp__fs__write", "bash"])]
fn regex(bencher: Bencher<'_, '_>, tool: &str) {
    let matcher = Matcher::regex(REGEX).expect("valid");
    assert!(matches!(matcher, Matcher::Regex(_)));
    bencher.bench_local(|| black_box(&matcher).matches(Some(black_box(tool))));
}

/// `pattern()`, which the dispatcher calls for every hook whose matcher skipped it.
#[divan::bench(args = [LITERALS, REGEX])]
fn pattern(bencher: Bencher<'_, '_>, pattern: &str) {
    let matcher = Matcher::regex(pattern).expect("valid");
    bencher.bench_local(|| black_box(&matcher).pattern());
}
