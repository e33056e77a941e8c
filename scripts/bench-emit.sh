#!/usr/bin/env bash
# End-to-end timing of `hookrig emit`, in-process and through the resident engine, against
# bare process spawns, with hyperfine (and a small HTTP client for the engine's HTTP front).
#
# Every row is measured in ONE hyperfine run (or one run of the HTTP client) together with
# its baseline, so that the ratio compares figures taken on the same machine under the
# same load.
#
# In-process (HOOKRIG_ENGINE=off: the emit loads the config, opens the ledger and spawns
# the hooks itself):
#   (a) one hook `command = "true"`            vs  sh -c true                 target <= 2.0x
#   (b) ten serial hooks `command = "true"`    vs  ten `sh -c true` in a row  target <= 1.3x
#   (c) 200 configured hooks, none matching    vs  sh -c true                 target <= 2.0x
#   (d) 50 hooks in five dialects, none match  vs  sh -c true                 target <= 2.0x
#   (a') (a) with HOOKRIG_ENGINE=on and no engine running (the client's engine check, then
#        the in-process fallback) vs (a) with HOOKRIG_ENGINE=off, both through `env`
#
# Through a running engine (`hookrig engine run`, HOOKRIG_ENGINE=on; `hookrig emit` is a
# client of its socket):
#   (e) one hook `exec = ["/bin/true"]`        vs  sh -c true                 target <= 2.0x
#   (f) one worker hook (Python)               vs  sh -c true                 target <= 1.3x
#   (g) 200 hooks, none matching (as (c))      vs  sh -c true                 target <= 1.3x
#   (h) ten serial `exec = ["/bin/true"]`      vs  ten /bin/true from one sh  target <= 1.1x
#   (i) a Python hook that reads the event and answers allow, spawned per event, vs the
#       same script as a worker; both through the engine        target: worker >= 20x faster
#   (j) POST /emit round trip, one keep-alive client in one process (benches/http_emit.rs):
#       no hooks and one worker hook, vs a minimal HTTP server    target: median <= 0.3 ms
#   (k) throughput of 16 keep-alive HTTP clients, no hooks and one worker hook, every
#       ledger row counted afterwards        target >= 20,000/s and >= 5,000/s; and of 16
#       concurrent `hookrig emit` processes (for comparison: not a way to reach those)
#   (l) the idle engine: CPU ticks over BENCH_IDLE_SECONDS, RSS; the peak RSS of a client
#       `hookrig emit`                        targets: near zero, <= 20 MiB, <= 6 MiB
#   (m) `hookrig --version` vs sh -c true: the floor of any `hookrig emit` process (no
#       target: it says how much of (e)-(h) is the client process itself)
#
# Shell-form hooks run as `/bin/sh -c true`, so every hook costs one spawn of sh, which is
# what the baselines spawn. The baseline of (b) is `sh -c 'sh -c true; ... (ten times)'`:
# one driver process (the outer sh, standing where hookrig stands) that starts ten sh
# processes one after another, each running `true` (a builtin of sh), and waits for each.
# (h)'s hooks are exec-form `/bin/true`, so its baseline is a driver sh that runs
# `/bin/true` ten times (dash forks and execs each). The ledger is on in every scenario
# (the default path under a temporary XDG_STATE_HOME).
#
# Usage: scripts/bench-emit.sh [RESULTS_DIR]
#   RESULTS_DIR         where hyperfine's JSON/CSV exports and summary.txt go
#                       (default: target/bench-emit/<date-time>)
#   BENCH_RUNS=N        runs per command (default 300; (i)'s spawned Python hook gets a
#                       third of them)
#   BENCH_WARMUP=N      warm-up runs per command (default 20)
#   BENCH_NO_BUILD=1    use the existing target/release/hookrig (and http_emit) instead of
#                       building
#   BENCH_KEEP=1        keep the temporary HOME and projects (their path is printed)
#   BENCH_ONLY=LIST     run only these groups: inprocess, engine, http, idle (default all)
#   BENCH_HTTP_SAMPLES=N     round trips per HTTP latency row (default 5000)
#   BENCH_SECONDS=S          seconds per throughput row (default 5)
#   BENCH_IDLE_SECONDS=S     idle window of (l) (default 30)
#   BENCH_BASE=PATH     another build of hookrig (an older commit's target/release/hookrig):
#                       rows (a)-(d) and (m) are then run again with both builds in one
#                       hyperfine run each, beside `sh -c true`, each build with its own
#                       ledger file, and the summary gives this build's mean over the
#                       other's (the "no scenario slower than before" check)
#   BENCH_ROUNDS=N      with BENCH_BASE: split each build-against-build row into N hyperfine
#                       runs of BENCH_RUNS/N runs each, alternating which build goes
#                       first (default 6), so that a load that comes and goes during the
#                       row lands on both builds alike; the summary adds the rounds up
#   BENCH_PYTHON=PATH   the Python of (f), (i), (j), (k) (default: the python3 on PATH,
#                       resolved to its real executable, so that no wrapper script such as
#                       a version manager's shim is timed)
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
# Installs nothing. Needs hyperfine (Debian/Ubuntu: `apt-get install hyperfine`), python3,
# sqlite3 (to count ledger rows) and GNU time (`/usr/bin/time`, for peak RSS); a group
# whose tool is missing is skipped with a note.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

runs="${BENCH_RUNS:-300}"
rounds="${BENCH_ROUNDS:-6}"
warmup="${BENCH_WARMUP:-20}"
http_samples="${BENCH_HTTP_SAMPLES:-5000}"
seconds="${BENCH_SECONDS:-5}"
idle_seconds="${BENCH_IDLE_SECONDS:-30}"
only=" ${BENCH_ONLY:-inprocess engine http idle} "
only="${only//,/ }"
wants() { [[ "$only" == *" $1 "* ]]; }

if ! command -v hyperfine >/dev/null 2>&1; then
    cat >&2 <<'EOF'
bench-emit: hyperfine is not installed.
  Debian/Ubuntu: sudo apt-get install hyperfine
  elsewhere:     cargo install hyperfine
EOF
    exit 1
fi
# Optional tools: a group that needs a missing one is skipped with a note.
missing=""
have() {
    command -v "$1" >/dev/null 2>&1 && return 0
    missing="$missing $1"
    return 1
}

# --- build -------------------------------------------------------------------------------

source "$repo/scripts/lib/target.sh"
target_dir="$(release_target_dir)"
build_release_hookrig
# The http_emit bench in an invocation of its own, so that its dev-dependencies' features
# stay out of the binary measured.
if [[ "${BENCH_NO_BUILD:-0}" != 1 ]] && wants http; then
    cargo build --release --locked -p hookrig-runtime --bench http_emit
fi

results="${1:-$target_dir/bench-emit/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/hookrig-bench.XXXXXX")"
engine_pid=""
cleanup() {
    if [[ -n "$engine_pid" ]]; then
        kill -TERM "$engine_pid" 2>/dev/null || true
        wait "$engine_pid" 2>/dev/null || true
    fi
    if [[ "${BENCH_KEEP:-0}" == 1 ]]; then
        echo "bench-emit: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

# Private copies: the shared target directory may be rebuilt while the benchmark runs.
hookrig="$work/hookrig"
cp "$target_dir/release/hookrig" "$hookrig"
http_emit=""
if wants http; then
    # The bench binary of benches/http_emit.rs (a hash in its name): the newest one.
    built="$(ls -t "$target_dir"/release/deps/http_emit-* 2>/dev/null | grep -v '\.d$' | head -n 1 || true)"
    if [[ -n "$built" ]]; then
        http_emit="$work/http_emit"
        cp "$built" "$http_emit"
    else
        missing="$missing http_emit(cargo build --release -p hookrig-runtime --bench http_emit)"
    fi
fi
python=""
if have python3; then
    # The interpreter itself, not a wrapper (a version manager's shim is a shell script
    # that would add its own start-up to every spawned hook).
    python="${BENCH_PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}"
fi

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

# The 1-minute load average, for the summary.
load() { awk '{print $1}' /proc/loadavg; }

# --- scenarios ---------------------------------------------------------------------------

# make_scenario, in_env and the hooks of rows (a)-(d).
source "$(dirname "${BASH_SOURCE[0]}")/lib/scenarios.sh"

# N hooks on tool.before that all run `/bin/true` directly (exec form: no shell).
exec_true_hooks() {
    local i
    for ((i = 1; i <= $1; i++)); do
        printf '[[hooks]]\nname = "exec-true-%02d"\nevents = ["tool.before"]\nexec = ["/bin/true"]\n\n' "$i"
    done
}

# One hook running the Python script of python_hook: as a worker (`worker = true`, one
# process kept by the engine) when $1 is "worker", else spawned for each event.
python_hooks() {
    if [[ "$1" == worker ]]; then
        printf '[[hooks]]\nname = "py-worker"\nevents = ["tool.before"]\nexec = ["%s", "%s", "--worker"]\nworker = true\n' \
            "$python" "$engine_dir/hook.py"
    else
        printf '[[hooks]]\nname = "py-spawned"\nevents = ["tool.before"]\nexec = ["%s", "%s"]\n' \
            "$python" "$engine_dir/hook.py"
    fi
}

# The Python hook of (f), (i), (j), (k): it reads the event and answers allow. Spawned, it
# reads one event on stdin and exits 0 with nothing on stdout (allow); with --worker it
# serves one event per line through the helper of examples/workers.
python_hook() {
    cp "$repo/examples/workers/hookrig_worker.py" "$1/hookrig_worker.py"
    cat >"$1/hook.py" <<'EOF'
import json
import os
import sys


def allow(event, payload):
    return None


if sys.argv[1:] == ["--worker"]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from hookrig_worker import serve

    serve(allow)
else:
    event = json.load(sys.stdin)
    allow(event.get("event"), event)
EOF
}

# Runs hookrig once in a scenario's environment and checks that the expected number of
# hooks answered allow; a broken config must not be timed as a fast emit.
# check DIR PROJECT EXPECTED
check() {
    local dir="$1" project="$2" expected="$3" out ran
    out="$(in_env "$dir" "$hookrig" emit tool.before --cwd "$project" <"$dir/payload.json")" || {
        echo "bench-emit: hookrig emit failed in $project" >&2
        exit 1
    }
    ran="$({ grep -o '"result":"allow"' <<<"$out" || true; } | wc -l)"
    if [[ "$ran" -ne "$expected" ]]; then
        echo "bench-emit: expected $expected hooks to run in $project, $ran did: $out" >&2
        exit 1
    fi
    if [[ "$out" == *'"warnings":["'* ]]; then
        echo "bench-emit: unexpected warnings in $project: $out" >&2
        exit 1
    fi
}

# The command line of `hookrig emit` in PROJECT for this payload mode (a string for
# hyperfine; PREFIX, e.g. `env HOOKRIG_ENGINE=on`, goes before it).
emit_cmd() {
    local project="$1" prefix="${2:-}" dir="$3" cmd
    cmd="$prefix$(printf '%q ' "$hookrig" emit tool.before --cwd "$project")"
    case "$payload_mode" in
        input) printf '%s' "$cmd" ;;
        flags) printf '%s' "$cmd--tool bash" ;;
        redirect) printf '%s' "$cmd< $(printf '%q' "$dir/payload.json")" ;;
    esac
}

# One hyperfine run of two commands in DIR's environment, exported as NAME.{json,csv}.
# pair NAME DIR RUNS NAME1 CMD1 NAME2 CMD2
pair() {
    local name="$1" dir="$2" n="$3"
    local args=(--warmup "$warmup" --runs "$n" --style basic
        --export-json "$results/$name.json" --export-csv "$results/$name.csv")
    case "$payload_mode" in
        input) args+=(-N --input "$dir/payload.json") ;;
        flags) args+=(-N) ;;
        redirect) ;;
    esac
    args+=(-n "$4" "$5" -n "$6" "$7")
    echo "bench-emit: $name" >&2
    in_env "$dir" hyperfine "${args[@]}" </dev/null >&2
}

# bench NAME DIR BASELINE_NAME BASELINE_CMD [PROJECT]: the baseline against `hookrig emit`
# in PROJECT (default DIR/project), in-process or as $engine_mode says.
bench() {
    local name="$1" dir="$2" project="${5:-$2/project}"
    pair "$name" "$dir" "$runs" "$3" "$4" "hookrig emit ($name)" "$(emit_cmd "$project" "" "$dir")"
}

ten_sh="sh -c '$(printf 'sh -c true; %.0s' {1..9})sh -c true'"
ten_true="sh -c '$(printf '/bin/true; %.0s' {1..9})/bin/true'"
loads=""

# --- in-process: (a)-(d), (a') -----------------------------------------------------------

if wants inprocess; then
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

    check "$a" "$a/project" 1
    check "$b" "$b/project" 10
    check "$c" "$c/project" 0
    check "$d" "$d/project" 0

    loads="$loads in-process $(load)"
    bench a-one-hook "$a" "sh -c true" "sh -c true"
    bench b-ten-hooks "$b" "10x sh -c true" "$ten_sh"
    bench c-200-none-matching "$c" "sh -c true" "sh -c true"
    bench d-50-all-dialects "$d" "sh -c true" "sh -c true"
    # What the engine check costs an emit that then runs in-process: HOOKRIG_ENGINE=on
    # with no engine listening (read the mode, build the request, one failed connect)
    # against HOOKRIG_ENGINE=off (no check at all); both through `env`, which adds the
    # same exec to each.
    pair a2-engine-check "$a" "$runs" "HOOKRIG_ENGINE=off" "$(emit_cmd "$a/project" "env HOOKRIG_ENGINE=off " "$a")" \
        "HOOKRIG_ENGINE=on (no engine runs)" "$(emit_cmd "$a/project" "env HOOKRIG_ENGINE=on " "$a")"
    loads="$loads→$(load)"
fi

# --- build against build: (a)-(d) and (m) with BENCH_BASE -------------------------------

# The emit of `pair`'s commands, by the build BIN with the ledger file LEDGER.
# build_cmd BIN PROJECT DIR LEDGER
build_cmd() {
    local cmd
    cmd="$(printf '%q ' "$1" --ledger "$4" emit tool.before --cwd "$2")"
    case "$payload_mode" in
        input) printf '%s' "$cmd" ;;
        flags) printf '%s' "$cmd--tool bash" ;;
        redirect) printf '%s' "$cmd< $(printf '%q' "$3/payload.json")" ;;
    esac
}

# The other build and this one, with `sh -c true` beside them, in $rounds hyperfine runs
# of $runs/$rounds runs each, exported as builds-NAME-rN.{json,csv}. hyperfine runs each
# command's runs in one block, so a load that rises during a row would land on whichever
# build ran second: the rounds alternate the order, and the summary adds them up.
# builds NAME DIR CMD_BASE CMD_THIS
builds() {
    local name="$1" dir="$2" round
    local per_round=$(((runs + rounds - 1) / rounds))
    for ((round = 1; round <= rounds; round++)); do
        local args=(--warmup "$warmup" --runs "$per_round" --style basic
            --export-json "$results/builds-$name-r$round.json"
            --export-csv "$results/builds-$name-r$round.csv")
        case "$payload_mode" in
            input) args+=(-N --input "$dir/payload.json") ;;
            flags) args+=(-N) ;;
            redirect) ;;
        esac
        args+=(-n "sh -c true" "sh -c true")
        if ((round % 2)); then
            args+=(-n "other build" "$3" -n "this build" "$4")
        else
            args+=(-n "this build" "$4" -n "other build" "$3")
        fi
        echo "bench-emit: builds-$name (round $round of $rounds)" >&2
        in_env "$dir" hyperfine "${args[@]}" </dev/null >&2
    done
}

if [[ -n "${BENCH_BASE:-}" ]] && wants inprocess; then
    base="$work/hookrig-base"
    cp "$BENCH_BASE" "$base"
    loads="$loads; builds $(load)"
    for row in "a-one-hook $a" "b-ten-hooks $b" "c-200-none-matching $c" "d-50-all-dialects $d"; do
        set -- $row
        builds "$1" "$2" "$(build_cmd "$base" "$2/project" "$2" "$2/base-ledger.db")" \
            "$(build_cmd "$hookrig" "$2/project" "$2" "$2/this-ledger.db")"
    done
    builds m-version "$a" "$(printf '%q' "$base") --version" "$(printf '%q' "$hookrig") --version"
    loads="$loads→$(load)"
fi

# --- through the engine: (e)-(l) ---------------------------------------------------------

engine_dir=""
if wants engine || wants http || wants idle; then
    if [[ -z "$python" ]]; then
        echo "bench-emit: python3 is needed for the engine rows" >&2
        exit 1
    fi
    # One HOME, one engine, one ledger; a project per row.
    engine_dir="$(make_scenario engine)"
    e="$engine_dir"
    python_hook "$e"
    for p in e-exec-true f-worker g-200-none-matching h-ten-exec-true i-spawned j-no-hooks; do
        mkdir -p "$e/$p/.git" "$e/$p/.hookrig"
    done
    exec_true_hooks 1 >"$e/e-exec-true/.hookrig/hooks.toml"
    python_hooks worker >"$e/f-worker/.hookrig/hooks.toml"
    none_matching_hooks >"$e/g-200-none-matching/.hookrig/hooks.toml"
    exec_true_hooks 10 >"$e/h-ten-exec-true/.hookrig/hooks.toml"
    python_hooks spawned >"$e/i-spawned/.hookrig/hooks.toml"
    for p in e-exec-true f-worker g-200-none-matching h-ten-exec-true i-spawned; do
        in_env "$e" "$hookrig" trust "$e/$p" >/dev/null
    done
    # The HTTP front's bodies: the event's directory is the payload's session.cwd.
    for p in f-worker j-no-hooks; do
        printf '{"session":{"id":"bench-http","cwd":"%s"},"tool":{"name":"bash","call_id":"call_1","input":{"command":"cargo test --workspace","description":"Run the tests"}}}\n' \
            "$e/$p" >"$e/$p.body.json"
    done

    # The engine: `hookrig engine start` runs `hookrig engine run --idle 10m` in the
    # background; it is run here directly, to add the HTTP front and to know its pid.
    port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    # env(1) execs hookrig: $! is the engine's pid.
    env_of "$e"
    env "${scenario_env[@]}" "$hookrig" engine run --idle 0s --http "127.0.0.1:$port" >"$e/engine.log" 2>&1 &
    engine_pid=$!
    for _ in $(seq 100); do
        in_env "$e" "$hookrig" engine status >/dev/null 2>&1 && break
        sleep 0.1
    done
    if ! in_env "$e" "$hookrig" engine status --json 2>/dev/null | grep -q "\"pid\": *$engine_pid\b"; then
        echo "bench-emit: the engine did not start (or is not pid $engine_pid):" >&2
        cat "$e/engine.log" >&2
        exit 1
    fi
    token="$e/home/.local/state/hookrig/http.token"
    ledger="$e/home/.local/state/hookrig/ledger.db"
    answered() { in_env "$e" "$hookrig" engine status --json | grep -o '"answered": *[0-9]*' | head -n 1 | grep -o '[0-9]*$'; }
    rows() { sqlite3 "$ledger" 'SELECT count(*) FROM emits'; }

    # Every engine row's emit is answered by the engine, and answers as expected.
    before="$(answered)"
    engine_mode=on check "$e" "$e/e-exec-true" 1
    engine_mode=on check "$e" "$e/f-worker" 1
    engine_mode=on check "$e" "$e/g-200-none-matching" 0
    engine_mode=on check "$e" "$e/h-ten-exec-true" 10
    engine_mode=on check "$e" "$e/i-spawned" 1
    engine_mode=on check "$e" "$e/j-no-hooks" 0
    if [[ "$(answered)" -ne $((before + 6)) ]]; then
        echo "bench-emit: the engine did not answer the check emits (answered $before → $(answered))" >&2
        exit 1
    fi
fi

if wants engine; then
    loads="$loads; engine $(load)"
    export engine_mode=on
    # The floor of any `hookrig emit` process: the binary started, its arguments parsed,
    # nothing else.
    pair m-process-floor "$e" "$runs" "sh -c true" "sh -c true" "hookrig --version" "$(printf '%q' "$hookrig") --version"
    bench e-exec-true "$e" "sh -c true" "sh -c true" "$e/e-exec-true"
    bench f-worker "$e" "sh -c true" "sh -c true" "$e/f-worker"
    bench g-200-none-matching "$e" "sh -c true" "sh -c true" "$e/g-200-none-matching"
    bench h-ten-exec-true "$e" "10x /bin/true" "$ten_true" "$e/h-ten-exec-true"
    # A Python start is tens of milliseconds: a third of the runs keeps this row short.
    pair i-python-spawned-vs-worker "$e" "$(((runs + 2) / 3))" \
        "spawned per event" "$(emit_cmd "$e/i-spawned" "" "$e")" \
        "worker" "$(emit_cmd "$e/f-worker" "" "$e")"
    unset engine_mode
    loads="$loads→$(load)"
fi

# key=value from a line of http_emit's output.
field() { grep -o "\\b$2=[^ ]*" "$1" | head -n 1 | cut -d= -f2; }

if wants http && [[ -n "$http_emit" ]] && have sqlite3; then
    loads="$loads; http $(load)"
    echo "bench-emit: j-http-latency" >&2
    "$http_emit" latency baseline "$token" "$e/j-no-hooks.body.json" "$http_samples" | tee "$results/j-baseline.txt" >&2
    # The engine's own CPU time per emit (utime + stime over the run, in clock ticks):
    # unlike wall time, hardly changed by other work on the machine.
    engine_ticks() { awk '{print $14 + $15}' "/proc/$engine_pid/stat"; }
    hz="$(getconf CLK_TCK)"
    for t in "j-no-hooks j-no-hooks" "j-worker f-worker"; do
        set -- $t
        t0="$(engine_ticks)"
        "$http_emit" latency "127.0.0.1:$port" "$token" "$e/$2.body.json" "$http_samples" >"$results/$1.txt"
        t1="$(engine_ticks)"
        awk -v ticks=$((t1 - t0)) -v hz="$hz" -v n="$(field "$results/$1.txt" requests)" \
            'BEGIN { printf "engine_cpu_us=%.0f\n", ticks / hz * 1e6 / n }' >>"$results/$1.txt"
        cat "$results/$1.txt" >&2
    done

    # Throughput; the ledger's emit rows are counted before and after each.
    for t in "k-http-no-hooks j-no-hooks" "k-http-worker f-worker"; do
        set -- $t
        echo "bench-emit: $1 (16 keep-alive HTTP clients, ${seconds}s)" >&2
        before="$(rows)"
        t0="$(engine_ticks)"
        "$http_emit" throughput "127.0.0.1:$port" "$token" "$e/$2.body.json" 16 "$seconds" >"$results/$1.txt"
        t1="$(engine_ticks)"
        after="$(rows)"
        echo "rows=$((after - before))" >>"$results/$1.txt"
        awk -v ticks=$((t1 - t0)) -v hz="$hz" -v n="$(field "$results/$1.txt" requests)" \
            'BEGIN { printf "engine_cpu_us=%.0f\n", ticks / hz * 1e6 / n }' >>"$results/$1.txt"
        cat "$results/$1.txt" >&2
    done
    echo "bench-emit: k-http-baseline (16 keep-alive HTTP clients, minimal server, ${seconds}s)" >&2
    "$http_emit" throughput baseline "$token" "$e/j-no-hooks.body.json" 16 "$seconds" | tee "$results/k-http-baseline.txt" >&2

    # 16 concurrent `hookrig emit` processes through the engine's socket, as hosts that
    # start one per event would.
    process_emits=$((seconds * 400))
    for t in "k-process-no-hooks j-no-hooks" "k-process-worker f-worker"; do
        set -- $t
        echo "bench-emit: $1 (16 concurrent hookrig emit processes, $process_emits emits)" >&2
        before="$(rows)"
        start_ns="$(date +%s%N)"
        seq "$process_emits" | engine_mode=on in_env "$e" xargs -P 16 -I{} \
            "$hookrig" emit tool.before --tool bash --cwd "$e/$2" >/dev/null
        end_ns="$(date +%s%N)"
        after="$(rows)"
        awk -v n="$process_emits" -v ns=$((end_ns - start_ns)) -v r=$((after - before)) \
            'BEGIN { printf "clients=16 requests=%d seconds=%.3f per_s=%.0f rows=%d\n", n, ns / 1e9, n / (ns / 1e9), r }' \
            | tee "$results/$1.txt" >&2
    done
    loads="$loads→$(load)"
fi

if wants idle && [[ -n "$engine_pid" ]]; then
    loads="$loads; idle $(load)"
    # Peak RSS of a client emit through the engine, and of an in-process emit for
    # comparison: the largest of five runs each.
    peak_rss() {
        local i max=0 kb
        for i in 1 2 3 4 5; do
            kb="$(in_env "$e" /usr/bin/time -f '%M' "$hookrig" emit tool.before --tool bash \
                --cwd "$e/e-exec-true" 2>&1 >/dev/null </dev/null | tail -n 1)"
            ((kb > max)) && max=$kb
        done
        echo "$max"
    }
    if [[ -x /usr/bin/time ]]; then
        client_kb="$(engine_mode=on peak_rss)"
        inprocess_kb="$(engine_mode=off peak_rss)"
    else
        missing="$missing /usr/bin/time"
        client_kb=0 inprocess_kb=0
    fi
    echo "bench-emit: l-idle (${idle_seconds}s)" >&2
    sleep 2
    ticks() { awk '{print $14 + $15}' "/proc/$engine_pid/stat"; }
    busy_kb="$(awk '/^VmRSS/ {print $2}' "/proc/$engine_pid/status")"
    busy_threads="$(ls "/proc/$engine_pid/task" | wc -l)"
    t0="$(ticks)"
    sleep "$idle_seconds"
    t1="$(ticks)"
    {
        echo "idle_seconds=$idle_seconds ticks=$((t1 - t0)) hz=$(getconf CLK_TCK)"
        echo "rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$engine_pid/status") hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$engine_pid/status") threads=$(ls "/proc/$engine_pid/task" | wc -l) busy_rss_kb=$busy_kb busy_threads=$busy_threads"
        echo "client_peak_kb=$client_kb inprocess_peak_kb=$inprocess_kb"
    } | tee "$results/l-idle.txt" >&2
    loads="$loads→$(load)"
fi

# --- summary -----------------------------------------------------------------------------

# CSV columns: command,mean,stddev,median,user,system,min,max (seconds); row 1 is the
# baseline, row 2 hookrig.
# The verdict is on the ratio of the means; the ratio of the medians is shown beside it
# because on a shared machine a few slow runs move the means.
row() {
    [[ -f "$results/$1.csv" ]] || return 0
    awk -F, -v label="$2" -v target="$3" '
        NR == 2 { bm = $2; bs = $3; bmed = $4 }
        NR == 3 { hm = $2; hs = $3; hmed = $4 }
        END {
            r = hm / bm
            verdict = (target == "-") ? "" : ((r <= target) ? "met" : "MISSED")
            printf "%-30s %9.3f ± %-6.3f %9.3f ± %-6.3f %6.2fx %6.2fx %7s  %s\n",
                label, bm * 1000, bs * 1000, hm * 1000, hs * 1000, r, hmed / bmed,
                (target == "-") ? "(floor)" : "<= " target "x", verdict
        }' "$results/$1.csv"
}

# As row, for a target on how many times FASTER the second command is than the first.
row_faster() {
    [[ -f "$results/$1.csv" ]] || return 0
    awk -F, -v label="$2" -v target="$3" '
        NR == 2 { bm = $2; bs = $3; bmed = $4 }
        NR == 3 { hm = $2; hs = $3; hmed = $4 }
        END {
            r = bm / hm
            verdict = (r >= target) ? "met" : "MISSED"
            printf "%-30s %9.3f ± %-6.3f %9.3f ± %-6.3f %6.1fx %6.1fx %7s  %s\n",
                label, bm * 1000, bs * 1000, hm * 1000, hs * 1000, r, bmed / hmed,
                ">= " target "x", verdict
        }' "$results/$1.csv"
}

# The difference of the two means of a pair, in ms (for (a')).
row_delta() {
    [[ -f "$results/$1.csv" ]] || return 0
    awk -F, -v label="$2" '
        NR == 2 { bm = $2; bs = $3; bmed = $4 }
        NR == 3 { hm = $2; hs = $3; hmed = $4 }
        END {
            printf "%-30s %9.3f ± %-6.3f %9.3f ± %-6.3f %6.2fx %6.2fx  %+.3f ms (median %+.3f ms)\n",
                label, bm * 1000, bs * 1000, hm * 1000, hs * 1000, hm / bm, hmed / bmed,
                (hm - bm) * 1000, (hmed - bmed) * 1000
        }' "$results/$1.csv"
}

latency_row() {
    local file="$results/$1.txt" base="$results/j-baseline.txt"
    [[ -f "$file" ]] || return 0
    awk -v label="$2" -v med="$(field "$file" median_us)" -v p95="$(field "$file" p95_us)" \
        -v failed="$(field "$file" failed)" -v bmed="$(field "$base" median_us)" \
        -v cpu="$(field "$file" engine_cpu_us)" '
        BEGIN {
            verdict = (med <= 300 && failed == 0) ? "met" : "MISSED"
            printf "%-30s median %7.1f µs  p95 %7.1f µs  %5.1fx the minimal server (%.1f µs)  engine CPU %d µs/emit  <= 300 µs  %s\n",
                label, med, p95, med / bmed, bmed, cpu, verdict
        }'
}

throughput_row() {
    local file="$results/$1.txt"
    [[ -f "$file" ]] || return 0
    awk -v label="$2" -v target="$3" -v per_s="$(field "$file" per_s)" \
        -v requests="$(field "$file" requests)" -v rows="$(field "$file" rows)" \
        -v failed="$(field "$file" failed)" -v cpu="$(field "$file" engine_cpu_us)" '
        BEGIN {
            if (failed == "") failed = 0
            lost = requests - rows
            verdict = (target == "" ? "—" : ((per_s >= target && failed == 0 && lost == 0) ? "met" : "MISSED"))
            recorded = (rows == "" ? "no ledger" : rows " ledger rows (" (lost == 0 ? "all present" : lost " missing") ")")
            if (cpu != "") recorded = recorded ", engine CPU " cpu " µs/emit"
            printf "%-30s %8d/s  %7d emits, %s  %s  %s\n",
                label, per_s, requests, recorded, (target == "" ? "" : ">= " target "/s"), verdict
        }'
}

{
    echo "hookrig emit vs bare spawns (ledger on; $runs runs, $warmup warm-up runs each)"
    echo "commit:    $commit"
    echo "machine:   $(nproc) CPUs, $cpu"
    echo "hyperfine: $hyperfine_version, $mode"
    [[ -n "$python" ]] && echo "python:    $("$python" --version 2>&1) ($python)"
    echo "load:      1-minute load before→after each group:$loads"
    # Other work on the machine lands on one command of a pair but not the other; above
    # half the CPUs busy, a single run can even put hookrig below its baseline.
    if awk -v loads="$loads" -v cpus="$(nproc)" 'BEGIN {
            n = split(loads, w, /[^0-9.]+/); for (i = 1; i <= n; i++) if (w[i] + 0 > cpus / 2) exit 0; exit 1 }'; then
        echo "warning:   1-minute load above $(($(nproc) / 2)) during the run: re-run on a quieter machine"
    fi
    [[ -n "$missing" ]] && echo "skipped:   rows needing:$missing"
    echo
    printf "%-30s %18s %18s %7s %7s %8s\n" "scenario" "baseline ms (mean)" "hookrig ms (mean)" \
        "ratio" "median" "target"
    row a-one-hook "(a) 1 hook" 2.0
    row b-ten-hooks "(b) 10 serial hooks" 1.3
    row c-200-none-matching "(c) 200 none matching" 2.0
    row d-50-all-dialects "(d) 50, five dialects" 2.0
    row_delta a2-engine-check "(a') engine check, none runs"
    row m-process-floor "(m) hookrig --version" "-"
    row e-exec-true "(e) engine: 1 exec hook" 2.0
    row f-worker "(f) engine: 1 worker hook" 1.3
    row g-200-none-matching "(g) engine: 200 none matching" 1.3
    row h-ten-exec-true "(h) engine: 10 exec hooks" 1.1
    row_faster i-python-spawned-vs-worker "(i) engine: Python worker" 20
    for name in a-one-hook b-ten-hooks c-200-none-matching d-50-all-dialects m-version; do
        compgen -G "$results/builds-$name-r*.csv" >/dev/null || continue
        # Each round's rows by name (the order alternates); wall-clock means summed over
        # the rounds, and user + system CPU, which other work on the machine moves less.
        awk -F, -v label="$name" '
            FNR == 1 { rounds++; next }
            { mean[$1] += $2; cpu[$1] += $5 + $6; med[$1] += $4 }
            $1 == "other build" { other[rounds] = $2 }
            $1 == "this build" { this[rounds] = $2 }
            END {
                spread = ""
                for (i = 1; i <= rounds; i++) spread = spread sprintf(" %.2f", this[i] / other[i])
                printf "%-30s sh %7.3f  other %7.3f  this %7.3f ms  this/other %5.2fx (median %5.2fx, CPU %5.2fx)  %s\n",
                    "builds: " label, mean["sh -c true"] / rounds * 1000,
                    mean["other build"] / rounds * 1000, mean["this build"] / rounds * 1000,
                    mean["this build"] / mean["other build"], med["this build"] / med["other build"],
                    cpu["this build"] / cpu["other build"],
                    (mean["this build"] <= mean["other build"]) ? "not slower" : "SLOWER"
                printf "%-30s per round, this/other:%s\n", "", spread
            }' "$results"/builds-"$name"-r*.csv
    done
    echo
    latency_row j-no-hooks "(j) POST /emit, no hooks"
    latency_row j-worker "(j) POST /emit, 1 worker hook"
    throughput_row k-http-no-hooks "(k) 16 HTTP clients, no hooks" 20000
    throughput_row k-http-worker "(k) 16 HTTP clients, worker" 5000
    throughput_row k-http-baseline "(k) 16 HTTP, minimal server" ""
    throughput_row k-process-no-hooks "(k) 16 emit processes, none" ""
    throughput_row k-process-worker "(k) 16 emit processes, worker" ""
    if [[ -f "$results/l-idle.txt" ]]; then
        awk -v ticks="$(field "$results/l-idle.txt" ticks)" -v hz="$(field "$results/l-idle.txt" hz)" \
            -v secs="$idle_seconds" -v rss="$(field "$results/l-idle.txt" rss_kb)" \
            -v hwm="$(field "$results/l-idle.txt" hwm_kb)" -v threads="$(field "$results/l-idle.txt" threads)" \
            -v busy="$(field "$results/l-idle.txt" busy_rss_kb)" -v bthreads="$(field "$results/l-idle.txt" busy_threads)" \
            -v client="$(field "$results/l-idle.txt" client_peak_kb)" \
            -v inproc="$(field "$results/l-idle.txt" inprocess_peak_kb)" 'BEGIN {
            printf "%-30s %d ticks in %d s (%.3f %% of one CPU)  near zero\n", "(l) idle engine CPU", ticks, secs, 100 * ticks / hz / secs
            printf "%-30s %.1f MiB, %d threads (at the start of the window %.1f MiB, %d threads; peak %.1f MiB)  <= 20 MiB  %s\n", "(l) idle engine RSS", rss / 1024, threads, busy / 1024, bthreads, hwm / 1024, (rss <= 20480 ? "met" : "MISSED")
            printf "%-30s %.1f MiB (in-process emit: %.1f MiB)  <= 6 MiB  %s\n", "(l) client emit peak RSS", client / 1024, inproc / 1024, (client <= 6144 && client > 0 ? "met" : "MISSED")
        }'
    fi
    echo
    echo "baselines: (a), (c), (d), (e)-(g), (m) sh -c true; (b) $ten_sh; (h) $ten_true;"
    echo "           (a') the same emit with HOOKRIG_ENGINE=off; (i) the script spawned per event;"
    echo "           (j), (k) a minimal keep-alive HTTP server in the client's process"
    echo "exports:   $results"
} | tee "$results/summary.txt"
