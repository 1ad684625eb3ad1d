#!/usr/bin/env bash
# The series' own selftest, run in the guest on the patched kernel: the
# subtests that cannot panic the guest (types, caps, disarm) in one boot,
# and rearm, which would panic it were the switch's generation not
# checked, alone in a second boot, where a panic is its failure. Each
# subtest's result is the selftest's own (tests/selftest/runner.c).
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
