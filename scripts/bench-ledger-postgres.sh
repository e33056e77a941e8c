#!/usr/bin/env bash
# Emits through the resident engine with the ledger on PostgreSQL against the same with
# the ledger in SQLite, in one run: the engine's HTTP front (`hookrig engine run --http`)
# driven by the http_emit bench of hookrig-runtime, in alternating rounds (SQLite, then
# PostgreSQL, BENCH_ROUNDS times), so that both see the same machine under the same load.
#
# Each emit is `tool.before` with one configured hook that listens to it and does not
# match: no process is started, and the emit writes what an emit with hooks writes (its
# start, then its end with one hook row). The engine records into PostgreSQL when the
# user's config.toml names a database (`[store] url`), into the SQLite ledger when not.
#
# Rows, each for both ledgers:
#   latency      one keep-alive client, round trips one after another: median and p95
#   throughput   1 client and 16 clients for BENCH_SECONDS each: emits per second
# The summary gives PostgreSQL's figure over SQLite's, per round and as the median.
#
# Usage: HOOKRIG_TEST_POSTGRES=postgresql://... scripts/bench-ledger-postgres.sh
#   HOOKRIG_TEST_POSTGRES   the cluster; a database of its own is created and dropped
#   CARGO_TARGET_DIR        where to build (default target/); release, without LTO
#   BENCH_NO_BUILD=1        use the release builds already there
#   BENCH_ROUNDS=N          rounds (default 3)
#   BENCH_SECONDS=S         seconds per throughput row (default 5)
#   BENCH_SAMPLES=N         round trips per latency row (default 2000)
#
# Needs psql (to create the database) and the Rust toolchain.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
rounds="${BENCH_ROUNDS:-3}"
seconds="${BENCH_SECONDS:-5}"
samples="${BENCH_SAMPLES:-2000}"
cluster="${HOOKRIG_TEST_POSTGRES:?set HOOKRIG_TEST_POSTGRES to a postgres:// URL of the cluster}"

if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
    # LTO off: the build takes minutes instead of tens of minutes, and both ledgers are
    # measured with the same binary.
    (cd "$repo" && cargo build --release --locked -p hookrig-cli --config profile.release.lto=false)
    (cd "$repo" && cargo build --release --locked -p hookrig-runtime --bench http_emit --config profile.release.lto=false)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/hookrig-bench-ledger.XXXXXX")"
engine_pid=""
database="hookrig_bench_ledger_$$"
cleanup() {
    if [[ -n "$engine_pid" ]]; then
        kill -TERM "$engine_pid" 2>/dev/null || true
        wait "$engine_pid" 2>/dev/null || true
    fi
    psql "$cluster" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

hookrig="$work/hookrig"
cp "$target_dir/release/hookrig" "$hookrig"
http_emit="$(ls -t "$target_dir"/release/deps/http_emit-* | grep -v '\.d$' | head -n 1)"
cp "$http_emit" "$work/http_emit"
http_emit="$work/http_emit"

psql "$cluster" -qc "CREATE DATABASE $database" >/dev/null
# The cluster's URL with the database's name in place of its own.
url="$(printf '%s' "$cluster" | sed -E "s#^(postgres(ql)?://[^/]*/)[^?]*#\1$database#")"

home="$work/home"
mkdir -p "$home/.config/hookrig" "$home/run" "$work/project"
chmod 700 "$home/run"
cat >"$home/.config/hookrig/hooks.toml" <<'EOF'
[[hooks]]
name = "never"
events = ["tool.before"]
matcher = "^never$"
command = "exit 2"
EOF
printf '{"session":{"id":"bench-ledger","cwd":"%s"},"tool":{"name":"Write","input":{"path":"README.md"}}}\n' \
    "$work/project" >"$work/body.json"
vars=(HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_STATE_HOME="$home/.local/state"
    XDG_DATA_HOME="$home/.local/share" XDG_RUNTIME_DIR="$home/run")

# Starts an engine recording into `$1` (sqlite or postgres) and sets engine_pid and port.
start_engine() {
    if [[ "$1" == postgres ]]; then
        printf '[store]\nurl = "%s"\n' "$url" >"$home/.config/hookrig/config.toml"
    else
        rm -f "$home/.config/hookrig/config.toml"
    fi
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    # env(1) execs hookrig: $! is the engine's pid.
    env "${vars[@]}" "$hookrig" engine run --idle 0s --http "127.0.0.1:$port" >"$work/engine.log" 2>&1 &
    engine_pid=$!
    for _ in $(seq 100); do
        env "${vars[@]}" "$hookrig" engine status >/dev/null 2>&1 && return
        sleep 0.1
    done
    echo "bench-ledger-postgres: the engine did not start:" >&2
    cat "$work/engine.log" >&2
    exit 1
}

stop_engine() {
    kill -TERM "$engine_pid"
    wait "$engine_pid" || true
    engine_pid=""
}

token="$home/.local/state/hookrig/http.token"
field() { grep -o "$1=[0-9.]*" | cut -d= -f2; }
declare -A figures
for round in $(seq "$rounds"); do
    for ledger in sqlite postgres; do
        start_engine "$ledger"
        lat="$("$http_emit" latency "127.0.0.1:$port" "$token" "$work/body.json" "$samples")"
        one="$("$http_emit" throughput "127.0.0.1:$port" "$token" "$work/body.json" 1 "$seconds")"
        many="$("$http_emit" throughput "127.0.0.1:$port" "$token" "$work/body.json" 16 "$seconds")"
        stop_engine
        figures[$round,$ledger,median]="$(field median_us <<<"$lat")"
        figures[$round,$ledger,p95]="$(field p95_us <<<"$lat")"
        figures[$round,$ledger,one]="$(field per_s <<<"$one")"
        figures[$round,$ledger,many]="$(field per_s <<<"$many")"
        echo "round $round $ledger: median ${figures[$round,$ledger,median]} us, p95 ${figures[$round,$ledger,p95]} us, 1 client ${figures[$round,$ledger,one]}/s, 16 clients ${figures[$round,$ledger,many]}/s"
    done
done
rows="$(psql "$url" -Atc 'SELECT count(*) FROM emits')"
echo "rows in the PostgreSQL ledger: $rows"

echo
echo "postgres / sqlite, per round, then the median:"
for row in median p95 one many; do
    ratios=()
    for round in $(seq "$rounds"); do
        ratios+=("$(python3 -c "print(f'{${figures[$round,postgres,$row]} / ${figures[$round,sqlite,$row]}:.2f}')")")
    done
    median="$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    echo "$row: ${ratios[*]} -> $median"
done
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$repo" rev-parse --short HEAD)"
