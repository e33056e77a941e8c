#!/bin/sh
# A Cursor beforeShellExecution hook: refuses a recursive, forced delete (`rm -rf`,
# `rm -fr`, `rm -r -f`, ...) and lets every other command through. Cursor runs it only
# for commands that contain `rm ` (the matcher in hooks.json); it reads the event from
# stdin and answers with `permission` on stdout.
input=$(cat)
command=$(printf '%s' "$input" | sed -n 's/.*"command"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
if printf '%s' "$command" | grep -Eq '(^|[;&| ])rm[[:space:]]+(-[[:alnum:]]*r[[:alnum:]]*f|-[[:alnum:]]*f[[:alnum:]]*r|-r[[:space:]]+-f|-f[[:space:]]+-r)'; then
  echo '{"permission":"deny","user_message":"rm -rf is not allowed here; delete the files one by one","agent_message":"rm -rf is not allowed here; delete the files one by one"}'
  exit 0
fi
echo '{"permission":"allow"}'
