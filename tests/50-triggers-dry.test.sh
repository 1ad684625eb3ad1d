#!/usr/bin/env bash
# Every trigger of the table, booted: armed with dry_run and provoked by its
# example workload it counts the match and fills its fire record; armed for
# an unrelated event it counts nothing (tests/triggers/jobs/trigger-dry).
# Bad targets (no such function, tracepoint, binary or symbol) are refused
# when arming, with a message naming them.
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
((rc == 0)) || fail triggers.boot "qemu-run exited $rc (console: $out/console.log)"
bad=(func_not_in_btf func_returns_void tracepoint_missing uprobe_no_binary uprobe_no_symbol
	unknown_trigger)
ids=()
for name in "${names[@]}"; do ids+=("$name.match" "$name.unrelated"); done
for b in "${bad[@]}"; do ids+=("bad.$b"); done
guest_results "$out/results.txt" dry "${ids[@]}"
check dry.ran_to_the_end "$(grep '^DRY-DONE' "$out/results.txt" || echo 'no DRY-DONE line')" \
	grep -qx "DRY-DONE ${#ids[@]}" "$out/results.txt"
