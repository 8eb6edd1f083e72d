#!/usr/bin/env bash
# The propagating no-three-in-line search (after `cargo xtask carry`): cross-checks, GPU table
# n=2..13 (median of 3), the technique table at n=13 (rows engine, no vulnerable cells, no
# symmetry, no partner masks is a code change: see docs/notes), n=14.
# Log in $OUT/device-no3line-propagate.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-no3line-propagate.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
for n in 10 11 12; do timeout 60 $B no3line $n --cross-check; echo "exit $?"; done
echo "== bench no3line GPU n=2..13 (median of 3)"; timeout 200 $B bench no3line --from 2 --to 13 --repeat 3 --backend gpu
echo "== n=13 techniques"
echo "-- all on"; timeout 30 $B no3line 13 --backend gpu --json
echo "-- rows engine"; WARPSEARCH_NO3LINE_ENGINE=rows timeout 30 $B no3line 13 --backend gpu --json
echo "-- no vulnerable cells"; WARPSEARCH_NO3LINE_BRANCHING=rows timeout 30 $B no3line 13 --backend gpu --json
echo "-- no symmetry"; WARPSEARCH_NO3LINE_PRUNING=off timeout 60 $B no3line 13 --backend gpu --json
echo "== n=14 GPU"; timeout 200 $B no3line 14 --backend gpu --json; echo "exit $?"
echo "== done"; date -u
