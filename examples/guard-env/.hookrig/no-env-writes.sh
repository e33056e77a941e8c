#!/bin/sh
# A native hookrig hook: the event arrives as one JSON object on stdin.
# Exit 2 denies, with stderr as the reason; exit 0 with no output allows.
payload=$(cat)
path=$(printf '%s' "$payload" | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
case "$path" in
  .env | *.env | */.env | .env.*)
    echo "refusing to write $path: .env files hold secrets; use a secrets manager" >&2
    exit 2
    ;;
esac
exit 0
