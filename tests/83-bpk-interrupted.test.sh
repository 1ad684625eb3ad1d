#!/usr/bin/env bash
# Ctrl-C to bpk run: QEMU runs in a process group of its own, so the
# terminal's SIGINT reaches bpk alone, which must stop the guest. SIGINT to
# bpk (started as a foreground job is: SIGINT not ignored) once the guest
# has armed a trigger that never fires: exit 130, no QEMU of that run left,
# the run filed as interrupted, naming SIGINT, its console kept. Then a run
# that fails at a terminal: exit 1, the reason on stderr naming the filed
# run, the reason in its record, and bpk selftest --run judges it: exit 3,
# no trigger fire.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

runs=$out/runs
# the example workload, repeated until the timeout; comm=nobody never matches
env --default-signal=INT "$bpk" --runs "$runs" run syscall_errno syscall=openat comm=nobody \
	--repeat 0 --timeout 300 --quiet >"$out/run.out" 2>"$out/run.err" &
pid=$!
t=0
until armed "$runs" || ((t > 600)); do
	sleep 0.2
	t=$((t + 1))
done
console=$(find "$runs" -path '*/.staging-*' -name console.log 2>/dev/null | head -1)
qemu=$(qemu_on "${console:-/nonexistent}")
check interrupt.armed "after $((t / 5)) s: QEMU ${qemu:-none} on ${console:-no console}" test -n "$qemu"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
check interrupt.exit_130 "exit $rc ($(grep -m1 'error:' "$out/run.err" || echo 'no error line'))" test "$rc" = 130
left=$(qemu_on "${console:-/nonexistent}")
check interrupt.no_qemu_left "QEMU on ${console:-no console}: ${left:-none}" test -n "$console" -a -z "$left"
[[ -z $left ]] || kill -9 "$left" 2>/dev/null || true
run=$(filed_runs "$runs" | tail -1)
check_field interrupt.filed_interrupted "${run:-$runs/none}" status interrupted
check_field_match interrupt.reason_names_signal "${run:-$runs/none}" reason '^interrupted by SIGINT'
check_file_has interrupt.console_kept "${run:-$runs/none}/console.log" 'Linux version'

# A run that fails at a terminal (the trigger never fires): exit 1, the
# reason on stderr naming the filed run, the reason in its record
runs=$out/runs-never
rc=0
python3 -c 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)' \
	"$bpk" --runs "$runs" run syscall_errno syscall=openat comm=nobody </dev/null >"$out/never.tty" 2>&1 || rc=$?
run=$(filed_runs "$runs" | tail -1)
err=$(tr -d '\r' <"$out/never.tty" | grep 'error:.*the trigger did not fire' | tail -1 || true)
check failed.exit_1 "exit $rc: ${err:-no error line saying the trigger did not fire}" test "$rc" = 1 -a -n "$err"
named=$(tr -d '\r' <"$out/never.tty" | grep -m1 -o "bpk: error: run filed as failed in .*" || true)
check failed.error_names_run "${named:-no error line naming the filed run}" \
	test -n "$run" -a "${named%%: the trigger did not fire*}" = "bpk: error: run filed as failed in $run"
# the terminal's last state of each line: the error is a line of its own,
# not glued to the stage line it updated
line=$(tr -d '\033' <"$out/never.tty" | sed 's/\[K//g' | tr '\r' '\n' | grep -m1 'bpk: error: run filed as failed' || true)
check failed.error_own_line "${line:-no error line}" grep -q '^bpk: error: ' <<<"${line:-none}"
check_field_match failed.reason_filed "${run:-$runs/none}" reason 'the trigger did not fire'
check_field failed.filed_failed "${run:-$runs/none}" status failed
# selftest's judgement of that run: the stage that did not work, its code
rc=0
got=$("$bpk" --runs "$runs" selftest --run last 2>&1) || rc=$?
check failed.selftest_no_fire "exit $rc: $(tail -1 <<<"${got:-nothing}")" \
	test "$rc" = 3 -a "$(grep -c '^ok   ' <<<"$got")" = 2 -a -n "$(grep '^FAIL fire: no trigger fire (cause=none: the trigger did not fire' <<<"$got")"
