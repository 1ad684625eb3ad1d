#!/usr/bin/env bash
# --fresh: every attempt boots (no snapshot), the attempt number reaches
# the guest on the kernel command line; a reproducer that hits on attempt 2
# under --attempts 3 --jobs 1: attempt 1 runs out, 2 fires and is filed
# with its vmcore and report, 3 never starts.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=campaign/lib.sh
. "$top/tests/campaign/lib.sh"
fresh_out
cd "$top"

run_campaign fresh 0 syscall_errno syscall=openat errno=ENOENT comm=flaky --attempts 3 --jobs 1 --fresh \
	--workload tests/campaign/on-attempt.sh --runs "$out/runs" --timeout 120 || exit 0
check_summary fresh.mode "$camp" mode '^fresh$'
check_summary fresh.says_why "$camp" fresh_why '^asked for \(--fresh\)$'
check_summary fresh.first_is_2 "$camp" first_fire_attempt '^2$'
check_summary fresh.made_2 "$camp" attempts_made '^2$'
check_json fresh.attempt1_ran_out "$camp/attempts/1/attempt.json" outcome '^ran-out$'
check fresh.attempt3_not_started "$(find "$camp/attempts" -mindepth 1 -maxdepth 1 -printf '%f ')" test ! -e "$camp/attempts/3"
run=$(summary "$camp" first_fire_run)
if [[ -z $run || ! -d $run ]]; then
	fail fresh.first_run "no first fire's run: ${run:-none}"
	exit 0
fi
check fresh.vmcore "$(find "$run" -mindepth 1 -printf '%f ')" test -s "$run/vmcore"
# an attempt's record (campaign.attempt) without restored_from
got=$(record_field "$run" campaign.attempt 2>&1)/$(record_field "$run" guest.restored_from 2>&1)
check fresh.not_restored "campaign.attempt/restored_from: $got" test "$got" = "2/"
check_file_has fresh.booted_with_attempt "$run/console.log" 'Command line: .*bpk\.attempt=2'
check_file_has fresh.workload_saw_attempt "$run/workload.log" '^on-attempt: attempt 2$'
# the cause read from the dump itself, not the run record's copy in report.json
got=$(dump_cause "$run")
check fresh.report "report.json cause.dump: ${got:-nothing}" test "$got" = trigger
