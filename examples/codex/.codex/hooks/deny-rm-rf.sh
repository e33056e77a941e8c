#!/bin/sh
# Denies a shell call that runs `rm -rf` (or `rm -fr`), in Codex's PreToolUse output:
# a deny needs a non-empty permissionDecisionReason. Any other call gets no answer,
# which lets it go on under Codex's own approval rules.
if grep -Eq 'rm[[:space:]]+-(rf|fr)([[:space:]"]|$)'; then
    printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed in this project; delete files one by one"}}'
fi
