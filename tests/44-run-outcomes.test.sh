#!/usr/bin/env bash
# How a run ends, as a user sees it: a trigger that never fires is a failed
# run that says so (no dump is not a success); at a terminal, the report is
# followed by an interactive crash session on the new vmcore.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

rc=0
"$bpk" --runs "$out/never" run syscall_errno syscall=openat errno=ENOSPC comm=bpk-demo \
	--workload triggers/examples/syscall_errno.sh --repeat 2 \
	>"$out/never.out" 2>&1 || rc=$?
err=$(grep 'error:' "$out/never.out" | tail -1 || true)
check never_fired.exits_1 "exit $rc: ${err:-no error line}" test "$rc" = 1
check_has never_fired.says_so "$err" "the trigger did not fire"
run=$(filed_runs "$out/never" | head -1)
if [[ -z $run ]]; then
	fail never_fired.filed "no run directory under $out/never"
else
	check_file_has never_fired.workload_repeated "$run/guest.log" \
		'the workload ran 2 time\(s\) and the trigger did not fire'
	check never_fired.no_dump "files: $(find "$run" -mindepth 1 -printf '%f ')" \
		test -s "$run/run.json" -a ! -e "$run/vmcore" -a ! -e "$run/vmcore.incomplete"
	check_field never_fired.filed_as_failed "$run" status failed
fi

# A terminal (script(1) gives the run a pty) and --crash: after the
# report, crash's own prompt, which answers a command typed at it.
rc=0
printf 'sys\nq\n' | script -qec "'$bpk' --runs '$out/tty' run syscall_errno \
	syscall=openat errno=ENOENT comm=bpk-demo \
	--workload triggers/examples/syscall_errno.sh --crash" /dev/null \
	>"$out/tty.out" 2>&1 || rc=$?
tr -d '\r' <"$out/tty.out" >"$out/tty.txt"
check interactive.report_first "$(grep -m1 '^bpf-panic kdump report' "$out/tty.txt" || echo 'no report')" \
	grep -q '^bpf-panic kdump report' "$out/tty.txt"
check interactive.crash_prompt "$(grep -c 'crash> ' "$out/tty.txt" || true) crash prompts; exit $rc" \
	grep -q 'crash> ' "$out/tty.txt"
check interactive.crash_answers "$(grep -m1 -E '^ +PANIC:' <(sed -n '/crash> /,$p' "$out/tty.txt") || echo 'no answer to sys')" \
	grep -qE '^ +PANIC: "Kernel panic - not syncing: bpf_panic trigger syscall_errno' <(sed -n '/crash> /,$p' "$out/tty.txt")
