# The scenarios of the emit benchmarks, sourced by bench-emit.sh and
# bench-instructions.sh: a scenario is a directory with a temporary HOME, its XDG
# directories and a project holding hooks. Needs $work (where scenarios are made).

# Runs a command in a scenario's environment: its HOME, XDG directories and engine socket
# directory, HOOKRIG_ENGINE=$engine_mode (default off: the emit runs in-process), and none
# of the variables that would change what hookrig does.
in_env() {
    local dir="$1"
    shift
    env_of "$dir"
    env "${scenario_env[@]}" "$@"
}
# The same environment, as arguments of env(1), in the array scenario_env.
env_of() {
    local dir="$1"
    scenario_env=(-u HOOKRIG_LEDGER -u HOOKRIG_LOG -u HOOKRIG_TRUST_ALL -u HOOKRIG_ENGINE_IDLE
        -u XDG_DATA_HOME -u XDG_CACHE_HOME
        HOME="$dir/home" XDG_CONFIG_HOME="$dir/home/.config"
        XDG_STATE_HOME="$dir/home/.local/state" XDG_RUNTIME_DIR="$dir/run"
        HOOKRIG_ENGINE="${engine_mode:-off}")
}

# A temporary HOME with XDG directories and a project (with .git) holding hooks.toml.
make_scenario() {
    local dir="$work/$1"
    mkdir -p "$dir/home/.config" "$dir/home/.local/state" "$dir/home/.local/share" \
        "$dir/home/.cache" "$dir/run" "$dir/project/.git" "$dir/project/.hookrig"
    chmod 700 "$dir/run"
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
