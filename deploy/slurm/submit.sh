#!/bin/bash
# Submits an exhaustive search to Slurm as M shards (a job array) and a merge job that runs
# when all of them have succeeded.
#
#   deploy/slurm/submit.sh [-m M] [-o OUTDIR] PROBLEM N [warpsearch options…] [-- SBATCH_OPTIONS…]
#
# Examples:
#   deploy/slurm/submit.sh -m 64 -o runs/nq24 nqueens 24 --backend gpu -- --partition=gpu --gres=gpu:1
#   deploy/slurm/submit.sh -m 4 -o /tmp/nq16 nqueens 16 --backend cpu
# Options after a `--` go to sbatch for the shards (partition, GPUs, time limit, account…).
# $WARPSEARCH names the binary (default: warpsearch on the PATH of the compute nodes).
# Prints the two job ids; the answer lands in OUTDIR/merged.json.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
shards=16
outdir=
while getopts "m:o:h" option; do
    case $option in
        m) shards=$OPTARG ;;
        o) outdir=$OPTARG ;;
        *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
search=()
while [[ $# -gt 0 && $1 != -- ]]; do
    search+=("$1")
    shift
done
[[ ${1:-} == -- ]] && shift
sbatch_options=("$@")
if [[ ${#search[@]} -lt 2 ]]; then
    echo "usage: $0 [-m M] [-o OUTDIR] PROBLEM N [warpsearch options…] [-- SBATCH_OPTIONS…]" >&2
    exit 2
fi
if ! [[ $shards =~ ^[1-9][0-9]*$ ]]; then
    echo "$0: -m wants a positive number of shards; got $shards" >&2
    exit 2
fi
outdir=${outdir:-warpsearch-${search[0]}-${search[1]}}
mkdir -p "$outdir/logs"
outdir=$(cd "$outdir" && pwd)

array=$(sbatch --parsable --array="0-$((shards - 1))" \
    --output="$outdir/logs/shard-%a.log" "${sbatch_options[@]}" \
    "$here/shard.sbatch" "$outdir" "${search[@]}")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" \
    --output="$outdir/logs/merge.log" \
    "$here/merge.sbatch" "$outdir" "$shards")
merge=${merge%%;*}
echo "shards: job $array (array 0-$((shards - 1)))"
echo "merge:  job $merge (after every shard succeeds) → $outdir/merged.json"
