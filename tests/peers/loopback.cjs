// Preload for the test peers: `node --require ./loopback.cjs <script>`.
//
// server-everything and the conformance suite's scenario servers call
// `listen(port)` with no host, which binds every interface. The project rule is
// that every server a test starts listens on 127.0.0.1 only, so this preload
// patches net.Server.prototype.listen (http.Server inherits it) to force the
// host to 127.0.0.1 for every TCP listen. Unix-socket paths and inherited
// handles/fds are passed through untouched.
//
// Writes nothing to stdout (a stdio MCP server owns stdout). Set
// MCP_LOOPBACK_DEBUG=1 to log each rewritten listen on stderr.
"use strict";

const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const original = net.Server.prototype.listen;
const debug = process.env.MCP_LOOPBACK_DEBUG === "1";

// Same test Node uses to tell a port from a pipe name: a string that reads as a number is a port.
function isPortLike(value) {
  if (typeof value === "number") return true;
  if (typeof value === "string") return value.trim() !== "" && Number.isFinite(Number(value));
  return false;
}

function rewrite(args) {
  const first = args[0];
  // listen() / listen(cb): an ephemeral port on all interfaces.
  if (first === undefined || first === null || typeof first === "function") {
    const rest = first === undefined || first === null ? args.slice(1) : args;
    return [0, LOOPBACK, ...rest];
  }
  // listen(port[, host][, backlog][, cb])
  if (isPortLike(first)) {
    let rest = args.slice(1);
    if (typeof rest[0] === "string") rest = rest.slice(1); // drop the caller's host
    return [first, LOOPBACK, ...rest];
  }
  // listen(options[, cb]) for a TCP port (not a path, handle or fd).
  if (typeof first === "object") {
    const isTcp = !("path" in first) && !("fd" in first) && !("handle" in first) && !("_handle" in first);
    if (isTcp) {
      const options = { ...first, host: LOOPBACK };
      delete options.ipv6Only;
      return [options, ...args.slice(1)];
    }
  }
  // listen(path, ...) or listen(handle, ...): not a TCP interface bind.
  return args;
}

// Given a host, Node resolves it with dns.lookup, which answers even an IP literal on a
// later tick, so `server.address()` right after `listen(0)` would be null (the conformance
// suite's scenarios read `listen(0).address().port` synchronously). While our own listen
// call runs, an IP-literal lookup answers synchronously, keeping listen(port) without a
// host as synchronous as it is unpatched.
const dns = require("node:dns");

function withSyncLiteralLookup(fn) {
  const lookup = dns.lookup;
  dns.lookup = function lookupLiteral(host, options, callback) {
    const cb = typeof options === "function" ? options : callback;
    const family = net.isIP(host);
    if (family !== 0 && typeof cb === "function") {
      // Node 22 asks with { all: true } (an array of addresses); Node 20 for one.
      if (options && typeof options === "object" && options.all) cb(null, [{ address: host, family }]);
      else cb(null, host, family);
      return {};
    }
    return lookup.apply(this, arguments);
  };
  try {
    return fn();
  } finally {
    dns.lookup = lookup;
  }
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const patched = rewrite(args);
  if (debug) {
    const shown = patched.filter((a) => typeof a !== "function");
    process.stderr.write(`[loopback.cjs] listen(${JSON.stringify(shown)})\n`);
  }
  return withSyncLiteralLookup(() => original.apply(this, patched));
};
