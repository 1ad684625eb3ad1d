#!/usr/bin/env bash
# A campaign for a flaky bug (issue 13): up to N attempts, J guests at a
# time, through GNU parallel; the first attempt whose trigger fires wins and
# the others are stopped (their QEMU too).
#
#   campaign.sh TRIGGER [k=v ...] --attempts N --jobs J [--fresh]
#               [--workload FILE | -- CMD ARGS...] [--runs DIR] [--timeout S]
#               [--mem SIZE] [--repeat N] [--sshlogin LIST]
#
#   --attempts N     at most N attempts (1-100000)
#   --jobs J         J attempts at a time (per machine of --sshlogin)
#   --fresh          boot every attempt (default: restore the armed snapshot,
#                    appliance/snapshot.sh, made once and cached)
#   --workload FILE  the reproducer, run in each guest (as make run's WORKLOAD=)
#   -- CMD ARGS...   instead of --workload: a command line run by the guest's
#                    busybox sh (written to CAMPAIGN-DIR/workload.sh)
#   --runs DIR       the campaign dir is made under DIR (runs/)
#   --timeout S      per attempt (120); --mem SIZE guest memory (1G)
#   --repeat N       workload runs per attempt (1; 0: until the timeout)
#   --sshlogin LIST  GNU parallel's own option, passed through: attempts run
#                    on those machines too (":" is this one); each needs the
#                    appliance built at this same path, and rsync; the
#                    attempt dirs come back (--return), the run arguments
#                    and workload go out (--basefile)
#
# The workload sees BPK_ATTEMPT (the attempt number) and, restored,
# BPK_SEED (host random bytes: restored guests share the snapshot's random
# state). It finds the campaign under DIR/campaign-<UTC time>-<trigger>/:
# attempts/N/ (each attempt's runs/, run.out, run.err, attempt.rec),
# attempts.tsv (one line per attempt: start, end, outcome, why), joblog
# (parallel's), summary (key=value), campaign.log.
#
# Exit: 0 an attempt fired and its run is filed with a vmcore and report;
# 1 no attempt fired (all ran out, or failed: attempts.tsv says why); 2 bad
# input, nothing booted; 128+N interrupted by signal N: every guest is
# stopped and what happened is filed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=../lib/log.sh
. "$top/lib/log.sh"
BPK_PROG=campaign

usage="usage: campaign.sh TRIGGER [k=v ...] --attempts N --jobs J [--fresh] [--workload FILE | -- CMD ARGS...] [--runs DIR] [--timeout S] [--mem SIZE] [--repeat N] [--sshlogin LIST]"
if [[ ${1:-} == --help || ${1:-} == -h ]]; then
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
	exit 0
fi

build=${BUILD:-$top/build}
trigger='' targs=() attempts='' jobs='' fresh=0 workload='' cmd=() runs=$top/runs timeout=120 mem=1G
repeat=1 sshlogin=''
while (($#)); do
	case $1 in
	--attempts | --jobs | --workload | --runs | --timeout | --mem | --repeat | --sshlogin)
		(($# >= 2)) || bad_input "$1 needs a value ($usage)"
		;;
	esac
	case $1 in
	--attempts) attempts=${2:-} && shift ;;
	--jobs) jobs=${2:-} && shift ;;
	--fresh) fresh=1 ;;
	--workload) workload=${2:-} && shift ;;
	--runs) runs=${2:-} && shift ;;
	--timeout) timeout=${2:-} && shift ;;
	--mem) mem=${2:-} && shift ;;
	--repeat) repeat=${2:-} && shift ;;
	--sshlogin) sshlogin=${2:-} && shift ;;
	--) shift && cmd=("$@") && break ;;
	-*) bad_input "unknown option '$1' ($usage)" ;;
	*=*) [[ -n $trigger ]] || bad_input "'$1': the trigger's name comes first ($usage)" && targs+=("$1") ;;
	*) [[ -z $trigger ]] || bad_input "'$1': one trigger only, then its k=v arguments ($usage)" && trigger=$1 ;;
	esac
	shift
done
[[ -n $trigger ]] || bad_input "a trigger is required ($usage)"
[[ $attempts =~ ^[0-9]+$ && $attempts -ge 1 && $attempts -le 100000 ]] || bad_input "--attempts '$attempts' is not a number from 1 to 100000"
[[ $jobs =~ ^[0-9]+$ && $jobs -ge 1 && $jobs -le 64 ]] || bad_input "--jobs '$jobs' is not a number from 1 to 64"
[[ $timeout =~ ^[0-9]+$ && $timeout -gt 0 ]] || bad_input "--timeout '$timeout' is not a positive number of seconds"
[[ $mem =~ ^[0-9]+[MG]$ ]] || bad_input "--mem '$mem' is not a size like 512M or 1G"
[[ $repeat =~ ^[0-9]+$ ]] || bad_input "--repeat '$repeat' is not a number"
[[ -z $workload || ${#cmd[@]} -eq 0 ]] || bad_input "--workload and -- CMD: give one of them"
[[ -n $runs && $runs != *$'\n'* ]] || bad_input "--runs needs a directory (one line)"
[[ -n $workload || ${#cmd[@]} -gt 0 ]] || workload=$top/triggers/examples/syscall_errno.sh
if [[ -n $workload ]]; then
	[[ -f $workload && -r $workload ]] || bad_input "$workload: workload not found or not readable"
	workload=$(readlink -f "$workload")
fi
[[ -x $build/triggers/triggerctl && -r $build/appliance/root.cpio.gz ]] || bad_input "the appliance is not built (make all)"
# the trigger and its arguments, checked as run.sh checks them, before anything boots
[[ $trigger =~ ^[a-z0-9_]+$ ]] || bad_input "unknown trigger '$trigger' (triggerctl list shows them)"
err=$("$build/triggers/triggerctl" parse "$trigger" "${targs[@]}" 2>&1 >/dev/null) ||
	bad_input "$(head -1 <<<"${err:-triggerctl parse failed}" | sed 's/^[^:]*: error: //')"
command -v parallel >/dev/null || bad_input "GNU parallel not found: install Debian package parallel (make deps)"
if [[ -n $sshlogin && $sshlogin != ":" ]] && ! command -v rsync >/dev/null; then
	bad_input "--sshlogin $sshlogin: GNU parallel brings files back with rsync: install Debian package rsync"
fi

err=$(mkdir -p "$runs" 2>&1) || bad_input "cannot create the runs dir: $err"
runs=$(readlink -f "$runs")
base=$runs/campaign-$(date -u +%Y%m%dT%H%M%SZ)-$trigger
camp=$base
i=1
while ! mkdir "$camp" 2>/dev/null; do
	i=$((i + 1))
	camp=$base-$i
	((i < 100)) || die "cannot make a campaign dir next to $base"
done
mkdir -p "$camp/attempts"
log() {
	printf 'campaign: %s\n' "$*" >>"$camp/campaign.log"
	printf 'campaign: %s\n' "$*" >&2
}

if ((${#cmd[@]})); then
	# a command line for the guest's sh, each word single-quoted
	{
		echo '#!/bin/sh'
		printf 'exec'
		for w in "${cmd[@]}"; do printf " '%s'" "${w//\'/\'\\\'\'}"; done
		echo
	} >"$camp/workload.sh"
	workload=$camp/workload.sh
fi
{
	printf '%s\n' --trigger "$trigger" --args "${targs[*]}" --workload "$workload" --timeout "$timeout" \
		--mem "$mem" --repeat "$repeat"
} >"$camp/run-args"

# Snapshot or fresh boots, and why
mode=snapshot why='' snap=''
if ((fresh)); then
	mode=fresh why="asked for (--fresh)"
else
	# shellcheck source=field.sh
	. "$here/field.sh"
	if host=$(field_needs_host "$workload"); then
		mode=fresh why="the workload is $host: it runs from the host's /usr over 9p, and QEMU cannot migrate a guest with a 9p share"
	fi
fi
t0=$(now_ms)
# The snapshot armed with this trigger; else one that arms after each
# restore (the trigger matched in the idle guest, say); else fresh boots
armed=no armed_why=''
# snapshot_error: snapshot.sh's own error line (QEMU's stop follows it)
snapshot_error() { grep -m1 '^snapshot.sh: error:' "$1" || tail -1 "$1"; }
if [[ $mode == snapshot ]]; then
	log "the armed snapshot ($mem, $trigger ${targs[*]}) ..."
	if snap=$("$here/snapshot.sh" --mem "$mem" --trigger "$trigger" --args "${targs[*]}" 2>"$camp/snapshot.err"); then
		armed=yes
	else
		armed_why=$(snapshot_error "$camp/snapshot.err")
		log "no armed snapshot ($armed_why): one that arms after each restore ..."
		snap=$("$here/snapshot.sh" --mem "$mem" 2>"$camp/snapshot-unarmed.err") ||
			mode=fresh why="the snapshot could not be made: $(snapshot_error "$camp/snapshot-unarmed.err")"
	fi
	[[ $mode != snapshot ]] ||
		log "snapshot: $snap (armed: $armed; $(tr '\n' ' ' <"$snap/meta" | grep -o 'boot_to_idle_s=[^ ]* save_s=[^ ]* state_bytes=[^ ]* ram_bytes=[^ ]*'))"
fi
[[ $mode == snapshot ]] || log "fresh boots, no snapshot: $why"
printf 'mode=%s\nsnapshot=%s\narmed=%s\nmem=%s\nwhy=%s\n' "$mode" "$snap" "$armed" "$mem" "$why" >"$camp/mode"
t_start=$(now_ms)
log "$attempts attempt(s), $jobs at a time ($mode): trigger $trigger ${targs[*]}, workload $(basename "$workload"), in $camp"

# running_attempts: pids of attempts that began and have no record yet
running_attempts() {
	local f p
	for f in "$camp"/attempts/*/pid; do
		[[ -r $f && ! -e ${f%/pid}/attempt.rec ]] || continue
		p=$(cat "$f")
		! kill -0 "$p" 2>/dev/null || echo "$p"
	done
}

# Ctrl-C, SIGTERM, SIGHUP: no attempt starts any more, every running attempt
# gets SIGTERM (run.sh stops its QEMU and files the run); parallel is left
# alone until they are done (its own handling of a signal kills its jobs
# within 0.4 s: too soon for a run to be filed), then stopped.
interrupted='' signum=0
on_signal() {
	[[ -n $interrupted ]] || interrupted=SIG$1 signum=$2
	log "interrupted by SIG$1: stopping every attempt"
	: >"$camp/stop"
	: >"$camp/interrupted"
	local p
	for p in $(running_attempts); do kill -TERM "$p" 2>/dev/null || true; done
}
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP

# shellcheck disable=SC2054 # parallel's own comma syntax
# --halt soon: once an attempt has fired (exit 0), start no more and let
# the running ones end (the winner has already stopped those that had not
# fired; one that fired too is still being dumped)
popts=(--jobs "$jobs" --halt soon,success=1 --joblog "$camp/joblog" --line-buffer)
if [[ -n $sshlogin ]]; then
	popts+=(--sshlogin "$sshlogin" --basefile "$camp/run-args" --basefile "$camp/mode"
		--basefile "$workload" --return "$camp/attempts/{}")
fi
log "parallel ${popts[*]} $here/campaign-attempt.sh $camp {}"
# its own session: a Ctrl-C at the terminal reaches this script only
seq 1 "$attempts" | setsid parallel "${popts[@]}" "$here/campaign-attempt.sh" "$camp" "{}" &
ppid_=$!
while kill -0 "$ppid_" 2>/dev/null; do
	if [[ -n $interrupted && -z $(running_attempts) ]]; then
		kill -TERM "$ppid_" 2>/dev/null || true
	fi
	sleep 0.2 || true # a signal may end it
done
prc=0
wait "$ppid_" || prc=$?
t_end=$(now_ms)

# Attempts a --halt or a signal stopped before they ended still get a record
for d in "$camp"/attempts/*/; do
	[[ -e $d/attempt.rec ]] && continue
	n=$(basename "$d")
	{
		echo "attempt=$n"
		echo "outcome=stopped"
		echo "reason=ended without a record (killed)"
	} >"$d/attempt.rec"
done

# attempts.tsv and the summary
rec() { sed -n "s/^$2=//p" "$1"; }
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
{
	printf 'attempt\thost\tmode\tstart\tend\tseconds\tto_armed_s\toutcome\tcause\trun\treason\n'
	for f in "$camp"/attempts/*/attempt.rec; do
		[[ -e $f ]] || continue
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(rec "$f" attempt)" "$(rec "$f" host)" \
			"$(rec "$f" mode)" "$(rec "$f" start)" "$(rec "$f" end)" "$(rec "$f" seconds)" \
			"$(rec "$f" to_armed_s)" "$(rec "$f" outcome)" "$(rec "$f" cause)" "$(rec "$f" run)" "$(rec "$f" reason)"
	done | sort -n
} >"$camp/attempts.tsv"
count() { awk -F'\t' -v o="$1" 'NR > 1 && $8 == o' "$camp/attempts.tsv" | wc -l; }
made=$(($(wc -l <"$camp/attempts.tsv") - 1))
fired=$(count fired) ran_out=$(count ran-out) failed=$(count failed) stopped=$(count stopped)
# the first fire: the earliest panic (or capture kernel boot) the host saw
first='' first_at=''
for f in "$camp"/attempts/*/attempt.rec; do
	[[ -e $f && $(rec "$f" outcome) == fired ]] || continue
	at=$(rec "$f" fired_at_ms)
	if [[ -z $first_at ]] || ((at < first_at)); then first=$f first_at=$at; fi
done
ended=$((fired + ran_out + failed))
wall=$((t_end - t_start))
mean_armed=$(awk -F'\t' 'NR > 1 && $7 != "" { s += $7; n++ } END { if (n) printf "%.3f", s / n }' "$camp/attempts.tsv")
{
	echo "trigger=$trigger"
	echo "args=${targs[*]}"
	echo "workload=$workload"
	echo "mode=$mode"
	[[ $mode == fresh ]] && echo "fresh_why=$why"
	[[ $mode == snapshot ]] && echo "snapshot=$snap" && echo "restored=yes" && echo "snapshot_armed=$armed" &&
		echo "snapshot_s=$(secs $((t_start - t0)))"
	[[ -z $armed_why ]] || echo "snapshot_not_armed_why=$armed_why"
	echo "attempts_planned=$attempts"
	echo "jobs=$jobs"
	echo "attempts_made=$made"
	echo "fired=$fired"
	echo "ran_out=$ran_out"
	echo "failed=$failed"
	echo "stopped=$stopped"
	echo "wall_s=$(secs "$wall")"
	# attempts that ran to their end, per minute of the campaign
	echo "attempts_per_minute=$(awk -v n="$ended" -v ms="$wall" 'BEGIN { printf "%.1f", ms ? n * 60000 / ms : 0 }')"
	echo "mean_to_armed_s=$mean_armed"
	if [[ -n $first ]]; then
		echo "first_fire_attempt=$(rec "$first" attempt)"
		echo "first_fire_run=$(rec "$first" run)"
		echo "time_to_first_fire_s=$(secs $((first_at - t_start)))"
	fi
	echo "parallel_exit=$prc"
	[[ -z $interrupted ]] || echo "interrupted=$interrupted"
} >"$camp/summary"

log "$made attempt(s): $fired fired, $ran_out ran out, $failed failed, $stopped stopped, in $(fmt_ms "$wall") ($(sed -n 's/^attempts_per_minute=//p' "$camp/summary")/min)"
if [[ -n $interrupted ]]; then
	log "error: interrupted by $interrupted: every guest stopped; attempts filed in $camp/attempts.tsv"
	exit $((128 + signum))
fi
if [[ -z $first ]]; then
	log "no attempt fired: see $camp/attempts.tsv"
	exit 1
fi
run=$(rec "$first" run)
log "first fire: attempt $(rec "$first" attempt) after $(sed -n 's/^time_to_first_fire_s=//p' "$camp/summary") s: $run"
((fired == 1)) || log "$((fired - 1)) more attempt(s) fired while being stopped: filed too (attempts.tsv)"
[[ -s $run/report.json ]] || { log "error: $run has no report.json"; exit 1; }
echo "$run"
