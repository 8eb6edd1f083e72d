#!/usr/bin/env bash
# Tuning sweep on the GPU machine (after `cargo xtask carry`): correctness first, then the
# kernel's poll budget at N=19 and N=20, then the timing table with the defaults.
set -u
B=carry/warpsearch
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B selftest --backend gpu | tail -1
for n in 4 8 12 14 16 17 18; do $B nqueens $n --backend gpu --json 2>/dev/null; done
q() { n=$1; shift; env "$@" $B nqueens $n --backend gpu --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["known_match"], round(d["seconds"],3))'; }
for s in 8 16 32 64; do echo -n "N=19 steps=$s: "; q 19 WARPSEARCH_STEPS_PER_POLL=$s; done
for p in 2 8; do echo -n "N=20 split=$p: "; q 20 WARPSEARCH_SPLIT=$p; done
timeout 150 $B bench nqueens --from 17 --to 21 --repeat 3 --backend gpu
timeout 120 $B nqueens 22 --backend gpu
