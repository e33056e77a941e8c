#!/bin/sh
# A Cursor sessionStart hook: tells the agent where it works, as additional context.
# Cursor runs project hooks from the project root and sets CURSOR_PROJECT_DIR.
cat > /dev/null
project=$(basename "${CURSOR_PROJECT_DIR:-$PWD}")
branch=$(git branch --show-current 2>/dev/null)
printf '{"additional_context":"This session works in the project %s, on branch %s. Run the tests before you say a change is done."}\n' \
  "$project" "${branch:-unknown}"
