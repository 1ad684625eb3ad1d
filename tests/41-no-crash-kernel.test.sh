#!/usr/bin/env bash
# Without a crash kernel the guest refuses to arm: no panic happens (it
# would lose the evidence), the run is filed as failed, the command exits
# non-zero and says why. Once with no crashkernel= at all, once with a
# reservation too small for the crash kernel and its initramfs.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

for ck in none 8M; do
	name=no_crash_kernel.crashkernel_$ck
	runs=$out/runs-$ck
	rc=0
	"$top/appliance/run.sh" --trigger syscall_errno \
		--args "syscall=openat errno=ENOENT comm=bpk-demo" --crashkernel "$ck" \
		--runs "$runs" --timeout 120 >"$out/$ck.out" 2>"$out/$ck.err" || rc=$?
	run=$(find "$runs" -mindepth 1 -maxdepth 1 -type d -name '2*' | head -1)
	err=$(grep 'error:' "$out/$ck.err" | tail -1 || true)
	check "$name.exits_nonzero_with_reason" "exit $rc: $err" \
		test "$rc" = 1 -a -n "$err" -a -z "${err##*refused to arm*crash kernel*}"
	if [[ -z $run ]]; then
		fail "$name.filed" "no run directory"
		continue
	fi
	check "$name.guest_refused" "$(grep -m1 'REFUSED' "$run/guest.log" || echo 'no REFUSED line')" \
		grep -q 'bpk: REFUSED: ' "$run/guest.log"
	check "$name.never_armed" "guest states: $(grep -o 'BPK-STATE [a-z-]*' "$run/guest.log" | cut -d' ' -f2 | tr '\n' ' ')" \
		test -z "$(grep '^BPK-STATE armed' "$run/guest.log" || true)"
	check "$name.no_panic" "$(grep -c 'Kernel panic' "$run/console.log" || true) panic lines on the console" \
		test -z "$(grep 'Kernel panic' "$run/console.log" || true)"
	check "$name.filed_as_failed" "$(grep -E '^(status|dump)=' "$run/run.meta" | tr '\n' ' ')" \
		test -z "$(find "$run" -name vmcore)" -a "$(sed -n 's/^status=//p' "$run/run.meta")" = failed
done
