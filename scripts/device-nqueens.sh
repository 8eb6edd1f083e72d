#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, after `cargo xtask carry`:
# selftest on the GPU, N-Queens counts for N = 4..22 on the GPU, a timing table, a CPU check.
set -u
B=carry/warpsearch
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== selftest --backend gpu"; $B selftest --backend gpu | tail -3
echo "== counts N=4..17 on the GPU (json)"
for n in $(seq 4 17); do $B nqueens $n --backend gpu --json 2>/dev/null; done
echo "== steps-per-poll sweep at N=19"
for s in 4 8 16 32 64; do echo -n "steps=$s "; WARPSEARCH_STEPS_PER_POLL=$s $B nqueens 19 --backend gpu --json 2>/dev/null; done
echo "== bench N=16..21 on the GPU"; timeout 300 $B bench nqueens --from 16 --to 21 --repeat 3 --backend gpu
echo "== N=22 on the GPU"; timeout 200 $B nqueens 22 --backend gpu
echo "== CPU backend on this machine (16 cores), N=16"; $B nqueens 16 --backend cpu
