#!/usr/bin/env bash
# The cost of an OpenHermit JavaScript plugin's veto, in one hyperfine run against its
# baselines, so that every ratio compares figures taken under the same load:
#
#   (js)    `hookrig emit tool.before` through a running engine, answered by the warm
#           plugin host running examples/hermit-policy-gate (index.js)
#   (node)  the same emit, answered by a command hook `exec = ["node", "gate.js"]`
#           started for every event (the same policy as a plain Node.js script)
#   (none)  the same emit with no hook at all: the floor of any emit through the engine
#   (sh)    `sh -c true`: the floor of any process
#
# and, in the same run, the same policy as a Rust plugin on the in-process bus: the
# `veto_chain_bus` bench of hookrig-core (ten veto handlers of the policy in one chain),
# divided by ten. A Rust plugin runs inside the program that embeds hookrig, so it has
# no process to time; its figure is what the veto adds to that program's own work.
#
# Usage: scripts/bench-js-plugin.sh
#   BENCH_RUNS=N        runs per command (default 200)
#   BENCH_WARMUP=N      warm-up runs per command (default 20)
#   BENCH_NO_BUILD=1    use the existing target/release/hookrig
#   BENCH_HOOKRIG=PATH  use this hookrig binary (implies BENCH_NO_BUILD)
#   BENCH_NO_RUST=1     leave out the in-process bus bench
#   BENCH_KEEP=1        keep the temporary HOME (its path is printed)
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${BENCH_RUNS:-200}"
warmup="${BENCH_WARMUP:-20}"
target="${CARGO_TARGET_DIR:-target}"
for tool in hyperfine node; do
    command -v "$tool" >/dev/null || { echo "bench-js-plugin: $tool is not installed" >&2; exit 1; }
done
if [[ -z "${BENCH_NO_BUILD:-}${BENCH_HOOKRIG:-}" ]]; then
    cargo build --release --locked -p hookrig-cli
fi
hookrig="$(realpath "${BENCH_HOOKRIG:-$target/release/hookrig}")"
gate="$(realpath examples/hermit-policy-gate)"

work="$(mktemp -d)"
engine_pid=""
cleanup() {
    [[ -n "$engine_pid" ]] && kill "$engine_pid" 2>/dev/null && wait "$engine_pid" 2>/dev/null
    if [[ -n "${BENCH_KEEP:-}" ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# cargo and rustup keep finding their toolchain under the real HOME for the Rust row.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
# One HOME for every row; the plugin is enabled for the agent `bench-js` only, so that
# the other rows' emits do not run it.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" \
    XDG_STATE_HOME="$work/home/.local/state" XDG_DATA_HOME="$work/home/.local/share" \
    XDG_RUNTIME_DIR="$work/run" HOOKRIG_ENGINE=on
unset HOOKRIG_LEDGER HOOKRIG_AGENT HOOKRIG_TS_LOADER
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR" \
    "$work/none/.git" "$work/node/.git" "$work/node/.hookrig"
"$hookrig" plugins register hermit-policy-gate --path "$gate" >/dev/null
"$hookrig" plugins enable hermit-policy-gate --agent bench-js >/dev/null

# The policy as a command hook: reads the event, answers in the native protocol. Node.js
# by its bare name: an absolute path would make trust hash the whole node executable on
# every emit (the trust check reads each file a command names), which is not what is
# compared here.
cat >"$work/node/gate.js" <<'EOF'
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const payload = JSON.parse(input || "{}");
  const command = String(payload.tool?.input?.command ?? "");
  if (String(payload.tool?.name).toLowerCase() === "bash" && command.includes("rm -rf")) {
    process.stdout.write(JSON.stringify({ decision: "deny", reason: "rm -rf is not allowed by the policy gate" }));
  }
});
EOF
cat >"$work/node/.hookrig/hooks.toml" <<EOF
[[hooks]]
name = "gate"
events = ["tool.before"]
exec = ["node", "$work/node/gate.js"]
EOF
"$hookrig" trust "$work/node" >/dev/null
deny='{"tool":{"name":"bash","input":{"command":"rm -rf /"}}}'

"$hookrig" engine run --idle 0s >"$work/engine.log" 2>&1 &
engine_pid=$!
for _ in $(seq 100); do "$hookrig" engine status >/dev/null 2>&1 && break; sleep 0.1; done

js="env HOOKRIG_AGENT=bench-js $hookrig emit tool.before --cwd $work/none"
node="$hookrig emit tool.before --cwd $work/node"
none="$hookrig emit tool.before --cwd $work/none"
# Each row's hook really decides: the gate denies rm -rf (exit 2), the floor does not.
for row in "$js" "$node"; do
    status=0
    echo "$deny" | $row >/dev/null || status=$?
    [[ "$status" -eq 2 ]] || { echo "bench-js-plugin: $row did not deny rm -rf (exit $status)" >&2; exit 1; }
done
echo "$deny" | $none >/dev/null || { echo "bench-js-plugin: the floor row denied" >&2; exit 1; }

echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
# hyperfine 1.15 has no --input: the timed emits build their payload from flags
# (`--tool bash`, no command: every gate allows it), so that no shell stands between.
hyperfine -N --runs "$runs" --warmup "$warmup" \
    --export-json "$work/hyperfine.json" \
    -n sh "sh -c true" -n none "$none --tool bash" -n js "$js --tool bash" -n node "$node --tool bash"
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
"$hookrig" engine status --json | grep -E '"(hook|agent|starts|answered)"' || true

mean() { grep -A3 "\"command\": \"$1\"" "$work/hyperfine.json" | grep -o '"mean": [0-9.e-]*' | grep -o '[0-9.e-]*$'; }
awk -v sh="$(mean sh)" -v none="$(mean none)" -v js="$(mean js)" -v node="$(mean node)" 'BEGIN {
    printf "means: sh %.2f ms, none %.2f ms, js %.2f ms, node %.2f ms\n", sh*1e3, none*1e3, js*1e3, node*1e3
    printf "js / none: %.2fx   node / js: %.1fx   js - none: %.2f ms   node - none: %.2f ms\n", js/none, node/js, (js-none)*1e3, (node-none)*1e3
}'

if [[ -z "${BENCH_NO_RUST:-}" ]]; then
    echo "the same policy as a Rust plugin, in process (ten handlers per chain):"
    cargo bench --locked -p hookrig-core --bench bus -- veto_chain_bus
fi
