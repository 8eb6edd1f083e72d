#!/usr/bin/env bash
# The propagating no-three-in-line search after the shared transposes and the parallel host
# split (after `cargo xtask carry`): ncu profile at n=12, GPU table n=2..13 (median of 3),
# n=14. Log in $OUT/device-no3line-profile.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-no3line-profile.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== ncu, n=12"
timeout 200 ncu --clock-control none --kernel-name warpsearch_no3line_propagate \
  --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
  --metrics smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct \
  $B no3line 12 --backend gpu 2>&1 | grep -v '^==PROF==' | tail -90
echo "== bench no3line GPU n=2..13 (median of 3)"; timeout 200 $B bench no3line --from 2 --to 13 --repeat 3 --backend gpu
echo "== n=14 GPU"; timeout 200 $B no3line 14 --backend gpu --json; echo "exit $?"
echo "== done"; date -u
