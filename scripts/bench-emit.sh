#!/usr/bin/env bash
# End-to-end timing of `hookrig emit` against bare process spawns, with hyperfine.
#
# Four scenarios, each measured in ONE hyperfine run together with its baseline, so that
# the ratio compares figures taken on the same machine under the same load:
#
#   (a) one hook `command = "true"`            vs  sh -c true                 target <= 2.0x
#   (b) ten serial hooks `command = "true"`    vs  ten `sh -c true` in a row  target <= 1.3x
#   (c) 200 configured hooks, none matching    vs  sh -c true                 target <= 2.0x
#   (d) 50 hooks in five dialects, none match  vs  sh -c true                 target <= 2.0x
#
# Shell-form hooks run as `/bin/sh -c true`, so every hook costs one spawn of sh, which is
# what the baselines spawn. The baseline of (b) is `sh -c 'sh -c true; ... (ten times)'`:
# one driver process (the outer sh, standing where hookrig stands) that starts ten sh
# processes one after another, each running `true` (a builtin of sh), and waits for each.
# The ledger is on in every scenario (the default path under a temporary XDG_STATE_HOME).
#
# Usage: scripts/bench-emit.sh [RESULTS_DIR]
#   RESULTS_DIR         where hyperfine's JSON/CSV exports and summary.txt go
#                       (default: target/bench-emit/<date-time>)
#   BENCH_RUNS=N        runs per command (default 300)
#   BENCH_WARMUP=N      warm-up runs per command (default 20)
#   BENCH_NO_BUILD=1    use the existing target/release/hookrig instead of building
#   BENCH_KEEP=1        keep the temporary HOME and projects (their path is printed)
#   BENCH_PAYLOAD=MODE  how hookrig gets its payload (default: auto):
#                         input    payload.json on stdin via hyperfine --input, no shell (-N);
#                                  needs hyperfine >= 1.16
#                         flags    no shell (-N), stdin empty, `--tool bash` on the command
#                                  line: hookrig then sees {"tool":{"name":"bash"}}
#                         redirect `hookrig ... < payload.json` through sh, baselines through
#                                  sh too; hyperfine subtracts its measured shell start-up
#                                  time, which it cannot calibrate precisely below 5 ms
#                         auto     input when hyperfine has --input, else flags
#
# Installs nothing. Needs hyperfine (Debian/Ubuntu: `apt-get install hyperfine`).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

runs="${BENCH_RUNS:-300}"
warmup="${BENCH_WARMUP:-20}"

if ! command -v hyperfine >/dev/null 2>&1; then
    cat >&2 <<'EOF'
bench-emit: hyperfine is not installed.
  Debian/Ubuntu: sudo apt-get install hyperfine
  elsewhere:     cargo install hyperfine
EOF
    exit 1
fi

# --- build -------------------------------------------------------------------------------

target_dir="${CARGO_TARGET_DIR:-}"
if [[ -z "$target_dir" ]]; then
    target_dir="$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
        grep -o '"target_directory":"[^"]*"' | head -n 1 | cut -d'"' -f4)"
    target_dir="${target_dir:-$repo/target}"
fi
if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
    echo "bench-emit: cargo build --release -p hookrig-cli --locked" >&2
    cargo build --release -p hookrig-cli --locked
fi

results="${1:-$target_dir/bench-emit/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/hookrig-bench.XXXXXX")"
cleanup() {
    if [[ "${BENCH_KEEP:-0}" == 1 ]]; then
        echo "bench-emit: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

# A private copy: the shared target directory may be rebuilt while the benchmark runs.
hookrig="$work/hookrig"
cp "$target_dir/release/hookrig" "$hookrig"

# --- machine -----------------------------------------------------------------------------

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain -- crates Cargo.toml Cargo.lock 2>/dev/null)" ]]; then
    commit="$commit (plus uncommitted changes under crates/ or Cargo.*)"
fi
cpu="$(grep -m 1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
cpu="${cpu:-$(uname -m)}"
hyperfine_version="$(hyperfine --version | awk '{print $2}')"

# hyperfine >= 1.16 can feed a file to stdin itself (--input) with no shell in between.
# Debian 12 has 1.15: there the choice is a `<` redirect through sh (hyperfine then
# subtracts an estimate of the shell's start-up, a noisy correction at these durations) or
# no shell and the tool name as a flag.
payload_mode="${BENCH_PAYLOAD:-auto}"
if [[ "$payload_mode" == auto ]]; then
    if hyperfine --help 2>/dev/null | grep -q -- '--input'; then
        payload_mode=input
    else
        payload_mode=flags
    fi
fi
case "$payload_mode" in
    input) mode="no shell (-N), payload.json via --input" ;;
    flags) mode="no shell (-N), empty stdin, tool via --tool bash" ;;
    redirect) mode="through sh, payload.json via '<' redirect" ;;
    *)
        echo "bench-emit: BENCH_PAYLOAD must be auto, input, flags or redirect" >&2
        exit 2
        ;;
esac

# Runs a command in a scenario's environment: its HOME and XDG directories, and none of
# the variables that would change what hookrig does.
in_env() {
    local dir="$1"
    shift
    env -u HOOKRIG_LEDGER -u HOOKRIG_LOG -u HOOKRIG_TRUST_ALL -u XDG_DATA_HOME -u XDG_CACHE_HOME \
        HOME="$dir/home" XDG_CONFIG_HOME="$dir/home/.config" \
        XDG_STATE_HOME="$dir/home/.local/state" "$@"
}

# --- scenarios ---------------------------------------------------------------------------

# A temporary HOME with XDG directories and a project (with .git) holding hooks.toml.
make_scenario() {
    local dir="$work/$1"
    mkdir -p "$dir/home/.config" "$dir/home/.local/state" "$dir/home/.local/share" \
        "$dir/home/.cache" "$dir/project/.git" "$dir/project/.hookrig"
    cat >"$dir/payload.json" <<'EOF'
{"session":{"id":"bench-session","model":"some-model"},"tool":{"name":"bash","call_id":"call_1","input":{"command":"cargo test --workspace","description":"Run the tests"}}}
EOF
    echo "$dir"
}

# N hooks on tool.before that all run `true`.
serial_hooks() {
    local i
    for ((i = 1; i <= $1; i++)); do
        printf '[[hooks]]\nname = "true-%02d"\nevents = ["tool.before"]\ncommand = "true"\n\n' "$i"
    done
}

# 200 hooks none of which runs for tool.before on the tool `bash`: per four hooks, two on
# tool.before with literal matchers, one on tool.before with a regex matcher, one on
# another event. Same file as the `parse_native_mixed/200` bench of hookrig-config.
none_matching_hooks() {
    local others=(session.start tool.after prompt.submit message.after turn.complete)
    local i
    printf '[settings]\ntimeout = "30s"\nkill_grace = "5s"\n'
    for ((i = 0; i < 200; i++)); do
        printf '\n[[hooks]]\nname = "hook-%03d"\n' "$i"
        case $((i % 4)) in
            0 | 1) printf 'events = ["tool.before"]\nmatcher = "write_file_%d|edit_%d"\n' "$i" "$i" ;;
            2) printf 'events = ["tool.before"]\nmatcher = "^mcp__server%d__.*$"\n' "$i" ;;
            *) printf 'events = ["%s"]\n' "${others[$((i % 5))]}" ;;
        esac
        printf 'command = "true"\ntimeout = "5s"\ndescription = "benchmark hook %d"\n' "$i"
    done
}

# 50 hooks in all five formats, none of which runs for tool.before on `bash`: ten each of
# native, hygge, x-code, Claude Code and Hence. Loading every dialect's sources must not
# make emit slow.
all_dialects_hooks() {
    local project="$1" i
    for ((i = 0; i < 10; i++)); do
        printf '[[hooks]]
name = "native-%d"
events = ["tool.before"]
matcher = "write_%d|edit_%d"
command = "true"

' "$i" "$i" "$i"
    done >"$project/.hookrig/hooks.toml"
    mkdir -p "$project/.hygge"
    for ((i = 0; i < 10; i++)); do
        printf '[hooks.hygge-%d]
events = ["pre_message"]
command = "true"

' "$i"
    done >"$project/.hygge/hooks.toml"
    mkdir -p "$project/.hookrig/plugins/bench"
    {
        printf '{"name": "bench", "version": "1.0.0", "hooks": {"PreToolUse": ['
        for ((i = 0; i < 10; i++)); do
            ((i > 0)) && printf ', '
            printf '{"matcher": "^write_%d$", "command": "true"}' "$i"
        done
        printf ']}}\n'
    } >"$project/.hookrig/plugins/bench/plugin.json"
    mkdir -p "$project/.claude"
    {
        printf '{"hooks": {"PreToolUse": ['
        for ((i = 0; i < 10; i++)); do
            ((i > 0)) && printf ', '
            printf '{"matcher": "Edit%d|Write%d", "hooks": [{"type": "command", "command": "true %d"}]}' "$i" "$i" "$i"
        done
        printf ']}}\n'
    } >"$project/.claude/settings.json"
    mkdir -p "$project/.hence/hooks" "$project/.hookrig/hooks"
    local points=(post-claim post-complete post-block post-unblock post-assert post-plan-complete)
    for point in "${points[@]}"; do
        printf '#!/bin/sh\nexit 0\n' >"$project/.hence/hooks/$point"
        chmod +x "$project/.hence/hooks/$point"
    done
    for point in "${points[@]:0:4}"; do
        printf '#!/bin/sh\nexit 0\n' >"$project/.hookrig/hooks/$point"
        chmod +x "$project/.hookrig/hooks/$point"
    done
}

a="$(make_scenario a-one-hook)"
serial_hooks 1 >"$a/project/.hookrig/hooks.toml"
b="$(make_scenario b-ten-hooks)"
serial_hooks 10 >"$b/project/.hookrig/hooks.toml"
c="$(make_scenario c-200-none-matching)"
none_matching_hooks >"$c/project/.hookrig/hooks.toml"
d="$(make_scenario d-50-all-dialects)"
all_dialects_hooks "$d/project"

# Project hooks run only once trusted: trust each project as its user would, once.
for dir in "$a" "$b" "$c" "$d"; do
    in_env "$dir" "$hookrig" trust "$dir/project" >/dev/null
done

ten_sh="sh -c '$(printf 'sh -c true; %.0s' {1..9})sh -c true'"

# Runs hookrig once in a scenario's environment and checks that the expected number of
# hooks answered allow; a broken config must not be timed as a fast emit.
check() {
    local dir="$1" expected="$2" out ran
    out="$(in_env "$dir" "$hookrig" emit tool.before --cwd "$dir/project" <"$dir/payload.json")" || {
        echo "bench-emit: hookrig emit failed in $dir" >&2
        exit 1
    }
    ran="$({ grep -o '"result":"allow"' <<<"$out" || true; } | wc -l)"
    if [[ "$ran" -ne "$expected" ]]; then
        echo "bench-emit: expected $expected hooks to run in $dir, $ran did: $out" >&2
        exit 1
    fi
    if [[ "$out" == *'"warnings":["'* ]]; then
        echo "bench-emit: unexpected warnings in $dir: $out" >&2
        exit 1
    fi
}

# bench NAME DIR BASELINE_NAME BASELINE_CMD
bench() {
    local name="$1" dir="$2" base_name="$3" base_cmd="$4"
    local emit
    emit="$(printf '%q ' "$hookrig" emit tool.before --cwd "$dir/project")"
    local args=(--warmup "$warmup" --runs "$runs" --style basic
        --export-json "$results/$name.json" --export-csv "$results/$name.csv")
    case "$payload_mode" in
        input)
            args+=(-N --input "$dir/payload.json"
                -n "$base_name" "$base_cmd" -n "hookrig emit ($name)" "$emit")
            ;;
        flags)
            args+=(-N -n "$base_name" "$base_cmd" -n "hookrig emit ($name)" "$emit--tool bash")
            ;;
        redirect)
            args+=(-n "$base_name" "$base_cmd"
                -n "hookrig emit ($name)" "$emit< $(printf '%q' "$dir/payload.json")")
            ;;
    esac
    echo "bench-emit: scenario $name" >&2
    in_env "$dir" hyperfine "${args[@]}" </dev/null >&2
}

check "$a" 1
check "$b" 10
check "$c" 0
check "$d" 0

load_before="$(uptime)"
bench a-one-hook "$a" "sh -c true" "sh -c true"
bench b-ten-hooks "$b" "10x sh -c true" "$ten_sh"
bench c-200-none-matching "$c" "sh -c true" "sh -c true"
bench d-50-all-dialects "$d" "sh -c true" "sh -c true"
load_after="$(uptime)"

# --- summary -----------------------------------------------------------------------------

# CSV columns: command,mean,stddev,median,user,system,min,max (seconds); row 1 is the
# baseline, row 2 hookrig.
# The verdict is on the ratio of the means; the ratio of the medians is shown beside it
# because on a shared machine a few slow runs move the means.
row() {
    awk -F, -v label="$2" -v target="$3" '
        NR == 2 { bm = $2; bs = $3; bmed = $4 }
        NR == 3 { hm = $2; hs = $3; hmed = $4 }
        END {
            r = hm / bm
            verdict = (r <= target) ? "met" : "MISSED"
            printf "%-24s %9.3f ± %-6.3f %9.3f ± %-6.3f %6.2fx %6.2fx %7s  %s\n",
                label, bm * 1000, bs * 1000, hm * 1000, hs * 1000, r, hmed / bmed,
                "<= " target "x", verdict
        }' "$results/$1.csv"
}

{
    echo "hookrig emit vs bare spawns (ledger on; $runs runs, $warmup warm-up runs each)"
    echo "commit:    $commit"
    echo "machine:   $(nproc) CPUs, $cpu"
    echo "hyperfine: $hyperfine_version, $mode"
    echo "load:      before: ${load_before##*load average: }; after: ${load_after##*load average: }"
    # Other work on the machine lands on one command of a pair but not the other; above
    # half the CPUs busy, a single run can even put hookrig below its baseline.
    if awk -v a="${load_before##*load average: }" -v b="${load_after##*load average: }" \
        -v cpus="$(nproc)" 'BEGIN { split(a, x, ", "); split(b, y, ", ");
            exit !((x[1] + 0 > cpus / 2) || (y[1] + 0 > cpus / 2)) }'; then
        echo "warning:   1-minute load above $(($(nproc) / 2)) during the run: re-run on a quieter machine"
    fi
    echo
    printf "%-24s %18s %18s %7s %7s %8s\n" "scenario" "baseline ms (mean)" "hookrig ms (mean)" \
        "ratio" "median" "target"
    row a-one-hook "(a) 1 hook" 2.0
    row b-ten-hooks "(b) 10 serial hooks" 1.3
    row c-200-none-matching "(c) 200 none matching" 2.0
    row d-50-all-dialects "(d) 50, five dialects" 2.0
    echo
    echo "baselines: (a), (c), (d) sh -c true; (b) $ten_sh"
    echo "exports:   $results"
} | tee "$results/summary.txt"
