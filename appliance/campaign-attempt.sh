#!/usr/bin/env bash
# One attempt of a campaign (issue 13), as GNU parallel runs it:
#
#   campaign-attempt.sh CAMPAIGN-DIR N
#
# Runs appliance/run.sh with the campaign's arguments (CAMPAIGN-DIR/run-args,
# one per line), its runs filed under CAMPAIGN-DIR/attempts/N/runs, restored
# from the armed snapshot named in CAMPAIGN-DIR/mode (made here if this
# machine has none: a --sshlogin host) or booted fresh. Watches the run's
# staging dir for the moment the trigger is armed and the moment it fired
# (the console's panic line, or the capture kernel's boot), and writes
# CAMPAIGN-DIR/attempts/N/attempt.rec (key=value): start, end, seconds,
# to_armed_s, fired_at_ms, outcome
# (fired, ran-out, failed, stopped), cause, run, reason.
#
# SIGTERM/SIGINT/SIGHUP (parallel's --halt, or the campaign's Ctrl-C) go on
# to run.sh, which stops its QEMU and files what exists; the record is
# written after it. Exit: 0 the attempt's run holds a vmcore (it fired), 1
# otherwise, 2 bad arguments.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=../lib/log.sh
. "$top/lib/log.sh"
BPK_PROG=campaign

camp=${1:?usage: campaign-attempt.sh CAMPAIGN-DIR N}
n=${2:?usage: campaign-attempt.sh CAMPAIGN-DIR N}
[[ $n =~ ^[0-9]+$ ]] || bad_input "attempt '$n' is not a number"
[[ -r $camp/run-args && -r $camp/mode ]] || bad_input "$camp: not a campaign dir (no run-args or mode)"
dir=$camp/attempts/$n
# parallel's stderr may be gone when the campaign was interrupted: a
# message then fails, it does not kill the attempt before its record
trap '' PIPE
# The campaign is stopping: this attempt never begins and leaves nothing.
# While the winner is still being dumped and reported, hold the job slot
# (parallel would otherwise start the next attempt at once, and the next).
# winner_running: the attempt that fired first has not ended yet
winner_running() {
	local w
	[[ -e $camp/won && ! -e $camp/won/done && ! -e $camp/interrupted ]] || return 1
	w=$(cat "$camp/won/attempt" 2>/dev/null) || return 1
	kill -0 "$(cat "$camp/attempts/$w/pid" 2>/dev/null)" 2>/dev/null
}
if [[ -e $camp/stop ]]; then
	while winner_running; do sleep 0.3 || true; done
	exit 1
fi
mkdir -p "$dir/runs"
echo $$ >"$dir/pid"

iso() { date -u -d "@$(($1 / 1000))" +%Y-%m-%dT%H:%M:%SZ; }
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

start=$(now_ms)
mapfile -t run_args <"$camp/run-args"
mode=$(sed -n 's/^mode=//p' "$camp/mode")
snap=$(sed -n 's/^snapshot=//p' "$camp/mode")
mem=$(sed -n 's/^mem=//p' "$camp/mode")
stopped='' rc=0 pid='' outcome='' reason=''

finish() { # finish OUTCOME REASON [RUN]: the attempt's record, one line on stderr
	local end run=${3:-} cause=''
	end=$(now_ms)
	[[ -z $run ]] || cause=$(sed -n 's/^cause=//p' "$run/run.meta" 2>/dev/null)
	{
		echo "attempt=$n"
		echo "host=$(hostname)"
		echo "mode=$mode"
		echo "start=$(iso "$start")"
		echo "start_ms=$start"
		echo "end=$(iso "$end")"
		echo "end_ms=$end"
		echo "seconds=$(secs $((end - start)))"
		echo "to_armed_s=${to_armed:-}"
		echo "fired_at_ms=${fired_at:-}"
		echo "outcome=$1"
		echo "cause=$cause"
		echo "run=$run"
		echo "reason=${2//$'\n'/ }"
	} >"$dir/attempt.rec.tmp"
	mv "$dir/attempt.rec.tmp" "$dir/attempt.rec"
	[[ $(cat "$camp/won/attempt" 2>/dev/null) != "$n" ]] || : >"$camp/won/done"
	local line
	line="campaign: attempt $n: $1 after $(fmt_ms $((end - start)))${2:+: $2}${run:+ ($run)}"
	echo "$line" >>"$camp/campaign.log"
	echo "$line" >&2 || true
}

# A machine of a --sshlogin list makes its own snapshot the first time
if [[ $mode == snapshot && ! -r $snap/ok ]]; then
	sargs=(--mem "$mem" --quiet)
	# run-args: --trigger NAME --args "k=v ..." first (campaign.sh)
	[[ $(sed -n 's/^armed=//p' "$camp/mode") != yes ]] || sargs+=(--trigger "${run_args[1]}" --args "${run_args[3]}")
	if ! snap=$("$here/snapshot.sh" "${sargs[@]}" 2>"$dir/snapshot.err"); then
		finish failed "no armed snapshot on $(hostname): $(tail -1 "$dir/snapshot.err")"
		exit 1
	fi
fi
extra=(--attempt "$n")
[[ $mode != snapshot ]] || extra+=(--restore "$snap")

# shellcheck disable=SC2317 # called from the traps below
on_signal() {
	[[ -n $stopped ]] || stopped=SIG$1
	[[ -z $pid ]] || kill -TERM "$pid" 2>/dev/null || true
}
trap 'on_signal TERM' TERM
trap 'on_signal INT' INT
trap 'on_signal HUP' HUP

"$here/run.sh" "${run_args[@]}" "${extra[@]}" --runs "$dir/runs" </dev/null >"$dir/run.out" 2>"$dir/run.err" &
pid=$!
to_armed='' fired_at=''
# fired_in DIR: that attempt's guest fired: its console shows the panic,
# or the capture kernel's boot (crash_kexec prints no panic line), known by
# the command line the guest job gives it (reset_devices). Not a count of
# boots: run.sh puts the snapshot's boot in front of a restored console.
fired_in() {
	local c
	for c in "$1"/runs/.staging-*/console.log; do
		[[ -s $c ]] || continue
		grep -q -a -E 'Kernel panic - not syncing|Command line: .*reset_devices' "$c" && return 0
	done
	return 1
}

# The first fire wins: no attempt starts any more, and those still running
# are stopped now, not when this one's report is done. One that is already
# capturing has fired too: it goes on and is filed whole.
stop_others() {
	local f d
	mkdir "$camp/won" 2>/dev/null || return 0
	echo "$n" >"$camp/won/attempt"
	: >"$camp/stop"
	for f in "$camp"/attempts/*/pid; do
		d=${f%/pid}
		[[ $d != "$dir" && ! -e $d/attempt.rec ]] || continue
		fired_in "$d" && continue
		kill -TERM "$(cat "$f")" 2>/dev/null || true
	done
}

# poll the staging dir while run.sh runs (bash reaps it as it ends)
while kill -0 "$pid" 2>/dev/null; do
	if [[ -z $to_armed ]] && grep -qs '^BPK-STATE armed' "$dir"/runs/.staging-*/results.txt; then
		to_armed=$(secs $(($(now_ms) - start)))
	fi
	if [[ -z $fired_at ]] && fired_in "$dir"; then
		fired_at=$(now_ms)
		[[ -n $stopped ]] || stop_others
	fi
	sleep 0.1 || true
done
wait "$pid" 2>/dev/null || rc=$?
pid=''

run=$(find "$dir/runs" -mindepth 1 -maxdepth 1 -type d -name '2*' ! -name '*.unfiled' 2>/dev/null | sort | tail -1)
if [[ -z $run || ! -r $run/run.meta ]]; then
	finish failed "run.sh exit $rc, nothing filed: $(tail -1 "$dir/run.err" 2>/dev/null)"
	exit 1
fi
meta() { sed -n "s/^$1=//p" "$run/run.meta"; }
if [[ -e $run/vmcore ]]; then
	[[ -n $fired_at ]] || fired_at=$(now_ms)
	why="cause=$(meta cause) dump=$(meta dump)"
	[[ $(meta status) == success ]] || why+=", filed as $(meta status): $(meta reason)"
	finish fired "$why" "$run"
	exit 0
fi
if [[ -n $fired_at ]]; then
	outcome=stopped reason="it fired, then was stopped (${stopped:-$(meta interrupted)}) before the dump was whole: dump=$(meta dump) ($(meta reason))"
	fired_at=''
elif [[ $(meta guest_last_state) == not-fired ]]; then
	outcome=ran-out reason="the workload ended and the trigger did not fire"
elif [[ $(meta qemu_exit) == 124 && $(meta guest_last_state) == armed ]]; then
	outcome=ran-out reason="armed, no fire within the timeout"
elif [[ -n $stopped || $(meta status) == interrupted ]]; then
	outcome=stopped reason="stopped by the campaign (${stopped:-$(meta interrupted)}) before it fired"
else
	outcome=failed reason=$(meta reason)
fi
finish "$outcome" "$reason" "$run"
exit 1
