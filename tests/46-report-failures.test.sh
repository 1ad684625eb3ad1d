#!/usr/bin/env bash
# A report that cannot be made says so: which section failed and why, the
# report written as far as it got, a non-zero exit. A vmcore crash cannot
# read; crash output missing the expected lines (a stand-in crash that
# answers nothing, and fails px); and, booted, run.sh with a report that
# fails: the run is filed as failed, never status=success with exit 1.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

vmlinux=$(readlink -f "$kernel/vmlinux")
# mkrun DIR: a run dir as the collector files a successful run
mkrun() {
	mkdir -p "$1"
	printf '%s\n' "run=${1##*/}" trigger=syscall_errno status=success reason= dump=complete \
		cause=trigger "cause_detail=bpf_panic trigger syscall_errno fired: syscall=openat" \
		"trigger_args=syscall=openat" "vmlinux=$vmlinux" vmcore_bytes=1048576 \
		boot_to_armed_s=2.00 armed_to_panic_s=0.10 >"$1/run.meta"
}

# 1. A vmcore that crash cannot read.
run=$out/unreadable
mkrun "$run"
{ printf 'KDUMP   '; head -c 1048568 /dev/zero; } >"$run/vmcore"
rc=0
"$top/analysis/report.sh" "$run" >"$out/unreadable.out" 2>"$out/unreadable.err" || rc=$?
err=$(grep -m1 '^report.sh: error:' "$out/unreadable.err" || true)
check report.unreadable.exit_1 "exit $rc: ${err:-no error line}" test "$rc" = 1 -a -n "$err"
check_has report.unreadable.names_crash_and_its_message "$err" "crash could not open $run/vmcore"
check_has report.unreadable.quotes_crash "$err" "cannot malloc block_size buffer"
check_file_has report.unreadable.report_kept "$run/report.txt" '^trigger: +syscall_errno'
check_file_has report.unreadable.report_says_failed "$run/report.txt" 'FAILED: crash could not open'

# 2. crash runs but its output lacks what the report reads: a stand-in
# that echoes the report's markers, lists a .data.fire map, fails px and
# prints nothing else. It logs the commands it was given.
fake=$out/fake-crash
mkdir -p "$fake"
cat >"$fake/crash" <<'EOF'
#!/bin/bash
# a stand-in for crash: see tests/46-report-failures.test.sh
log=$(dirname "$0")/commands.log
while IFS= read -r line; do
	printf '%s\n' "$line" >>"$log"
	case $line in
	'!echo "'*) line=${line#'!echo "'} && printf '%s\n' "${line%'"'}" ;;
	'bpf -M')
		printf ' ID      BPF_MAP          BPF_MAP_TYPE     MAP_FLAGS\n'
		printf ' 4   ffff964ac0025ef0        ARRAY          00000400 \n'
		printf '     KEY_SIZE: 4  VALUE_SIZE: 224  MAX_ENTRIES: 1  MEMLOCK: 4096\n'
		printf '     NAME: ".data.fire"  UID: (unused)\n'
		;;
	px*) printf 'p: gdb request failed: %s\n' "${line#px }" ;;
	q) exit 0 ;;
	esac
done
EOF
chmod 755 "$fake/crash"
run=$out/no-lines
mkrun "$run"
cp "$out/unreadable/vmcore" "$run/vmcore"
rc=0
PATH=$fake:$PATH "$top/analysis/report.sh" "$run" >"$out/no-lines.out" 2>"$out/no-lines.err" || rc=$?
err=$(grep -m1 '^report.sh: error:' "$out/no-lines.err" || true)
check report.no_lines.exit_1 "exit $rc: ${err:-no error line}" test "$rc" = 1 -a -n "$err"
for want in "sys: no PANIC line" "bt: no PID line" "log: empty" "kmem: no TOTAL MEM line" \
	"fire record: px printed no offset"; do
	slug=${want%%:*}
	check_has "report.no_lines.names_${slug// /_}" "$err" "$want"
done
check_file_has report.no_lines.report_kept "$run/report.txt" '^trigger: +syscall_errno'
check_file_has report.no_lines.panic_section_failed "$run/report.txt" '^ +FAILED: sys: no PANIC line'
check_file_has report.no_lines.fire_section_failed "$run/report.txt" '^ +FAILED: fire record: px printed no offset'
# An offset that is not there must not become 0: no rd at the map's address.
check_file_lacks report.no_lines.no_read_at_a_guessed_address "$fake/commands.log" '^rd '

# 3. Booted: run.sh whose report fails (a crash that cannot start) files the
# run as failed, with the cause, and exits 1; the verified vmcore is kept.
broken=$out/broken-crash
mkdir -p "$broken"
printf '#!/bin/sh\necho "crash: stand-in that cannot start" >&2\nexit 1\n' >"$broken/crash"
chmod 755 "$broken/crash"
rc=0
PATH=$broken:$PATH "$top/appliance/run.sh" --trigger syscall_errno \
	--args "syscall=openat errno=ENOENT comm=bpk-demo" --runs "$out/runs" --timeout 240 \
	>"$out/run.out" 2>"$out/run.err" || rc=$?
err=$(grep 'error:' "$out/run.err" | tail -1 || true)
run=$(filed_runs "$out/runs" | tail -1)
check report.run.exit_1 "exit $rc: ${err:-no error line}" test "$rc" = 1 -a -n "$run"
check_has report.run.error_names_the_report "$err" "the report failed: crash could not open"
check_file_has report.run.meta_failed "$run/run.meta" '^status=failed$'
check_file_has report.run.meta_reason "$run/run.meta" '^reason=the report failed: crash could not open.*stand-in that cannot start'
check_file_has report.run.meta_dump_complete "$run/run.meta" '^dump=complete$'
check report.run.vmcore_kept "$(stat -c %s "$run/vmcore" 2>/dev/null || echo no) vmcore bytes" test -s "$run/vmcore"
