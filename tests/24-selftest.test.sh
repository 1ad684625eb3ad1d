#!/usr/bin/env bash
# The series' own selftest, run in the guest on the patched kernel: every
# subtest in one boot, since none can panic the guest whatever regresses
# (no program calls bpf_panic() at run time; the generation is observed
# through the crash_kexec kfunc). Each subtest's result is the selftest's
# own (tests/selftest/runner.c); a missing or skipped one is a failure:
# this guest starts with the switch off and no crash kernel loaded, so
# nothing there is a reason to skip.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

initrd=$build/selftest-initramfs.cpio.gz
[[ -r $initrd ]] || { fail selftest.initramfs "$initrd missing: run make test"; exit 1; }
subtests=(types caps extension kfuncs sysctl disarm generation)

# boot_selftest NAME [BZIMAGE]: one boot of every subtest, its dir $out/NAME
boot_selftest() {
	local name=$1 image=${2:-} dir=$out/$1 rc=0
	mkdir -p "$dir"
	"$bpk" boot --initrd "$initrd" ${image:+--bzimage "$image"} --append "bpk.job=selftest" \
		--timeout 180 --out "$dir" >"$dir/boot.log" 2>&1 || rc=$?
	echo "$rc" >"$dir/rc"
}

# result NAME SUBTEST: the subtest's RESULT line in NAME's boot, or ""
result() {
	grep -m1 -E "^RESULT (PASS|FAIL|SKIP) bpf_panic/$2\$" "$out/$1/results.txt" 2>/dev/null || true
}

boot_selftest ours
for st in "${subtests[@]}"; do
	line=$(result ours "$st")
	case $line in
	"RESULT PASS "*) pass "selftest.$st" "$line" ;;
	"RESULT FAIL "*) fail "selftest.$st" "$line; the selftest said: $(grep -a -m3 ':FAIL:' "$out/ours/results.txt" | tr '\n' ' ')" ;;
	*) fail "selftest.$st" "${line:-no result} (bpk boot exit $(cat "$out/ours/rc"); console: $(grep -a -m1 'Kernel panic' "$out/ours/console.log" || tail -1 "$out/ours/console.log"))" ;;
	esac
done
line=$(grep -m1 '^SELFTEST-DONE' "$out/ours/results.txt" 2>/dev/null || true)
check selftest.ran_to_the_end "${line:-no SELFTEST-DONE line}; bpk boot exit $(cat "$out/ours/rc")" \
	test "$line" = "SELFTEST-DONE ${#subtests[@]}" -a "$(cat "$out/ours/rc")" = 0
panics=$(grep -ac 'Kernel panic' "$out/ours/console.log" || true)
check selftest.no_panic "$panics panic lines in $(wc -l <"$out/ours/console.log" 2>/dev/null || echo 0) console lines" \
	test "$panics" = 0 -a -s "$out/ours/console.log"

# The tree's own kfunc_call test (test_progs -t kfunc_call), built from
# the patched tree: every subtest passes, destructive among them (the
# series must leave the do-nothing destructive test kfunc loadable).
dir=$out/kfunc-call
mkdir -p "$dir"
rc=0
"$bpk" boot --initrd "$initrd" --append "bpk.job=kfunc-call" --timeout 180 --out "$dir" \
	>"$dir/boot.log" 2>&1 || rc=$?
line=$(grep -m1 -E '^RESULT (PASS|FAIL|SKIP) kfunc_call/destructive$' "$dir/results.txt" 2>/dev/null || true)
check kfunc_call.destructive "${line:-no result} (bpk boot exit $rc); it said: $(grep -a -m2 'test_destructive:FAIL' "$dir/results.txt" | tr '\n' ' ')" \
	test "$line" = "RESULT PASS kfunc_call/destructive"
n=$(grep -c '^RESULT ' "$dir/results.txt" 2>/dev/null || true)
bad=$(grep -E '^RESULT (FAIL|SKIP) ' "$dir/results.txt" 2>/dev/null | tr '\n' ' ' || true)
line=$(grep -m1 '^SELFTEST-DONE' "$dir/results.txt" 2>/dev/null || true)
check kfunc_call.all_pass "${n:-0} results, ${bad:-none failed or skipped}; ${line:-no SELFTEST-DONE line}" \
	test "${n:-0}" -gt 1 -a -z "$bad" -a "$line" = "SELFTEST-DONE ${n:-0}"

# The same selftest must fail, and still not panic, on a kernel with one
# gate removed: the crash_kexec kfunc's call-time check
# (tests/selftest/mutants/17-kfunc-call.patch, built by make; make mutants
# removes every gate in turn). There a program loaded before the switch
# went off and on reaches crash_kexec(), which returns with no crash
# kernel loaded: "generation" fails, the others pass.
broken=$build/bzImage-mutant-kfunc-call
ours=$(readlink -f "$build/kernel")/bzImage
check selftest.broken.kernel_built "$(stat -L -c '%s bytes' "$broken" 2>/dev/null || echo "$broken missing: run make test")" \
	test -s "$broken" -a -s "$ours"
check selftest.broken.kernel_differs "cmp: $(cmp "$broken" "$ours" 2>&1 | head -1 || true)" \
	test -s "$broken" -a -s "$ours" -a "$(cmp -s "$broken" "$ours" && echo same)" != same
boot_selftest broken "$broken"
line=$(result broken generation)
check selftest.broken.generation_fails "${line:-no result for generation}; it said: $(grep -a -m2 'test_generation:FAIL' "$out/broken/results.txt" | tr '\n' ' ')" \
	test "$line" = "RESULT FAIL bpf_panic/generation"
others=$(for st in "${subtests[@]}"; do [[ $st == generation ]] || result broken "$st"; done | grep -c '^RESULT PASS ' || true)
check selftest.broken.others_pass "$others of $((${#subtests[@]} - 1)) other subtests passed" \
	test "$others" = "$((${#subtests[@]} - 1))"
panics=$(grep -ac 'Kernel panic' "$out/broken/console.log" || true)
line=$(grep -m1 '^SELFTEST-DONE' "$out/broken/results.txt" 2>/dev/null || true)
check selftest.broken.no_panic "${line:-no SELFTEST-DONE line}; $panics panic lines on the console" \
	test "$panics" = 0 -a "$line" = "SELFTEST-DONE ${#subtests[@]}"
