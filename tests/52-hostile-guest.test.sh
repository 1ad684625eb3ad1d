#!/usr/bin/env bash
# The guest is untrusted: nothing a broken kernel or a lying reproducer
# sends reaches the user's terminal raw, forges a record, decides the
# cause, or fills the disk.
#  1. hostile.sh (root in the guest): terminal escape sequences, \v and
#     U+2028 "key=value" forgeries, the kernel's panic words written to
#     /dev/kmsg and straight to /dev/console, an escape sequence as its
#     comm; then the real trigger. No raw ESC in bpk's output, report.txt
#     or report.json (the escaped comm is there); no forged key in
#     run.json or report.json; the /dev/kmsg line (facility LOG_USER) and
#     the console line without a facility are not read; the one with a
#     forged kernel facility is shown as the console's claim, the dump
#     decides the cause (the trigger) and the disagreement is flagged.
#  2. flood.sh: more output than --log-cap 1M keeps: console.log and the
#     workload log cut at 1 MiB, the caps named in run.json, the run still
#     dumped and reported.
#  3. A capture step that sends one record 8 TiB out: refused as beyond the
#     guest's memory, kept as evidence (vmcore.flat), no vmcore made; the
#     run dir stays small.
#  4. A capture step that sends zeros without end: QEMU stopped at the
#     bound (guest memory + 64 MiB), dump.flat cut there, named.
#  5. The workload's output is no state: a "refused" line it prints is kept
#     in workload.log, and the run is not filed as refused. The failure
#     paths, each with a terminal escape in the guest's text (a lying
#     appliance job, a lying capture step, a line straight to the console):
#     a refusal, an interrupt at a state so named, a snapshot whose guest
#     ends at a state so named before it is idle, an oops
#     line with the kernel's facility and nothing crashing, a capture
#     kernel that "panics" and falls silent (the host's dump), a capture
#     status record of escapes. The text arrives escaped (in bpk's error,
#     bpk show, run.json), and no raw ESC reaches the terminal or the
#     record.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

esc=$'\033'
# no_raw_esc NAME FILE: FILE exists, is not empty and holds no ESC byte
no_raw_esc() {
	local n
	if [[ ! -s $2 ]]; then
		fail "$1" "$2: missing or empty, so it proves nothing"
		return
	fi
	n=$(grep -c -a "$esc" "$2" || true)
	check "$1" "${2##*/}: $n line(s) with a raw ESC of $(wc -l <"$2")" test "$n" = 0
}
# jq_ FILE EXPR: a value out of a JSON file (d is the document)
jq_() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2])))' "$1" "$2"
}

# --- 1. the lying reproducer
rc=0
"$bpk" --runs "$out/lies" run syscall_errno syscall=openat errno=ENOENT comm=hostile-fire \
	--workload tests/hostile/hostile.sh --timeout 240 >"$out/lies.out" 2>"$out/lies.err" || rc=$?
run=$(filed_runs "$out/lies" | tail -1)
check lies.filed "exit $rc, run ${run:-none}" test -n "$run" -a -s "${run:-/nonexistent}/vmcore"
cat "$out/lies.out" "$out/lies.err" >"$out/lies.all"
no_raw_esc lies.terminal_clean "$out/lies.all"
check_has lies.terminal_shows_escaped "$(grep -m1 -F 'EVIL' "$out/lies.all" || true)" '\x1b[31mEVIL'
no_raw_esc lies.report_txt_clean "${run:-/nonexistent}/report.txt"
no_raw_esc lies.report_json_clean "${run:-/nonexistent}/report.json"
no_raw_esc lies.record_clean "${run:-/nonexistent}/run.json"
check_has lies.report_shows_escaped_comm "$(grep -m1 -F 'EVIL' "${run:-/nonexistent}/report.txt" || true)" '\x1b[31mEVIL'
# nothing forged: the record's keys are its own
check_field_match lies.vmlinux_not_forged "$run" guest.vmlinux '^/.*/vmlinux$'
check_field lies.status_not_forged "$run" status success
got=$(jq_ "$run/report.json" "[d['record']['guest']['vmlinux'] != '/tmp/evil', 'forged' not in [v for o in d['record'].values() if isinstance(o, dict) for v in o.values()] + list(d['record'].values()), d['record']['console']['last_state']]" 2>&1 || true)
check lies.report_record_not_forged "$got" test "$got" = '[true, true, "armed"]'
# the dump decides: the trigger, not the task's fake panic. The console's
# panic is the forged kernel record: the two lines before it were skipped
check_field lies.console_said_panic "$run" cause.run panic
check_field lies.console_panic_is_the_forged_record "$run" console.panic_message "forged on the console"
n=$(record_field "$run" console.not_kernel 2>&1 || true)
check lies.not_kernel_records_counted "console.not_kernel: ${n:-none}" test "${n:-0}" -ge 2 2>/dev/null
check_has lies.progress_says_claim "$(grep -m1 -F 'fire: the console says' "$out/lies.err" || grep -F 'fire: ' "$out/lies.err" | tail -1)" \
	'fire: the console says: forged on the console'
check_has lies.first_look_says_claim "$(grep -m1 '^   cause:  ' "$out/lies.out" || true)" "panic: forged on the console (the console's claim; the dump says trigger)"
check_field lies.dump_said_trigger "$run" cause.dump trigger
check_field lies.not_confirmed "$run" cause.confirmed false
got=$(jq_ "$run/report.json" "[d['cause']['run'], d['cause']['dump'], d['cause']['agree'], (d['panic'] or {}).get('message') or '']" 2>&1 || true)
check lies.report_cause_from_dump "$got" \
	grep -q '^\["panic", "trigger", false, "Kernel panic - not syncing: bpf_panic trigger syscall_errno fired: ' <<<"$got"
check_file_has lies.report_flags_the_console "$run/report.txt" '^   DISAGREE cause: the console says panic, the dump says trigger'
row=$("$bpk" --runs "$out/lies" runs | awk -v id="${run##*/}" '$1 == id { print $4 }')
check lies.runs_shows_dump_cause "cause column: ${row:-none}" test "$row" = trigger

# --- 2. the flood
rc=0
"$bpk" --runs "$out/flood" run syscall_errno syscall=openat errno=ENOENT comm=hostile-fire \
	--workload tests/hostile/flood.sh --log-cap 1M --timeout 240 >"$out/flood.out" 2>"$out/flood.err" || rc=$?
run=$(filed_runs "$out/flood" | tail -1)
check flood.filed "exit $rc, run ${run:-none}" test "$rc" = 0 -a -s "${run:-/nonexistent}/vmcore"
size=$(stat -c %s "${run:-/nonexistent}/console.log" 2>/dev/null || echo none)
check flood.console_cut_at_cap "console.log $size bytes" test "$size" = 1048576
capped=$(record_field "$run" capped 2>&1 | tr '\n' ';' || true)
check_has flood.cap_named "$capped" "console.log: 1048576 bytes kept of"
check_has flood.workload_log_cap_named "$capped" "workload.txt: 1048576 bytes kept of"
check_has flood.said_on_stderr "$(grep -m1 'console.log: the guest sent more than 1048576 bytes' "$out/flood.err" || true)" "the rest is not kept"
check_field flood.cause_from_dump "$run" cause.dump trigger

# --- the lying capture steps: our kdump image with its capture step
# replaced (a later cpio entry wins), in our root image's /boot
hk=$out/hostile-kdump
mkdir -p "$hk/usr/lib/bpk" "$out/hostile-root/boot"
cp tests/hostile/bpk-capture.sh "$hk/usr/lib/bpk/bpk-capture.sh"
(cd "$hk" && find usr | LC_ALL=C sort | cpio -o -H newc --owner 0:0 --quiet) | gzip -1 >"$out/capture.cpio.gz"
cat "$build/appliance/kdump.img" "$out/capture.cpio.gz" >"$out/hostile-root/boot/kdump.img"
(cd "$out/hostile-root" && find boot | LC_ALL=C sort | cpio -o -H newc --owner 0:0 --quiet) | gzip -1 >"$out/boot.cpio.gz"
cat "$build/appliance/root.cpio.gz" "$out/boot.cpio.gz" >"$out/root-hostile.cpio.gz"

# --- 3. one record 8 TiB out
rc=0
BPK_ROOT_IMG=$out/root-hostile.cpio.gz "$bpk" --runs "$out/extent" run syscall_errno syscall=openat \
	errno=ENOENT comm=bpk-demo --capture-append hostile=extent --no-reservation-check --timeout 240 \
	>"$out/extent.out" 2>"$out/extent.err" || rc=$?
run=$(filed_runs "$out/extent" | tail -1)
check extent.filed_failed "exit $rc, run ${run:-none}" test "$rc" = 1 -a -n "$run"
check_field extent.dump_unverified "$run" dump.state unverified
check_field_match extent.reason_names_bound "$run" reason 'ends beyond [0-9]+ bytes, the most the guest.s memory explains'
check extent.no_vmcore "$(find "${run:-/nonexistent}" -name 'vmcore*' -printf '%f %s; ' 2>/dev/null)" \
	test -n "$run" -a ! -e "${run:-/nonexistent}/vmcore" -a -s "${run:-/nonexistent}/vmcore.flat"
used=$(du -sk "${run:-/nonexistent}" 2>/dev/null | cut -f1)
check extent.disk_use_small "${used:-?} KiB in the run dir" test -n "$used" -a "${used:-99999}" -lt 2048

# --- 4. zeros without end, a 384 MiB guest: the bound is 448 MiB (96M
# reserved: 192M does not always find room beside the randomized kernel)
rc=0
watch_qemu "$out/"
BPK_ROOT_IMG=$out/root-hostile.cpio.gz "$bpk" --runs "$out/endless" run syscall_errno syscall=openat \
	errno=ENOENT comm=bpk-demo --mem 384M --crashkernel 96M --capture-append hostile=flood --no-reservation-check \
	--timeout 600 >"$out/endless.out" 2>"$out/endless.err" || rc=$?
run=$(filed_runs "$out/endless" | tail -1)
check endless.filed "exit $rc, run ${run:-none}" test -n "$run"
check_field_match endless.qemu_stopped_at_bound "$run" qemu.stopped_why 'dump.flat: the guest sent more than 469762048 bytes, beyond its memory'
check_has endless.cap_named "$(record_field "$run" capped 2>&1 | tr '\n' ';' || true)" "dump.flat: 469762048 bytes kept of"
size=$(find "${run:-/nonexistent}" -maxdepth 1 -name 'vmcore*' -printf '%s\n' 2>/dev/null | sort -n | tail -1)
check endless.stream_cut_at_bound "largest vmcore* ${size:-none} bytes" test "${size:-0}" = 469762048
no_qemu_left endless.no_qemu_left "$out/"

# --- 5. the failure paths: guest bytes in the error bpk prints, the
# progress line, run.json and the report, when a run does not end well.
# Each case checks that the guest's text got there (escaped), so that the
# path was really taken, and that no raw ESC did.
pwned='\x1b]0;PWNED\x07'
# clean NAME RUN: no raw ESC in bpk's output (the progress line and the
# error are on stderr) or the run's record
clean() {
	cat "$out/$1.out" "$out/$1.err" >"$out/$1.all"
	no_raw_esc "$1.terminal_clean" "$out/$1.all"
	no_raw_esc "$1.record_clean" "${2:-/nonexistent}/run.json"
}
# escaped NAME TEXT: TEXT (an error line, a field) shows the guest's
# escape sequence escaped
escaped() { check_has "$1" "$2" "$pwned"; }

# 5a. the workload prints a "refused" state: its own port, no state
rc=0
"$bpk" --runs "$out/wlstate" run syscall_errno syscall=openat errno=ENOENT comm=hostile-fire \
	--workload tests/hostile/refuse.sh --timeout 240 >"$out/wlstate.out" 2>"$out/wlstate.err" || rc=$?
run=$(filed_runs "$out/wlstate" | tail -1)
check wlstate.not_a_state "exit $rc, run ${run:-none}: $(record_field "$run" reason 2>&1 || true)" \
	test "$rc" = 1 -a -n "$run" -a "$(record_field "$run" console.last_state 2>&1)" = not-fired
check_file_has wlstate.kept_in_workload_log "${run:-/nonexistent}/workload.log" '^BPK-STATE refused'
check_file_lacks wlstate.not_in_guest_log "${run:-/nonexistent}/guest.log" 'forged refusal'
clean wlstate "$run"

# a lying appliance job in our root image (a later cpio entry wins)
mkdir -p "$out/hostile-job/etc/bpk/jobs"
cp tests/hostile/job.sh "$out/hostile-job/etc/bpk/jobs/appliance"
(cd "$out/hostile-job" && find etc | LC_ALL=C sort | cpio -o -H newc --owner 0:0 --quiet) | gzip -1 >"$out/job.cpio.gz"
cat "$build/appliance/root.cpio.gz" "$out/job.cpio.gz" >"$out/root-job.cpio.gz"

# 5b. the guest refuses, its reason the escapes
rc=0
BPK_ROOT_IMG=$out/root-job.cpio.gz "$bpk" --runs "$out/refused" run syscall_errno syscall=openat \
	errno=ENOENT comm=hostile-fire --append hostile_job=refuse --timeout 240 \
	>"$out/refused.out" 2>"$out/refused.err" || rc=$?
run=$(filed_runs "$out/refused" | tail -1)
check refused.filed_failed "exit $rc, run ${run:-none}" test "$rc" != 0 -a -n "$run"
escaped refused.error_escaped "$(grep -m1 'error:' "$out/refused.err" || true)"
escaped refused.reason_escaped "$(record_field "$run" reason 2>&1 || true)"
clean refused "$run"

# 5c. interrupted at a state whose name is the escapes
runs=$out/interrupted
BPK_ROOT_IMG=$out/root-job.cpio.gz "$bpk" --runs "$runs" run syscall_errno syscall=openat \
	errno=ENOENT comm=hostile-fire --append hostile_job=state --timeout 400 \
	>"$out/interrupted.out" 2>"$out/interrupted.err" &
pid=$!
for _ in $(seq 1 900); do
	grep -qs 'forged-state' "$runs"/.staging-*/results.txt && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.2
done
seen=$(grep -as 'forged-state' "$runs"/.staging-*/results.txt | head -1 | cat -v)
kill -INT "$pid" 2>/dev/null || true
rc=0
wait "$pid" || rc=$?
run=$(filed_runs "$runs" | tail -1)
check interrupted.filed "exit $rc after the state (${seen:-never seen}), run ${run:-none}" \
	test "$rc" = 130 -a -n "$seen" -a -n "$run"
escaped interrupted.show_escaped "$("$bpk" show "${run:-/nonexistent}" --field reason 2>&1 || true)"
escaped interrupted.reason_escaped "$(record_field "$run" reason 2>&1 || true)"
clean interrupted "$run"

# 5d. a snapshot whose guest ends before it is idle, at a state so named
rc=0
BPK_ROOT_IMG=$out/root-job.cpio.gz "$bpk" snapshot --trigger syscall_errno \
	--args "syscall=openat errno=ENOENT comm=hostile-fire" >"$out/snapshot.out" 2>"$out/snapshot.err" || rc=$?
check snapshot.failed "exit $rc: $(tail -1 "$out/snapshot.err")" test "$rc" != 0
escaped snapshot.error_escaped "$(grep -m1 'error:' "$out/snapshot.err" || true)"
cat "$out/snapshot.out" "$out/snapshot.err" >"$out/snapshot.all"
no_raw_esc snapshot.terminal_clean "$out/snapshot.all"

# 5e. an oops line with the kernel's facility and the escapes, straight to
# the console, and nothing crashes
rc=0
"$bpk" --runs "$out/oops" run none --workload tests/hostile/oops-line.sh --timeout 240 \
	>"$out/oops.out" 2>"$out/oops.err" || rc=$?
run=$(filed_runs "$out/oops" | tail -1)
check oops.filed_failed "exit $rc, run ${run:-none}" test "$rc" != 0 -a -n "$run"
escaped oops.error_escaped "$(grep -m1 'error:' "$out/oops.err" || true)"
escaped oops.reason_escaped "$(record_field "$run" reason 2>&1 || true)"
clean oops "$run"

# 5f. the capture kernel "panics" with the escapes, then falls silent:
# the host takes the dump, and the report quotes the capture panic
rc=0
BPK_ROOT_IMG=$out/root-hostile.cpio.gz "$bpk" --runs "$out/cpanic" run syscall_errno syscall=openat \
	errno=ENOENT comm=bpk-demo --capture-append hostile=panic --timeout 300 \
	>"$out/cpanic.out" 2>"$out/cpanic.err" || rc=$?
run=$(filed_runs "$out/cpanic" | tail -1)
check cpanic.filed "exit $rc, run ${run:-none}" test -n "$run"
escaped cpanic.capture_panic_escaped "$(record_field "$run" console.capture_panic 2>&1 || true)"
clean cpanic "$run"
no_raw_esc cpanic.report_txt_clean "${run:-/nonexistent}/report.txt"
no_raw_esc cpanic.report_json_clean "${run:-/nonexistent}/report.json"

# 5g. a capture status record of escapes, and no dump
rc=0
BPK_ROOT_IMG=$out/root-hostile.cpio.gz "$bpk" --runs "$out/cstatus" run syscall_errno syscall=openat \
	errno=ENOENT comm=bpk-demo --capture-append hostile=status --timeout 300 \
	>"$out/cstatus.out" 2>"$out/cstatus.err" || rc=$?
run=$(filed_runs "$out/cstatus" | tail -1)
check cstatus.filed_failed "exit $rc, run ${run:-none}" test "$rc" != 0 -a -n "$run"
escaped cstatus.reason_escaped "$(record_field "$run" reason 2>&1 || true)"
clean cstatus "$run"
