#!/usr/bin/env bash
# A report that cannot be made says so: which section failed and why, the
# report written as far as it got, a non-zero exit. A vmcore crash cannot
# read; crash output missing the expected lines (a stand-in crash that
# answers nothing, and fails px); the report's other forms (--run-only,
# --refresh, --crash-commands) and a run without a record; and, booted,
# a run with a report that fails: the run is filed as failed, never
# status success with exit 1.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

vmlinux=$(readlink -f "$kernel/vmlinux")
# mkrun DIR: a run dir as bpk files a successful run (run.json as
# analysis/run.schema.json has it)
mkrun() {
	mkdir -p "$1"
	cat >"$1/run.json" <<JSON
{"schema_version": 1, "id": "${1##*/}", "status": "success", "reason": "", "interrupted": null,
 "trigger": {"name": "syscall_errno", "args": "syscall=openat", "dry_run": false, "fire_action": "bpf_panic"},
 "guest": {"kernel_flavor": "ours", "kernel": "test", "vmlinux": "$vmlinux", "mem": "1G", "smp": 2,
  "crashkernel": "192M", "accel": "tcg", "destructive_sysctl": true, "panic_on_oops": true,
  "panic_on_warn": false, "workload": "syscall_errno.sh", "host_fs": "off"},
 "qemu": {"exit": 0},
 "cause": {"run": "trigger", "detail": "bpf_panic trigger syscall_errno fired: syscall=openat"},
 "console": {"panic_message": "bpf_panic trigger syscall_errno fired: syscall=openat", "last_state": "armed", "lines": 500},
 "dump": {"state": "complete", "stream_bytes": 1048576, "vmcore_bytes": 1048576, "makedumpfile_opts": "-l -d 31"},
 "report": {"state": "not-run", "error": null},
 "timings": {"boot_to_armed_s": 2.00, "armed_to_panic_s": 0.10, "dump_s": null}}
JSON
}
# json RUN EXPR: a value of RUN/report.json (d), as JSON text
json() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2])))' \
		"$1/report.json" "$2" 2>/dev/null || echo "no report.json"
}

# 1. A vmcore that crash cannot read.
run=$out/unreadable
mkrun "$run"
{ printf 'KDUMP   '; head -c 1048568 /dev/zero; } >"$run/vmcore"
rc=0
"$top/analysis/report.py" "$run" >"$out/unreadable.out" 2>"$out/unreadable.err" || rc=$?
err=$(grep -m1 '^report.py: error:' "$out/unreadable.err" || true)
check report.unreadable.exit_1 "exit $rc: ${err:-no error line}" test "$rc" = 1 -a -n "$err"
check_has report.unreadable.names_crash_and_its_message "$err" "crash could not open $run/vmcore"
check_has report.unreadable.quotes_crash "$err" "cannot malloc block_size buffer"
check_file_has report.unreadable.report_kept "$run/report.txt" '^trigger: +syscall_errno'
check_file_has report.unreadable.report_says_failed "$run/report.txt" 'FAILED: crash could not open'
# neither analyzer read the dump: the cause is the run's alone, not compared
cause=$(sed -n '/^== Cause/,/^$/p' "$run/report.txt" 2>/dev/null)
check report.unreadable.cause_dump_not_read "$(tr -s ' \n' ' ' <<<"${cause:-no Cause section}")" \
	grep -q '^   dump:  not read: neither crash nor drgn could open the vmcore' <<<"$cause"
check report.unreadable.cause_json "$(json "$run" 'd["cause"]')" \
	test "$(json "$run" '[d["cause"]["run"], d["cause"]["dump"], d["cause"]["agree"], [x for x in d["disagreements"] if x["what"] == "cause"]]')" = '["trigger", null, null, []]'
valid=$("$top/analysis/report-check.py" "$run/report.json" 2>&1 || true)
check report.unreadable.json_valid "$valid" test "$valid" = "ok $run/report.json"

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
# (the system analyzers: the fake crash is found through PATH)
PATH=$fake:$PATH "$top/analysis/report.py" --analyzers system "$run" >"$out/no-lines.out" 2>"$out/no-lines.err" || rc=$?
err=$(grep -m1 '^report.py: error:' "$out/no-lines.err" || true)
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
# the crash commands bench times are the ones the report gave crash
mapfile -t cmds < <("$top/analysis/report.py" --crash-commands)
missing=$(for c in "${cmds[@]}"; do grep -qxF -- "$c" "$fake/commands.log" || printf '%s; ' "$c"; done)
check report.crash_commands "${#cmds[@]} commands listed (${cmds[*]}); not given to crash: ${missing:-none}" \
	test "${#cmds[@]}" -ge 8 -a -z "$missing"

# 3. --run-only: report.json of a run the report did not cover (no vmcore),
# from its record alone; --refresh: the changed record re-embedded
run=$out/run-only
mkrun "$run"
/usr/bin/python3 - "$run/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.update(status="failed", reason="no verified dump: fixture")
d["dump"].update(state="none", stream_bytes=0, vmcore_bytes=0)
d["cause"] = {"run": "none", "detail": ""}
json.dump(d, open(sys.argv[1], "w"))
PY
rc=0
"$top/analysis/report.py" --run-only "$run" >"$out/run-only.out" 2>&1 || rc=$?
check report.run_only.json "exit $rc: $(json "$run" '[d["run"], d["vmcore"], d["panic"], d["cause"], d["analyzers"]["crash"]["ran"]]')" \
	test "$rc" = 0 -a "$(json "$run" '[d["run"]["status"], d["run"]["reason"], d["vmcore"], d["panic"], d["cause"]["run"], d["cause"]["dump"], d["record"]["id"], "boot_to_armed_s" in d["timings"], "dump_s" in d["timings"]]')" = '["failed", "no verified dump: fixture", null, null, "none", null, "run-only", true, false]'
valid=$("$top/analysis/report-check.py" "$run/report.json" 2>&1 || true)
check report.run_only.valid "$valid" test "$valid" = "ok $run/report.json"
/usr/bin/python3 - "$run/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.update(status="interrupted", reason="interrupted by SIGTERM", interrupted="SIGTERM")
d["timings"]["collect_s"] = 0.5
json.dump(d, open(sys.argv[1], "w"))
PY
rc=0
"$top/analysis/report.py" --refresh "$run" >"$out/refresh.out" 2>&1 || rc=$?
check report.refresh.json "exit $rc: $(json "$run" '[d["run"]["status"], d["record"]["status"], d["record"]["interrupted"], d["timings"].get("collect_s")]')" \
	test "$rc" = 0 -a "$(json "$run" '[d["run"]["status"], d["run"]["reason"], d["record"]["status"], d["record"]["interrupted"], d["timings"].get("collect_s")]')" = '["interrupted", "interrupted by SIGTERM", "interrupted", "SIGTERM", 0.5]'
mkdir -p "$out/no-record"
one_line report.no_record "$out/no-record/run.json: no run record" "$top/analysis/report.py" "$out/no-record"
one_line report.refresh_no_report "$out/no-record/run.json" "$top/analysis/report.py" --refresh "$out/no-record"
printf '{"schema_version": 1, "id": ' >"$out/no-record/run.json"
one_line report.record_not_json "$out/no-record/run.json: not JSON" "$top/analysis/report.py" "$out/no-record"

# 4. Booted: a run whose report fails (a crash that cannot start: the system
# analyzers, so that the stand-in is found through PATH) files the
# run as failed, with the cause, and exits 1; the verified vmcore is kept.
broken=$out/broken-crash
mkdir -p "$broken"
printf '#!/bin/sh\necho "crash: stand-in that cannot start" >&2\nexit 1\n' >"$broken/crash"
chmod 755 "$broken/crash"
rc=0
PATH=$broken:$PATH "$bpk" --analyzers system --runs "$out/runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--timeout 240 >"$out/run.out" 2>"$out/run.err" || rc=$?
err=$(grep 'error:' "$out/run.err" | tail -1 || true)
run=$(filed_runs "$out/runs" | tail -1)
check report.run.exit_1 "exit $rc: ${err:-no error line}" test "$rc" = 1 -a -n "$run"
check_has report.run.error_names_the_report "$err" "the report failed: crash could not open"
check report.run.record_failed "status $(record_field "$run" status 2>&1)" \
	test "$(record_field "$run" status 2>/dev/null)" = failed
reason=$(record_field "$run" reason 2>&1 || true)
check report.run.record_reason "reason: $reason" \
	grep -q '^the report failed: crash could not open.*stand-in that cannot start' <<<"$reason"
check report.run.record_dump_complete "dump.state $(record_field "$run" dump.state 2>&1)" \
	test "$(record_field "$run" dump.state 2>/dev/null)" = complete
check report.run.vmcore_kept "$(stat -c %s "$run/vmcore" 2>/dev/null || echo no) vmcore bytes" test -s "$run/vmcore"
