#!/usr/bin/env bash
# The QEMU harness (bpk boot) never hangs: a guest that does not finish is
# killed at the timeout, bpk says so and exits 124, and no QEMU is left
# running. Bad arguments are refused with one line before anything boots.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

initrd=$build/guard-initramfs.cpio.gz

t0=$(now_ms)
rc=0
watch_qemu "$out/console.log"
boot_job "$initrd" sleep-forever 25 2>"$out/stderr.log" || rc=$?
dt=$(($(now_ms) - t0))
msg=$(grep 'did not finish' "$out/stderr.log" || true)
check harness.timeout_kills_qemu "exit $rc after $(fmt_ms "$dt"): ${msg:-no timeout message}" \
	test "$rc" = 124 -a -n "$msg" -a "$dt" -lt 40000
check harness.guest_was_running "the job had started: $(grep -c 'sleeping forever' "$out/results.txt") line(s)" \
	grep -q 'sleeping forever' "$out/results.txt"
no_qemu_left harness.no_qemu_left "$out/console.log"

# bpk boot's kernel is a flavour of the build: a build without one stands
# in for a missing kernel image
one_line harness.bad_input.missing_kernel "no-build/kernel/bzImage: kernel image not found" \
	env BUILD="$out/no-build" "$bpk" boot --initrd "$initrd" --out "$out/c"
one_line harness.bad_input.bad_kernel "--kernel /nonexistent: No such file or directory (not ours, debian, debian:RELEASE or the path of a kernel)" \
	"$bpk" boot --kernel /nonexistent --initrd "$initrd" --out "$out/c"
one_line harness.bad_input.bad_accel "--accel 'fast'" "$bpk" boot --initrd "$initrd" --out "$out/c" --accel fast
one_line harness.bad_input.bad_timeout "--timeout 'soon'" "$bpk" boot --initrd "$initrd" --out "$out/c" --timeout soon
one_line harness.bad_input.unknown_arg "unknown argument '--frobnicate'" "$bpk" boot --frobnicate
check harness.bad_input.nothing_made "$out/c: $(if [[ -e $out/c ]]; then listing "$out/c"; else echo 'not made'; fi)" \
	test ! -e "$out/c"
