#!/usr/bin/env bash
# The benchmark harness for a GPU machine: one script, one suite per call.
#
#   cargo xtask bundle                    (here: release binaries + this script into bundle/)
#   bash bundle/bench-suite.sh SUITE      (there, from the folder that holds bundle/; see docs/BENCHMARKS.md)
#
# The GPU machine needs only an NVIDIA driver: no Rust, no CUDA toolkit, no network.
#
# Suites:
#   verify           selftest, warp reductions (shuffle tree vs redux.sync), random-dfs table,
#                    one random-dfs solution on the GPU
#   nqueens          bench nqueens N=4..20 (median of 3), then N=21 and N=22 (N22_LIMIT s)
#   no3line          CPU/GPU cross-checks n=10..12 and dived samples of BIGCROSS="17 18 20" (N17_PART=1/1000, N17_LIMIT s each, 0: skipped; CROSS="10 11 12"), bench n=2..13,
#                    the technique table at n=13, then BIG="14 15" (BIG_LIMIT s each)
#   handoff          no3line with and without work sharing between warps (n=13, 14, REPS times each,
#                    SHARING="on off"; then n=15 with it, unless N15=0), after CPU/GPU cross-checks
#                    and a checkpointed one-GPU run
#   scale            every count on all GPUs and on GPU 0 (NO3="13 14", NQ="20 21 22"),
#                    SIGTERM-stopped checkpointed runs resumed, shards on separate GPUs merged
#   ab               the same runs with several builds, interleaved: BINS="bundle/warpsearch bundle/other",
#                    WHAT=no3line, NS="13 14", REPS=2 (LIMIT s each)
#   tune             N-Queens with environment knobs, interleaved: KNOBS="WARPSEARCH_SPLIT=16 WARPSEARCH_SPLIT=64",
#                    NS="20 21", REPS=2 (LIMIT s each); a knob "-" runs with none
#   profile-nqueens  Nsight Compute on the N-Queens kernel (N=PN ≤ 19, default 18: from 20 the fed launch
#                    waits for the host, which ncu's replay blocks), with the pipes' use
#   profile-no3line  Nsight Compute on the no-three-in-line kernel (n=12)
#   profile-skeleton Nsight Compute on the examples' kernels on the depth-first skeleton
#                    (nqueens-simple N=PN, default 17; costas n=PC, default 14)
#   costas           the examples/costas binary, orders 1.. until one takes COSTAS_LIMIT s
#   small            a short search's fixed cost: examples/langford L(2,n) for LF="12 15 16" on the
#                    GPU (REPS=5, one more with WARPSEARCH_TRACE: where the time goes) and on every
#                    CPU core (CPU_REPS=3); BEFORE=DIR adds the skeleton suite's examples from DIR
#   firstrun         `info`, then nqueens 16 cold (CUDA_CACHE_DISABLE=1: nothing from the driver's
#                    compute cache) and warm, REPS times, with the native kernels and with the PTX JIT
#                    (WARPSEARCH_KERNELS=ptx)
#   compare          warpsearch beside other programs on the same GPU: nqueens NQ="20 21", no3line
#                    NO3="13 14", then `bash $OTHERS` (a script of yours that runs the other programs),
#                    then warpsearch again
#   skeleton         the examples on the depth-first skeleton: nqueens-simple beside the built-in
#                    count (NQ="18 19 20", REPS=2; compare nodes a second), Costas on the GPU
#                    (COSTAS="15 16 17 18"), golomb (GOLOMB=""), and Costas on every CPU core
#                    (COSTAS_CPU="14 15"); BEFORE=DIR interleaves the examples' binaries in DIR (A/B)
#   golomb           the examples/golomb binary: optimal rulers of GOLOMB="10 11 12 13 14 15 16" marks on
#                    the GPU (REPS=1 each), then BIG="17" (GOLOMB_LIMIT s each), and GOLOMB_CPU="12 13" on
#                    every CPU core
#   estimate         --estimate beside the count it predicts: nqueens NQ="20 21 22", no3line NO3="13 14 15"
#                    (EST=SECONDS of sampling, default 6; LIMIT s for each count, default 300; COUNT=0:
#                    the estimates alone)
#   one ARGS…        one warpsearch command (long runs: `one nqueens 23 --checkpoint ck.json`)
#   record           a checkpointed record run in sittings: WHAT="no3line 17" (the count's arguments),
#                    its checkpoint and result in CK=DIR (carry DIR from one sitting to the next),
#                    LIMIT s this sitting (default 540; SIGTERM at the limit saves the checkpoint), on
#                    DEVICES (default all); once finished, `verify` of a SAMPLE (default 2%) of its
#                    chunks, SEED=2026, on VERIFY_DEVICES (default: the last GPU)
#   detach           a count longer than one command may run: starts WHAT="no3line 17" on DEVICES (default all)
#                    detached (setsid: it runs on after this script returns, as long as the machine does),
#                    with its checkpoint, result and log in CK=DIR, and returns. DIR must lie outside
#                    any folder copied to the machine again before the count ends (e.g. /var/tmp/n17):
#                    a fresh copy of bundle/ would take the files from under the running count
#   await            waits up to LIMIT s (default 580) for the detached count of CK=DIR, printing its
#                    progress; once it has finished, copies its result and log to LOG_DIR and runs
#                    `verify` of SAMPLE (default 2%) of its chunks on VERIFY_DEVICES (default: the
#                    last GPU), SEED=2026
#   stop             how fast a checkpointed count stops on SIGTERM, and that it resumes exactly:
#                    WHAT="no3line 15" stopped after AFTER=15 s and resumed to the end; then
#                    BIG="no3line 17" stopped after BIG_AFTER=60 s (how long the stop took)
#   sample           a counted, verified sample of a count too long to run whole: the estimate of
#                    WHAT="nqueens 24", shard SHARD="1/100" of it on DEVICES (its result in CK=DIR),
#                    then every chunk of the shard recounted on VERIFY_DEVICES (default: the last GPU)
#   cover            exact cover: GPU, every CPU core and a dancing-links program (DLX) on one core
#   gomoku           Gomoku strength with `gomoku match`, our brain (1 thread, 1 s a move) against
#                    OLD (an earlier warpsearch binary: PARTS=old) and OPPONENT (a Piskvork brain command:
#                    odds = it gets 100 ms a move, equal = 1 s each, 20 = 20x20, renju = rule 4, smp = both
#                    with SMP_THREADS threads, SMP_GAMES games, speed = nodes a second beside OLD at NODES a move, knobs = the odds part (TURN=ours,theirs ms: other times) for each search
#                    setting in KNOBS, side by side, sharing CONC; see WARPSEARCH_GOMOKU_KNOBS in engine/knobs.rs); GAMES games
#                    a part, CONC at once, OPENINGS (classic, balanced or a file; default classic);
#                    every game to $LOG_DIR/games-PART.jsonl
#
# Every count is checked against known values by the binary itself (exit status 1 on a
# mismatch). The log goes to $LOG_DIR/bench-SUITE.log (LOG_DIR: default the current folder).
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=${B:-$here/warpsearch}
LOG_DIR=${LOG_DIR:-.}
suite=${1:-}
[[ -z $suite ]] && { sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2; }
shift
exec > >(tee "$LOG_DIR/bench-$suite.log") 2>&1
echo "== device"; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; date -u
$B info | sed -n 2,3p

# Runs a command with --json under a time limit; prints a label, exit status, wall time, JSON.
run() {
    local label=$1 limit=$2; shift 2
    local t0=$EPOCHREALTIME
    local line; line=$(timeout -k 10 "$limit" "$@" --json); local rc=$?
    local t1=$EPOCHREALTIME
    printf '%-30s rc=%s wall=%ss %s\n' "$label" "$rc" "$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")" "$line"
    return $rc
}

# Nsight Compute's view of one kernel: lanes active, issue, stalls, occupancy, memory.
profile() {
    local kernel=$1; shift
    timeout 300 ncu --clock-control none --kernel-name "$kernel" \
        --section SchedulerStats --section WarpStateStats --section Occupancy \
        --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
        --metrics smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second,lts__t_sector_hit_rate.pct,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active \
        "$@" 2>&1 | grep -v '^==PROF==' | tail -120
}

case $suite in
verify)
    echo "== selftest"; $B selftest --backend gpu | tail -2
    echo "== bench warp (median of 5)"; $B bench warp --repeat 5
    echo "== bench random-dfs (median of 3)"; $B bench random-dfs --repeat 3
    echo "== one solution, random-dfs on the GPU"; $B nqueens 100 --one --method random-dfs --backend gpu
    ;;
nqueens)
    echo "== bench nqueens N=4..20 (median of 3)"; $B bench nqueens --from 4 --to 20 --repeat 3 --backend gpu
    run "nqueens 21" 300 $B nqueens 21 --backend gpu
    run "nqueens 22" "${N22_LIMIT:-300}" $B nqueens 22 --backend gpu
    ;;
no3line)
    for n in ${CROSS:-10 11 12}; do timeout -k 10 90 $B no3line $n --cross-check; echo "rc=$?"; done
    if [[ ${N17_LIMIT:-120} != 0 ]]; then
        for n in ${BIGCROSS:-17 18 20}; do
            echo "== n = $n, a sample of subtrees (each dived deep) on the CPU and the GPU"
            timeout -k 10 "${N17_LIMIT:-120}" $B no3line $n --cross-check="${N17_PART:-1/1000}"; echo "rc=$?"
        done
    fi
    echo "== bench no3line n=2..13 (median of 3)"; timeout 200 $B bench no3line --from 2 --to 13 --repeat 3 --backend gpu
    echo "== technique table, n=13"
    run "all on" 60 $B no3line 13 --backend gpu
    run "images on partial boards" 60 env WARPSEARCH_NO3LINE_IMAGES=partial $B no3line 13 --backend gpu
    run "pair children" 60 env WARPSEARCH_NO3LINE_ROW_CHILDREN=pairs $B no3line 13 --backend gpu
    run "unscored (vulnerable, rows)" 60 env WARPSEARCH_NO3LINE_BRANCHING=vulnerable $B no3line 13 --backend gpu
    run "unscored, pair children" 60 env WARPSEARCH_NO3LINE_BRANCHING=vulnerable WARPSEARCH_NO3LINE_ROW_CHILDREN=pairs $B no3line 13 --backend gpu
    run "no vulnerable cells" 60 env WARPSEARCH_NO3LINE_BRANCHING=rows $B no3line 13 --backend gpu
    run "no handoff" 60 env WARPSEARCH_NO3LINE_HANDOFF=off $B no3line 13 --backend gpu
    for n in ${BIG:-14 15}; do run "no3line $n" "${BIG_LIMIT:-200}" $B no3line $n --backend gpu; done
    ;;
handoff)
    for n in 10 11 12; do timeout 90 $B no3line $n --cross-check; echo "rc=$?"; done
    rm -f /tmp/one.ck
    run "no3line 13, checkpoint" 120 $B no3line 13 --backend gpu --checkpoint /tmp/one.ck || exit 1
    $B no3line 12 --backend gpu > /dev/null   # warm-up
    for n in 13 14; do
        for sharing in ${SHARING:-on off}; do
            for k in $(seq "${REPS:-2}"); do
                run "no3line $n, sharing $sharing" 120 env WARPSEARCH_NO3LINE_HANDOFF=$sharing \
                    $B no3line $n --backend gpu || exit 1
            done
        done
    done
    [[ ${N15:-1} == 0 ]] || run "no3line 15, sharing on" 400 $B no3line 15 --backend gpu
    ;;
scale)
    $B nqueens 16 --backend gpu --devices all > /dev/null   # warm-up
    # A failed count stops the suite (a wrong or hung multi-GPU run makes the rest moot).
    for n in ${NO3:-13 14}; do
        run "no3line $n, all GPUs" 300 $B no3line "$n" --backend gpu --devices all || exit 1
        run "no3line $n, GPU 0" 300 $B no3line "$n" --backend gpu --devices 0 || exit 1
    done
    for n in ${NQ:-20 21 22}; do
        run "nqueens $n, GPU 0" 300 $B nqueens "$n" --backend gpu --devices 0 || exit 1
        run "nqueens $n, all GPUs" 300 $B nqueens "$n" --backend gpu --devices all || exit 1
    done
    for what in "nqueens 21" "no3line 14"; do
        echo "== checkpointed $what on all GPUs: SIGTERM after 5 s, then resume"
        rm -f /tmp/run.ck
        timeout -s TERM 5 $B $what --backend gpu --checkpoint /tmp/run.ck --checkpoint-every 1; echo "rc=$?"
        tr -d ' \n' < /tmp/run.ck | grep -o '"done":\[[^]]*\]' | tr -cd ',' | wc -c | awk '{print "chunks saved as done:", $1 + 1}'
        run "$what resumed" 300 $B $what --backend gpu --checkpoint /tmp/run.ck
    done
    echo "== one GPU, checkpointed (one fed launch)"
    rm -f /tmp/one.ck
    run "no3line 13, GPU 0, checkpoint" 120 $B no3line 13 --backend gpu --devices 0 --checkpoint /tmp/one.ck
    echo "== shards on separate GPUs, merged"
    CUDA_VISIBLE_DEVICES=0 $B nqueens 20 --shard 1/2 --result /tmp/s1.json --backend gpu --json > /dev/null &
    p1=$!
    CUDA_VISIBLE_DEVICES=1 $B nqueens 20 --shard 2/2 --result /tmp/s2.json --backend gpu --json > /dev/null &
    p2=$!
    # (a bare `wait` would also wait for the `tee` of the log, which never ends)
    wait $p1 $p2
    $B merge /tmp/s1.json /tmp/s2.json
    echo "== a GPU that is not there"; $B nqueens 12 --backend gpu --devices 0,7; echo "rc=$?"
    ;;
ab)
    # The same runs with several binaries, interleaved, to compare builds (BINS, WHAT, NS, REPS).
    $B no3line 12 --backend gpu > /dev/null   # warm-up
    for n in ${NS:-13 14}; do
        for k in $(seq "${REPS:-2}"); do
            for b in ${BINS:-$B}; do
                run "$(basename "$b") ${WHAT:-no3line} $n" "${LIMIT:-200}" "$b" ${WHAT:-no3line} "$n" --backend gpu || exit 1
            done
        done
    done
    ;;
gomoku)
    ours="$B gomoku brain --quiet"
    play() {
        local part=$1; shift
        echo "== $part: $*"; date -u
        $B gomoku match "$@" --openings "${OPENINGS:-classic}" --out "$LOG_DIR/games-$part.jsonl" --json
    }
    for part in ${PARTS:-old odds equal 20 renju}; do
        case $part in
        old) play old --engine "$ours" --engine "${OLD:?OLD: an earlier binary} gomoku brain" \
                 --games "${GAMES:-104}" --turn-ms 1000 --concurrency "${CONC:-48}" ;;
        odds) play odds --engine "$ours" --engine "${OPPONENT:?}" --games "${GAMES:-104}" \
                 --turn-ms 1000,100 --concurrency "${CONC:-48}" ;;
        equal) play equal --engine "$ours" --engine "$OPPONENT" --games "${GAMES:-104}" \
                 --turn-ms 1000 --concurrency "${CONC:-48}" ;;
        20) play 20x20 --engine "$ours" --engine "$OPPONENT" --games "${GAMES:-52}" --size 20 \
                 --turn-ms 1000 --concurrency "${CONC:-48}" ;;
        renju) play renju --engine "$ours" --engine "$OPPONENT" --games "${GAMES:-52}" --rule renju \
                 --turn-ms 1000 --concurrency "${CONC:-48}" ;;
        smp) play smp --engine "$ours" --engine "$OPPONENT" --games "${SMP_GAMES:-8}" \
                 --threads "${SMP_THREADS:-8}" --turn-ms 1000 --concurrency "${SMP_CONC:-4}" ;;
        speed) # nodes a second: each binary (B, then OLD when given) searches the positions of
               # scripts/gomoku-positions.txt (middle games of lost games) at NODES nodes a move
               # on one core, REPS times interleaved; the moves and node counts must agree
            for k in $(seq "${REPS:-3}"); do
                for bin in $B ${OLD:-}; do
                    t0=$EPOCHREALTIME
                    taskset -c 2 "$bin" gomoku brain --nodes "${NODES:-300000}" < "$here/gomoku-positions.txt" \
                        2>&1 | sed 's/ in [0-9]* ms//' > "$LOG_DIR/speed-$k-$(basename "$bin").txt"
                    t1=$EPOCHREALTIME
                    printf '%-40s %ss  moves: %s\n' "$bin" "$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")" \
                        "$(md5sum < "$LOG_DIR/speed-$k-$(basename "$bin").txt" | cut -c1-12)"
                done
            done ;;
        knobs) # the odds part (or TURN: ours,theirs ms a move) once for each search setting in
               # KNOBS (space-separated WARPSEARCH_GOMOKU_KNOBS values; - for the defaults), the
               # settings side by side, CONC games at a time shared among them: a call cut short
               # (SIGTERM, e.g. from `timeout`) stops every match at once, each scoring the games
               # that ended, so no setting is left with only the short games. Each setting's
               # output is also in $LOG_DIR/knobs-K.out (the log's tee may be gone by then)
            read -ra settings <<< "${KNOBS:--}"
            each=$(( (${CONC:-48} + ${#settings[@]} - 1) / ${#settings[@]} ))
            pids=()
            for k in "${!settings[@]}"; do
                knob=${settings[$k]}; [[ $knob == - ]] && knob=
                play "knobs-$((k + 1))" --engine "env WARPSEARCH_GOMOKU_KNOBS=$knob $ours" \
                    --engine "${OPPONENT:?}" --games "${GAMES:-104}" --turn-ms "${TURN:-1000,100}" \
                    --concurrency "$each" > "$LOG_DIR/knobs-$((k + 1)).out" 2>&1 &
                pids+=($!)
            done
            trap 'kill -INT "${pids[@]}" 2> /dev/null' TERM INT
            # `wait` returns early when a signal arrives: wait again until every match has ended
            while kill -0 "${pids[@]}" 2> /dev/null; do wait "${pids[@]}" 2> /dev/null; done
            trap - TERM INT
            for k in "${!settings[@]}"; do
                sed -n '1p;$p' "$LOG_DIR/knobs-$((k + 1)).out"
            done ;;
        esac
    done
    ;;
tune)
    $B nqueens 18 --backend gpu > /dev/null   # warm-up
    for n in ${NS:-20 21}; do
        for k in $(seq "${REPS:-2}"); do
            for knob in ${KNOBS:--}; do
                [[ $knob == - ]] && knob=WARPSEARCH_NONE=1
                run "$knob nqueens $n" "${LIMIT:-200}" env "$knob" $B nqueens "$n" --backend gpu || exit 1
            done
        done
    done
    ;;
profile-nqueens)
    profile warpsearch_nqueens_constellation $B nqueens ${PN:-18} --backend gpu --devices 0
    ;;
profile-no3line)
    profile warpsearch_no3line_propagate $B no3line ${PN:-12} --backend gpu --devices 0
    # Per SASS instruction: executions and stall samples (CSV beside the log, for reading
    # which instructions the time goes to).
    timeout 300 ncu --clock-control none --kernel-name warpsearch_no3line_propagate \
        --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
        $B no3line ${PN:-12} --backend gpu --devices 0 > "$LOG_DIR/no3line-sass.csv" 2> /dev/null
    echo "SASS table: $(wc -l < "$LOG_DIR/no3line-sass.csv") lines"
    ;;
cover)
    # Exact cover on the listed examples (EX): traced once, REPS GPU runs (and as many of the
    # binary OLD_B, when given), a GPU run for each ROOTS:EXPAND pair in SETTINGS, CPU_REPS runs
    # on every CPU core, and DLX (a dancing-links program that reads Knuth's dlx1 format on
    # standard input, built outside this repository) on one core with DLX_DIR/EX.dlx (written
    # by `warpsearch cover --example EX --write-dlx1 FILE`).
    $B cover --example queens-8 --backend gpu > /dev/null   # warm-up
    for ex in ${EX-pentominoes-6x10 pentominoes-5x12}; do
        echo "== $ex, traced"
        WARPSEARCH_TRACE=1 $B cover --example "$ex" --backend gpu --json 2>&1 | grep -v '^backend'
        for k in $(seq "${REPS:-3}"); do
            run "$ex, GPU" 120 $B cover --example "$ex" --backend gpu || exit 1
            [[ -n ${OLD_B:-} ]] && { run "$ex, GPU, OLD_B" 120 "$OLD_B" cover --example "$ex" --backend gpu || exit 1; }
        done
        for s in ${SETTINGS:-}; do
            run "$ex, GPU, roots:expand $s" 120 env WARPSEARCH_COVER_ROOTS="${s%:*}" \
                WARPSEARCH_COVER_EXPAND="${s#*:}" $B cover --example "$ex" --backend gpu || exit 1
        done
        for k in $(seq "${CPU_REPS:-1}"); do
            run "$ex, every CPU core" 300 $B cover --example "$ex" --backend cpu || exit 1
        done
        if [[ -n ${DLX:-} ]]; then
            t0=$EPOCHREALTIME
            out=$(taskset -c 1 timeout 300 "$DLX" < "${DLX_DIR:?}/$ex.dlx" 2>&1 | tail -1)
            t1=$EPOCHREALTIME
            printf '%-30s wall=%ss %s\n' "$ex, DLX one core" "$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")" "$out"
        fi
    done
    ;;
profile-skeleton)
    profile nqueens_simple "$here/nqueens-simple" ${PN:-17} --backend gpu --devices 0
    profile costas_count "$here/costas" ${PC:-14} --backend gpu --devices 0
    ;;
costas)
    for n in $(seq 1 29); do
        run "costas $n" "${COSTAS_LIMIT:-120}" "$here/costas" "$n" --backend gpu || break
    done
    ;;
firstrun)
    echo "== info"; $B info
    for k in $(seq "${REPS:-3}"); do
        run "nqueens 16 cold, native" 120 env CUDA_CACHE_DISABLE=1 $B nqueens 16 --backend gpu
        run "nqueens 16 warm, native" 120 $B nqueens 16 --backend gpu
        run "nqueens 16 cold, PTX JIT" 120 env CUDA_CACHE_DISABLE=1 WARPSEARCH_KERNELS=ptx $B nqueens 16 --backend gpu
        run "nqueens 16 warm, PTX JIT" 120 env WARPSEARCH_KERNELS=ptx $B nqueens 16 --backend gpu
    done
    ;;
compare)
    $B nqueens 16 --backend gpu > /dev/null   # warm-up
    for pass in 1 2; do
        for n in ${NQ:-20 21}; do run "warpsearch nqueens $n" 300 $B nqueens "$n" --backend gpu || exit 1; done
        for n in ${NO3:-13 14}; do run "warpsearch no3line $n" 300 $B no3line "$n" --backend gpu || exit 1; done
        [[ $pass == 1 && -n ${OTHERS:-} ]] && bash "$OTHERS"
    done
    ;;
small)
    "$here/langford" 8 --backend gpu > /dev/null   # warm-up
    for n in ${LF-12 15 16}; do
        echo "== langford $n, traced"
        WARPSEARCH_TRACE=1 "$here/langford" "$n" --backend gpu --json 2>&1 | grep -v '^backend'
        for k in $(seq "${REPS:-5}"); do
            run "langford $n, GPU" 120 "$here/langford" "$n" --backend gpu || exit 1
        done
        for k in $(seq "${CPU_REPS:-3}"); do
            run "langford $n, every CPU core" 300 "$here/langford" "$n" --backend cpu || exit 1
        done
    done
    ;;
skeleton)
    "$here/nqueens-simple" 12 --backend gpu > /dev/null   # warm-up
    for n in ${NQ-18 19 20}; do
        for k in $(seq "${REPS:-2}"); do
            run "nqueens-simple $n" 300 "$here/nqueens-simple" "$n" --backend gpu || exit 1
            [[ -n ${BEFORE:-} ]] && { run "nqueens-simple $n, BEFORE" 300 "$BEFORE/nqueens-simple" "$n" --backend gpu || exit 1; }
            run "warpsearch nqueens $n" 300 $B nqueens "$n" --backend gpu || exit 1
        done
    done
    for n in ${COSTAS-15 16 17 18}; do
        for k in $(seq "${REPS:-2}"); do
            run "costas $n, GPU" 300 "$here/costas" "$n" --backend gpu || exit 1
            [[ -n ${BEFORE:-} ]] && { run "costas $n, GPU, BEFORE" 300 "$BEFORE/costas" "$n" --backend gpu || exit 1; }
        done
    done
    for m in ${GOLOMB:-}; do
        run "golomb $m, GPU" 300 "$here/golomb" "$m" --backend gpu || exit 1
        [[ -n ${BEFORE:-} ]] && { run "golomb $m, GPU, BEFORE" 300 "$BEFORE/golomb" "$m" --backend gpu || exit 1; }
    done
    for n in ${COSTAS_CPU-14 15}; do
        run "costas $n, every CPU core" 300 "$here/costas" "$n" --backend cpu || exit 1
    done
    ;;
golomb)
    "$here/golomb" 8 --backend gpu > /dev/null   # warm-up
    for m in ${GOLOMB:-10 11 12 13 14 15 16}; do
        for k in $(seq "${REPS:-1}"); do
            run "golomb $m, GPU" 300 "$here/golomb" "$m" --backend gpu || exit 1
        done
    done
    for m in ${GOLOMB_CPU:-12 13}; do
        run "golomb $m, every CPU core" 300 "$here/golomb" "$m" --backend cpu || exit 1
    done
    for m in ${BIG-17}; do
        run "golomb $m, GPU" "${GOLOMB_LIMIT:-300}" "$here/golomb" "$m" --backend gpu
    done
    ;;
estimate)
    $B nqueens 16 --backend gpu > /dev/null   # warm-up
    for n in ${NQ-20 21 22}; do
        run "nqueens $n --estimate" 120 $B nqueens "$n" --estimate="${EST:-6}" --backend gpu || exit 1
        [[ ${COUNT:-1} == 0 ]] || run "nqueens $n" "${LIMIT:-300}" $B nqueens "$n" --backend gpu || exit 1
    done
    for n in ${NO3-13 14 15}; do
        run "no3line $n --estimate" 120 $B no3line "$n" --estimate="${EST:-6}" --backend gpu || exit 1
        [[ ${COUNT:-1} == 0 ]] || run "no3line $n" "${LIMIT:-300}" $B no3line "$n" --backend gpu || exit 1
    done
    ;;
one)
    run "warpsearch $*" 590 $B "$@"
    ;;
record)
    ck=${CK:?CK=DIR holds the checkpoint}; mkdir -p "$ck"
    last=$(( $(nvidia-smi -L | wc -l) - 1 ))
    [[ -f $ck/checkpoint.json ]] && echo "== resuming $ck/checkpoint.json" || echo "== a new run"
    # shellcheck disable=SC2086
    run "${WHAT:?}" "${LIMIT:-540}" $B $WHAT --backend gpu --devices "${DEVICES:-all}" \
        --checkpoint "$ck/checkpoint.json" --checkpoint-every 20 --result "$ck/result.json"
    rc=$?
    if [[ $rc == 0 ]]; then
        run "verify ${SAMPLE:-2%}" 590 $B verify "$ck/result.json" --sample "${SAMPLE:-2%}" \
            --seed "${SEED:-2026}" --backend gpu --devices "${VERIFY_DEVICES:-$last}"
    else
        echo "== stopped (rc=$rc); carry $ck to the next sitting"
    fi
    ;;
detach)
    ck=${CK:?CK=DIR holds the checkpoint}; mkdir -p "$ck"
    # The count runs a copy of the binary kept beside its checkpoint, so that a new copy of
    # the bundle cannot replace the file under it.
    cp "$B" "$ck/warpsearch"
    # shellcheck disable=SC2086
    setsid nohup "$ck/warpsearch" $WHAT --backend gpu --devices "${DEVICES:-all}" --checkpoint "$ck/checkpoint.json" \
        --checkpoint-every 20 --result "$ck/result.json" --json > "$ck/run.log" 2>&1 < /dev/null &
    echo "== started ${WHAT:?} (pid $!), log $ck/run.log"
    sleep 15; tail -3 "$ck/run.log"
    ;;
await)
    ck=${CK:?CK=DIR holds the checkpoint}
    last=$(( $(nvidia-smi -L | wc -l) - 1 ))
    end=$(( SECONDS + ${LIMIT:-580} ))
    while pgrep -f -- "--result $ck/result.json" > /dev/null && (( SECONDS < end )); do
        sleep 20
        printf '%s  chunks saved: %s\n' "$(date -u +%T)" \
            "$(grep -c '"index"' "$ck/checkpoint.json" 2>/dev/null || echo 0)"
    done
    tail -3 "$ck/run.log"
    if [[ -f $ck/result.json ]] && ! pgrep -f -- "--result $ck/result.json" > /dev/null; then
        cp "$ck/result.json" "$ck/run.log" "$LOG_DIR/"
        run "verify ${SAMPLE:-2%}" 590 $B verify "$ck/result.json" --sample "${SAMPLE:-2%}" \
            --seed "${SEED:-2026}" --backend gpu --devices "${VERIFY_DEVICES:-$last}"
    else
        echo "== still running; run await again"
    fi
    ;;
stop)
    rm -f /tmp/stop.ck /tmp/big.ck
    # shellcheck disable=SC2086
    run "${WHAT:-no3line 15}, SIGTERM after ${AFTER:-15} s" "${AFTER:-15}" $B ${WHAT:-no3line 15} --backend gpu \
        --devices 0 --checkpoint /tmp/stop.ck --checkpoint-every 5
    # shellcheck disable=SC2086
    run "${WHAT:-no3line 15}, resumed" 300 $B ${WHAT:-no3line 15} --backend gpu --devices 0 \
        --checkpoint /tmp/stop.ck --no-estimate || exit 1
    # shellcheck disable=SC2086
    [[ -n ${BIG-no3line 17} ]] && run "${BIG-no3line 17}, SIGTERM after ${BIG_AFTER:-60} s" "${BIG_AFTER:-60}" \
        $B ${BIG-no3line 17} --backend gpu --devices 0 --checkpoint /tmp/big.ck --no-estimate
    ;;
sample)
    ck=${CK:?CK=DIR holds the shard result}; mkdir -p "$ck"
    last=$(( $(nvidia-smi -L | wc -l) - 1 ))
    # shellcheck disable=SC2086
    run "${WHAT:?} --estimate" 300 $B $WHAT --estimate --backend gpu --devices "${DEVICES:-all}"
    # shellcheck disable=SC2086
    run "$WHAT --shard ${SHARD:-1/100}" "${LIMIT:-400}" $B $WHAT --shard "${SHARD:-1/100}" --backend gpu \
        --devices "${DEVICES:-all}" --result "$ck/shard.json" || exit 1
    run "verify every chunk of the shard" 590 $B verify "$ck/shard.json" --sample 100% --seed 1 \
        --backend gpu --devices "${VERIFY_DEVICES:-$last}"
    ;;
*)
    echo "unknown suite $suite (see the top of $0)"; exit 2
    ;;
esac
echo "== done"; date -u
