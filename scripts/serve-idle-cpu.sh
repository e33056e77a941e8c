#!/usr/bin/env bash
# CPU time `hookrig serve` uses while idle: three automations (an event trigger, a
# periodic one, a recursive folder watch), default tick (5 s), nothing happening.
# Reads utime+stime of the serve process from /proc/PID/stat before and after an idle
# window and prints the CPU time used and its share of the wall time.
#
# Usage: scripts/serve-idle-cpu.sh [IDLE_SECONDS]   (default 10)
#   BENCH_NO_BUILD=1   use the existing target/release/hookrig instead of building
set -euo pipefail

idle=${1:-10}
repo=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${BENCH_NO_BUILD:-} ]]; then
  cargo build --release -p hookrig-cli --manifest-path "$repo/Cargo.toml" >&2
fi
hookrig=$repo/target/release/hookrig

tmp=$(mktemp -d)
serve_pid=
cleanup() {
  if [[ -n $serve_pid ]]; then kill -TERM "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_STATE_HOME=$tmp/home/.local/state
export XDG_RUNTIME_DIR=$tmp/run
project=$tmp/project
mkdir -p "$HOME" "$project/.git" "$project/docs/a/b" "$project/.hookrig/automations"
cat > "$project/.hookrig/automations/on-task.toml" <<'TOML'
name = "On Task"
[trigger]
type = "event"
event_type = "task.completed"
skip_llm = true
TOML
cat > "$project/.hookrig/automations/hourly.toml" <<'TOML'
name = "Hourly"
context_steps = [{ type = "shell", command = "true" }]
[trigger]
type = "periodic"
interval_seconds = 3600
skip_llm = true
TOML
cat > "$project/.hookrig/automations/docs.toml" <<'TOML'
name = "Docs"
[trigger]
type = "event"
event_type = "folder.changed"
skip_llm = true
[trigger.watch]
paths = ["docs/"]
recursive = true
TOML

cd "$project"
# The project's automation files run once trusted.
"$hookrig" trust > /dev/null
"$hookrig" serve 2> "$tmp/serve.log" &
serve_pid=$!
for _ in $(seq 1 200); do
  grep -q "watching" "$tmp/serve.log" 2>/dev/null && break
  sleep 0.05
done
# Let the first periodic run finish, so that the window is idle.
sleep 1

ticks() { awk '{print $14 + $15}' "/proc/$serve_pid/stat"; }
hz=$(getconf CLK_TCK)
before=$(ticks)
sleep "$idle"
after=$(ticks)
used=$((after - before))
echo "serve idle for ${idle}s: $used clock ticks (1/$hz s) of CPU" \
  "= $(awk -v u="$used" -v h="$hz" -v s="$idle" 'BEGIN { printf "%.3f s, %.3f %% of one core", u / h, 100 * u / h / s }')"
echo "threads: $(ls "/proc/$serve_pid/task" | wc -l); log:"
sed 's/^/  /' "$tmp/serve.log"
