#!/usr/bin/env bash
# The race the series v2 fixes, booted: one guest process flips
# kernel.destructive_bpf_enabled as fast as it can while another loads a
# bpf_panic() program thousands of times (tests/guard/race.c). No oops on
# the console, every load loaded or refused with -EPERM and the sysctl's
# log line, both outcomes seen (the flips really interleaved).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

initrd=$build/guard-initramfs.cpio.gz
[[ -r $initrd ]] || { fail guard.initramfs "$initrd missing: run make guard"; exit 1; }
loads=${BPK_RACE_LOADS:-10000}

rc=0
# the job's own parameter rides on its kernel command line argument
boot_job "$initrd" "guard-race bpk.loads=$loads" 300 || rc=$?
check race.guest_finished "bpk boot exit $rc; $(grep -m1 '^JOB-EXIT' "$out/results.txt" || echo 'no JOB-EXIT line')" \
	test "$rc" = 0
guest_results "$out/results.txt" guard race.documented_outcomes race.flips_interleaved race.flipper_ok
done_line=$(grep '^RACE-DONE' "$out/results.txt" || true)
check race.ran_to_the_end "${done_line:-no RACE-DONE line}" test "$done_line" = "RACE-DONE $loads"
oops=$(grep -a -m1 -E 'BUG:|Oops|general protection|Call Trace' "$out/console.log" || true)
lines=$(wc -l <"$out/console.log")
check race.no_oops "${oops:-no BUG/Oops/Call Trace in $lines console lines}" \
	test -z "$oops" -a "$lines" -gt 10
