#!/usr/bin/env bash
# Instructions one `hookrig emit` process executes, this build against another, counted by
# valgrind's callgrind: rows (a) one hook, (c) 200 hooks none matching, (d) 50 hooks in
# five dialects and (m) `hookrig --version` of bench-emit.sh, in the same scenarios.
#
# Timings on a shared machine move with its load (a hypervisor that steals half the CPU
# doubles them); instruction counts do not. So this is the check that a change made no
# scenario slower in what hookrig itself does, where bench-emit.sh's BENCH_BASE rows
# cannot tell 5 % from noise. What counts cannot show: system calls (count them with
# `strace -f -c`), page faults, and the hook's own process (sh, the same for both builds:
# callgrind does not follow children here).
#
# The dynamic loader's instructions are given apart and left out of the ratio: this
# binary is linked with packed relocations (DT_RELR, crates/hookrig-cli/build.rs), which
# the loader unpacks with more instructions but far fewer pages read, a trade that only
# a timing weighs (docs/PERFORMANCE.md, "Packed relocations").
#
# Usage: BENCH_BASE=PATH scripts/bench-instructions.sh
#   BENCH_BASE=PATH     the other build (an older commit's target/release/hookrig)
#   BENCH_RUNS=N        runs per build and row (default 7), after one warm-up run that
#                       makes the ledger; the median is reported, with the smallest and
#                       largest (a run's count moves by a few per cent with hash seeds
#                       and thread interleaving)
#   BENCH_NO_BUILD=1    use the existing target/release/hookrig instead of building
#
# Needs valgrind (Debian: `apt-get install valgrind`).

set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
runs="${BENCH_RUNS:-7}"
base_build="${BENCH_BASE:?BENCH_BASE: the path of the other build of hookrig}"
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "bench-instructions: needs valgrind (Debian: apt-get install valgrind)" >&2
    exit 1
fi

source "$repo/scripts/lib/target.sh"
target_dir="$(release_target_dir)"
build_release_hookrig

work="$(mktemp -d "${TMPDIR:-/tmp}/hookrig-instructions.XXXXXX")"
trap 'rm -rf "$work"' EXIT
this="$work/hookrig-this"
base="$work/hookrig-base"
cp "$target_dir/release/hookrig" "$this"
cp "$base_build" "$base"

# make_scenario, in_env and the hooks of rows (a), (c) and (d).
source "$repo/scripts/lib/scenarios.sh"

# Each build gets scenarios of its own (its own ledger and trust store), made alike.
# scenario BUILD ROW: the directory of ROW for BUILD, made and trusted.
scenario() {
    local dir
    dir="$(make_scenario "$2-$(basename "$1")")"
    case "$2" in
        a) serial_hooks 1 >"$dir/project/.hookrig/hooks.toml" ;;
        c) none_matching_hooks >"$dir/project/.hookrig/hooks.toml" ;;
        d) all_dialects_hooks "$dir/project" ;;
    esac
    in_env "$dir" "$1" trust "$dir/project" >/dev/null
    echo "$dir"
}

# counts BUILD DIR ARGS...: "program loader" instructions of one run, callgrind's totals
# split into the dynamic loader's and the rest.
counts() {
    local build="$1" dir="$2" out="$work/callgrind.out"
    shift 2
    in_env "$dir" valgrind --tool=callgrind --callgrind-out-file="$out" "$build" "$@" \
        </dev/null >/dev/null 2>&1
    callgrind_annotate --inclusive=no --threshold=100 "$out" 2>/dev/null |
        awk '/^ *[0-9,]+ \(/ { n = $1; gsub(",", "", n)
                 if ($0 ~ /PROGRAM TOTALS/) total = n; else if ($0 ~ /ld-linux/) loader += n }
             END { print total - loader, loader }'
}

# args DIR WHAT: the arguments of a run of row WHAT in the scenario DIR.
args() {
    case "$2" in
        version) echo --version ;;
        *) echo emit tool.before --cwd "$1/project" --tool bash ;;
    esac
}

# row LABEL WHAT BASE_DIR THIS_DIR: $runs runs of each build, alternating, and a line of
# medians.
row() {
    local label="$1" what="$2" base_dir="$3" this_dir="$4" i
    : >"$work/base.txt"
    : >"$work/this.txt"
    # A first run makes the ledger and its schema: a warm-up, not counted.
    # shellcheck disable=SC2046 # the arguments are words without spaces
    counts "$base" "$base_dir" $(args "$base_dir" "$what") >/dev/null
    # shellcheck disable=SC2046
    counts "$this" "$this_dir" $(args "$this_dir" "$what") >/dev/null
    for ((i = 0; i < runs; i++)); do
        # shellcheck disable=SC2046 # the arguments are words without spaces
        counts "$base" "$base_dir" $(args "$base_dir" "$what") >>"$work/base.txt"
        # shellcheck disable=SC2046
        counts "$this" "$this_dir" $(args "$this_dir" "$what") >>"$work/this.txt"
    done
    python3 - "$label" "$work/base.txt" "$work/this.txt" <<'EOF'
import statistics, sys
label, base, this = sys.argv[1], sys.argv[2], sys.argv[3]
def read(path):
    rows = [tuple(map(int, line.split())) for line in open(path) if line.strip()]
    return [r[0] for r in rows], statistics.median(r[1] for r in rows)
b, bl = read(base)
t, tl = read(this)
mb, mt = statistics.median(b), statistics.median(t)
print(f"{label:<24} {mb/1e6:7.3f} M ({min(b)/1e6:.3f}-{max(b)/1e6:.3f})  "
      f"{mt/1e6:7.3f} M ({min(t)/1e6:.3f}-{max(t)/1e6:.3f})  {mt/mb:5.2f}x   "
      f"loader {bl/1e6:.3f} -> {tl/1e6:.3f} M")
EOF
}

echo "instructions of one hookrig process (callgrind, median of $runs runs, min-max), the"
echo "dynamic loader's apart; other build: $base_build"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
printf '%-24s %-26s %-26s %s\n' row "other build" "this build" "this/other"
row "(a) 1 hook" a "$(scenario "$base" a)" "$(scenario "$this" a)"
row "(c) 200 none matching" c "$(scenario "$base" c)" "$(scenario "$this" c)"
row "(d) 50, five dialects" d "$(scenario "$base" d)" "$(scenario "$this" d)"
row "(m) --version" version "$work/a-hookrig-base" "$work/a-hookrig-this"
