#!/usr/bin/env bash
# The series' own selftest, run in the guest on the patched kernel: the
# subtests whose programs stay disarmed, so that a missing guard shows as a
# failed assertion rather than a panic (types, caps, disarm), in one boot,
# and rearm, which would panic it were the switch's generation not
# checked, alone in a second boot, where a panic is its failure. Each subtest's result is the selftest's own
# (tests/selftest/runner.c); a missing result is a failure.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

initrd=$build/selftest-initramfs.cpio.gz
[[ -r $initrd ]] || { fail selftest.initramfs "$initrd missing: run make test"; exit 1; }

# boot_selftest NAME JOB SUBTEST...: one boot of JOB, a check per subtest
boot_selftest() {
	local name=$1 job=$2 dir=$out/$1 rc=0 st line panics
	shift 2
	mkdir -p "$dir"
	"$bpk" boot --initrd "$initrd" --append "bpk.job=$job" --timeout 180 --out "$dir" \
		>"$dir/boot.log" 2>&1 || rc=$?
	for st in "$@"; do
		line=$(grep -m1 -E "^RESULT (PASS|FAIL) bpf_panic/$st\$" "$dir/results.txt" 2>/dev/null || true)
		case $line in
		"RESULT PASS "*) pass "selftest.$st" "$line" ;;
		"RESULT FAIL "*) fail "selftest.$st" "$line; the selftest said: $(grep -a -m3 ':FAIL:' "$dir/results.txt" | tr '\n' ' ')" ;;
		*) fail "selftest.$st" "no result (bpk boot exit $rc; console: $(grep -a -m1 'Kernel panic' "$dir/console.log" || tail -1 "$dir/console.log"))" ;;
		esac
	done
	line=$(grep -m1 '^SELFTEST-DONE' "$dir/results.txt" 2>/dev/null || true)
	check "selftest.$name.ran_to_the_end" "${line:-no SELFTEST-DONE line}; bpk boot exit $rc" \
		test "$line" = "SELFTEST-DONE $#" -a "$rc" = 0
	panics=$(grep -ac 'Kernel panic' "$dir/console.log" || true)
	check "selftest.$name.no_panic" "$panics panic lines in $(wc -l <"$dir/console.log" 2>/dev/null || echo 0) console lines" \
		test "$panics" = 0 -a -s "$dir/console.log"
}

boot_selftest safe selftest types caps disarm
boot_selftest rearm selftest-rearm rearm

# The same selftest must fail when the helper's call-time check is gone:
# a kernel built with the test-only tests/selftest/no-call-time-check.patch
# on top (make: tests/selftest/build-variant.sh). There rearm's test run
# of a program loaded at 1 and switched 0 then 1 (the switch on, so the
# test run is let through) reaches panic(): its guest panics with the
# selftest's own message, which is the failure, observed here rather than
# on the CI machine. (Only rearm runs: what a guest writes to its ports
# just before it panics may never reach the host.)
broken=$build/bzImage-no-call-time-check
ours=$(readlink -f "$build/kernel")/bzImage
check selftest.broken.kernel_built "$(stat -L -c '%s bytes' "$broken" 2>/dev/null || echo "$broken missing: run make test")" \
	test -s "$broken" -a -s "$ours"
check selftest.broken.kernel_differs "cmp: $(cmp "$broken" "$ours" 2>&1 | head -1 || true)" \
	test -s "$broken" -a -s "$ours" -a "$(cmp -s "$broken" "$ours" && echo same)" != same
dir=$out/broken
mkdir -p "$dir"
rc=0
"$bpk" boot --initrd "$initrd" --bzimage "$broken" --append "bpk.job=selftest-rearm" --timeout 180 --out "$dir" \
	>"$dir/boot.log" 2>&1 || rc=$?
line=$(grep -m1 -E '^RESULT (PASS|FAIL) bpf_panic/rearm$|^SELFTEST-DONE' "$dir/results.txt" 2>/dev/null || true)
# the subtest started (its "run" line), and neither passed nor finished:
# the guest went down inside it
started=$(grep -m1 -x 'run bpf_panic/rearm' "$dir/results.txt" 2>/dev/null || true)
check selftest.broken.rearm_fails "${started:-rearm never started}; ${line:-rearm reported nothing and the runner never finished} (bpk boot exit $rc)" \
	test -n "$started" -a -z "$line" -a -s "$dir/console.log"
panic=$(grep -a -m1 'Kernel panic - not syncing' "$dir/console.log" 2>/dev/null | tr -d '\r' || true)
check selftest.broken.panic_is_the_failure "${panic:-no panic line on the console}" \
	grep -qE 'Kernel panic - not syncing: bpf_panic %s %n$' <<<"$panic"
