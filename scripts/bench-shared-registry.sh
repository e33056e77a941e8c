#!/usr/bin/env bash
# Emits through a `hookrig serve` node whose shared store's plugin registry enables two
# packages for every agent, the node keeping what it read of the registry (the cache:
# docs/postgres.md, "What a node keeps") against the same node reading the registry at
# every emit (`HOOKRIG_REGISTRY_CACHE=off`), in one run: the node's HTTP front driven by
# the http_emit bench of hookrig-runtime, in alternating rounds (per emit, then kept,
# BENCH_ROUNDS times), so that both see the same machine under the same load.
#
# Each package is a manifest whose `PreToolUse` hook does not match the tool of the
# emit (no process is started) and BENCH_FILES files of 4 KiB beside it (what its code
# would be): per emit, a node that keeps nothing reads the registry (one query),
# verifies the signatures and digests both copies; one that keeps it looks at the
# copies' files (a `stat` each). Each emit is `tool.before`, recorded into the
# database's ledger, as a serve node does.
#
# Rows, each for both nodes:
#   latency      one keep-alive client, round trips one after another: median and p95
#   throughput   1 client and 16 clients for BENCH_SECONDS each: emits per second
# The summary gives the kept figure over the per-emit one, per round and as the median.
#
# Usage: HOOKRIG_TEST_POSTGRES=postgresql://... scripts/bench-shared-registry.sh
#   HOOKRIG_TEST_POSTGRES   the cluster; a database of its own is created and dropped
#   CARGO_TARGET_DIR        where to build (default target/); release, without LTO
#   BENCH_NO_BUILD=1        use the release builds already there
#   BENCH_ROUNDS=N          rounds (default 3)
#   BENCH_SECONDS=S         seconds per throughput row (default 4)
#   BENCH_SAMPLES=N         round trips per latency row (default 1000)
#   BENCH_FILES=N           files of each package beside its manifest (default 20)
#
# Needs psql (to create the database), python3 and the Rust toolchain.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
rounds="${BENCH_ROUNDS:-3}"
seconds="${BENCH_SECONDS:-4}"
samples="${BENCH_SAMPLES:-1000}"
files="${BENCH_FILES:-20}"
cluster="${HOOKRIG_TEST_POSTGRES:?set HOOKRIG_TEST_POSTGRES to a postgres:// URL of the cluster}"

if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
    # LTO off: the build takes minutes instead of tens of minutes, and both nodes are
    # measured with the same binary.
    (cd "$repo" && cargo build --release --locked -p hookrig-cli --config profile.release.lto=false)
    (cd "$repo" && cargo build --release --locked -p hookrig-runtime --bench http_emit --config profile.release.lto=false)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/hookrig-bench-registry.XXXXXX")"
serve_pid=""
database="hookrig_bench_registry_$$"
cleanup() {
    if [[ -n "$serve_pid" ]]; then
        kill -TERM "$serve_pid" 2>/dev/null || true
        wait "$serve_pid" 2>/dev/null || true
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
vars=(HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_STATE_HOME="$home/.local/state"
    XDG_DATA_HOME="$home/.local/share" XDG_RUNTIME_DIR="$home/run")

# The two packages, registered and enabled by the operator (this user: the first write
# makes the key the node verifies with).
for id in gate audit; do
    dir="$work/packages/$id"
    mkdir -p "$dir/lib"
    printf '{"name": "%s", "hooks": {"PreToolUse": [{"matcher": "^Never$", "command": "exit 2"}]}}\n' \
        "$id" >"$dir/plugin.json"
    for n in $(seq "$files"); do
        head -c 4096 /dev/urandom | base64 -w 0 >"$dir/lib/part-$n.js"
    done
    env "${vars[@]}" "$hookrig" plugins register "$id" --path "$dir" --store "$url" >/dev/null
    env "${vars[@]}" "$hookrig" plugins enable "$id" --all --store "$url" >/dev/null
done
# Left alone long enough for a node to keep the copies' digests (docs/postgres.md).
sleep 3

printf '{"session":{"id":"bench-registry","cwd":"%s"},"tool":{"name":"Write","input":{"path":"README.md"}}}\n' \
    "$work/project" >"$work/body.json"

# Starts a serve node, the cache `$1` (on or off), and sets serve_pid and port.
start_node() {
    local cache=()
    if [[ "$1" == off ]]; then
        cache=(HOOKRIG_REGISTRY_CACHE=off)
    fi
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    # env(1) execs hookrig: $! is the node's pid.
    (cd "$work/project" && exec env "${vars[@]}" "${cache[@]}" HOOKRIG_STORE_URL="$url" \
        "$hookrig" serve --http "127.0.0.1:$port" >"$work/serve.log" 2>&1) &
    serve_pid=$!
    for _ in $(seq 200); do
        grep -q "answering emits on" "$work/serve.log" && return
        sleep 0.1
    done
    echo "bench-shared-registry: the node did not start:" >&2
    cat "$work/serve.log" >&2
    exit 1
}

stop_node() {
    kill -TERM "$serve_pid"
    wait "$serve_pid" || true
    serve_pid=""
}

env "${vars[@]}" "$hookrig" serve --print-token >"$work/token"
field() { grep -o "$1=[0-9.]*" | cut -d= -f2; }
declare -A figures
for round in $(seq "$rounds"); do
    for cache in off on; do
        start_node "$cache"
        lat="$("$http_emit" latency "127.0.0.1:$port" "$work/token" "$work/body.json" "$samples")"
        one="$("$http_emit" throughput "127.0.0.1:$port" "$work/token" "$work/body.json" 1 "$seconds")"
        many="$("$http_emit" throughput "127.0.0.1:$port" "$work/token" "$work/body.json" 16 "$seconds")"
        # Both packages were run, none left out: the Outcome of one more emit says so.
        outcome="$(python3 - "$port" "$work/token" "$work/body.json" <<'PY'
import sys, urllib.request
port, token, body = sys.argv[1], open(sys.argv[2]).readline().strip(), open(sys.argv[3], "rb").read()
request = urllib.request.Request(f"http://127.0.0.1:{port}/emit/tool.before", data=body,
    headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
import json
answer = urllib.request.urlopen(request).read().decode()
print("none" if json.loads(answer)["warnings"] == [] else answer)
PY
)"
        stop_node
        if [[ "$outcome" != none ]]; then
            echo "bench-shared-registry: an emit warned: $outcome" >&2
            exit 1
        fi
        figures[$round,$cache,median]="$(field median_us <<<"$lat")"
        figures[$round,$cache,p95]="$(field p95_us <<<"$lat")"
        figures[$round,$cache,one]="$(field per_s <<<"$one")"
        figures[$round,$cache,many]="$(field per_s <<<"$many")"
        echo "round $round cache $cache: median ${figures[$round,$cache,median]} us, p95 ${figures[$round,$cache,p95]} us, 1 client ${figures[$round,$cache,one]}/s, 16 clients ${figures[$round,$cache,many]}/s"
    done
done

echo
echo "kept / per emit, per round, then the median:"
for row in median p95 one many; do
    ratios=()
    for round in $(seq "$rounds"); do
        ratios+=("$(python3 -c "print(f'{${figures[$round,on,$row]} / ${figures[$round,off,$row]}:.2f}')")")
    done
    median="$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    echo "$row: ${ratios[*]} -> $median"
done
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$repo" rev-parse --short HEAD)"
