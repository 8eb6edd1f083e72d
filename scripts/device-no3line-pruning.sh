#!/usr/bin/env bash
# No-three-in-line with canonical pruning (after `cargo xtask carry`): cross-check, GPU table
# n=2..13, the technique table at n=13 (pruning off / first row / canonical), n=14.
# Log in $OUT/device-no3line-pruning.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-no3line-pruning.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
for n in 6 9 12; do timeout 60 $B no3line $n --cross-check; echo "exit $?"; done
echo "== bench no3line GPU n=2..13 (median of 3)"; timeout 150 $B bench no3line --from 2 --to 13 --repeat 3 --backend gpu
for p in off first-row; do echo "== n=13 pruning=$p"; WARPSEARCH_NO3LINE_PRUNING=$p timeout 60 $B no3line 13 --backend gpu --json; echo "exit $?"; done
echo "== n=14 GPU"; timeout 240 $B no3line 14 --backend gpu --json; echo "exit $?"
echo "== done"; date -u
