#!/bin/sh
# Times the `hookrig plan board` command end to end on generated plans of 1,000 and
# 10,000 tasks (each task with three claim/unclaim actions appended), both in one
# hyperfine run, and prints the ratio of the mean times. See docs/PERFORMANCE.md.
#
# usage: scripts/bench-plan-board.sh [RUNS]      (needs hyperfine; BENCH_NO_BUILD=1 skips the build)
set -eu
cd "$(dirname "$0")/.."
runs="${1:-30}"
if [ -z "${BENCH_NO_BUILD:-}" ]; then
  cargo build -q --release -p hookrig-cli
  cargo build -q --release -p hookrig-plan --example board_profile
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
for n in 1000 10000; do
  target/release/examples/board_profile "$n" write "$dir/plan-$n.spl"
done
hookrig="$PWD/target/release/hookrig"
cd "$dir"
# A private HOME and XDG dirs: no user config is read, nothing is written elsewhere.
export HOME="$dir" XDG_CONFIG_HOME="$dir/config" XDG_STATE_HOME="$dir/state" XDG_DATA_HOME="$dir/data"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$dir/result.json" \
  "$hookrig plan board plan-1000.spl --json" \
  "$hookrig plan board plan-10000.spl --json" >&2
# The two means and their ratio, from hyperfine's JSON (no jq needed).
tr ',' '\n' < "$dir/result.json" | sed -n 's/.*"mean": *\([0-9.e-]*\).*/\1/p' | head -2 |
  awk 'NR==1 {a=$1} NR==2 {b=$1} END {printf "1,000 tasks: %.1f ms\n10,000 tasks: %.1f ms\nratio: %.1fx\n", a*1000, b*1000, b/a}'
