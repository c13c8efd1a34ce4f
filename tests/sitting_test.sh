#!/usr/bin/env bash
# scripts/sitting (ctest sitting_script): a long run recorded over sittings.
#   tests/sitting_test.sh SCRIPTS_DIR MMTB_GEN
# 1. A sitting killed with its command (the session that ends, the machine
#    replaced) leaves a start line and no end; the next sitting of the same
#    command records the cut with what was left, resumes, and ends with
#    nothing left; a third records a sitting with nothing to do.  The cut
#    line gives when the cut sitting last wrote, its time and peak so far.
# 2. The tables of the resumed run are those of an uninterrupted run (cmp);
#    a sitting cut in a pair's levels records that pair's checkpoint in the
#    next sitting's cut line, and goes on from it to the same tables.
# 3. Bad usage exits 1 and writes no log line.
# 4. A second sitting of a log while the first still runs exits 1 and writes
#    no line.
# 5. NICE=K: the command runs at nice K; a sitting that leads its own session
#    (setsid) puts its session's scheduling group at K too, one that does not
#    leaves the caller's group as it was.
set -uo pipefail
scripts=$1 gen=$2
fail() { echo "sitting_test: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# nine from 4 v 4 stones in hand on one thread: seconds of solving under the
# sanitizers, one or two in a Release build, cut after its first sector
job=(-v nine --start 4,4 --threads 1 --quiet)

# 1. sitting 1, killed once its first sector is written
setsid "$scripts/sitting" run.log -- "$gen" "${job[@]}" -o t >/dev/null 2>&1 &
leader=$!
for _ in $(seq 1200); do
    [ "$(ls t 2>/dev/null | grep -c '\.mmtb$')" -ge 1 ] && break
    sleep 0.05
done
[ "$(ls t 2>/dev/null | grep -c '\.mmtb$')" -ge 1 ] || fail "sitting 1 wrote no sector in 60 s"
kill -KILL -- -"$leader" 2>/dev/null
wait "$leader" 2>/dev/null
grep -q '^end' run.log && fail "sitting 1 finished before it was killed: the job is too small"
left1=$(sed -n 's/^start\tsitting=1\t.*\tslots_left=\([0-9]*\)$/\1/p' run.log)
[ -n "$left1" ] && [ "$left1" -gt 0 ] || fail "sitting 1's start line has no slots left: $(cat run.log)"

"$scripts/sitting" run.log -- "$gen" "${job[@]}" -o t || fail "sitting 2 exited $?"
cut=$(sed -n 's/^cut\tsitting=1\t.*\tslots_left=\([0-9]*\)$/\1/p' run.log)
[ -n "$cut" ] || fail "no cut line for sitting 1: $(cat run.log)"
[ "$cut" -lt "$left1" ] || fail "sitting 1 solved nothing before its cut ($cut of $left1 left)"
# the cut line says when sitting 1 was last heard from (its output's time, not
# sitting 2's start), how long it had run and its peak so far
grep -q $'^cut\tsitting=1\tutc=[^\t]*\tlast_output=20[0-9-]*T[0-9:]*Z\tseconds=[0-9][0-9]*\tpeak_rss_kib=[1-9][0-9]*\tckpt=' \
    run.log || fail "sitting 1's cut line lacks its last output, time or peak: $(grep '^cut' run.log)"
last=$(sed -n 's/^cut\tsitting=1\t.*\tlast_output=\([^\t]*\)\t.*/\1/p' run.log)
start2=$(sed -n 's/^start\tsitting=2\tutc=\([^\t]*\)\t.*/\1/p' run.log)
[ "$(date -u -d "$last" +%s)" -le "$(date -u -d "$start2" +%s)" ] ||
    fail "sitting 1's last output $last is after sitting 2's start $start2"
grep -q $'^start\tsitting=2\t.*\tcmd=[^\t]*mmtb-gen -v nine --start 4,4' run.log ||
    fail "sitting 2's start line lacks its command: $(cat run.log)"
grep -q $'^end\tsitting=2\t.*\trc=0\t.*\tpeak_rss_kib=[1-9][0-9]*\tckpt=-\tpairs_left=0\tslots_left=0$' run.log ||
    fail "sitting 2's end line: $(grep '^end' run.log)"
"$scripts/sitting" run.log -- "$gen" "${job[@]}" -o t || fail "sitting 3 exited $?"
[ "$(grep -c '^start' run.log)" = 3 ] && [ "$(grep -c '^end' run.log)" = 2 ] &&
    [ "$(grep -c '^cut' run.log)" = 1 ] || fail "the log's lines: $(cat run.log)"
grep -q $'^start\tsitting=3\t.*\tpairs_left=0\tslots_left=0$' run.log || fail "sitting 3 had work left"
[ -s run.log.2.out ] || [ -e run.log.2.err ] || fail "no output files of sitting 2"

# 2. the same tables as one uninterrupted run
"$gen" "${job[@]}" -o whole || fail "the uninterrupted run exited $?"
for f in whole/*.mmtb; do
    cmp -s "$f" "t/$(basename "$f")" || fail "$(basename "$f") differs from the uninterrupted run's"
done
[ "$(ls t | grep -c '\.mmtb$')" = "$(ls whole | grep -c '\.mmtb$')" ] || fail "sector counts differ"

# 2b. a sitting cut in a pair's levels (a save at every level): the next
# sitting's cut line names the pair and the level its checkpoint goes on from
ckjob=(-v nine --max-stones 4 --threads 1 --quiet --checkpoint 0)
setsid "$scripts/sitting" ck.log -- "$gen" "${ckjob[@]}" -o ck >/dev/null 2>&1 &
leader=$!
for _ in $(seq 1200); do
    ls ck 2>/dev/null | grep -q '\.ckpt$' && break
    sleep 0.05
done
kill -KILL -- -"$leader" 2>/dev/null
wait "$leader" 2>/dev/null
ck=$(ls ck 2>/dev/null | grep '\.ckpt$')
[ -n "$ck" ] || fail "no checkpoint in 60 s (or the run ended first): $(ls ck)"
"$scripts/sitting" ck.log -- "$gen" "${ckjob[@]}" -o ck || fail "the resumed sitting exited $?"
grep -q $'^cut\tsitting=1\t.*\tckpt='"${ck%.ckpt}"$'@[0-9][0-9]*\tpairs_left=' ck.log ||
    fail "the cut line does not name $ck's pair and level: $(cat ck.log)"
grep -q $'^end\tsitting=2\t.*\tckpt=-\tpairs_left=0' ck.log || fail "sitting 2's end: $(cat ck.log)"
"$gen" -v nine --max-stones 4 --threads 1 --quiet -o ckwhole || fail "the whole run exited $?"
for f in ckwhole/*.mmtb; do
    cmp -s "$f" "ck/$(basename "$f")" || fail "$(basename "$f") after the checkpoint differs"
done

# 3. bad usage
"$scripts/sitting" bad.log "$gen" -v nine >/dev/null 2>&1
[ $? = 1 ] || fail "a missing -- did not exit 1"
"$scripts/sitting" bad.log -- ./no-such-program >/dev/null 2>&1
[ $? = 1 ] || fail "a missing program did not exit 1"
"$scripts/sitting" bad.log -- "$gen" "${job[@]}" -o t --plan >/dev/null 2>&1
[ $? = 1 ] || fail "--plan in the command did not exit 1"
[ ! -s bad.log ] || fail "bad usage wrote to the log: $(cat bad.log)"
# 4. one sitting of a log at a time
setsid "$scripts/sitting" busy.log -- "$gen" -v nine --start 5,5 --threads 1 --quiet -o busy \
    >/dev/null 2>&1 &
leader=$!
for _ in $(seq 1200); do
    grep -q '^start' busy.log 2>/dev/null && break
    sleep 0.05
done
grep -q '^start' busy.log || fail "the first sitting of busy.log wrote no start line in 60 s"
"$scripts/sitting" busy.log -- "$gen" -v nine --start 5,5 --threads 1 --quiet -o busy \
    >second.out 2>&1
rc=$?
ended=$(grep -c '^end' busy.log)
kill -KILL -- -"$leader" 2>/dev/null
wait "$leader" 2>/dev/null
[ $rc = 1 ] || fail "a second sitting beside the first exited $rc, not 1"
[ "$ended" = 0 ] || fail "the first sitting ended before the second was tried: the job is too small"
grep -q 'another sitting of busy.log is still running' second.out ||
    fail "the second sitting did not say why: $(cat second.out)"
[ "$(wc -l <busy.log)" = 1 ] || fail "the second sitting wrote to the log: $(cat busy.log)"

# 5. NICE: a command that shows its nice value and its scheduling group
printf '#!/bin/sh\nawk "{print \\$19}" /proc/$$/stat\ncat /proc/self/autogroup 2>/dev/null || echo no-autogroup\n' >show
chmod +x show
setsid -w env NICE=7 "$scripts/sitting" nice.log -- ./show >/dev/null 2>&1 ||
    fail "the sitting of ./show exited $?"
[ "$(sed -n 1p nice.log.1.out | tr -d ' ')" = 7 ] || fail "NICE=7 ran at nice $(cat nice.log.1.out)"
if [ -w /proc/self/autogroup ]; then
    grep -q 'nice 7$' nice.log.1.out ||
        fail "a session leader's group is not at nice 7: $(sed -n 2p nice.log.1.out)"
    before=$(cat /proc/self/autogroup)
    NICE=7 "$scripts/sitting" nice2.log -- ./show >/dev/null 2>&1 || fail "the second exited $?"
    [ "$(cat /proc/self/autogroup)" = "$before" ] ||
        fail "a sitting in the caller's session changed its group: $(cat /proc/self/autogroup)"
    grep -q 'nice 7$' nice2.log.1.out && fail "a sitting not leading its session set the group"
else
    grep -q no-autogroup nice.log.1.out || fail "no autogroup here, yet: $(cat nice.log.1.out)"
fi
echo "sitting_test: ok"
