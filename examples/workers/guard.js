#!/usr/bin/env node
// An example worker: denies `rm -rf` in a tool's input, allows everything else.
"use strict";

const { serve } = require("./hookrig-worker.js");

serve((event, payload) => {
  const command = String(payload?.tool?.input?.command ?? "");
  if (command.includes("rm -rf")) {
    return { decision: "deny", reason: "recursive forced removal is not allowed" };
  }
  if (command === "crash") throw new Error("asked to crash");
  return null;
});
