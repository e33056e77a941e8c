//! The crates of the workspace depend on each other one way (docs/ARCHITECTURE.md): the
//! binary on the libraries, agents and automation on the runtime, the runtime on the
//! dialects and the store, the dialects on config and exec, and everything on core;
//! plan on core only. Only the binary parses command lines, so only it depends on clap.

use std::fs;

use crate::workspace_root;

/// The hookrig crates each library may depend on (normal, build and platform-specific
/// dependencies; dev-dependencies are free). hookrig-cli may depend on any.
const ALLOWED: &[(&str, &[&str])] = &[
    ("hookrig-core", &[]),
    ("hookrig-plan", &["hookrig-core"]),
    ("hookrig-exec", &["hookrig-core"]),
    ("hookrig-config", &["hookrig-core"]),
    ("hookrig-store", &["hookrig-core", "hookrig-config"]),
    (
        "hookrig-dialects",
        &["hookrig-core", "hookrig-config", "hookrig-exec"],
    ),
    (
        "hookrig-runtime",
        &[
            "hookrig-core",
            "hookrig-config",
            "hookrig-exec",
            "hookrig-dialects",
            "hookrig-store",
            "hookrig-plan",
        ],
    ),
    (
        "hookrig-automation",
        &[
            "hookrig-core",
            "hookrig-config",
            "hookrig-exec",
            "hookrig-dialects",
            "hookrig-store",
            "hookrig-plan",
            "hookrig-runtime",
        ],
    ),
    // Agents start providers and claim tasks through the plan; they deliver no event
    // to hooks themselves (their caller does), so no runtime and no dialects.
    (
        "hookrig-agents",
        &[
            "hookrig-core",
            "hookrig-config",
            "hookrig-exec",
            "hookrig-store",
            "hookrig-plan",
        ],
    ),
    (
        "hookrig-testing",
        &[
            "hookrig-core",
            "hookrig-config",
            "hookrig-exec",
            "hookrig-dialects",
            "hookrig-store",
            "hookrig-runtime",
        ],
    ),
    (
        "hookrig-ui",
        &[
            "hookrig-core",
            "hookrig-config",
            "hookrig-dialects",
            "hookrig-store",
            "hookrig-plan",
            "hookrig-runtime",
            "hookrig-automation",
            "hookrig-agents",
        ],
    ),
    ("hookrig-test-support", &[]),
];

/// The crate that owns argv.
const BINARY: &str = "hookrig-cli";

/// The command-line parser crates only the binary may use.
const ARGV_CRATES: &[&str] = &["clap", "clap_complete"];

/// Every member of `crates/`: its name and its parsed manifest.
fn manifests() -> Vec<(String, toml::Table)> {
    let dir = workspace_root().join("crates");
    let mut found = Vec::new();
    for entry in fs::read_dir(&dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display())) {
        let path = entry.expect("a directory entry").path().join("Cargo.toml");
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let manifest: toml::Table = text
            .parse()
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let name = manifest["package"]["name"]
            .as_str()
            .expect("a package name")
            .to_owned();
        found.push((name, manifest));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(
        found.len() > 5,
        "the crates are found under {}",
        dir.display()
    );
    found
}

/// The names in the manifest's dependency tables whose section is one of `sections`,
/// including the `[target.'cfg(..)'.SECTION]` tables.
fn dependencies(manifest: &toml::Table, sections: &[&str]) -> Vec<String> {
    let mut tables: Vec<&toml::Table> = sections
        .iter()
        .filter_map(|section| manifest.get(*section)?.as_table())
        .collect();
    if let Some(targets) = manifest.get("target").and_then(toml::Value::as_table) {
        for target in targets.values().filter_map(toml::Value::as_table) {
            tables.extend(
                sections
                    .iter()
                    .filter_map(|section| target.get(*section)?.as_table()),
            );
        }
    }
    tables.iter().flat_map(|t| t.keys().cloned()).collect()
}

// guards: a library that grew a dependency pointing back up the graph (plan or exec on
// the runtime, core on anything), which turns the one-way graph into a knot.
#[test]
fn libraries_depend_only_on_the_crates_below_them() {
    let mut wrong = Vec::new();
    for (name, manifest) in manifests() {
        if name == BINARY {
            continue;
        }
        let Some((_, allowed)) = ALLOWED.iter().find(|(crate_name, _)| *crate_name == name) else {
            wrong.push(format!("{name}: a new crate; give it its place in ALLOWED"));
            continue;
        };
        for dependency in dependencies(&manifest, &["dependencies", "build-dependencies"]) {
            if dependency.starts_with("hookrig-") && !allowed.contains(&dependency.as_str()) {
                wrong.push(format!("{name} depends on {dependency}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// guards: a library that parses command lines, which is the binary's job.
#[test]
fn only_the_binary_depends_on_clap() {
    let mut wrong = Vec::new();
    for (name, manifest) in manifests() {
        let all = dependencies(
            &manifest,
            &["dependencies", "dev-dependencies", "build-dependencies"],
        );
        for dependency in all {
            if ARGV_CRATES.contains(&dependency.as_str()) && name != BINARY {
                wrong.push(format!("{name} depends on {dependency}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
