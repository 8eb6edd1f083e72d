#!/usr/bin/env bash
# No-three-in-line on the GPU (after `cargo xtask carry`): CPU/GPU cross-check, GPU counts and
# timings n=2..13, the first-row pruning on/off at n=12, the 16-core CPU for comparison.
# Log in $OUT/device-no3line.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-no3line.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
for n in 4 6 8 10 11; do timeout 90 $B no3line $n --cross-check; echo "exit $?"; done
echo "== bench no3line GPU n=2..12 (median of 3)"; timeout 200 $B bench no3line --from 2 --to 12 --repeat 3 --backend gpu
echo "== n=12, all first rows (pruning off)"; WARPSEARCH_NO3LINE_ALL_FIRST_ROWS=1 timeout 60 $B no3line 12 --backend gpu; echo "exit $?"
echo "== n=13 GPU"; timeout ${N13_LIMIT:-200} $B no3line 13 --backend gpu; echo "exit $?"
echo "== bench no3line CPU n=8..11 (16 cores)"; timeout 90 $B bench no3line --from 8 --to 11 --repeat 1 --backend cpu
echo "== done"; date -u
