#!/usr/bin/env python3
"""An example worker: denies `rm -rf` in a tool's input, allows everything else."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hookrig_worker import serve  # noqa: E402


def guard(event, payload):
    command = (payload.get("tool") or {}).get("input", {}).get("command", "")
    if "rm -rf" in str(command):
        return {"decision": "deny", "reason": "recursive forced removal is not allowed"}
    if command == "crash":
        raise RuntimeError("asked to crash")
    return None


if __name__ == "__main__":
    serve(guard)
