#!/usr/bin/env bash
# mpi_test.sh - mmtb-gen-mpi against mmtb-gen: nine up to 5 stones and the
# placement start 4,4 solved on 1, 2 and 3 local ranks must give the same
# files, byte for byte (cmp), as mmtb-gen, and so must every pair split
# among 2 and 3 ranks (--split 1: each rank holds a part of every pair's
# states and of the solved sectors it reads); --memory splits a pair over
# the limit whose part fits and refuses one whose part does not, before
# solving; a rank killed mid-run (also while all ranks solve a split pair)
# must stop the whole run with a non-zero exit, and the rerun must resume
# and finish with the same bytes again.  A re-close variant (positions with
# state) on 2 and 3 ranks must give mmtb-gen's bytes too.  A sanitized build (SANITIZE 1,
# many times slower) solves nine up to 4 stones and the start 3,3 instead.
# Usage: mpi_test.sh MMTB_GEN MMTB_GEN_MPI MPIEXEC SANITIZE(0|1)
set -euo pipefail
gen=$1 genmpi=$2 mpiexec=$3 sanitize=${4:-0}
jobs=("--max-stones 5" "--start 4,4") gone=(3-3-1-1 4-4 1-1-3-3) stones=5
if [ "$sanitize" = 1 ]; then
    jobs=("--max-stones 4" "--start 3,3") gone=(2-2-1-1 3-3 1-1-2-2) stones=4
fi
# CI runs as root: Open MPI refuses that unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmtb-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
# Open MPI leaves its own allocations at exit: in a sanitized build the leak
# check is off for the MPI runs (every other check stays on; mmtb-gen keeps it)
# (with mpi_out set, each rank's output also goes to files below that folder)
mpi() {
    local np=$1; shift
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        "$mpiexec" --oversubscribe -np "$np" ${mpi_out:+--output-filename "$mpi_out"} "$genmpi" "$@"
}

# same file names, and every file the same bytes
same_tables() {
    local a=$1 b=$2
    [ "$(cd "$a" && ls)" = "$(cd "$b" && ls)" ] || fail "$b: other files than $a: $(ls "$b" | tr '\n' ' ')"
    for f in "$a"/*; do
        cmp "$f" "$b/${f##*/}" || fail "$b/${f##*/} differs from mmtb-gen's"
    done
}

for job in "${jobs[@]}"; do
    ref=$tmp/ref-${job##* }
    # shellcheck disable=SC2086
    "$gen" -v nine $job -o "$ref" --quiet
    [ "$(ls "$ref"/*.mmtb | wc -l)" -ge 4 ] || fail "mmtb-gen wrote too few sectors for $job"
    for np in 1 2 3; do
        out=$tmp/np$np
        rm -rf "$out"
        # shellcheck disable=SC2086
        mpi "$np" -v nine $job -o "$out" --threads 1 --quiet || fail "$np ranks, $job: exit $?"
        same_tables "$ref" "$out"
        ok "nine $job on $np ranks: $(ls "$out" | wc -l) files identical to mmtb-gen's"
        [ "$np" -gt 1 ] || continue
        # every pair split among the ranks; two threads a rank on 2 ranks
        # (rank 0's writer then fetches values from two threads)
        out=$tmp/split$np
        rm -rf "$out"
        # shellcheck disable=SC2086
        mpi "$np" -v nine $job -o "$out" --threads $((4 - np)) --split 1 --quiet ||
            fail "$np ranks, $job, --split 1: exit $?"
        same_tables "$ref" "$out"
        ok "nine $job, every pair split among $np ranks: $(ls "$out" | wc -l) files identical to mmtb-gen's"
    done
done

# a variant whose positions carry state (Twelve's re-close restrictions):
# its pairs shared among the ranks, the same bytes; --split leaves them
# whole (a pair with state is not split yet), the same bytes again
rjobs=("twelve --max-stones 4" "twelve-nine --start 3,3")
[ "$sanitize" = 1 ] && rjobs=("twelve-nine --start 3,3")
for job in "${rjobs[@]}"; do
    ref=$tmp/rref
    rm -rf "$ref"
    # shellcheck disable=SC2086
    "$gen" -v $job -o "$ref" --quiet
    for np in 2 3; do
        out=$tmp/r$np
        rm -rf "$out"
        # shellcheck disable=SC2086
        mpi "$np" -v $job -o "$out" --threads 1 --quiet || fail "$np ranks, $job: exit $?"
        same_tables "$ref" "$out"
        rm -rf "$out"
        # shellcheck disable=SC2086
        mpi "$np" -v $job -o "$out" --threads 1 --split 1 --quiet ||
            fail "$np ranks, $job, --split 1: exit $?"
        same_tables "$ref" "$out"
        ok "$job on $np ranks (and with --split 1): $(ls "$out" | wc -l) files identical to mmtb-gen's"
    done
done

# --memory on 2 ranks, planned before anything is solved.  The plans (MiB)
# of the pairs whole and split come from --verbose --memory 1M runs (every
# pair refused, every plan printed); then a limit just under the split part
# of 9-8 / 8-9 must split 8-8 (over the limit whole, under it split), keep
# 9-4 / 4-9 whole (under it whole) and refuse 9-8 / 8-9 before anything is
# written (exit 4).
plan_of() { # LOG PAIR: the MiB of PAIR's plan on rank 0
    sed -n "s/^$2: plan \([0-9.]*\) MiB.*/\1/p" "$1" | head -1 | cut -d. -f1
}
# each rank's stderr in a file of its own (mpiexec --output-filename), then the files one after
# the other: with both ranks' lines on one stream, a loaded machine once merged two of them and
# a plan went missing (2026-12-05)
ranks_log() { # LOG ARGS...: run on 2 ranks, their stderr into LOG, rank 0's first; mpiexec's exit
    local log=$1 dir rc; shift
    dir=$(mktemp -d "$tmp/out.XXXXXX")
    mpi_out=$dir mpi 2 "$@" >/dev/null 2>&1
    rc=$?
    find "$dir" -path '*rank.[01]/stderr' | sort | xargs cat >"$log"
    return $rc
}
set +e
ranks_log "$tmp/whole.log" -v nine -o "$tmp/plan" --threads 1 --memory 1M --verbose
ranks_log "$tmp/part.log.all" -v nine -o "$tmp/plan" --threads 1 --memory 1M --split 1 --verbose
set -e
grep -v "rank 1's part" "$tmp/part.log.all" >"$tmp/part.log" || true
p98=$(plan_of "$tmp/part.log" "9-8 and 8-9") p88=$(plan_of "$tmp/part.log" 8-8)
w88=$(plan_of "$tmp/whole.log" 8-8) w94=$(plan_of "$tmp/whole.log" "9-4 and 4-9")
[ -n "$p98" ] && [ -n "$p88" ] && [ -n "$w88" ] && [ -n "$w94" ] ||
    fail "plans missing: 9-8 split '$p98', 8-8 split '$p88' whole '$w88', 9-4 whole '$w94'"
limit=$((p98 - 8))
[ "$p88" -lt "$limit" ] && [ "$w88" -gt "$limit" ] && [ "$w94" -lt "$limit" ] ||
    fail "plans do not allow the test: 9-8 split $p98, 8-8 $p88 split, $w88 whole, 9-4 whole $w94 MiB"
[ $((w88 * 10)) -gt $((p88 * 18)) ] || fail "8-8 split on 2 ranks plans $p88 MiB of its $w88: not divided"
out=$tmp/plan
set +e
ranks_log "$tmp/plan.log" -v nine -o "$out" --threads 1 --memory "${limit}M" --verbose
rc=$?
set -e
[ "$rc" = 4 ] || fail "--memory ${limit}M on 2 ranks: exit $rc, expected 4: $(tail -3 "$tmp/plan.log")"
grep -q "^8-8: plan .*split over 2 ranks: rank 0's part" "$tmp/plan.log" ||
    fail "8-8 not split under --memory ${limit}M: $(grep '^8-8' "$tmp/plan.log")"
grep -q "^9-4 and 4-9: plan .*slots$" "$tmp/plan.log" ||
    fail "9-4 / 4-9 (fits whole) split or not planned: $(grep '^9-4' "$tmp/plan.log")"
grep -q "sectors 9-8 and 8-9 need .* over the memory limit" "$tmp/plan.log" ||
    fail "9-8 / 8-9 not refused: $(tail -3 "$tmp/plan.log")"
[ -z "$(ls "$out" 2>/dev/null | grep mmtb$)" ] || fail "tables written although refused"
ok "--memory ${limit}M on 2 ranks: 8-8 split ($w88 MiB whole, $p88 a rank), 9-8 refused ($p98 a rank) before solving (exit 4)"

# A resumed run: some sectors gone, three ranks finish the job.
out=$tmp/np3
for f in "${gone[@]}"; do
    [ -e "$out/$f.mmtb" ] || fail "no sector $f in $out"
    rm "$out/$f.mmtb"
done
# shellcheck disable=SC2086
mpi 3 -v nine ${jobs[1]} -o "$out" --threads 1 --quiet || fail "resume: exit $?"
same_tables "$tmp/ref-${jobs[1]##* }" "$out"
ok "a rerun on 3 ranks resumes with the same bytes"

# A rank that dies: kill rank 1 once the first tables are written, with
# the pairs shared out and with every pair split (--split 1: rank 1 dies
# in the middle of a pair all ranks are solving).
kill_and_resume() {
    local tag=$1; shift
    local ref=$tmp/ref-$stones out=$tmp/die-$tag
    mpi 2 -v nine --max-stones $stones -o "$out" --threads 1 --quiet "$@" >"$tmp/die.log" 2>&1 &
    local run=$! killed=0 rc=0
    for _ in $(seq 600); do
        if [ "$(ls "$out" 2>/dev/null | grep -c 'mmtb$')" -ge 3 ]; then
            for p in /proc/[0-9]*; do
                if grep -qx "$out" <<<"$(tr '\0' '\n' 2>/dev/null <"$p/cmdline")" &&
                   grep -qx OMPI_COMM_WORLD_RANK=1 <<<"$(tr '\0' '\n' 2>/dev/null <"$p/environ")"; then
                    kill -9 "${p#/proc/}" && killed=1
                fi
            done
            break
        fi
        sleep 0.05
    done
    wait "$run" || rc=$?
    if [ "$killed" = 1 ] && [ "$rc" = 0 ] && [ "$(ls "$out"/*.mmtb | wc -l)" -lt "$(ls "$ref"/*.mmtb | wc -l)" ]; then
        fail "$tag: a killed rank, yet exit 0 with sectors missing"
    fi
    if [ "$killed" = 1 ] && [ "$rc" != 0 ]; then
        grep -q "rank 1" "$tmp/die.log" || fail "$tag: no message naming rank 1: $(cat "$tmp/die.log")"
        ok "$tag: rank 1 killed: the run stopped (exit $rc) naming it"
    else
        ok "$tag: (the run ended before rank 1 could be killed: exit $rc)"
    fi
    mpi 2 -v nine --max-stones $stones -o "$out" --threads 1 --quiet "$@" ||
        fail "$tag: rerun after the kill: exit $?"
    same_tables "$ref" "$out"
    ok "$tag: the rerun after the kill resumes with the same bytes"
}
kill_and_resume shared
kill_and_resume split --split 1
