#!/usr/bin/env bash
# Everything measured on the GPU machine in one call (after `cargo xtask carry`):
# self-test, the random-dfs table (Hennum's Table 1 cases), the N-Queens table N=4..20,
# N=21 and N=22. Log in $OUT/device-final.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-final.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== selftest --backend gpu"; $B selftest --backend gpu | tail -2
echo "== bench random-dfs (median of 3)"; $B bench random-dfs --repeat 3
echo "== find one, random-dfs on the GPU"; $B nqueens 100 --one --method random-dfs --backend gpu
echo "== bench nqueens N=4..20 (median of 3)"; $B bench nqueens --from 4 --to 20 --repeat 3 --backend gpu
echo "== N=21"; $B nqueens 21 --backend gpu
echo "== N=22"; timeout 380 $B nqueens 22 --backend gpu
echo "== done"; date -u
