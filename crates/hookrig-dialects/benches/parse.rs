//! Benchmarks of loading a native `hooks.toml` (divan).
//!
//! Every `hookrig emit` parses and lowers every configured hook, including the ones on
//! other events, before it dispatches anything: this is the part of emit's start-up
//! that grows with the size of the config. The generated files have the shape of
//! `scripts/bench-emit.sh` scenario (c).
//!
//! Run with `cargo bench -p hookrig-dialects --bench parse`.

use std::fmt::Write as _;
use std::path::Path;

use divan::{Bencher, black_box};
use hookrig_core::Level;
use hookrig_dialects::parse_native;

fn main() {
    divan::main();
}

/// Which matchers the generated hooks use.
#[derive(Debug, Clone, Copy)]
enum Matchers {
    /// The mix of scenario (c): per four hooks, two `tool.before` hooks with literal
    /// matchers, one with a regex matcher, one hook on another event without matcher.
    Mixed,
    /// Every hook on `tool.before` with a literal alternation (`write_file_7|edit_7`).
    Literal,
    /// Every hook on `tool.before` with a regex (`^mcp__server7__.*$`).
    Regex,
}

const OTHER_EVENTS: [&str; 5] = [
    "session.start",
    "tool.after",
    "prompt.submit",
    "message.after",
    "turn.complete",
];

/// A `hooks.toml` with `n` hooks.
fn hooks_toml(n: usize, matchers: Matchers) -> String {
    let mut text = String::from("[settings]\ntimeout = \"30s\"\nkill_grace = \"5s\"\n");
    for i in 0..n {
        let role = match matchers {
            Matchers::Mixed => i % 4,
            Matchers::Literal => 0,
            Matchers::Regex => 2,
        };
        let (event, matcher) = match role {
            0 | 1 => ("tool.before", Some(format!("write_file_{i}|edit_{i}"))),
            2 => ("tool.before", Some(format!("^mcp__server{i}__.*$"))),
            _ => (OTHER_EVENTS[i % OTHER_EVENTS.len()], None),
        };
        let _ = write!(
            text,
            "\n[[hooks]]\nname = \"hook-{i:03}\"\nevents = [\"{event}\"]\n"
        );
        if let Some(matcher) = matcher {
            let _ = writeln!(text, "matcher = \"{matcher}\"");
        }
        let _ = write!(
            text,
            "command = \"true\"\ntimeout = \"5s\"\ndescription = \"benchmark hook {i}\"\n"
        );
    }
    text
}

fn parse(text: &str) -> usize {
    let mut warnings = Vec::new();
    let (hooks, _settings) = parse_native(
        Path::new("/home/user/project/.hookrig/hooks.toml"),
        text,
        Level::Project,
        &mut warnings,
    )
    .expect("the generated file is valid");
    assert!(warnings.is_empty(), "{warnings:?}");
    hooks.len()
}

/// `parse_native` on files of 1, 10 and 200 hooks with the scenario (c) mix.
#[divan::bench(args = [1, 10, 200])]
fn parse_native_mixed(bencher: Bencher<'_, '_>, n: usize) {
    let text = hooks_toml(n, Matchers::Mixed);
    assert_eq!(parse(&text), n);
    bencher
        .counter(divan::counter::BytesCount::of_str(&text))
        .bench(|| parse(black_box(&text)));
}

/// 200 hooks, all with literal matchers (no regex compiled).
#[divan::bench]
fn parse_native_200_literal(bencher: Bencher<'_, '_>) {
    let text = hooks_toml(200, Matchers::Literal);
    bencher.bench(|| parse(black_box(&text)));
}

/// 200 hooks, all with regex matchers (200 regexes compiled).
#[divan::bench]
fn parse_native_200_regex(bencher: Bencher<'_, '_>) {
    let text = hooks_toml(200, Matchers::Regex);
    bencher.bench(|| parse(black_box(&text)));
}

/// Only the TOML parse of the 200-hook mixed file (the first step of `parse_native`),
/// to split the cost between the TOML parser and hookrig's own lowering.
#[divan::bench]
fn toml_parse_only_200_mixed(bencher: Bencher<'_, '_>) {
    let text = hooks_toml(200, Matchers::Mixed);
    bencher.bench(|| {
        toml::de::DeTable::parse(black_box(&text))
            .expect("valid TOML")
            .into_inner()
            .len()
    });
}
