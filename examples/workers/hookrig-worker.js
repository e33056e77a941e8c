// Turn a JavaScript function into a persistent hookrig worker (Node.js, no
// dependencies).
//
// A worker hook (`worker = true` in hooks.toml) is started once by the hookrig engine
// and kept: each event arrives as one JSON line on stdin,
//
//   {"id": 7, "event": "tool.before", "payload": {...}}
//
// and the worker answers one JSON line on stdout with the same id and a native reply
// (see docs/protocol.md):
//
//   {"id": 7, "decision": "deny", "reason": "no rm -rf"}
//
// Usage:
//
//   const { serve } = require("./hookrig-worker.js");
//   serve((event, payload) => {
//     const command = payload?.tool?.input?.command ?? "";
//     return command.includes("rm -rf") ? { decision: "deny", reason: "no rm -rf" } : null;
//   });
//
// The function may return a reply object, null (allow), or a promise of either. An
// exception (or a rejected promise) is answered as {"id": ..., "error": "..."}: hookrig
// records it and applies the hook's on_error, and the worker keeps serving. Events are
// answered in the order they arrive.

"use strict";

const readline = require("node:readline");

function answer(out, id, reply) {
  out.write(JSON.stringify({ id, ...reply }) + "\n");
}

function serve(handler, input = process.stdin, out = process.stdout) {
  // A stray console.log in the handler must not corrupt the reply stream.
  console.log = (...args) => console.error(...args);
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let queue = Promise.resolve();
  lines.on("line", (raw) => {
    if (raw.trim() === "") return;
    let request;
    try {
      request = JSON.parse(raw);
      if (request === null || typeof request !== "object" || !("id" in request)) {
        throw new Error("no id");
      }
    } catch (err) {
      process.stderr.write(`hookrig-worker: unreadable request: ${err.message}\n`);
      return;
    }
    queue = queue.then(async () => {
      let reply;
      try {
        reply = await handler(request.event, request.payload ?? {});
        if (reply === null || reply === undefined) reply = {};
        if (typeof reply !== "object" || Array.isArray(reply)) {
          throw new TypeError(`the handler must return an object or null, got ${JSON.stringify(reply)}`);
        }
      } catch (err) {
        process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
        reply = { error: `${err && err.name ? err.name : "Error"}: ${err && err.message ? err.message : err}` };
      }
      answer(out, request.id, reply);
    });
  });
}

module.exports = { serve };
