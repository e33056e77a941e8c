#!/usr/bin/env bash
# A context hook: on SessionStart and UserPromptSubmit, Claude Code adds what a hook
# prints (plain text) to Claude's context, and so does hookrig.
cat > /dev/null
printf 'Project rules: never delete files recursively; run the tests before you stop.\n'
