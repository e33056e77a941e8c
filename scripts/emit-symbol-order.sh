#!/usr/bin/env bash
# Writes crates/hookrig-cli/emit-symbols.txt: the functions of the `hookrig` binary that
# one emit runs, which a release build lays out next to each other (crates/hookrig-cli/
# build.rs, `--symbol-ordering-file`), so that an emit faults in fewer pages of a text
# section holding every command's code (docs/PERFORMANCE.md, "The emit's functions
# together").
#
# The functions are those callgrind sees run in rows (a) one hook, (b) ten hooks,
# (c) 200 hooks none matching and (d) 50 hooks in five dialects of bench-emit.sh, by a
# release build. Their mangled names carry hashes that change with the dependencies and
# the compiler: run this again after such a change (a name the binary no longer has is
# skipped by the link, so a stale list costs only its benefit).
#
# Usage: scripts/emit-symbol-order.sh      (BENCH_NO_BUILD=1: use target/release/hookrig)
# Needs valgrind (Debian: `apt-get install valgrind`) and nm.

set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
if ! command -v valgrind >/dev/null || ! command -v nm >/dev/null; then
    echo "emit-symbol-order: needs valgrind and nm" >&2
    exit 1
fi
source "$repo/scripts/lib/target.sh"
target_dir="$(release_target_dir)"
build_release_hookrig

work="$(mktemp -d "${TMPDIR:-/tmp}/hookrig-order.XXXXXX")"
trap 'rm -rf "$work"' EXIT
hookrig="$work/hookrig"
cp "$target_dir/release/hookrig" "$hookrig"

# make_scenario, in_env and the hooks of the rows.
source "$repo/scripts/lib/scenarios.sh"

for row in a b c d; do
    dir="$(make_scenario "$row")"
    case "$row" in
        a) serial_hooks 1 >"$dir/project/.hookrig/hooks.toml" ;;
        b) serial_hooks 10 >"$dir/project/.hookrig/hooks.toml" ;;
        c) none_matching_hooks >"$dir/project/.hookrig/hooks.toml" ;;
        d) all_dialects_hooks "$dir/project" ;;
    esac
    in_env "$dir" "$hookrig" trust "$dir/project" >/dev/null
    # The first emit makes the ledger; the second is the one every later emit is.
    for run in first steady; do
        in_env "$dir" valgrind --tool=callgrind --demangle=no \
            --callgrind-out-file="$work/callgrind.$row.$run" \
            "$hookrig" emit tool.before --cwd "$dir/project" --tool bash \
            </dev/null >/dev/null 2>&1
    done
done

# Every function named in the profiles (a name is given once, at its first mention, as
# `fn=(N) NAME` or `cfn=(N) NAME`), without callgrind's recursion marks, that the binary
# defines as code.
nm --defined-only "$hookrig" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u >"$work/defined"
grep -h -oE '^c?fn=\([0-9]+\) [^ ]+' "$work"/callgrind.*.steady "$work"/callgrind.*.first |
    sed -E "s/^c?fn=\([0-9]+\) //; s/'[0-9]+$//" |
    awk '!seen[$0]++' |
    awk 'NR == FNR { defined[$0] = 1; next } defined[$0]' "$work/defined" - \
        >crates/hookrig-cli/emit-symbols.txt
echo "emit-symbol-order: $(wc -l <crates/hookrig-cli/emit-symbols.txt) functions in crates/hookrig-cli/emit-symbols.txt" >&2
