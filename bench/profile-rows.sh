#!/bin/bash
# Load-independent figures per row, for a machine that is not quiet:
#   instructions per call (valgrind --tool=callgrind, the difference of two
#   runs of N1 and N2 calls, so connecting and warming up cancel out) and the
#   client's VmHWM after warm-up (mcp-bench profile prints it).
#
#   bench/profile-rows.sh [IMPL] [OUT_DIR]     # after: cargo build --release --manifest-path bench/Cargo.toml
#
# Callgrind counts every thread of the client (runtime included) and none of
# the server's (a separate process). Multi-threaded scheduling makes the
# counts move by a few per cent between runs: repeat a row before trusting a
# difference under 5 %.
set -u
IMPL=${1:-ours}
OUT=${2:-/tmp/mcp-profile-rows}
BIN=${BIN:-$(dirname "$0")/target/release}
mkdir -p "$OUT"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN/bench-server" http --port "$PORT" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER' EXIT
sleep 1
URL=http://127.0.0.1:$PORT/mcp

profile() { # transport workload in_flight n -> output file stem
  local f=$OUT/$IMPL.$1.$2.$3.$4
  valgrind --tool=callgrind --callgrind-out-file="$f.out" "$BIN/mcp-bench" profile --impl "$IMPL" \
    --transport "$1" --server "$BIN/bench-server" --url "$URL" --workload "$2" --in-flight "$3" --n "$4" >"$f.log" 2>&1
  grep Collected "$f.log" | awk '{print $NF}'
}

for row in "stdio small 1" "stdio small 16" "stdio small 256" "stdio large 1" "stdio large 256" \
           "http-json small 1" "http-json small 16" "http-json small 256" "http-json large 1" "http-json large 256"; do
  set -- $row
  if [ "$2" = large ]; then n1=256; n2=768; else n1=500; n2=2500; fi
  a=$(profile "$1" "$2" "$3" $n1)
  b=$(profile "$1" "$2" "$3" $n2)
  hwm=$("$BIN/mcp-bench" profile --impl "$IMPL" --transport "$1" --server "$BIN/bench-server" --url "$URL" \
    --workload "$2" --in-flight "$3" --n $((n2 * 2)) | sed -n 's/.*"vmhwm_kib":\([0-9.]*\).*/\1/p')
  echo "$IMPL $1 $2 in_flight=$3 Ir/call=$(( (b - a) / (n2 - n1) )) VmHWM_KiB=$hwm"
done
