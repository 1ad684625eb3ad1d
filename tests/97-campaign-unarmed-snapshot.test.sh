#!/usr/bin/env bash
# A trigger that the idle guest itself matches (tracepoint sched_switch)
# cannot be saved armed: the campaign says so and restores the snapshot
# made without a trigger, which takes the trigger over the control port
# and arms after each restore, checking the crash kernel before it arms.
# (The failed armed snapshot is tried again by each campaign: 10-20 s.)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=campaign/lib.sh
. "$top/tests/campaign/lib.sh"
fresh_out
cd "$top"

run_campaign unarmed 0 tracepoint tp=sched:sched_switch --attempts 2 --jobs 1 \
	--workload tests/campaign/never.sh --runs "$out/runs" --timeout 120 || exit 0
check_summary unarmed.restored "$camp" restored '^true$'
check_summary unarmed.not_armed "$camp" snapshot_armed '^false$'
check_summary unarmed.says_why "$camp" snapshot_not_armed_why '(before it was idle|fired in the snapshot)'
check_file_has unarmed.log_says "$camp/campaign.log" 'no armed snapshot .*: one that arms after each restore'
run=$(summary "$camp" first_fire_run)
if [[ -z $run || ! -d $run ]]; then
	fail unarmed.first_run "no first fire's run: ${run:-none}"
	exit 0
fi
check unarmed.vmcore "$(find "$run" -mindepth 1 -printf '%f ')" test -s "$run/vmcore"
check_field_match unarmed.restored_run "$run" guest.restored_from '^/'
order=$(grep -o -E '^BPK-STATE (idle|restored|crash-kernel-loaded|armed)' "$run/guest.log" | cut -d' ' -f2 | tr '\n' ' ' || true)
check_has unarmed.crash_kernel_checked_after_restore "$order" "crash-kernel-loaded idle restored crash-kernel-loaded"
# it arms after the restore (sched_switch fires while it arms, before the
# guest can say "armed"): triggerctl check ran after "restored"
seen=$(awk '/^BPK-STATE restored/ { r = NR } /^ok +crash kernel +loaded/ && r { print "line " NR " after restored at line " r; exit }' "$run/guest.log")
check_has unarmed.armed_after_restore "$seen" "after restored"
# read from the dump: the tracepoint trigger's fire record, and the cause
got=$(fire_fields "$run") dump=$(dump_cause "$run")
check unarmed.fire_is_tracepoint "fire record: $got; dump-level cause: $dump" \
	test "${got%% *}" = tracepoint -a "$dump" = trigger
