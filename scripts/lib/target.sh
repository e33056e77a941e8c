# Where the benchmark scripts find the release build they measure, and its build; sourced by
# bench-emit.sh, bench-instructions.sh and emit-symbol-order.sh: $CARGO_TARGET_DIR, else
# cargo's own, else target/ of the repository ($repo).
release_target_dir() {
    local dir="${CARGO_TARGET_DIR:-}"
    if [[ -z "$dir" ]]; then
        dir="$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
            grep -o '"target_directory":"[^"]*"' | head -n 1 | cut -d'"' -f4)"
    fi
    echo "${dir:-$repo/target}"
}

# Builds the release binary the scripts measure (`-p hookrig-cli` alone, so that no
# feature a bench's dev-dependencies would add is in it), unless BENCH_NO_BUILD=1.
build_release_hookrig() {
    if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
        cargo build --release --locked -p hookrig-cli
    fi
}
