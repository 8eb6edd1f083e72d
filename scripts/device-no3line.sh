#!/usr/bin/env bash
# No-three-in-line on the GPU (after `cargo xtask carry`): CPU/GPU cross-check, GPU counts and
# timings, the 16-core CPU for comparison; then the N-Queens table after the split change.
# Log in $OUT/device-no3line.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-no3line.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
for n in 4 6 8 9 10; do timeout 60 $B no3line $n --cross-check; echo "exit $?"; done
echo "== bench no3line GPU n=2..10 (median of 3)"; timeout 150 $B bench no3line --from 2 --to 10 --repeat 3 --backend gpu
echo "== n=11 GPU"; timeout 100 $B no3line 11 --backend gpu; echo "exit $?"
echo "== n=12 GPU"; timeout ${N12_LIMIT:-150} $B no3line 12 --backend gpu; echo "exit $?"
echo "== bench no3line CPU n=8..10 (16 cores)"; timeout 60 $B bench no3line --from 8 --to 10 --repeat 1 --backend cpu
echo "== bench nqueens GPU N=14..20 (median of 3)"; timeout 90 $B bench nqueens --from 14 --to 20 --repeat 3 --backend gpu
echo "== done"; date -u
