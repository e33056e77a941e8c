"""Turn a Python function into a persistent hookrig worker.

A worker hook (`worker = true` in hooks.toml) is started once by the hookrig engine
and kept: each event arrives as one JSON line on stdin,

    {"id": 7, "event": "tool.before", "payload": {...}}

and the worker answers one JSON line on stdout with the same id and a native reply
(see docs/protocol.md):

    {"id": 7, "decision": "deny", "reason": "no rm -rf"}

This module has no dependencies beyond the standard library. Write a function that
takes the event name and the payload (a dict) and returns a reply dict, or None for
allow, then call `serve(function)`:

    from hookrig_worker import serve

    def guard(event, payload):
        command = payload.get("tool", {}).get("input", {}).get("command", "")
        if "rm -rf" in command:
            return {"decision": "deny", "reason": "no rm -rf"}
        return None

    serve(guard)

An exception in the function is answered as {"id": ..., "error": "..."}: hookrig
records it and applies the hook's on_error, and the worker keeps serving. Anything
the function prints goes to stderr, never into the replies.
"""

import json
import sys
import traceback


def _answer(out, request_id, reply):
    line = {"id": request_id}
    line.update(reply)
    out.write(json.dumps(line, separators=(",", ":")) + "\n")
    out.flush()


def serve(handler, stdin=None, stdout=None):
    """Answer events with `handler(event, payload)` until stdin closes."""
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    # A stray print() in the handler must not corrupt the reply stream.
    sys.stdout = sys.stderr
    try:
        for raw in stdin:
            raw = raw.strip()
            if not raw:
                continue
            try:
                request = json.loads(raw)
                request_id = request["id"]
            except (ValueError, KeyError, TypeError) as err:
                sys.stderr.write("hookrig_worker: unreadable request: %s\n" % err)
                continue
            try:
                reply = handler(request.get("event"), request.get("payload") or {})
                if reply is None:
                    reply = {}
                elif not isinstance(reply, dict):
                    raise TypeError("the handler must return a dict or None, got %r" % (reply,))
            except Exception as err:  # noqa: BLE001 - every failure is the hook's answer
                traceback.print_exc(file=sys.stderr)
                reply = {"error": "%s: %s" % (type(err).__name__, err)}
            _answer(out, request_id, reply)
    finally:
        sys.stdout = out
