#!/usr/bin/env bash
# The crash pipeline end to end, twice: the demo trigger panics the guest
# through bpf_panic(), the dump comes back and crash opens it. A second run
# is filed beside the first, which stays untouched.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

runs=$out/runs
msg='bpf_panic trigger syscall_errno fired: syscall=openat errno=ENOENT comm=bpk-demo'
demo=(--runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo
	--workload "$top/triggers/examples/syscall_errno.sh" --timeout 240)

rc=0
"$bpk" "${demo[@]}" >"$out/run1.out" 2>"$out/run1.err" || rc=$?
mapfile -t dirs < <(find "$runs" -mindepth 1 -maxdepth 1 -type d -name '2*' | sort)
run1=${dirs[0]:-}
check pipeline.run_succeeds "exit $rc; $(grep -o 'run filed: .*' "$out/run1.err" || tail -1 "$out/run1.err")" \
	test "$rc" = 0 -a "${#dirs[@]}" = 1
if [[ -z $run1 || ! -s $run1/vmcore ]]; then
	fail pipeline.vmcore "no vmcore in ${run1:-any run dir}; $(grep -o 'error: .*' "$out/run1.err" | head -1)"
	exit 1
fi
pass pipeline.vmcore "$run1/vmcore, $(stat -c %s "$run1/vmcore") bytes"

# crash opens the vmcore, and sys names the bpf_panic message as PANIC.
vmlinux=$(record_field "$run1" guest.vmlinux)
printf 'sys\nbt\n' >"$out/crash.cmd"
crash -s --kaslr=auto "$vmlinux" "$run1/vmcore" -i "$out/crash.cmd" </dev/null >"$out/crash.out" 2>&1 || true
panic=$(grep -E '^ *PANIC:' "$out/crash.out" | sed 's/^ *//' || true)
check pipeline.crash_sys_panic "${panic:-no PANIC: line in the sys output of crash}" test "$panic" = "PANIC: \"Kernel panic - not syncing: $msg\""
btline=$(grep -E '^PID: ' "$out/crash.out" | head -1 || true)
check pipeline.crash_bt_task "${btline:-no PID: line in the bt output of crash}" grep -q 'COMMAND: "bpk-demo"' <<<"$btline"

# The kernel log saved from /proc/vmcore before the dump has the same line.
dmesg_line=$(grep -F 'Kernel panic - not syncing:' "$run1/vmcore-dmesg.txt" | head -1 || true)
check pipeline.vmcore_dmesg_panic "${dmesg_line:-no panic line in vmcore-dmesg.txt}" \
	test "${dmesg_line#*\] }" = "Kernel panic - not syncing: $msg"

# The report names the trigger from the fire record read out of the dump.
report=$run1/report.txt
check pipeline.report_fire_record "$(grep -E '^ +(trigger|comm|detail)=' "$report" 2>/dev/null | tr -s ' \n' ' ')" \
	grep -qx '   trigger=syscall_errno' "$report"
check pipeline.report_comm "$(grep -m1 -E '^ +comm=' "$report" || echo none)" grep -qx '   comm=bpk-demo' "$report"
check pipeline.report_backtrace "$(grep -m1 '^PID:' "$report" || echo 'no bt')" \
	grep -q '^PID: .*COMMAND: "bpk-demo"' "$report"
# in the dying kernel's own report, not only the log tail's copy of it
sec=$(awk '/^== Panic or oops as the dying kernel printed it/ { f = 1; next } /^== / { f = 0 } f' "$report" 2>/dev/null || true)
check pipeline.report_bpf_frame "$(grep -m1 -o 'bpf_prog_[0-9a-f]*_syscall_errno+[^ ]*' <<<"$sec" || echo "no BPF frame in the section ($(wc -l <<<"$sec") lines)")" \
	grep -q 'bpf_prog_[0-9a-f]*_syscall_errno' <<<"$sec"
check_field pipeline.meta_success "$run1" status success

# A second run: its own directory; the first one's files unchanged.
(cd "$run1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$out/run1.before"
rc=0
"$bpk" "${demo[@]}" --no-report >"$out/run2.out" 2>"$out/run2.err" || rc=$?
mapfile -t dirs < <(find "$runs" -mindepth 1 -maxdepth 1 -type d -name '2*' | sort)
check pipeline.second_run_own_dir "exit $rc; runs: $(printf '%s ' "${dirs[@]##*/}")" \
	test "$rc" = 0 -a "${#dirs[@]}" = 2 -a -s "${dirs[1]:-/nonexistent}/vmcore"
(cd "$run1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$out/run1.after"
check pipeline.first_run_untouched "$(wc -l <"$out/run1.after") files, same checksums" \
	cmp -s "$out/run1.before" "$out/run1.after"
