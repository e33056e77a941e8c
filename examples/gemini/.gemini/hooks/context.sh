#!/usr/bin/env bash
# A BeforeAgent hook: adds the project's working rules to the prompt of each turn.
cat > /dev/null
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "Run the tests before you say a change is done."}}
JSON
