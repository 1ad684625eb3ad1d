#!/usr/bin/env bash
# Every trigger of the table, booted (tests/triggers/jobs/trigger-dry): armed
# with dry_run and provoked by its example workload, it counts the match and
# its fire record holds its name, the expected comm and detail values;
# armed with its own condition changed (another errno, symbol or tracepoint,
# a latency under the threshold, a D state shorter than secs=) it counts
# nothing. Then what each trigger must mean beyond its example: EINTR as
# the program sees it, restarts and legal negative returns are no errors,
# no start times left by exiting tasks, preempted tasks measured and no run
# time counted as waiting, real-time signals and SIGTERM, syscalls:*
# tracepoints, a bounded D state, hung_task's sysctl put back, two
# concurrent arms. Bad targets are refused when arming, naming them.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

img=$build/trigger-test-initramfs.cpio.gz
[[ -r $img ]] || { fail triggers.image "$img missing: run make test"; exit 1; }
# The expected cases come from the trigger table, so a trigger added to it
# without dry-run cases fails here.
mapfile -t names < <("$build/triggers/triggerctl" list | sed -n 's/^\([a-z_]*\): .*/\1/p')

rc=0
boot_job "$img" trigger-dry 300 || rc=$?
((rc == 0)) || fail triggers.boot "bpk boot exited $rc (console: $out/console.log)"
bad=(func_not_in_btf func_returns_void func_returns_bool tracepoint_missing tracepoint_category
	uprobe_no_binary uprobe_no_symbol unknown_trigger)
more=(func_error.pointer_note func_error.err_ptr syscall_errno.eintr syscall_errno.eintr_any syscall_errno.restart_is_no_error
	syscall_errno.negative_success syscall_slow.exit_leaves_nothing
	syscall_slow.renamed_in_syscall fatal_signal.realtime fatal_signal.sigterm
	tracepoint.syscalls runq_latency.preempted runq_latency.no_run_time hung_task.bounded
	hung_task.sysctl_restored hung_task.sysctl_kept_on_failure arm.concurrent)
ids=()
for name in "${names[@]}"; do ids+=("$name.match" "$name.unrelated"); done
for b in "${bad[@]}"; do ids+=("bad.$b"); done
ids+=("${more[@]}")
guest_results "$out/results.txt" dry "${ids[@]}"
unexpected=$(grep '^RESULT ' "$out/results.txt" | awk '{print $3}' | tr -d : |
	grep -vxF -f <(printf '%s\n' "${ids[@]}") || true)
n=$(grep -c '^RESULT ' "$out/results.txt" 2>/dev/null || true)
check dry.no_unknown_results "${n:-0} results; unexpected: ${unexpected:-none}" test "${n:-0}" -gt 0 -a -z "$unexpected"
check dry.ran_to_the_end "$(grep '^DRY-DONE' "$out/results.txt" || echo 'no DRY-DONE line')" \
	grep -qx "DRY-DONE ${#ids[@]}" "$out/results.txt"
