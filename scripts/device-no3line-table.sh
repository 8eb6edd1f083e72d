#!/usr/bin/env bash
# No-three-in-line with the line table (after `cargo xtask carry`): cross-check, GPU table
# n=2..12, n=13, n=14. Log in $OUT/device-no3line-table.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-no3line-table.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
for n in 5 8 11; do timeout 60 $B no3line $n --cross-check; echo "exit $?"; done
echo "== bench no3line GPU n=2..12 (median of 3)"; timeout 120 $B bench no3line --from 2 --to 12 --repeat 3 --backend gpu
echo "== n=13 GPU"; timeout 120 $B no3line 13 --backend gpu --json; echo "exit $?"
echo "== n=14 GPU"; timeout ${N14_LIMIT:-300} $B no3line 14 --backend gpu --json; echo "exit $?"
echo "== done"; date -u
