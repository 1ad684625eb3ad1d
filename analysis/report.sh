#!/usr/bin/env bash
# Open a run's vmcore in crash (batch) and write RUN/report.txt: the fire
# record read from the dump, the panic, the panicking task and its
# backtrace, the kernel log, BPF programs and maps, memory. Prints the report.
# drgn reads the same vmcore in parallel (drgn-part.py: every task, stacks,
# BPF objects, the fire record by the map's BTF, files and memory);
# report-merge.py puts its sections after the panic and writes
# RUN/report.json (schema: report.schema.json).
#
#   report.sh RUN-DIR [--vmlinux FILE]
#
# crash 8.0.2 needs --kaslr=auto for a KASLR guest's dump, and cannot walk
# 6.1's maple trees (vm): that is said in the report, not attempted.
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
trap 'rm -rf "$work"' EXIT

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
# vmlinux debug info): commands go to its stdin, each batch ends with a
# marker line that its output must reach.
crash_error=
t_crash=$(now_ms)
# issue 10: an indexed copy of the vmlinux when there is one (crash-vmlinux.sh)
crash_vmlinux=$("$here/crash-vmlinux.sh" --lookup "$vmlinux")
coproc CRASH { crash -s --kaslr=auto "$crash_vmlinux" "$run/vmcore" 2>&1; }
# shellcheck disable=SC2153 # CRASH_PID is set by coproc; bash unsets it
# when crash exits early, so keep it
crash_pid=$CRASH_PID
batch=0
# send LINE...: to crash's stdin; 1 if crash is gone (issue 10: a crash that
# died is a failed section, not a SIGPIPE that ends the whole report)
send() {
	local rc=0
	[[ -n ${CRASH[1]:-} ]] || return 1
	trap '' PIPE
	{ printf '%s\n' "$@" >&"${CRASH[1]}"; } 2>/dev/null || rc=1
	trap - PIPE
	return "$rc"
}
# ask OUT CMD...: run the crash commands, their output into OUT
ask() {
	local out=$1 line marker
	shift
	batch=$((batch + 1))
	marker="@@@ end of batch $batch"
	: >"$out"
	if ! send "$@" "!echo \"$marker\""; then
		crash_error="crash exited before it read its commands"
		say "$crash_error"
		return 1
	fi
	while [[ -n ${CRASH[0]:-} ]] && IFS= read -r -t 120 line <&"${CRASH[0]}"; do
		[[ $line == "$marker" ]] && return 0
		printf '%s\n' "$line" >>"$out"
	done
	# issue 10: the drgn part still reports when crash cannot
	crash_error="crash could not open $run/vmcore with $vmlinux: $(grep -v '^$' "$out" | head -2 | tr '\n' ' ')"
	say "$crash_error"
	return 1
}
# section NAME: what crash printed for the command after "@@@ NAME"
section() {
	awk -v s="@@@ $1" '$0 == s { on = 1; next } /^@@@ / { on = 0 } on' "$work/pass1.out"
}

cmds=(sys bt log bpf "bpf -M" "bpf -P" "kmem -i" "px &((struct bpf_array *)0)->value")
names=(sys bt log bpf maps progs kmem valoff)
pass1=()
for i in "${!cmds[@]}"; do
	pass1+=("!echo \"@@@ ${names[i]}\"" "${cmds[i]}")
done
ask "$work/pass1.out" "${pass1[@]}" || true

# The .data.fire maps: map id and address (from bpf -M), the program that
# uses each (bpf -P), and the value offset inside struct bpf_array.
valoff=$(section valoff | grep -o '0x[0-9a-f]*' | tail -1 || true) # || true: crash may have failed (issue 10)
size=$("$fire_decode" --size)
section maps | awk '/^ *[0-9]+ +[0-9a-f]+ +[A-Z_]+/ { id = $1; addr = $2 }
	/NAME: "\.data\.fire"/ { print id, addr }' >"$work/fire-maps"
pass2=()
while read -r id addr; do
	pass2+=("!echo \"@@@ fire $id\"" "$(printf 'rd -8 0x%x %d' $((0x$addr + valoff)) "$size")")
done <"$work/fire-maps"
: >"$work/pass2.out"
((${#pass2[@]} == 0)) || [[ -n $crash_error ]] || ask "$work/pass2.out" "${pass2[@]}" || true
[[ -n $crash_error ]] || send q || true
wait "$crash_pid" 2>/dev/null || true
crash_ms=$(($(now_ms) - t_crash))

# --- drgn part (issue 10): wait for it, then merge both into the drgn
# sections of report.txt and into report.json
wait "$drgn_pid" || true
[[ ! -s $work/drgn.err ]] || sed 's/^/   /' "$work/drgn.err" >&2
merge=(--run "$run" --drgn "$work/drgn.json" --crash-s "$(ms_s "$crash_ms")"
	--drgn-s "$(ms_s "$(cat "$work/drgn.ms" 2>/dev/null || echo 0)")" --started-ms "$t_report"
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
while read -r id _; do merge+=(--crash-fire "$id=$work/fire-$id.txt"); done <"$work/fire-maps"
# --- end drgn part

prog_of_map() { # the name of the program whose USED_MAPS lists map $1
	section progs | awk -v m="$1" '/^ *[0-9]+ +[0-9a-f]+ +[0-9a-f]+ +[A-Z_]+/ {
		n = split($NF, used, ","); hit = 0; for (i = 1; i <= n; i++) if (used[i] == m) hit = 1 }
		/NAME: / && hit { match($0, /NAME: "[^"]*"/); print substr($0, RSTART + 7, RLENGTH - 8); hit = 0 }'
}

{
	echo "bpf-panic kdump report"
	echo "run:       $(metaval run)  ($run)"
	echo "trigger:   $(metaval trigger) $(metaval trigger_args)"
	echo "status:    $(metaval status), vmcore $(metaval vmcore_bytes) bytes (makedumpfile $(metaval makedumpfile_opts))"
	echo "kernel:    $(section sys | sed -n 's/^ *RELEASE: //p') $(section sys | sed -n 's/^ *VERSION: //p')"
	echo
	echo "== Fire record (read from the vmcore: BPF map .data.fire of the trigger program)"
	found=0
	while read -r id addr; do
		echo "-- map $id, program $(prog_of_map "$id" | head -1)"
		awk -v s="@@@ fire $id" '$0 == s { on = 1; next } /^@@@ / { on = 0 } on' "$work/pass2.out" |
			grep -E '^[0-9a-f]+:  ' >"$work/fire-$id.hex" || true
		rc=0
		"$fire_decode" <"$work/fire-$id.hex" >"$work/fire-$id.txt" 2>&1 || rc=$?
		sed 's/^/   /' "$work/fire-$id.txt"
		((rc == 0)) && found=$((found + 1))
	done <"$work/fire-maps"
	((found > 0)) || echo "   no fire record in the dump (not a trigger panic, or the record was not filled)"
	echo
	echo "== Panic"
	section sys | grep -E '^ *PANIC:' | sed 's/^ *//' || true
	section bt | awk 'NR == 1 && /^PID:/ { printf "task:      pid %s comm %s cpu %s (task %s)\n", $2, $8, $6, $4 }'
	echo
	# --- drgn part (issue 10): tasks, stacks, BPF objects, fire record
	# cross-check, files and memory (fire-decode has run: the crash side's
	# fire records exist now)
	"$here/report-merge.py" "${merge[@]}" >&2 || say "report-merge.py failed: no drgn sections, no report.json"
	cat "$work/drgn.txt" 2>/dev/null || true
	# --- end drgn part
	echo "== Backtrace of the panicking task (crash bt)"
	section bt
	echo
	echo "== Panic call trace as the dying kernel printed it (shows the JITed BPF program frame)"
	section log | awk '/Kernel panic - not syncing/ { on = 1 } on { print; if (++n >= 16 || /<\/TASK>/) exit }'
	echo
	echo "== Kernel log, last 25 lines"
	section log | tail -n 25
	echo
	echo "== BPF programs and maps in the dump (crash bpf)"
	section bpf
	echo
	echo "== Memory (crash kmem -i)"
	section kmem
	echo
	echo "== System (crash sys)"
	section sys
	echo
	echo "== Not in this report"
	echo "   vm and other VMA walks: crash 8.0.2 cannot read 6.1's maple trees; use a newer crash."
	grep -h '^WARNING' "$work/pass1.out" | sort -u | sed 's/^/   crash: /' || true
	echo
	echo "== Timings (seconds)"
	grep -E '^[a-z_]+_s=' "$run/run.meta" | sed 's/^/   /'
	ms=$(($(now_ms) - t_report))
	echo "   report_s=$((ms / 1000)).$(printf '%02d' $(((ms % 1000) / 10))) (crash part $(ms_s "$crash_ms") s, drgn part $(ms_s "$(cat "$work/drgn.ms" 2>/dev/null || echo 0)") s, in parallel)"
} >"$run/report.txt.tmp"
mv "$run/report.txt.tmp" "$run/report.txt"
cat "$run/report.txt"
