#!/usr/bin/env bash
# Scale-out suite for a machine with several GPUs (after `cargo xtask carry`): every count is
# run on GPU 0 alone and on every GPU, counts checked (exit status 1 on a mismatch), then a
# checkpointed multi-GPU run is stopped with SIGTERM and resumed, and a bad --devices is
# refused. Log in $OUT/device-scale.log.
set -u
B=carry/warpsearch
exec > >(tee "${OUT:-/tmp}/device-scale.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; date -u
$B info
run() { # label, then the command's arguments; prints the JSON line and the wall time
    local label=$1; shift
    local t0=$EPOCHREALTIME
    local line; line=$(timeout 300 $B "$@" --json); local rc=$?
    local t1=$EPOCHREALTIME
    printf '%-28s rc=%s wall=%ss %s\n' "$label" "$rc" "$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")" "$line"
}
echo "== warm-up"; $B nqueens 16 --backend gpu --devices all >/dev/null
# Sizes from the environment: NQ="20 21 22" NO3="13 14" by default.
for n in ${NQ:-20 21 22}; do
    run "nqueens $n, GPU 0" nqueens $n --backend gpu --devices 0
    run "nqueens $n, all GPUs" nqueens $n --backend gpu --devices all
done
for n in ${NO3:-13 14}; do
    run "no3line $n, GPU 0" no3line $n --backend gpu --devices 0
    run "no3line $n, all GPUs" no3line $n --backend gpu --devices all
done
echo "== text report, all GPUs"; $B nqueens 20 --backend gpu
echo "== checkpointed N=21 on all GPUs: SIGTERM after 5 s, then resume"
rm -f /tmp/n21.ck
timeout -s TERM 5 $B nqueens 21 --backend gpu --checkpoint /tmp/n21.ck --checkpoint-every 1; echo "rc=$?"
tr -d ' \n' < /tmp/n21.ck | grep -o '"done":\[[^]]*\]' | tr -cd ',' | wc -c | awk '{print "chunks saved as done:", $1 + 1}'
run "nqueens 21 resumed" nqueens 21 --backend gpu --checkpoint /tmp/n21.ck
echo "== shards on separate GPUs, merged"
CUDA_VISIBLE_DEVICES=0 $B nqueens 20 --shard 1/2 --result /tmp/s1.json --backend gpu --json > /dev/null &
p1=$!
CUDA_VISIBLE_DEVICES=1 $B nqueens 20 --shard 2/2 --result /tmp/s2.json --backend gpu --json > /dev/null &
p2=$!
# (a bare `wait` would also wait for the `tee` of the log, which never ends)
wait $p1 $p2
$B merge /tmp/s1.json /tmp/s2.json
echo "== a GPU that is not there"; $B nqueens 12 --backend gpu --devices 0,7; echo "rc=$?"
echo "== done"; date -u
