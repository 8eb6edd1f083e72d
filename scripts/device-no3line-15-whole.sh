#!/usr/bin/env bash
# n = 15 in one run with the propagating search (after `cargo xtask carry`).
# Log in $OUT/device-no3line-15-whole.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-no3line-15-whole.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== n=15 GPU"; timeout 580 $B no3line 15 --backend gpu --json; echo "exit $?"
echo "== done"; date -u
