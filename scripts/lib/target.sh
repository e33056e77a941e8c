# The target directory of the release build the benchmark scripts measure, sourced by
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
