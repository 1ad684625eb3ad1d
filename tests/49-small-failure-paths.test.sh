#!/usr/bin/env bash
# The smaller failure paths, each named for what it is:
# - the collector (bpk collect), on staging dirs made here (no boot): data
#   after the end marker is "trailing data", not an incomplete dump; a
#   complete dump whose vmcore-dmesg failed keeps its vmcore and names
#   vmcore-dmesg; an argument with a newline (one that goes into the
#   record) is refused; a console of over 40 MiB with the panic on its last
#   line is read whole, quickly; a crash_kexec trigger armed, then silence
#   (no panic line, no capture kernel) is said to have maybe fired, not "no
#   panic happened";
# - bpk run refuses trigger arguments with a newline or a double quote
#   before boot;
# - make crash opens the newest run that has a vmcore, or says why none;
# - mkkdump.sh writes MAKEDUMPFILE_OPTS so that it comes back verbatim;
# - dry runs are filed (booted): a refused one with its console, a good one
#   in a runs dir whose path has a comma (QEMU's -chardev syntax), and one
#   whose argument is a glob pattern, armed as written.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"
# collect RUNS ARGS...: bpk collect, filing under RUNS
collect() {
	local runs=$1
	shift
	"$bpk" --runs "$runs" collect "$@"
}

# flat FILE: a whole flattened stream (makedumpfile -F) of a 4096-byte file
# that starts with the KDUMP signature: header, one record, end marker
flat() {
	{
		printf 'makedumpfile\0\0\0\0\0\0\0\0\0\0\0\1\0\0\0\0\0\0\0\1'
		head -c $((4096 - 32)) /dev/zero
		printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x10\0'
		printf 'KDUMP   '
		head -c 4088 /dev/zero
		printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
	} >"$1"
}
# staging DIR STATUS...: what QEMU leaves after a bpf_panic run, the
# capture status record given line by line
staging() {
	local dir=$1
	shift
	mkdir -p "$dir"
	printf '%s\r\n' '[    0.000000] Command line: console=ttyS0 crashkernel=192M' \
		'[    4.770852] Kernel panic - not syncing: bpf_panic trigger syscall_errno fired: syscall=openat' \
		'[    0.000000] Command line: console=ttyS0 irqpoll nr_cpus=1' >"$dir/console.log"
	printf '%s\n' 'BPK-STATE booted t=2.00' 'BPK-STATE armed t=4.70 trigger=syscall_errno action=bpf_panic' \
		>"$dir/results.txt"
	printf '%s\n' "$@" >"$dir/status.txt"
	printf 'the crashed kernel log\n' >"$dir/dmesg.txt"
	flat "$dir/dump.flat"
}
ok_status=(status=success dmesg_rc=0 makedumpfile_rc=0 'makedumpfile_opts=-l -d 31'
	capture_started=1.00 dmesg_done=1.10 dump_done=2.00 end)

# 1. trailing data after the end marker
staging "$out/trailing" "${ok_status[@]}"
printf 'something wrote after makedumpfile\n' >>"$out/trailing/dump.flat"
rc=0
run=$(collect "$out/runs-trailing" --staging "$out/trailing" --trigger syscall_errno 2>"$out/trailing.err") || rc=$?
err=$(cat "$out/trailing.err")
check collect.trailing.exit_1 "exit $rc: ${err:-no error}" test "$rc" = 1 -a -n "$run"
check_has collect.trailing.says_trailing_data "$err" "trailing data: 35 bytes of trailing data after the end marker"
check collect.trailing.not_called_incomplete "${err:-no error}" test -n "$err" -a -z "$(grep -i incomplete <<<"$err" || true)"
check collect.trailing.vmcore_and_raw_stream_kept "files: $(find "$run" -mindepth 1 -printf '%f ' 2>/dev/null)" \
	test -n "$run" -a -s "$run/vmcore" -a -s "$run/vmcore.flat"
check_field collect.trailing.meta_dump_complete "$run" dump.state complete

# 2. a complete dump, vmcore-dmesg failed
staging "$out/dmesg-failed" status=failed failed_step=vmcore-dmesg failed_rc=1 dmesg_rc=1 \
	makedumpfile_rc=0 'makedumpfile_opts=-l -d 31' capture_started=1.00 dmesg_done=1.10 dump_done=2.00 end
: >"$out/dmesg-failed/dmesg.txt"
rc=0
run=$(collect "$out/runs-dmesg" --staging "$out/dmesg-failed" --trigger syscall_errno 2>"$out/dmesg.err") || rc=$?
err=$(cat "$out/dmesg.err")
check collect.dmesg_failed.exit_1 "exit $rc: ${err:-no error}" test "$rc" = 1 -a -n "$run"
check_has collect.dmesg_failed.names_the_part "$err" "capture step vmcore-dmesg failed (exit 1); the dump itself is complete and verified"
check collect.dmesg_failed.vmcore_kept "files: $(find "$run" -mindepth 1 -printf '%f ' 2>/dev/null)" \
	test -n "$run" -a -s "$run/vmcore" -a ! -e "$run/vmcore.incomplete"
check_field collect.dmesg_failed.meta_dump_complete "$run" dump.state complete

# 3. an argument with a newline goes into the record as it is given
# (--interrupted names the signal in the reason): refused as bad input,
# nothing filed, the staging dir left as it was
staging "$out/meta-nl" "${ok_status[@]}"
rc=0
collect "$out/runs-meta" --staging "$out/meta-nl" --trigger syscall_errno \
	--interrupted $'SIGTERM\nstatus=success' >"$out/meta.out" 2>"$out/meta.err" || rc=$?
err=$(cat "$out/meta.err")
check collect.arg_newline.refused "exit $rc, $(wc -l <"$out/meta.err") line(s): ${err:-nothing}" \
	test "$rc" = 2 -a "$(wc -l <"$out/meta.err")" = 1
check_has collect.arg_newline.says_why "$err" "a control character in an argument"
check collect.arg_newline.nothing_filed "runs: $(find "$out/runs-meta" -mindepth 1 -printf '%f ' 2>/dev/null); staging: $(find "$out/meta-nl" -mindepth 1 -printf '%f ')" \
	test -z "$(find "$out/runs-meta" -mindepth 1 2>/dev/null)" -a -s "$out/meta-nl/dump.flat"

# 3b. a stream whose one record sits 1 TiB out, filed by bpk collect: the
# guest picks the offsets, so a record beyond what its memory (--mem)
# explains is kept as evidence, never rebuilt into a 1 TiB sparse vmcore
staging "$out/far" "${ok_status[@]}"
{
	head -c 4096 "$out/far/dump.flat"
	printf '\0\0\1\0\0\0\0\0\0\0\0\0\0\0\x10\0'
	printf 'KDUMP   '
	head -c 4088 /dev/zero
	printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
} >"$out/far.flat"
mv "$out/far.flat" "$out/far/dump.flat"
rc=0
run=$(collect "$out/runs-far" --staging "$out/far" --trigger syscall_errno --mem 512M 2>"$out/far.err") || rc=$?
err=$(cat "$out/far.err")
check collect.far_record.not_rebuilt "exit $rc, run ${run:-none}: $(find "${run:-/nonexistent}" -name 'vmcore*' -printf '%f %s ' 2>/dev/null)" \
	test "$rc" = 1 -a -n "$run" -a ! -e "${run:-/nonexistent}/vmcore" -a -s "${run:-/nonexistent}/vmcore.flat"
check_has collect.far_record.named "$err" "ends beyond 603979776"
check_field collect.far_record.mem_recorded "${run:-/nonexistent}" guest.mem 512M
one_line collect.bad_mem "--mem 'lots' is not a size" collect "$out/runs-far" --staging "$out/far" --trigger syscall_errno --mem lots

# 4. a console of over 40 MiB, the panic on its last line
staging "$out/big" "${ok_status[@]}"
awk 'BEGIN { for (i = 0; i < 700000; i++) printf "[%11.6f] workload output line %08d .........................\r\n", i / 1000, i }' \
	>"$out/big/console.log"
printf '[  999.000000] Kernel panic - not syncing: the last line\r\n' >>"$out/big/console.log"
size=$(($(stat -c %s "$out/big/console.log") / 1048576))
t0=$(now_ms)
rc=0
run=$(timeout 60 "$bpk" --runs "$out/runs-big" collect --staging "$out/big" --trigger syscall_errno 2>"$out/big.err") || rc=$?
ms=$(($(now_ms) - t0))
check collect.big_console.read_quickly "exit $rc after $(fmt_ms "$ms") for ${size} MiB" test "$rc" != 124 -a "$ms" -lt 30000
check_field collect.big_console.whole "$run" console.lines 700001
check_field collect.big_console.last_line_seen "$run" console.panic_message "the last line"

# 4b. a crash_kexec trigger armed, then silence: no panic line (crash_kexec
# prints none), no capture kernel, no dump (what a reservation too small
# for the capture kernel to print anything gives, the check turned off):
# the reason says the trigger may have fired, not "no panic happened"
mkdir -p "$out/kexec-silent"
printf '%s\r\n' '[    0.000000] Command line: console=ttyS0 crashkernel=32M' \
	'bpk: before workload run 1: 40 processes (ps)' >"$out/kexec-silent/console.log"
printf '%s\n' 'BPK-STATE booted t=2.00' 'BPK-STATE armed t=3.98 trigger=syscall_errno action=crash_kexec' \
	>"$out/kexec-silent/results.txt"
rc=0
run=$(collect "$out/runs-kexec-silent" --staging "$out/kexec-silent" --trigger syscall_errno 2>"$out/kexec-silent.err") || rc=$?
err=$(cat "$out/kexec-silent.err")
check collect.kexec_silent.exit_1 "exit $rc: ${err:-no error}" test "$rc" = 1 -a -n "$run"
check_has collect.kexec_silent.says_crash_kexec_prints_nothing "$err" "the trigger fires through crash_kexec, which prints nothing"
check_has collect.kexec_silent.names_the_reservation "$err" "is crashkernel= big enough?"

# 5. bpk run: trigger arguments that cannot go on a kernel command line,
# before boot
for bad in nl quote; do
	case $bad in
	nl) a=($'syscall=openat\nerrno=ENOENT') want="a newline" ;;
	quote) a=(syscall=openat 'comm="x y"') want="double quotes" ;;
	esac
	rc=0
	"$bpk" --runs "$out/runs-args" run syscall_errno "${a[@]}" --timeout 20 \
		>/dev/null 2>"$out/args-$bad.err" || rc=$?
	err=$(cat "$out/args-$bad.err")
	check "run.args_$bad.refused" "exit $rc, $(wc -l <"$out/args-$bad.err") line(s): ${err:-nothing}" \
		test "$rc" = 2 -a "$(wc -l <"$out/args-$bad.err")" = 1
	check_has "run.args_$bad.says_why" "$err" "$want"
done
check run.args.nothing_booted_or_filed "runs: $(find "$out/runs-args" -mindepth 1 -printf '%f ' 2>/dev/null)" \
	test -z "$(find "$out/runs-args" -mindepth 1 2>/dev/null)"

# fake_record DIR STATUS REASON VMLINUX: a run record, DIR/run.json, of a
# syscall_errno run with STATUS and REASON (what bpk crash reads to choose)
fake_record() {
	/usr/bin/python3 - "$@" <<'PY'
import json, os, sys
d, status, reason, vmlinux = sys.argv[1:5]
rec = {
    "schema_version": 1, "id": os.path.basename(d), "status": status,
    "reason": reason, "interrupted": None,
    "trigger": {"name": "syscall_errno", "args": "syscall=openat", "dry_run": False,
                "fire_action": "bpf_panic"},
    "guest": {"kernel_flavor": "ours", "kernel": "test", "kernel_package": None,
              "kernel_release": None, "vmlinux": vmlinux, "mem": "1G", "smp": 2,
              "crashkernel": "192M", "accel": "tcg", "destructive_sysctl": True,
              "panic_on_oops": True, "panic_on_warn": False, "workload": "test",
              "host_fs": "off", "shares_ro": [], "share_rw": None},
    "qemu": {"exit": 0, "stopped_why": None},
    "cause": {"run": "trigger" if status == "success" else "none", "detail": ""},
    "console": {"panic_message": "", "capture_panic": None, "last_state": "armed",
                "refused": None, "lines": 1, "lines_cut": 0},
    "dump": {"state": "complete" if status == "success" else "none", "stream_bytes": 0,
             "vmcore_bytes": 0, "makedumpfile_opts": None},
    "report": {"state": "not-run", "error": None},
    "timings": {},
}
with open(os.path.join(d, "run.json"), "w") as f:
    json.dump(rec, f, indent=1)
PY
}

# 6. make crash: the newest run with a vmcore, not the newest run
vmlinux=$(readlink -f "$kernel/vmlinux")
picks=$out/runs-crash
mkdir -p "$picks/20260101T000000Z-syscall_errno" "$picks/20260102T000000Z-syscall_errno"
fake_record "$picks/20260101T000000Z-syscall_errno" success "" "$vmlinux"
printf 'KDUMP   ' >"$picks/20260101T000000Z-syscall_errno/vmcore"
printf 'THE REPORT OF THE RUN WITH A VMCORE\n' >"$picks/20260101T000000Z-syscall_errno/report.txt"
fake_record "$picks/20260102T000000Z-syscall_errno" failed 'the guest refused to arm: no crash kernel' "$vmlinux"
rc=0
make -s crash RUNS="$picks" </dev/null >"$out/crash.out" 2>"$out/crash.err" || rc=$?
check_file_has make_crash.opens_newest_with_vmcore "$out/crash.out" '^THE REPORT OF THE RUN WITH A VMCORE$'
check_file_has make_crash.says_why_not_the_newest "$out/crash.err" \
	'the newest run, 20260102T000000Z-syscall_errno, has no vmcore \(failed: the guest refused to arm'
rm -rf "$picks/20260101T000000Z-syscall_errno"
rc=0
make -s crash RUNS="$picks" </dev/null >"$out/crash2.out" 2>"$out/crash2.err" || rc=$?
err=$(grep 'error:' "$out/crash2.err" | head -1 || true)
check make_crash.none_with_vmcore_says_why "exit $rc: ${err:-no error line}" test "$rc" != 0
check_has make_crash.none_names_newest_and_reason "$err" \
	"none of the 1 run(s) under $picks has a vmcore; the newest, 20260102T000000Z-syscall_errno, is failed: the guest refused to arm: no crash kernel"

# 7. MAKEDUMPFILE_OPTS reaches the capture step verbatim, never executed
opts="-l -d 31 \"\$(touch $out/INJECTED)\" it's"
rc=0
appliance/mkkdump.sh "$out/kdump.img" "$opts" >"$out/mkkdump.out" 2>&1 || rc=$?
if ((rc != 0)); then
	fail mkkdump.opts_verbatim "mkkdump.sh exited $rc: $(tail -1 "$out/mkkdump.out")"
else
	(cd "$out" && cpio -i --quiet --to-stdout etc/bpk-kdump.conf <kdump.img >"$out/bpk-kdump.conf")
	# sourced as the capture step sources it: by busybox sh
	# shellcheck disable=SC2016 # $1 and the variable are the inner shell's
	got=$(busybox sh -c '. "$1" && printf "%s" "${MAKEDUMPFILE_OPTS-unset}"' sh "$out/bpk-kdump.conf") ||
		got="sourcing failed"
	check mkkdump.opts_verbatim "got: $got" test "$got" = "$opts"
	check mkkdump.nothing_executed "$(ls "$out/INJECTED" 2>/dev/null || echo 'no INJECTED file')" test ! -e "$out/INJECTED"
fi

# 8. dry runs are filed: one refused (no crash kernel), one that completes,
# the latter under a runs dir whose path has a comma
rc=0
"$bpk" --runs "$out/runs-dry-refused" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--dry-run --crashkernel none --timeout 240 \
	>"$out/dry-refused.out" 2>"$out/dry-refused.err" || rc=$?
run=$(filed_runs "$out/runs-dry-refused" | tail -1)
check dry.refused.exit_1_filed "exit $rc: $(grep 'error:' "$out/dry-refused.err" | tail -1)" test "$rc" = 1 -a -n "$run"
check_file_has dry.refused.console_kept "$run/console.log" 'Linux version'
check_file_has dry.refused.guest_log_kept "$run/guest.log" '^bpk: REFUSED: '
check_field_match dry.refused.meta_reason "$run" reason '^the guest refused to arm: kexec -p failed'
# dry_run NAME RUNS ARGS: a dry run of syscall_errno with ARGS under RUNS
# (its output in $out/NAME.out and .err) exits 0 and is filed
# (dry.NAME.exit_0_filed); sets run
dry_run() {
	local rc=0 args
	read -ra args <<<"$3"
	"$bpk" --runs "$2" run syscall_errno "${args[@]}" \
		--dry-run --timeout 240 >"$out/$1.out" 2>"$out/$1.err" || rc=$?
	run=$(filed_runs "$2" | tail -1)
	check "dry.$1.exit_0_filed" "exit $rc: $(grep -E 'error:|run filed' "$out/$1.err" | tail -1)" test "$rc" = 0 -a -n "$run"
}
dry_run ok "$out/runs,with,commas" "syscall=openat errno=ENOENT comm=bpk-demo"
check_field dry.ok.meta_success "$run" status success
# "none (dry run)": no dump, and the record says it was a dry run
dstate=$(record_field "$run" dump.state 2>&1 || true)
ddry=$(record_field "$run" trigger.dry_run 2>&1 || true)
check dry.ok.meta_no_dump "dump.state=${dstate:-nothing} trigger.dry_run=${ddry:-nothing}" \
	test "$dstate" = none -a "$ddry" = true
check_file_has dry.ok.counted_the_match "$run/guest.log" '^syscall_errno matches=[1-9]'
# bpk prints the guest's trigger status with its own messages, on stderr
check_file_has dry.ok.trigger_status_printed "$out/ok.err" '^syscall_errno matches=[1-9]'
# an argument that is a glob pattern reaches the trigger as written (the
# guest job splits the arguments into words, never expands them: set -f;
# "b*" would otherwise become /bin)
dry_run glob "$out/runs-glob" "syscall=openat errno=ENOENT comm=b*"
check_file_has dry.glob.armed_as_written "$run/guest.log" '^armed syscall_errno \(dry run\) .* comm=b\* dry_run$'
