#!/usr/bin/env bash
# Guard test i, the real thing: a program calls bpf_panic() with a message
# full of format directives; the guest must panic and print the message on
# the console character for character (it is never used as a format).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

initrd=$build/guard-initramfs.cpio.gz
[[ -r $initrd ]] || { fail guard.initramfs "$initrd missing: run make guard"; exit 1; }
msg=$(cat "$top/tests/guard/panic-message")

rc=0
boot_job "$initrd" guard-panic 180 || rc=$?
want="Kernel panic - not syncing: $msg"
got=$(grep -a 'Kernel panic - not syncing' "$out/console.log" | head -1 | tr -d '\r' || true)
# The console line may carry a printk timestamp prefix; compare what follows.
got=${got#*\] }
if ((rc == 0)) && [[ $got == "$want" ]]; then
	pass guard.i.panic_message_verbatim "console: $got"
else
	fail guard.i.panic_message_verbatim "bpk boot exit $rc; want: $want; got: ${got:-no panic line}"
fi
# The job ran as far as arming, and never came back to report an exit.
armed=$(grep -m1 'arming bpf_panic' "$out/results.txt" 2>/dev/null || true)
exited=$(grep -m1 '^JOB-EXIT' "$out/results.txt" 2>/dev/null || true)
check guard.i.job_did_not_survive "${armed:-the job never said it armed (results: $out/results.txt)}; ${exited:-no JOB-EXIT line}" \
	test -n "$armed" -a -z "$exited"
