// Preload for `cargo xtask conformance`: `node --require ./client-exit.cjs <suite>`.
//
// In `client --suite all` mode the conformance suite neither reports how the client
// under test exited nor which scenarios allow it to exit with an error (a scenario's
// `allowClientError`, honoured only when one scenario is run alone). This preload
// records both, so the report can count the exit code of every scenario that does not
// allow an error, and tell a pass that rests on the client giving up:
//
// - `allowClientError` is read off the scenario objects themselves: a setter on
//   Object.prototype sees every `this.allowClientError = ...` (no scenario defines it
//   as its own property first) and keeps the object; the value is then stored as an
//   ordinary own property, so the suite reads what it wrote.
// - `child_process.spawn` is wrapped (and the ESM named export re-synced): a spawn whose
//   environment carries MCP_CONFORMANCE_SCENARIO is the client run of that scenario; on
//   `close` one JSON file `<dir>/<scenario with / as _>.json` is written:
//   {"scenario", "code", "signal", "allowClientError"}.
//
// The directory is $MCP_XTASK_CLIENT_EXIT_DIR (created if missing); without it the
// preload does nothing. Writes nothing to stdout.
"use strict";

const dir = process.env.MCP_XTASK_CLIENT_EXIT_DIR;
if (dir) {
  const fs = require("node:fs");
  const path = require("node:path");
  const childProcess = require("node:child_process");
  const { syncBuiltinESMExports } = require("node:module");

  fs.mkdirSync(dir, { recursive: true });
  const marked = new Set();
  Object.defineProperty(Object.prototype, "allowClientError", {
    configurable: true,
    enumerable: false,
    get() {
      return undefined;
    },
    set(value) {
      Object.defineProperty(this, "allowClientError", {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
      marked.add(this);
    },
  });
  const allowsClientError = (scenario) =>
    [...marked].some((o) => o.name === scenario && o.allowClientError === true);

  const originalSpawn = childProcess.spawn;
  childProcess.spawn = function spawn(command, args, options) {
    const child = originalSpawn.apply(this, arguments);
    const env = (Array.isArray(args) ? options : args)?.env;
    const scenario = env?.MCP_CONFORMANCE_SCENARIO;
    if (typeof scenario === "string" && scenario !== "") {
      child.on("close", (code, signal) => {
        const record = {
          scenario,
          code,
          signal,
          allowClientError: allowsClientError(scenario),
        };
        const file = path.join(dir, scenario.replace(/[\/\\]/g, "_") + ".json");
        try {
          fs.writeFileSync(file, JSON.stringify(record) + "\n");
        } catch (e) {
          process.stderr.write(`client-exit.cjs: cannot write ${file}: ${e.message}\n`);
        }
      });
    }
    return child;
  };
  syncBuiltinESMExports();
}
