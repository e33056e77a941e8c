// hookrig's plugin host: runs one OpenHermit-style JavaScript plugin as a persistent
// worker of the hookrig engine. Dependency-free; Node.js 18 or newer.
//
//   node plugin-host.js PLUGIN_DIR [--describe | --call=TOOL]
//
// It loads the plugin's entry (manifest.json's `entry`, else index.ts when this Node
// strips types or a TypeScript loader was named, else index.js, else index.mjs), calls
// its `register(ctx)` once, then answers the engine's worker protocol: one JSON request
// per line on stdin, `{"id": N, "event": "tool.before", "payload": {...}}`, one native
// reply per line on stdout with the same id. A request that names a subscription,
// `{"id": N, "event": ..., "payload": {...}, "subscription": K}`, runs that handler
// alone (K is its index in registration order, as the description gives it): hookrig
// places each subscription in its chain as an entry of its own. Two other requests
// reach the warm worker: `{"id": N, "describe": true}` is answered as `--describe` below, and
// `{"id": N, "tool": NAME, "arguments": {...}}` (an automation calling a tool) with
// `{"id": N, "result": VALUE}` or `{"id": N, "error": MESSAGE}`.
//
// Two one-shot modes serve `hookrig plugins show` and `hookrig plugins call`; each
// prints one JSON object on stdout and exits:
//   --describe    {"loaded": true, "subscriptions": [...], "tools": [...]}, or
//                 {"loaded": false, "error": MESSAGE, "stack": STACK}
//   --call=TOOL   reads the tool's arguments (a JSON object) on stdin; prints
//                 {"result": VALUE}, or {"error": MESSAGE, "stack": STACK}
//
// hookrig passes in the environment:
//   HOOKRIG_PLUGIN_ID            the id the plugin is registered under
//   HOOKRIG_PLUGIN_EVENTS        {canonical: {"name", "version", "shape"}} for every event
//   HOOKRIG_PLUGIN_FAILURE_MODE  "skip" (default) or "fail"
//   HOOKRIG_PLUGIN_ENTRY         the manifest's `entry`, when it names one
//   HOOKRIG_PLUGIN_PRIORITY      the manifest's `priority`: a subscription's without one
//   HOOKRIG_PLUGIN_TS_LOADER     the manifest's `typescriptLoader`, when it names one
//   HOOKRIG_AGENT                the agent whose events this worker answers, if any
//
// While an event is answered, ctx.memory.search and ctx.memory.get ask hookrig with a line
// {"id": N, "ask": K, "question": {"memory": "search", ...}} before the reply; hookrig
// answers on stdin with {"id": N, "answer": K, "result": [...]} or "error".
//   HOOKRIG_TS_LOADER            (the user's) a TypeScript loader module: a path, or a
//                                package resolved from the plugin's directory

"use strict";

const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");
const { pathToFileURL } = require("node:url");

const dir = path.resolve(process.argv[2] || ".");
const pluginId = process.env.HOOKRIG_PLUGIN_ID || path.basename(dir);
const failureMode = process.env.HOOKRIG_PLUGIN_FAILURE_MODE === "fail" ? "fail" : "skip";
const tsLoader = process.env.HOOKRIG_PLUGIN_TS_LOADER || "";
// hookrig's chain orders by integer priorities, lower first; a subscription that gives
// none sits at the plugin's priority (the manifest's, else 100 as every hook's).
const MIN_PRIORITY = -2147483648;
const MAX_PRIORITY = 2147483647;
const defaultPriority = (() => {
  const given = Number(process.env.HOOKRIG_PLUGIN_PRIORITY);
  return process.env.HOOKRIG_PLUGIN_PRIORITY && Number.isInteger(given) ? given : 100;
})();
// A TypeScript loader the user has installed, for every plugin: imported before a
// TypeScript entry when this Node cannot strip types and the manifest names none.
const userLoader = process.env.HOOKRIG_TS_LOADER || "";
const catalog = parseCatalog(process.env.HOOKRIG_PLUGIN_EVENTS);
const agent = process.env.HOOKRIG_AGENT || null;
const mode = process.argv.slice(3).find((a) => a === "--describe" || a.startsWith("--call=")) || null;

// stdout carries the replies; whatever the plugin prints goes to stderr, which hookrig
// records with the event's hook run.
const out = process.stdout;
for (const name of ["log", "info", "debug", "warn", "error"]) {
  console[name] = (...args) => write(`${args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ")}\n`);
}

function parseCatalog(text) {
  try {
    const value = JSON.parse(text || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

function describe(err) {
  if (err && typeof err === "object" && "message" in err) {
    return `${err.name || "Error"}: ${err.message}`;
  }
  return String(err);
}

// A read-only view: reading works at any depth, writing throws.
function readOnly(value, what) {
  if (value === null || typeof value !== "object") return value;
  const refuse = () => {
    throw new TypeError(`${what} is read-only`);
  };
  return new Proxy(value, {
    get: (target, key, receiver) => readOnly(Reflect.get(target, key, receiver), what),
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
  });
}

// The event a subscription names: `tool.before@v1`, `tool.before` (the catalog's
// version) or the canonical name; anything else is an error at `register`.
function resolveEvent(raw) {
  if (typeof raw !== "string" || raw === "") {
    throw new TypeError(`ctx.bus.on: the event must be a name such as "tool.before@v1", got ${JSON.stringify(raw)}`);
  }
  const at = raw.lastIndexOf("@");
  const name = at < 0 ? raw : raw.slice(0, at);
  const version = at < 0 ? null : raw.slice(at + 1);
  for (const [canonical, info] of Object.entries(catalog)) {
    if (info.name !== name && canonical !== name) continue;
    if (version !== null && version !== info.version) {
      throw new TypeError(`ctx.bus.on: ${raw}: hookrig serves ${info.name}@${info.version}, not @${version}`);
    }
    return { canonical, name: `${info.name}@${info.version}`, shape: info.shape };
  }
  const known = Object.values(catalog).map((i) => `${i.name}@${i.version}`).join(", ");
  throw new TypeError(`ctx.bus.on: unknown event ${JSON.stringify(raw)}; known events: ${known}`);
}

const subscriptions = [];
const tools = new Map();
let current = { session: {} };

// Questions to hookrig while an event is answered (ctx.memory): a line
// {"id": N, "ask": K, "question": {...}} on stdout, answered on stdin with
// {"id": N, "answer": K, "result" | "error"}.
let inFlight = null;
let asked = 0;
const waiting = new Map();

function ask(question) {
  if (inFlight === null) {
    return Promise.reject(
      new Error("ctx.memory can be read while the plugin answers an event or an automation's call of its tool (not in register, nor in `hookrig plugins call`)"),
    );
  }
  const key = ++asked;
  return new Promise((resolve, reject) => {
    waiting.set(key, { resolve, reject });
    out.write(`${JSON.stringify({ id: inFlight, ask: key, question })}\n`);
  });
}

function answered(message) {
  const entry = waiting.get(message.answer);
  if (!entry) return;
  waiting.delete(message.answer);
  if (typeof message.error === "string") entry.reject(new Error(`ctx.memory: ${message.error}`));
  else entry.resolve(message.result);
}

// Read-only: search(query, { limit }) and get(source, heading) ask hookrig; any other
// member, and any write, throws, so that a plugin that tries to write learns it at once.
const memory = new Proxy(
  Object.freeze({
    search(query, options = {}) {
      if (typeof query !== "string") return Promise.reject(new TypeError("ctx.memory.search(query): the query must be a string"));
      const limit = options && options.limit !== undefined ? options.limit : null;
      return ask({ memory: "search", query, limit });
    },
    get(source, heading = "") {
      if (typeof source !== "string") return Promise.reject(new TypeError("ctx.memory.get(source, heading): the source must be a string"));
      if (typeof heading !== "string") return Promise.reject(new TypeError("ctx.memory.get(source, heading): the heading must be a string"));
      return ask({ memory: "get", source, heading });
    },
  }),
  {
    get(target, key) {
      if (key in target || typeof key === "symbol" || key === "then" || key === "toJSON") return target[key];
      return () => {
        throw new TypeError(
          `ctx.memory is read-only: it has no ${String(key)}(); plugins read it with ctx.memory.search(query, { limit }) and ctx.memory.get(source, heading), and memory is written by memory.upsert@v1 events`,
        );
      };
    },
    set(_, key) {
      throw new TypeError(`ctx.memory is read-only: cannot set ${String(key)}`);
    },
    defineProperty(_, key) {
      throw new TypeError(`ctx.memory is read-only: cannot define ${String(key)}`);
    },
    deleteProperty(_, key) {
      throw new TypeError(`ctx.memory is read-only: cannot delete ${String(key)}`);
    },
  },
);

// What is logged while an event is in flight goes back in its reply's `log`, so that
// hookrig records it with the event's hook run; anything else goes to stderr.
let pending = null;

function write(text) {
  if (pending !== null) pending.push(text);
  else process.stderr.write(text);
}

function log(level) {
  return (...args) => {
    const text = args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ");
    write(`[plugin ${pluginId}] ${level}: ${text}\n`);
  };
}

const ctx = Object.freeze({
  id: pluginId,
  dir,
  bus: Object.freeze({
    on(event, handler, options = {}) {
      const resolved = resolveEvent(event);
      if (typeof handler !== "function") {
        throw new TypeError(`ctx.bus.on(${JSON.stringify(event)}): the handler must be a function`);
      }
      const priority = options && options.priority !== undefined ? options.priority : defaultPriority;
      if (!Number.isInteger(priority) || priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
        throw new TypeError(
          `ctx.bus.on(${JSON.stringify(event)}): priority must be an integer (lower runs first), got ${JSON.stringify(priority)}`,
        );
      }
      subscriptions.push({ ...resolved, handler, priority, order: subscriptions.length });
    },
  }),
  tools: Object.freeze({
    add(tool) {
      const { name, description, schema, handler } = tool || {};
      if (typeof name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
        throw new TypeError(
          `ctx.tools.add: the name must be 1 to 64 letters, digits, "_" or "-", got ${JSON.stringify(name)}`,
        );
      }
      if (tools.has(name)) throw new TypeError(`ctx.tools.add: a tool named ${JSON.stringify(name)} is already added`);
      if (!schema || typeof schema !== "object" || Array.isArray(schema)) {
        throw new TypeError(`ctx.tools.add(${JSON.stringify(name)}): the schema must be a JSON schema object`);
      }
      if (typeof handler !== "function") {
        throw new TypeError(`ctx.tools.add(${JSON.stringify(name)}): the handler must be a function`);
      }
      if (description !== undefined && typeof description !== "string") {
        throw new TypeError(`ctx.tools.add(${JSON.stringify(name)}): the description must be a string`);
      }
      // Kept as JSON, so that a schema the plugin changes later is not what it declared.
      tools.set(name, { name, description: description || "", schema: JSON.parse(JSON.stringify(schema)), handler });
    },
  }),
  logger: Object.freeze({
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  }),
  get session() {
    return current.session;
  },
  memory,
  agent,
});

function strips() {
  const features = process.features || {};
  if (features.typescript) return true;
  const options = `${process.env.NODE_OPTIONS || ""} ${process.execArgv.join(" ")}`;
  return options.includes("--experimental-strip-types") || options.includes("--experimental-transform-types");
}

function noTypeScript(file) {
  return new Error(
    `cannot load ${file}: Node.js ${process.versions.node} does not strip TypeScript types; ` +
      `run hookrig with a Node.js that does (23.6 or newer, or 22.6 or newer with ` +
      `NODE_OPTIONS=--experimental-strip-types), or name a TypeScript loader you have ` +
      `installed: in manifest.json, for example "typescriptLoader": "tsx", or for every ` +
      `plugin in hookrig's environment, for example HOOKRIG_TS_LOADER=tsx or the path of ` +
      `tsx's dist/loader.mjs`,
  );
}

// Imports the user's TypeScript loader, which registers its module hooks for the
// imports after it (as `node --import` would have).
async function importUserLoader() {
  let url;
  if (path.isAbsolute(userLoader)) {
    url = pathToFileURL(userLoader).href;
  } else {
    try {
      url = pathToFileURL(require("node:module").createRequire(path.join(dir, "package.json")).resolve(userLoader)).href;
    } catch {
      url = userLoader;
    }
  }
  try {
    await import(url);
  } catch (err) {
    throw new Error(`HOOKRIG_TS_LOADER=${userLoader}: cannot import the TypeScript loader: ${describe(err)}`);
  }
}

function entryFile() {
  const named = process.env.HOOKRIG_PLUGIN_ENTRY;
  if (named) return path.resolve(dir, named);
  const exists = (name) => fs.existsSync(path.join(dir, name));
  const ts = ["index.ts", "index.mts"].find(exists);
  if (ts && (tsLoader || userLoader || strips())) return path.join(dir, ts);
  const js = ["index.js", "index.mjs", "index.cjs"].find(exists);
  if (js) return path.join(dir, js);
  if (ts) return path.join(dir, ts);
  throw new Error(`${dir}: no entry point (index.ts, index.js or index.mjs, or manifest.json's "entry")`);
}

async function load() {
  const file = entryFile();
  const typescript = /\.[mc]?ts$/.test(file);
  if (typescript && !tsLoader && !strips()) {
    if (!userLoader) throw noTypeScript(file);
    await importUserLoader();
  }
  let mod;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (err) {
    if (typescript && err && err.code === "ERR_UNKNOWN_FILE_EXTENSION") throw noTypeScript(file);
    throw err;
  }
  const register =
    typeof mod.register === "function"
      ? mod.register
      : mod.default && typeof mod.default.register === "function"
        ? mod.default.register
        : typeof mod.default === "function"
          ? mod.default
          : null;
  if (!register) throw new TypeError(`${file}: exports no register(ctx) function`);
  await register(ctx);
  subscriptions.sort((a, b) => a.priority - b.priority || a.order - b.order);
}

// A failing handler: written to stderr (recorded with the hook run) and reported as
// plugin.error@v1 {plugin_id, event, subscription, message}. While an event is answered, hookrig is
// asked to deliver it once the event's chain has run, to every plugin and hook that
// listens (this plugin's own listeners included); without hookrig to ask, this plugin's
// own listeners hear it at once. A failure of a plugin.error@v1 handler is only written,
// so that errors never loop.
async function report(sub, err) {
  // `event` is OpenHermit's field; hookrig's stdin to a hook names the event it carries
  // in that same key, so `subscription` repeats it for every receiver.
  const payload = { plugin_id: pluginId, event: sub.name, subscription: sub.name, message: describe(err) };
  write(`plugin.error@v1 ${JSON.stringify(payload)}\n${err && err.stack ? err.stack : describe(err)}\n`);
  if (sub.canonical === "plugin.error") return;
  if (inFlight !== null) {
    try {
      await ask({ plugin_error: payload });
      return;
    } catch {
      // Not delivered by hookrig (an emit without a store, too many errors): below.
    }
  }
  for (const listener of subscriptions.filter((s) => s.canonical === "plugin.error")) {
    try {
      await listener.handler(readOnly(structuredClone(payload), "the plugin.error payload"));
    } catch (failure) {
      write(`a plugin.error@v1 listener failed: ${describe(failure)}\n`);
    }
  }
}

function checked(sub, result) {
  if (sub.shape === "veto") {
    if (!result || typeof result !== "object" || typeof result.allow !== "boolean") {
      throw new TypeError(`a ${sub.name} handler must return { allow, reason? }, got ${JSON.stringify(result)}`);
    }
  } else if (sub.shape === "transform") {
    if (!result || typeof result !== "object" || Array.isArray(result)) {
      throw new TypeError(`a ${sub.name} handler must return the payload, got ${JSON.stringify(result)}`);
    }
  }
  return result;
}

// The subscriptions a request runs: the one it names (an entry of hookrig's chain), or
// every subscription to its event, in order.
function chosen(request) {
  if (request.subscription === undefined) return subscriptions.filter((s) => s.canonical === request.event);
  const sub = subscriptions.find((s) => s.order === request.subscription);
  if (!sub || sub.canonical !== request.event) {
    // hookrig built its chain from a description of another registration (the code
    // registers differently from one load to the next): refuse rather than run the
    // wrong handler.
    throw new Error(
      `plugin ${pluginId}: hookrig's chain names handler ${JSON.stringify(request.subscription)} for ${request.event}, ` +
        `but this load registered ${sub ? `a ${sub.name} handler there` : "no such handler"}; ` +
        `its description is stale: hookrig places each handler by the description taken when the plugin's files last changed, ` +
        `so register(ctx) must subscribe the same handlers at every load (not depending on ctx.agent, the environment or the time); ` +
        `\`hookrig plugins show ${pluginId}\` describes it again`,
    );
  }
  return [sub];
}

async function handle(request) {
  const subs = chosen(request);
  if (subs.length === 0) return {};
  let payload = request.payload && typeof request.payload === "object" ? request.payload : {};
  current = { session: readOnly(structuredClone(payload.session || {}), "ctx.session") };
  let changed = false;
  for (const sub of subs) {
    let result;
    try {
      result = checked(sub, await sub.handler(payload));
    } catch (err) {
      await report(sub, err);
      if (failureMode === "fail") {
        return { error: `plugin ${pluginId}: a ${sub.name} handler failed: ${describe(err)}` };
      }
      continue;
    }
    if (sub.shape === "veto" && result.allow === false) {
      const reason = typeof result.reason === "string" && result.reason ? result.reason : `denied by plugin ${pluginId}`;
      return { decision: "deny", reason };
    }
    // A transform returns the payload; a veto that allows may hand on a new one, as
    // `{ allow: true, payload }` (a rewrite of the tool's arguments).
    const next = sub.shape === "transform" ? result : sub.shape === "veto" ? result.payload : undefined;
    if (next !== undefined) {
      if (!next || typeof next !== "object" || Array.isArray(next)) {
        await report(sub, new TypeError(`the payload a ${sub.name} handler returns must be an object`));
        if (failureMode === "fail") return { error: `plugin ${pluginId}: a ${sub.name} handler returned a payload that is not an object` };
        continue;
      }
      payload = next;
      changed = true;
    }
  }
  return changed ? { decision: "modify", payload } : {};
}

function serve(loaded) {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve();
  lines.on("line", (raw) => {
    if (raw.trim() === "") return;
    let request;
    try {
      request = JSON.parse(raw);
      if (request === null || typeof request !== "object" || !("id" in request)) throw new Error("no id");
      if ("answer" in request) {
        answered(request);
        return;
      }
    } catch (err) {
      process.stderr.write(`hookrig plugin host: unreadable request: ${describe(err)}\n`);
      return;
    }
    queue = queue.then(async () => {
      let reply;
      pending = [];
      inFlight = request.id;
      try {
        const failed = await loaded;
        if (failed) {
          write(`${failed.stack}\n`);
          reply = { error: failed.message };
        } else if (request.describe === true) {
          reply = description();
        } else if (typeof request.tool === "string") {
          reply = await callTool(request.tool, request.arguments);
        } else {
          reply = await handle(request);
        }
      } catch (err) {
        write(`${err && err.stack ? err.stack : describe(err)}\n`);
        reply = { error: describe(err) };
      }
      const log = pending.join("");
      pending = null;
      inFlight = null;
      if (log) reply = { ...reply, log };
      out.write(`${JSON.stringify({ id: request.id, ...reply })}\n`);
    });
  });
}

// The types JSON schema names, as `typeof` and Array.isArray tell them apart.
function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function hasType(value, type) {
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

// The arguments checked against the top level of the tool's schema: an object, its
// `required` properties present, each declared property of the declared `type`. A
// tool that wants more checks its arguments itself.
function checkArgs(tool, args) {
  const schema = tool.schema;
  const where = `tool ${tool.name}`;
  if (typeOf(args) !== "object") throw new CallError(`${where}: the arguments must be a JSON object, got ${typeOf(args)}`);
  for (const key of Array.isArray(schema.required) ? schema.required : []) {
    if (!(key in args)) throw new CallError(`${where}: the argument ${JSON.stringify(key)} is required`);
  }
  const properties = schema.properties && typeof schema.properties === "object" ? schema.properties : {};
  for (const [key, spec] of Object.entries(properties)) {
    if (!(key in args) || !spec || typeof spec.type !== "string") continue;
    if (!hasType(args[key], spec.type)) {
      throw new CallError(`${where}: the argument ${JSON.stringify(key)} must be of type ${spec.type}, got ${typeOf(args[key])}`);
    }
  }
}

// A mistake in how the tool was called, found by the host: its stack would point
// into the host, not into the plugin, so it has none.
class CallError extends Error {}

function failure(err) {
  if (err instanceof CallError) return { error: err.message };
  return { error: describe(err), stack: err && err.stack ? err.stack : describe(err) };
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

// What register(ctx) subscribed and added: the answer to `--describe` and to a
// worker's `{"describe": true}`.
function description() {
  return {
    loaded: true,
    subscriptions: subscriptions.map((s) => ({ event: s.name, shape: s.shape, priority: s.priority, index: s.order })),
    tools: [...tools.values()].map((t) => ({ name: t.name, description: t.description, schema: t.schema })),
  };
}

// A worker's `{"tool": NAME, "arguments": {...}}` (an automation's model calling the
// tool in the warm host): `{"result": VALUE}`, or `{"error": MESSAGE}` with the stack
// in the reply's log. ctx.memory can be read meanwhile.
async function callTool(name, args) {
  try {
    const tool = tools.get(name);
    if (!tool) {
      const known = [...tools.keys()].join(", ") || "none";
      throw new CallError(`plugin ${pluginId} has no tool ${JSON.stringify(name)} (its tools: ${known})`);
    }
    const given = args === undefined ? {} : args;
    checkArgs(tool, given);
    const result = await tool.handler(readOnly(given, "the tool's arguments"), ctx);
    return { result: result === undefined ? null : JSON.parse(JSON.stringify(result)) };
  } catch (err) {
    const failed = failure(err);
    if (failed.stack) write(`${failed.stack}\n`);
    return { error: failed.error };
  }
}

// `--describe` and `--call=TOOL`: one answer on stdout, then exit.
async function once() {
  let answer;
  try {
    await load();
  } catch (err) {
    const failed = failure(err);
    answer = { loaded: false, error: `plugin ${pluginId} failed to load: ${failed.error}`, stack: failed.stack };
    out.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
    return;
  }
  try {
    if (mode === "--describe") {
      answer = description();
    } else {
      const name = mode.slice("--call=".length);
      const tool = tools.get(name);
      if (!tool) {
        const known = [...tools.keys()].join(", ") || "none";
        throw new CallError(`plugin ${pluginId} has no tool ${JSON.stringify(name)} (its tools: ${known})`);
      }
      const text = await readStdin();
      let args;
      try {
        args = text.trim() === "" ? {} : JSON.parse(text);
      } catch (err) {
        throw new CallError(`tool ${name}: the arguments are not JSON: ${err.message}`);
      }
      checkArgs(tool, args);
      const result = await tool.handler(readOnly(args, "the tool's arguments"), ctx);
      answer = { result: result === undefined ? null : JSON.parse(JSON.stringify(result)) };
    }
  } catch (err) {
    answer = failure(err);
  }
  out.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
}

if (mode !== null) {
  // A register(ctx) (or a tool) whose promise can never settle leaves nothing for Node
  // to wait on, and Node would exit without a word: answer that instead.
  process.once("beforeExit", () => {
    const answer =
      mode === "--describe"
        ? { loaded: false, error: `plugin ${pluginId} failed to load: register(ctx) returned a promise that never settles` }
        : { error: `tool ${mode.slice("--call=".length)}: its handler returned a promise that never settles` };
    out.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
  });
  once();
} else {
  // A plugin that fails to load answers every event with the failure (and its stack on
  // stderr), so that each emit records why, instead of a worker that dies and restarts.
  serve(
    load().then(
      () => null,
      (err) => ({
        message: `plugin ${pluginId} failed to load: ${describe(err)}`,
        stack: err && err.stack ? err.stack : describe(err),
      }),
    ),
  );
}
