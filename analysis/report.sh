#!/usr/bin/env bash
# Open a run's vmcore in crash (batch) and write RUN/report.txt: what
# brought the kernel down (a trigger, an oops, a panic), the fire record read
# from the dump, the panic, the panicking task and its backtrace, the kernel
# log, BPF programs and maps, memory. Prints the report.
# drgn reads the same vmcore in parallel (drgn-part.py: every task, stacks,
# BPF objects, the fire record by the map's BTF, files and memory);
# report-merge.py puts its sections after the panic and writes
# RUN/report.json (schema: report.schema.json).
#
#   report.sh RUN-DIR [--vmlinux FILE]
#
# A section whose crash output lacks what it reads says "FAILED: why" in the
# report, the rest is still written, and report.sh exits 1 naming every
# failed section; so does a crash that cannot open the vmcore at all (the
# report then holds what run.meta says). crash 8.0.2 needs --kaslr=auto for a
# KASLR guest's dump, and cannot walk 6.1's maple trees (vm): that is said in
# the report, not attempted.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

run=${1:?usage: report.sh RUN-DIR [--vmlinux FILE]}
shift
vmlinux=
while (($#)); do
	case $1 in
	--vmlinux) vmlinux=${2:?--vmlinux needs a file} && shift ;;
	*) die "unknown argument '$1'" ;;
	esac
	shift
done
[[ -d $run && -r $run ]] || die "$run: not a readable run directory"
[[ -r $run/run.meta ]] || die "$run: no run.meta (not a run directory?)"
metaval() { sed -n "s/^$1=//p" "$run/run.meta" | head -1; }
if [[ ! -r $run/vmcore ]]; then
	die "$run: no vmcore to open (run status: $(metaval status): $(metaval reason))"
fi
[[ -n $vmlinux ]] || vmlinux=$(metaval vmlinux)
[[ -n $vmlinux ]] || vmlinux=$here/../build/kernel/vmlinux
[[ -r $vmlinux ]] || die "$vmlinux: vmlinux not readable (--vmlinux FILE)"
fire_decode=${FIRE_DECODE:-$here/../build/analysis/fire-decode}
[[ -x $fire_decode ]] || die "$fire_decode: not built (make analysis)"
need_cmd crash crash

work=$(mktemp -d)
crash_pid=''
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	if [[ -n $crash_pid ]]; then
		kill "$crash_pid" 2>/dev/null || true
		wait "$crash_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

failed=()
# fail_section NAME WHY: the line the report shows; the report's FAILED
# lines are the one record of what failed
fail_section() {
	printf '   FAILED: %s: %s\n' "$1" "$2"
}

# --- drgn part (issue 10): in parallel with crash (each is single-threaded)
t_report=$(now_ms)
ms_s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
{
	t=$(now_ms)
	# crash's reads time out after 120 s; so does drgn
	timeout 120 "$here/drgn-part.py" --vmcore "$run/vmcore" --vmlinux "$vmlinux" --out "$work/drgn.json" \
		2>"$work/drgn.err" || echo "$?" >"$work/drgn.rc"
	echo "$(($(now_ms) - t))" >"$work/drgn.ms"
} &
drgn_pid=$!
# --- end drgn part

# One crash process answers every question (it takes seconds to load the
# vmlinux debug info): commands go in through one FIFO, answers come back
# through another, each batch ends with a marker line its output must reach.
# FIFOs rather than a coproc: this script owns the descriptors, so a crash
# that exits at once gives end of file, not an unset variable.
t_crash=$(now_ms)
# an indexed copy of the vmlinux when there is one (crash-vmlinux.sh): half
# of crash's start is reading the debug info
crash_vmlinux=$("$here/crash-vmlinux.sh" --lookup "$vmlinux")
mkfifo "$work/to" "$work/from"
crash -s --kaslr=auto "$crash_vmlinux" "$run/vmcore" <"$work/to" >"$work/from" 2>&1 &
crash_pid=$!
exec {to}>"$work/to" {from}<"$work/from"
batch=0
# --- issue 14: the first look. crash takes seconds to read the vmlinux's
# debug info; drgn has the answer in well under one: print what brought the
# kernel down now, the full report (checked against crash) follows.
first_look_ms=''
wait "$drgn_pid" || true
drgn_ms=$(cat "$work/drgn.ms" 2>/dev/null || echo 0)
if [[ -s $work/drgn.json ]] &&
	"$here/first-look.py" --run "$run" --drgn "$work/drgn.json" --drgn-s "$(ms_s "$drgn_ms")" 2>"$work/first-look.err"; then
	first_look_ms=$(($(now_ms) - t_report))
else
	sed 's/^/first look: /' "$work/first-look.err" >&2 2>/dev/null || true
fi
# --- end first look
# ask OUT CMD...: run the crash commands, their output into OUT; false if
# crash did not answer them all (it exited, or 120 s passed in silence)
ask() {
	local out=$1 line marker
	shift
	batch=$((batch + 1))
	marker="@@@ end of batch $batch"
	: >"$out"
	# a crash that died must give a failed write here, not end this
	# script through SIGPIPE before it has said anything
	trap '' PIPE
	if ! printf '%s\n' "$@" "!echo \"$marker\"" 1>&"$to" 2>/dev/null; then
		# crash is gone (it could not open the dump): what it said before
		# exiting is still in the FIFO, and it is the reason
		trap - PIPE
		while IFS= read -r -t 5 line <&"$from"; do printf '%s\n' "$line" >>"$out"; done
		return 1
	fi
	trap - PIPE
	while IFS= read -r -t 120 line <&"$from"; do
		[[ $line == "$marker" ]] && return 0
		printf '%s\n' "$line" >>"$out"
	done
	return 1
}
# what crash printed, on one line
said() { grep -v '^ *$' "$1" | head -3 | tr -s '\n ' '  ' | sed 's/ $//' || true; }
# section NAME: what crash printed for the command after "@@@ NAME" (split
# into files once pass 1 is in)
section() { cat "$work/s.$1"; }
# has_text NAME: that output has a non-blank line
has_text() { grep -q '[^ ]' "$work/s.$1"; }

header() {
	local reason
	echo "bpf-panic kdump report"
	echo "run:       $(metaval run)  ($run)"
	echo "trigger:   $(metaval trigger) $(metaval trigger_args)"
	echo "status:    $(metaval status), vmcore $(metaval vmcore_bytes) bytes (makedumpfile $(metaval makedumpfile_opts))"
	reason=$(metaval reason)
	[[ -z $reason ]] || echo "reason:    $reason"
}
timings() {
	echo "== Timings (seconds)"
	grep -E '^[a-z_]+_s=' "$run/run.meta" | sed 's/^/   /' || true
	[[ -z ${armed_to_fire:-} ]] || echo "   armed_to_fire_s=$armed_to_fire (fire record time - boot_to_armed_s)"
	ms=$(($(now_ms) - t_report))
	echo "   report_s=$((ms / 1000)).$(printf '%02d' $(((ms % 1000) / 10))) (crash part $(ms_s "${crash_ms:-0}") s, drgn part $(ms_s "${drgn_ms:-0}") s, in parallel${first_look_ms:+; first look printed at $(ms_s "$first_look_ms") s})"
}
finish() { # finish: put report.txt in place, print it, exit 1 if a section failed
	mv "$run/report.txt.tmp" "$run/report.txt"
	cat "$run/report.txt"
	# crash not opening the dump at all comes first: it says most
	[[ -z $crash_error ]] || die "$crash_error (the report keeps what drgn found: $run/report.txt)"
	if ((${#failed[@]})); then
		local IFS=';'
		die "the report of $run is incomplete, ${#failed[@]} section(s) failed:${failed[*]/#/ }"
	fi
	exit 0
}

cmds=(sys bt log bpf "bpf -M" "bpf -P" "kmem -i" "px &((struct bpf_array *)0)->value")
names=(sys bt log bpf maps progs kmem valoff)
pass1=()
for i in "${!cmds[@]}"; do
	pass1+=("!echo \"@@@ ${names[i]}\"" "${cmds[i]}")
done
crash_error='' crash_said=''
if ! ask "$work/pass1.out" "${pass1[@]}"; then
	# the drgn part still reports; the crash part says it could not
	crash_said=$(said "$work/pass1.out")
	crash_error="crash could not open $run/vmcore with $vmlinux: $crash_said"
fi
for n in "${names[@]}"; do
	awk -v s="@@@ $n" '$0 == s { on = 1; next } /^@@@ / { on = 0 } on' "$work/pass1.out" >"$work/s.$n"
done

# The .data.fire maps: map id and address (from bpf -M), the program that
# uses each (bpf -P), and the value offset inside struct bpf_array. An
# offset that is not there is not taken as 0: nothing is read then.
valoff=$(grep -oE '0x[0-9a-f]+' "$work/s.valoff" | tail -1 || true)
size=$("$fire_decode" --size)
awk '/^ *[0-9]+ +[0-9a-f]+ +[A-Z_]+/ { id = $1; addr = $2 }
	/NAME: "\.data\.fire"/ { print id, addr }' "$work/s.maps" >"$work/fire-maps"
nmaps=$(grep -cE '^ *[0-9]+ +[0-9a-f]+ +[A-Z_]+' "$work/s.maps" || true)
fire_problem=''
: >"$work/pass2.out"
if [[ -n $crash_error ]]; then
	fire_problem=$crash_error
elif [[ -s $work/fire-maps && -z $valoff ]]; then
	fire_problem="px printed no offset of struct bpf_array.value ($(said "$work/s.valoff")): nothing read"
elif [[ -s $work/fire-maps ]]; then
	pass2=()
	while read -r id addr; do
		pass2+=("!echo \"@@@ fire $id\"" "$(printf 'rd -8 0x%x %d' $((0x$addr + valoff)) "$size")")
	done <"$work/fire-maps"
	ask "$work/pass2.out" "${pass2[@]}" ||
		fire_problem="crash stopped answering while reading the record: $(said "$work/pass2.out")"
fi
trap '' PIPE # crash may be gone: a failed write, not the end of this script
printf 'q\n' 1>&"$to" 2>/dev/null || true
trap - PIPE
exec {to}>&-
wait "$crash_pid" 2>/dev/null || true
crash_pid=''
crash_ms=$(($(now_ms) - t_crash))

# --- drgn part (issue 10): wait for it, then merge both into the drgn
# sections of report.txt and into report.json
[[ ! -s $work/drgn.err ]] || sed 's/^/drgn part: /' "$work/drgn.err" >&2
merge=(--run "$run" --drgn "$work/drgn.json" --crash-s "$(ms_s "$crash_ms")"
	--drgn-s "$(ms_s "$drgn_ms")" --started-ms "$t_report"
	${first_look_ms:+--first-look-s "$(ms_s "$first_look_ms")"}
	--text "$work/drgn.txt" --json "$run/report.json")
if [[ -n $crash_error ]]; then merge+=(--crash-error "$crash_error"); else merge+=(--crash-out "$work/pass1.out"); fi
if [[ ! -s $work/drgn.json ]]; then # killed, or died before writing its facts
	rc=$(cat "$work/drgn.rc" 2>/dev/null || echo '?')
	if [[ $rc == 124 ]]; then
		merge+=(--drgn-error "drgn-part.py did not finish within 120 s")
	else
		merge+=(--drgn-error "drgn-part.py wrote no facts (exit $rc): $(tail -1 "$work/drgn.err" 2>/dev/null)")
	fi
fi
# --- end drgn part

prog_of_map() { # the name of the program whose USED_MAPS lists map $1
	awk -v m="$1" '/^ *[0-9]+ +[0-9a-f]+ +[0-9a-f]+ +[A-Z_]+/ {
		n = split($NF, used, ","); hit = 0; for (i = 1; i <= n; i++) if (used[i] == m) hit = 1 }
		/NAME: / && hit { match($0, /NAME: "[^"]*"/); print substr($0, RSTART + 7, RLENGTH - 8); hit = 0 }' "$work/s.progs"
}

trigger=$(metaval trigger)
cause=$(metaval cause)
detail=$(metaval cause_detail)
found=0 fired_trigger='' armed_to_fire=''
# the fire records, decoded, before the report is written: the cause
# section cross-checks them
fire_section() {
	local id addr rc t armed
	if [[ -n $fire_problem ]]; then
		fail_section "fire record" "$fire_problem"
		return
	fi
	if [[ ! -s $work/fire-maps ]]; then
		if [[ $trigger == none ]]; then
			echo "   none: no trigger was armed (trigger none)"
		elif ((nmaps == 0)); then
			fail_section "fire record" "bpf -M listed no maps"
		else
			fail_section "fire record" "no .data.fire map among the $nmaps maps bpf -M listed"
		fi
		return
	fi
	while read -r id addr; do
		echo "-- map $id, program $(prog_of_map "$id" | sed -n 1p)"
		awk -v s="@@@ fire $id" '$0 == s { on = 1; next } /^@@@ / { on = 0 } on' "$work/pass2.out" |
			grep -E '^[0-9a-f]+:  ' >"$work/fire-$id.hex" || true
		rc=0
		"$fire_decode" <"$work/fire-$id.hex" >"$work/fire-$id.txt" 2>&1 || rc=$?
		sed 's/^/   /' "$work/fire-$id.txt"
		if ((rc == 0)); then
			found=$((found + 1))
			fired_trigger=$(sed -n 's/^trigger=//p' "$work/fire-$id.txt")
			t=$(sed -n 's/^time=\([0-9.]*\) s after boot/\1/p' "$work/fire-$id.txt")
			armed=$(metaval boot_to_armed_s)
			if [[ -n $t && -n $armed ]]; then
				armed_to_fire=$(awk -v t="$t" -v a="$armed" 'BEGIN { printf "%.2f", t - a }')
			fi
		elif ((rc != 3)); then
			fail_section "fire record" "map $id: fire-decode: $(head -1 "$work/fire-$id.txt")"
		fi
	done <"$work/fire-maps"
	((found > 0)) || echo "   no fire record in the dump: the trigger was armed but did not fire"
}
fire_section >"$work/fire.txt"
while read -r id _; do
	[[ ! -s $work/fire-$id.txt ]] || merge+=(--crash-fire "$id=$work/fire-$id.txt")
done <"$work/fire-maps"

cause_section() {
	case $cause in
	trigger) echo "   the trigger fired: $detail" ;;
	oops) echo "   an oops, not a trigger: $detail" ;;
	warning) echo "   a WARNING (panic_on_warn), not a trigger: $detail" ;;
	panic) echo "   a kernel panic, not a trigger: $detail" ;;
	kexec) echo "   $detail" ;;
	none) echo "   nothing brought the kernel down${detail:+: $detail}" ;;
	*) echo "   not recorded (run.meta has no cause=: filed by an older collector)" ;;
	esac
	if [[ $cause != trigger && -n $fired_trigger ]]; then
		echo "   note: the dump also holds a fire record of trigger $fired_trigger (below)"
	elif [[ $cause == trigger ]] && ((found == 0)); then
		echo "   note: but the dump holds no fire record (below)"
	fi
}

panic_trace() { # the dying kernel's own report: panic or oops, with its call trace
	local trace
	trace=$(awk '/Kernel panic - not syncing|Oops: |BUG: |WARNING: |kernel BUG at|general protection fault|invalid opcode: / { on = 1 }
		on { print; if (++n >= 60 || /<\/TASK>/) exit }' "$work/s.log")
	if [[ -n $trace ]]; then
		printf '%s\n' "$trace"
	elif [[ $(metaval fire_action) == crash_kexec ]]; then
		echo "   none printed: the trigger fired through crash_kexec(), which prints no panic"
	else
		echo "   none printed"
	fi
}

# crash's own sections; one line instead when crash could not open the dump
crash_sections() {
	if [[ -n $crash_error ]]; then
		echo "== crash's sections (bt, the dying kernel's report, log, bpf, kmem, sys): not available (see Panic)"
		echo
		return
	fi
	echo "== Backtrace of the panicking task (crash bt)"
	section bt
	echo
	echo "== Panic or oops as the dying kernel printed it (shows the JITed BPF program frame)"
	panic_trace
	echo
	echo "== Kernel log, last 25 lines"
	if has_text log; then
		tail -n 25 "$work/s.log"
	else
		fail_section log "empty"
	fi
	echo
	echo "== BPF programs and maps in the dump (crash bpf)"
	if has_text bpf; then
		section bpf
	elif [[ $trigger == none ]]; then
		echo "   none listed (trigger none)"
	else
		fail_section bpf "listed no programs"
	fi
	echo
	echo "== Memory (crash kmem -i)"
	if grep -q 'TOTAL MEM' "$work/s.kmem"; then section kmem; else fail_section kmem "no TOTAL MEM line"; fi
	echo
	echo "== System (crash sys)"
	section sys
	echo
}

{
	header
	echo "kernel:    $(sed -n 's/^ *RELEASE: //p' "$work/s.sys") $(sed -n 's/^ *VERSION: //p' "$work/s.sys")"
	echo
	echo "== Cause (from the console and the guest's states, checked against the dump)"
	cause_section
	echo
	echo "== Fire record (read from the vmcore: BPF map .data.fire of the trigger program)"
	cat "$work/fire.txt"
	echo
	echo "== Panic"
	if [[ -n $crash_error ]]; then
		fail_section "crash could not open $run/vmcore with $vmlinux" "$crash_said"
	else
		panic=$(grep -E '^ *PANIC:' "$work/s.sys" | sed 's/^ *//' || true)
		if [[ -n $panic ]]; then echo "$panic"; else fail_section sys "no PANIC line"; fi
		task=$(awk 'NR == 1 && /^PID:/ { printf "task:      pid %s comm %s cpu %s (task %s)\n", $2, $8, $6, $4 }' "$work/s.bt")
		if [[ -n $task ]]; then echo "$task"; else fail_section bt "no PID line"; fi
	fi
	echo
	# --- drgn part (issue 10): tasks, stacks, BPF objects, fire record
	# cross-check, files and memory (fire-decode has run: the crash side's
	# fire records exist now)
	if "$here/report-merge.py" "${merge[@]}" >&2; then
		cat "$work/drgn.txt"
	else
		fail_section drgn "report-merge.py failed: no drgn sections, no report.json"
	fi
	# --- end drgn part
	crash_sections
	echo "== Not in this report"
	echo "   vm and other VMA walks: crash 8.0.2 cannot read 6.1's maple trees; use a newer crash."
	grep -h '^WARNING' "$work/pass1.out" | sort -u | sed 's/^/   crash: /' || true
	echo
	timings
} >"$run/report.txt.tmp"
mapfile -t failed < <(sed -n 's/^   FAILED: //p' "$run/report.txt.tmp")
finish
