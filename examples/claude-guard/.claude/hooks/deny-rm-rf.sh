#!/usr/bin/env bash
# A PreToolUse guard, written for Claude Code and run unchanged by hookrig: it denies a
# Bash command that removes recursively and by force (rm -rf, rm -fr, rm -r -f, ...).
# Claude Code runs hook commands with bash, and so does hookrig.
input=$(cat)
command=$(printf '%s' "$input" | sed -n 's/.*"command":"\(\([^"\\]\|\\.\)*\)".*/\1/p')
if [[ $command =~ (^|[;&|[:space:]])rm[[:space:]]+(-[[:alpha:]]*r[[:alpha:]]*f|-[[:alpha:]]*f[[:alpha:]]*r|-r[[:space:]]+-f|-f[[:space:]]+-r) ]]; then
  printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed here; remove the files one by one"}}\n'
  exit 0
fi
exit 0
