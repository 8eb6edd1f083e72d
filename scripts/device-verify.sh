#!/usr/bin/env bash
# Session 2's device call (after `cargo xtask carry`): the random-dfs table after the Row128 fix,
# find-one on the GPU, a profile of the N-Queens kernel (ncu, if it can read counters), the
# N-Queens table N=4..21 and N=22. Log in $OUT/device-verify.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-verify.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== selftest --backend gpu"; $B selftest --backend gpu | tail -2
echo "== bench random-dfs (median of 3)"; $B bench random-dfs --repeat 3; echo "exit $?"
echo "== find one, random-dfs on the GPU"; $B nqueens 100 --one --method random-dfs --backend gpu; echo "exit $?"
echo "== ncu, N=17"
timeout 150 ncu --clock-control none --kernel-name warpsearch_nqueens \
  --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats \
  --metrics smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg.per_second \
  $B nqueens 17 --backend gpu 2>&1 | grep -v '^==PROF==' | tail -80
echo "== bench nqueens N=4..21 (median of 3 up to 20)"; $B bench nqueens --from 4 --to 20 --repeat 3 --backend gpu
echo "== N=21"; $B nqueens 21 --backend gpu
echo "== N=22"; timeout 470 $B nqueens 22 --backend gpu; echo "exit $?"
echo "== done"; date -u
