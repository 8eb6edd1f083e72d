#!/usr/bin/env bash
# The N-Queens measurement on the GPU machine (after `cargo xtask carry`):
# GPU self-test, a sweep of the back-up knob, the timing table N=4..21 with the best setting,
# N=22, and the CPU backend on the machine's cores. Logs go to $OUT when it is set.
set -u
B=carry/warpsearch
LOG=${OUT:-/tmp}/nqueens-device.log
exec > >(tee "$LOG") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== selftest"; $B selftest --backend gpu | tail -1
q() { n=$1; shift; env "$@" $B nqueens $n --backend gpu --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["known_match"], round(d["seconds"],3))'; }
best=1; best_t=1e9
for k in 1 2 4 32; do
  r=$(q 20 WARPSEARCH_BACK_UPS=$k); echo "N=20 back_ups=$k: $r"
  t=${r#* }; if python3 -c "import sys; sys.exit(0 if $t < $best_t else 1)"; then best=$k; best_t=$t; fi
done
echo "best back_ups=$best"
export WARPSEARCH_BACK_UPS=$best
echo "== bench N=4..20 (median of 3)"; $B bench nqueens --from 4 --to 20 --repeat 3 --backend gpu
echo "== N=21"; $B nqueens 21 --backend gpu
echo "== N=22"; timeout 400 $B nqueens 22 --backend gpu
echo "== CPU backend, all cores"; $B bench nqueens --from 15 --to 17 --repeat 1 --backend cpu
