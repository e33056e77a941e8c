#!/usr/bin/env bash
# A BeforeTool guard: denies a shell command that runs `rm` with both -r and -f
# (`rm -rf`, `rm -fr`, `rm -r -f`), and allows everything else.
input=$(cat)
pattern='"command":"([^"]*[^a-zA-Z_"])?rm(([[:space:]]+-[a-zA-Z]+)+)'
if [[ $input =~ $pattern ]]; then
  flags=${BASH_REMATCH[2]}
  if [[ $flags == *[rR]* && $flags == *f* ]]; then
    echo '{"decision": "deny", "reason": "rm -rf is not allowed here; delete files one by one"}'
    exit 0
  fi
fi
echo '{"decision": "allow"}'
