#!/usr/bin/env bash
# A dump cut short is never taken for a success: QEMU is killed while the
# capture kernel streams the dump; the run is filed as failed, what arrived
# is kept as vmcore.incomplete, no vmcore and no report are made, and the
# command exits non-zero naming what was missing.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

runs=$out/runs
"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--timeout 240 >"$out/run.out" 2>"$out/run.err" &
run_pid=$!

# Wait for the dump stream to be under way, then kill that run's QEMU.
killed='' console=''
for _ in $(seq 1 2400); do
	flat=$(find "$runs" -path '*/.staging-*/dump.flat' -size +1M 2>/dev/null | head -1 || true)
	if [[ -n $flat ]]; then
		console=$(dirname "$flat")/console.log
		qemu=$(qemu_on "$console")
		if [[ -n $qemu ]]; then
			kill -9 "$qemu"
			killed="QEMU $qemu killed at $(stat -c %s "$flat") dump bytes"
		fi
		break
	fi
	kill -0 "$run_pid" 2>/dev/null || break
	sleep 0.1
done
rc=0
wait "$run_pid" || rc=$?
check cut_short.qemu_killed_mid_dump "${killed:-the dump never started or QEMU was gone}" test -n "$killed"
left=$(qemu_on "${console:-$runs/none}")
check cut_short.no_qemu_left "QEMU on that console: ${left:-none}" test -z "$left"

run=$(filed_runs "$runs" | head -1)
err=$(grep 'error:' "$out/run.err" | tail -1 || true)
check cut_short.exits_1 "exit $rc: ${err:-no error line}" test "$rc" = 1 -a -n "$err"
check cut_short.names_what_is_missing "${err:-no error line}" grep -Eq 'dump incomplete: (cut inside|.*without the end marker)' <<<"$err"
if [[ -z $run ]]; then
	fail cut_short.filed "no run directory under $runs"
	exit 1
fi
check_has cut_short.error_names_the_run "$err" "$run"
check cut_short.kept_as_incomplete "$(find "$run" -mindepth 1 -printf '%f ')" \
	test -s "$run/vmcore.incomplete" -a -s "$run/console.log" -a ! -e "$run/vmcore" -a ! -e "$run/report.txt"
check_field cut_short.meta_dump_incomplete "$run" dump.state incomplete
check_field cut_short.meta_failed "$run" status failed
