#!/usr/bin/env bash
# No-three-in-line n=15 on the GPU, one part per device call (a whole run is ≈ 13 minutes, over
# the 10-minute limit of one call): `PART=1/2 bash carry/device-no3line-15.sh`, then PART=2/2.
# Add the two parts' classes. Log in $OUT/device-no3line-15-<part>.log.
set -u
B=carry/warpsearch
P=${PART:-1/2}
exec > >(tee "${OUT:-/tmp}/device-no3line-15-${P%/*}.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== n=15 part $P"; timeout 570 $B no3line 15 --backend gpu --shard "$P" --result "${OUT:-/tmp}/no3line-15-$(echo $P | tr / -).json" --json; echo "exit $?"
echo "== done"; date -u
