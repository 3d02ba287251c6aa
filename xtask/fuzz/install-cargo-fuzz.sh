#!/usr/bin/env bash
# Installs cargo-fuzz (from crates.io, pinned, --locked) into target/tools/, where
# `cargo xtask fuzz` looks for it; checks that a nightly toolchain is there (cargo-fuzz
# builds the targets with it: libFuzzer and AddressSanitizer need nightly flags).
# Idempotent: a cargo-fuzz of the pinned version already there is kept.
# CI never runs this: CI replays the kept corpora with stable `cargo test`.
set -euo pipefail

version="0.13.2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tools="${CARGO_FUZZ_ROOT:-$root/target/tools}"
bin="$tools/bin/cargo-fuzz"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "install-cargo-fuzz: a nightly toolchain is needed (rustup toolchain install nightly)" >&2
  exit 1
fi
if [[ -x "$bin" ]] && "$bin" --version 2>/dev/null | grep -q " $version\$"; then
  exit 0
fi
echo "install-cargo-fuzz: cargo install cargo-fuzz@$version --locked --root $tools"
cargo install --locked --quiet --root "$tools" "cargo-fuzz@$version"
