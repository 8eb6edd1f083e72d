#!/usr/bin/env bash
# The single-launch N-Queens run (after `cargo xtask carry`): N=4..20 table, N=21 and N=22 on the
# GPU. Log in $OUT/device-nqueens-large.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-nqueens-large.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== bench nqueens N=4..20 (median of 3)"; $B bench nqueens --from 4 --to 20 --repeat 3 --backend gpu
echo "== N=21"; $B nqueens 21 --backend gpu
echo "== N=22"; timeout ${N22_LIMIT:-420} $B nqueens 22 --backend gpu; echo "exit $?"
echo "== done"; date -u
