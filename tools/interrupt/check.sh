#!/bin/sh
# Interrupt latency and memory after interrupts: each case runs ROUNDS times
# in one R process, and DELAY seconds into each run gets SIGINT. Latency is
# the time from the signal to the return (the "returned at" of child.R minus
# the "sent at" printed here); memory should not grow from round to round.
#   tools/interrupt/check.sh DEVICE [DELAY] [ROUNDS] [CASES...]
#   (default cases: gp_fit predict gbees gbees_mc tile_chol dstable)
set -eu
device=${1:-cpu}
delay=${2:-4}
rounds=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
cases=${*:-gp_fit predict gbees gbees_mc tile_chol dstable}
here=$(cd "$(dirname "$0")" && pwd)
ready=$(mktemp)
for case in $cases; do
  echo 0 > "$ready"
  Rscript "$here/child.R" "$case" "$device" "$ready" "$rounds" &
  pid=$!
  for k in $(seq "$rounds"); do
    # A run that ends before its signal moves the child on to the next round
    # (or out): wait for round k or later, and stop when the child is gone.
    while :; do
      r=$(cat "$ready")
      [ "${r:-0}" -ge "$k" ] && break
      kill -0 "$pid" 2>/dev/null || break 2
      sleep 0.1
    done
    sleep "$delay"
    echo "$case $device round $k: SIGINT sent at $(date +%s.%N | cut -c1-14)"
    kill -INT "$pid" 2>/dev/null || true
  done
  wait "$pid" || true
done
rm -f "$ready"
