#!/usr/bin/env bash
# Without a crash kernel that can dump, the guest refuses to arm: no panic
# happens (it would lose the evidence), the run is filed as failed, the
# command exits 1 and says why. Three times: no crashkernel= at all; 8M, too
# small for kexec -p to load the crash kernel; 40M, where it loads but could
# not live (it dies "deadlocked on memory" while unpacking its initramfs;
# 44M too, 48M dumps, measured with --no-reservation-check):
# refused with the reservation and the need, in figures. And a guest too
# small for the default reservation (200M for 192M: the kernel finds no free
# range for it): refused with the kernel's own words and the guest's memory.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

for ck in none 8M 40M; do
	name=no_crash_kernel.crashkernel_$ck
	runs=$out/runs-$ck
	rc=0
	"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
		--crashkernel "$ck" --timeout 240 >"$out/$ck.out" 2>"$out/$ck.err" || rc=$?
	run=$(filed_runs "$runs" | head -1)
	err=$(grep 'error:' "$out/$ck.err" | tail -1 || true)
	check "$name.exits_1" "exit $rc: ${err:-no error line}" test "$rc" = 1
	if [[ $ck == 40M ]]; then
		# the figures: what is reserved, what is needed and its parts
		check "$name.refused_with_figures" "${err:-no error line}" grep -Eq \
			'refused to arm: the crashkernel= reservation \(40\.0 MiB\) is below what the capture kernel needs: [0-9.]+ MiB = kernel [0-9.]+ \+ initramfs [0-9.]+ packed \+ [0-9.]+ unpacked \+ runtime [0-9]+' <<<"$err"
	else
		check_has "$name.refused_no_crash_kernel" "$err" "refused to arm: kexec -p failed: no crash kernel"
	fi
	if [[ -z $run ]]; then
		fail "$name.filed" "no run directory under $runs"
		continue
	fi
	check_file_has "$name.guest_booted" "$run/guest.log" '^BPK-STATE booted'
	check_file_has "$name.guest_refused" "$run/guest.log" '^bpk: REFUSED: '
	check_file_lacks "$name.never_armed" "$run/guest.log" '^BPK-STATE armed'
	check_file_has "$name.console_has_the_boot" "$run/console.log" 'Linux version'
	check_file_lacks "$name.no_panic" "$run/console.log" 'Kernel panic'
	check_field "$name.filed_as_failed" "$run" status failed
	check "$name.no_vmcore" "files: $(find "$run" -mindepth 1 -printf '%f ')" \
		test -s "$run/run.json" -a -z "$(find "$run" -name 'vmcore*')"
done

# --- the reservation the kernel could not place
rc=0
"$bpk" --runs "$out/runs-small" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--mem 200M --timeout 240 >"$out/small.out" 2>"$out/small.err" || rc=$?
run=$(filed_runs "$out/runs-small" | head -1)
err=$(grep 'error:' "$out/small.err" | tail -1 || true)
check no_crash_kernel.small_guest.refused_with_kernel_words "exit $rc: ${err:-no error line}" grep -Eq \
	'refused to arm: kexec -p failed: no crash kernel: crashkernel=192M reserved nothing \(crashkernel reservation failed - No suitable area found\.; [0-9]+ MiB of memory: more --mem or a smaller --crashkernel\)' <<<"$err"
check_field no_crash_kernel.small_guest.filed_as_failed "${run:-/nonexistent}" status failed
