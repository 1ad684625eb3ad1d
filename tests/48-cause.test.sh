#!/usr/bin/env bash
# What brought the kernel down is named from the console and the guest's
# states, never guessed from the first panic line:
# - an oops is a field bug too: TRIGGER=none with a workload that provokes
#   an LKDTM exception (make run, as a user would) is dumped (oops=panic by
#   default), and the report says it was an oops, not a trigger, with the
#   oops line and the function; with --no-panic-on-oops there is no dump and
#   the reason quotes the oops line;
# - crash_kexec prints no panic line: with the sysctl off the trigger fires
#   through it and is still named; with too small a reservation (the check
#   turned off) the capture kernel's own panic is not taken for the
#   trigger's, no time goes negative, and what came after is named
#   (cause.after capture_died; nothing after a capture kernel that dumped);
# - a WARN() with --panic-on-warn (LKDTM WARNING, no trigger) is dumped and
#   named a warning, with its WARNING line and function, in run.json and
#   in report.json (from the dump's log).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

wl=$out/lkdtm-exception.sh
printf '#!/bin/sh\n# LKDTM writes through a NULL pointer: an oops\necho EXCEPTION > /sys/kernel/debug/provoke-crash/DIRECT\n' >"$wl"

# json_at RUN PATH: the JSON text of the value at the dotted PATH of
# RUN/run.json (read by the analysis's reader, bpk_record), "absent" where
# the path ends early; an empty string ("") is told from a missing field,
# which record_field prints alike
json_at() {
	/usr/bin/python3 -c '
import json, sys
sys.path.insert(0, sys.argv[3])
import bpk_record
absent = object()
v = bpk_record.field(bpk_record.load(sys.argv[1]), sys.argv[2], absent)
print("absent" if v is absent else json.dumps(v))' "$1" "$2" "$top/analysis" 2>&1
}
# check_field_empty NAME RUN PATH: PASS if the record has PATH, an empty
# string
check_field_empty() {
	local got
	got=$(json_at "$2" "$3")
	check "$1" "$3=${got:-nothing}" test "$got" = '""'
}
# timings RUN: the record's timings, a "name=seconds" line each (null as
# nothing after the =)
timings() {
	/usr/bin/python3 -c '
import json, sys
sys.path.insert(0, sys.argv[2])
import bpk_record
t = bpk_record.field(bpk_record.load(sys.argv[1]), "timings") or {}
for k, v in t.items():
    print(k + "=" + ("" if v is None else json.dumps(v)))' "$1" "$top/analysis"
}

# succeeded PREFIX NAME: the run that wrote $out/NAME.out and exited $rc
# is filed under $out/NAME and exited 0 (PREFIX.run_succeeds); sets run
succeeded() {
	run=$(filed_runs "$out/$2" | tail -1)
	check "$1.run_succeeds" "exit $rc: $(grep -m1 -E 'error:|run filed' "$out/$2.out" || echo 'no outcome line')" \
		test "$rc" = 0 -a -n "$run"
}

# 1. An oops, dumped, through make run
rc=0
make -s run TRIGGER=none WORKLOAD="$wl" TIMEOUT=240 RUNS="$out/oops" >"$out/oops.out" 2>&1 || rc=$?
succeeded oops oops
if [[ -n $run ]]; then
	check oops.vmcore "$(stat -c %s "$run/vmcore" 2>/dev/null || echo no) vmcore bytes" test -s "$run/vmcore"
	check_field oops.meta_cause "$run" cause.run oops
	check_field_match oops.meta_oops_line_and_function "$run" cause.detail \
		'^BUG: kernel NULL pointer dereference.* at lkdtm_EXCEPTION\+0x'
	check_field oops.meta_panic_on_oops "$run" guest.panic_on_oops true
	check_file_has oops.report_says_oops_not_trigger "$run/report.txt" \
		'^ +an oops, not a trigger: BUG: kernel NULL pointer dereference.*lkdtm_EXCEPTION'
	check_file_has oops.report_no_trigger_armed "$run/report.txt" '^ +none: no trigger was armed'
	check_file_has oops.report_oops_as_printed "$run/report.txt" '^\[ *[0-9.]+\] RIP: 0010:lkdtm_EXCEPTION'
fi

# 2. The same oops with panic_on_oops off: no dump, the reason quotes it
rc=0
"$bpk" --runs "$out/no-panic" run none --workload "$wl" --no-panic-on-oops --timeout 240 \
	>"$out/no-panic.out" 2>&1 || rc=$?
err=$(grep 'error:' "$out/no-panic.out" | tail -1 || true)
run=$(filed_runs "$out/no-panic" | tail -1)
check no_panic_on_oops.exit_1 "exit $rc: ${err:-no error line}" test "$rc" = 1 -a -n "$run"
check_has no_panic_on_oops.reason_quotes_oops "$err" "BUG: kernel NULL pointer dereference"
check_has no_panic_on_oops.reason_names_function "$err" "lkdtm_EXCEPTION+0x"
if [[ -n $run ]]; then
	check no_panic_on_oops.no_dump "files: $(find "$run" -mindepth 1 -printf '%f ')" \
		test -s "$run/run.json" -a ! -e "$run/vmcore" -a ! -e "$run/vmcore.incomplete"
	check_field no_panic_on_oops.meta_off "$run" guest.panic_on_oops false
fi

# 3. crash_kexec (action=crash_kexec): no panic line, the trigger is still named,
# and the fire is timed from the fire record
rc=0
"$bpk" --runs "$out/kexec" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	action=crash_kexec --timeout 240 >"$out/kexec.out" 2>&1 || rc=$?
succeeded crash_kexec kexec
if [[ -n $run ]]; then
	check_field crash_kexec.meta_cause_trigger "$run" cause.run trigger
	got=$(json_at "$run" cause.after)
	check crash_kexec.meta_nothing_after "cause.after=${got:-nothing} (want absent: its capture kernel dumped)" test "$got" = absent
	check_field_match crash_kexec.meta_names_kfunc "$run" cause.detail '^syscall_errno fired through crash_kexec'
	check_field_empty crash_kexec.meta_no_panic_message "$run" console.panic_message
	check_file_has crash_kexec.report_armed_to_fire "$run/report.txt" '^ +armed_to_fire_s=[0-9]+\.[0-9]+ '
fi

# 4. crash_kexec into a capture kernel too small to live (40M, check off:
# it dies "deadlocked on memory"; 48M dumps): its panic is its own, not the
# trigger's; the host takes the dump instead (QEMU's dump-guest-memory),
# and crash and drgn both read it
rc=0
"$bpk" --runs "$out/small" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	action=crash_kexec --crashkernel 40M --no-reservation-check --timeout 240 \
	>"$out/small.out" 2>&1 || rc=$?
err=$(grep 'error:' "$out/small.out" | tail -1 || true)
run=$(filed_runs "$out/small" | tail -1)
check small.host_dump "exit $rc: $(grep -m1 -E 'error:|run filed' "$out/small.out" || echo 'no outcome line')" \
	test "$rc" = 0 -a -n "$run" -a -s "${run:-/nonexistent}/vmcore"
check_has small.said_on_terminal "$(grep -m1 'the host takes the dump' "$out/small.out" || true)" \
	"the capture kernel died: System is deadlocked on memory: the host takes the dump"
if [[ -n $run ]]; then
	check_field small.dump_path "$run" dump.path host
	check_field small.dump_path_why "$run" dump.path_why "the capture kernel died: System is deadlocked on memory"
	check_file_has small.report_says_host "$run/report.txt" '^dump: +from the host \(QEMU.s dump-guest-memory, not kdump\): the capture kernel died'
	got=$(json_value "$run/report.json" "[d['analyzers']['crash']['ok'], d['analyzers']['drgn']['ok'], d['fire']['crash_drgn_agree'], d['cause']['dump']]")
	check small.both_analyzers_read_it "crash ok, drgn ok, fire agree, dump cause: $got" test "$got" = '[true, true, true, "trigger"]'

	check_field_match small.meta_capture_panic "$run" console.capture_panic 'System is deadlocked on memory'
	check_field_empty small.meta_panic_message_not_the_capture_kernels "$run" console.panic_message
	check_field small.meta_cause_trigger "$run" cause.run trigger
	check_field small.meta_cause_after "$run" cause.after capture_died
	check_kdump_header small.host_dump_kdump_compressed "$run"
	check small.host_stream_made_vmcore "files of the run: $(find "$run" -mindepth 1 -maxdepth 1 -printf '%f ')" test ! -e "$run/vmcore.host"
	got=$(json_value "$run/report.json" "d['cause']['after']")
	check small.report_cause_after "report.json cause.after: ${got:-nothing}" test "$got" = '"capture_died"'
	check_file_has small.report_txt_after "$run/report.txt" '^   after: capture_died$'
	timings "$run" >"$out/small.timings" 2>&1 || true
	check_file_has small.meta_has_times "$out/small.timings" '^boot_to_armed_s=[0-9]'
	check_file_lacks small.meta_no_negative_time "$out/small.timings" '^[a-z_]+_s=-'
fi

# 5. A WARN() with --panic-on-warn, no trigger: dumped, cause warning
wwl=$out/lkdtm-warning.sh
printf '#!/bin/sh\n# LKDTM WARN()s once\necho WARNING > /sys/kernel/debug/provoke-crash/DIRECT\n' >"$wwl"
rc=0
"$bpk" --runs "$out/warn" run none --workload "$wwl" --panic-on-warn --timeout 240 \
	>"$out/warn.out" 2>&1 || rc=$?
succeeded panic_on_warn warn
if [[ -n $run ]]; then
	check panic_on_warn.vmcore "$(stat -c %s "$run/vmcore" 2>/dev/null || echo no) vmcore bytes" test -s "$run/vmcore"
	check_field panic_on_warn.meta_on "$run" guest.panic_on_warn true
	check_field panic_on_warn.meta_cause "$run" cause.run warning
	check_field_match panic_on_warn.meta_warning_line_and_function "$run" cause.detail \
		'^WARNING: .*lkdtm_WARNING'
	# the dump agrees: its log has the WARNING and panic_on_warn's panic
	check panic_on_warn.report_json_cause "$(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["cause"]["dump"], "|", d["cause"]["dump_from"])' "$run/report.json" 2>&1)" \
		test "$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cause"]["dump"])' "$run/report.json" 2>/dev/null)" = warning
fi
