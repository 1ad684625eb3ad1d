#!/usr/bin/env bash
# The mutation check of the kernel series: each gate removed in turn
# (tests/selftest/mutants/NN-name.patch, its "Caught by:" line naming the
# harness: the selftest, or the guard tests for what the selftest must
# never do, such as letting bpf_panic() run), an incremental build of that
# kernel (build-variant.sh, cached), and the harness booted on it. Every
# mutant must be caught: a subtest or a guard check fails, or the run does
# not finish. The unmutated kernel must pass first, or a catch means
# nothing.
#
#   mutate.sh [PATCH...]     (default: every mutant)
#
# Prints one line per mutant and a Markdown table (gate, harness, what
# failed, build and run seconds); exits 1 if a mutant was not caught.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=../../lib/log.sh
. "$top/lib/log.sh"

build=${BUILD:-$top/build}
bpk=$build/bpk/bpk
kernel=$build/kernel
work=$build/mutants
selftest_img=$build/selftest-initramfs.cpio.gz
guard_img=$build/guard-initramfs.cpio.gz
for f in "$bpk" "$selftest_img" "$guard_img" "$kernel/bzImage"; do
	[[ -e $f ]] || die "$f: missing (make mutants builds it)"
done
if (($#)); then mutants=("$@"); else mutants=("$here"/mutants/*.patch); fi
((${#mutants[@]})) || die "no mutants in $here/mutants"
rm -rf "$work"
mkdir -p "$work"

# run HARNESS BZIMAGE DIR: boot the harness; print what failed ("" when
# everything passed and the run finished)
run() {
	local harness=$1 image=$2 dir=$3 img job want failed done_line
	case $harness in
	selftest) img=$selftest_img job=selftest want='^SELFTEST-DONE 7$' ;;
	guard) img=$guard_img job=guard-checks want='^GUARD-DONE ' ;;
	*) die "unknown harness '$harness'" ;;
	esac
	"$bpk" boot --bzimage "$image" --initrd "$img" --append "bpk.job=$job" \
		--timeout 240 --out "$dir" >"$dir.boot.log" 2>&1 || true
	failed=$(grep -aE '^RESULT FAIL ' "$dir/results.txt" 2>/dev/null |
		awk '{print $3}' | tr -d : | sed 's|^bpf_panic/||' | paste -sd, || true)
	done_line=$(grep -aE "$want" "$dir/results.txt" 2>/dev/null || true)
	if [[ -z $done_line ]]; then
		failed+="${failed:+,}(did not finish: $(grep -a -m1 'Kernel panic - not syncing' "$dir/console.log" 2>/dev/null | tr -d '\r' | sed 's/^.*\(Kernel panic\)/\1/' || echo 'no end line'))"
	fi
	printf '%s' "$failed"
}

step "the unmutated kernel"
for h in selftest guard; do
	failed=$(run "$h" "$kernel/bzImage" "$work/baseline-$h")
	[[ -z $failed ]] || die "the $h fails on the unmutated kernel ($failed): a catch would mean nothing (see $work/baseline-$h)"
done
step_done "selftest and guard tests pass"

rows=() missed=0
for m in "${mutants[@]}"; do
	name=$(basename "$m" .patch)
	what=$(sed -n '1s/^Gate removed: \(.*\)\.$/\1/p' "$m")
	harness=$(sed -n 's/^Caught by: //p' "$m")
	[[ -n $what && -n $harness ]] || die "$m: no 'Gate removed:' or 'Caught by:' line"
	t0=$(now_ms)
	"$here/build-variant.sh" "$kernel" "$m" "$work/$name.bzImage" >"$work/$name.build.log" 2>&1 ||
		die "$name: the variant does not build (log: $work/$name.build.log)"
	t1=$(now_ms)
	failed=$(run "$harness" "$work/$name.bzImage" "$work/$name")
	t2=$(now_ms)
	if [[ -n $failed ]]; then
		say "caught: $name ($harness: $failed)"
	else
		say "MISSED: $name: the $harness passes without '$what'"
		missed=$((missed + 1))
		failed="NOT CAUGHT"
	fi
	rows+=("| $what | $harness | $failed | $(((t1 - t0) / 1000)) | $(((t2 - t1) / 1000)) |")
done

echo
echo "| gate removed | harness | what failed | build s | run s |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
say "${#mutants[@]} mutants, $missed not caught"
((missed == 0))
