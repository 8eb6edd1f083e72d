#!/usr/bin/env bash
# Quick correctness check of both no-three-in-line kernels (after `cargo xtask carry`).
# Log in $OUT/device-no3line-check.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-no3line-check.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
timeout 60 $B no3line 11 --cross-check; echo "exit $?"
WARPSEARCH_NO3LINE_ENGINE=rows timeout 60 $B no3line 11 --cross-check; echo "exit $?"
for n in 12 13; do timeout 60 $B no3line $n --backend gpu --json | tail -1; done
WARPSEARCH_NO3LINE_ENGINE=rows timeout 60 $B no3line 12 --backend gpu --json | tail -1
echo "== done"; date -u
