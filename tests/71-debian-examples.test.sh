#!/usr/bin/env bash
# starts early: 6 min on a slow 2-core machine, one of the longest scripts
# Every tracing trigger's README example, run as written with --kernel debian
# (bpk run ... --kernel debian): the stock kernel has no bpf_panic(), so the
# trigger fires through the crash_kexec kfunc, Debian's vmlinuz as crash
# kernel dumps it, and the report, made with the -dbg vmlinux, shows the
# fire record (action=crash_kexec) and the Debian package's kernel release.
# uprobe is refused, with its reason. The warn and hung_task examples use
# LKDTM, which Debian does not build: it is built out of tree against the
# package's headers (debian-kernel.sh) and loaded in the guest.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

dk=$build/debian-kernel
[[ -r $dk/ok ]] || {
	fail debian_real.fetched "$dk/ok missing (make debian-kernel)"
	exit 1
}
kver=$(sed -n 's/^kver=//p' "$dk/ok")
pkg="$(sed -n 's/^package=//p' "$dk/ok") $(sed -n 's/^version=//p' "$dk/ok")"
runs=$out/runs
mkdir -p "$runs"
triggerctl=$build/triggers/triggerctl
# the README's lines run bpk as installed: the clone's own build on PATH
PATH=$(dirname "$bpk"):$PATH
mapfile -t names < <("$triggerctl" list | sed -n 's/^\([a-z_]*\): .*/\1/p')
for name in "${names[@]}"; do
	line=$(grep -E "^bpk run $name .* --workload " README.md | head -1 || true)
	if [[ -z $line ]]; then
		fail "debian_real.$name.readme_example" "README.md has no 'bpk run $name ... --workload FILE' line"
		continue
	fi
	wl=$(sed -n 's/.* --workload \([^ ]*\).*/\1/p' <<<"$line")
	if [[ $name == uprobe || $name == cpu_hog ]]; then
		# not tracing programs: only bpf_panic() can fire them (test 70
		# arms both; the README's uprobe line is run here)
		[[ $name == uprobe ]] || continue
		rc=0
		bash -c "$line --kernel debian --runs $runs" >"$out/$name.out" 2>&1 || rc=$?
		run=$(find "$runs" -mindepth 1 -maxdepth 1 -type d -name "2*-$name" | sort | tail -1)
		reason=$([[ -z $run ]] || record_field "$run" reason 2>/dev/null || true)
		check "debian_real.$name.refused" "exit $rc, run ${run:-none}: ${reason:-no reason in run.json}" \
			test "$rc" != 0 -a -n "$reason" -a -z "${reason##*cannot fire with crash_kexec (not a tracing program)*}"
		continue
	fi
	# LKDTM provokes the warn and hung_task examples: Debian does not build
	# it, debian-kernel.sh builds it out of tree and the guest loads it
	if grep -q 'provoke-crash' "$wl" 2>/dev/null; then
		check "debian_real.$name.lkdtm_loaded" "$(sed -n 's/^lkdtm=//p' "$dk/ok"); modules.load: $(grep -c . "$dk/modules.load") modules" \
			grep -qx 'extra/lkdtm.ko' "$dk/modules.load"
	fi
	rc=0
	bash -c "$line --kernel debian --runs $runs" >"$out/$name.out" 2>&1 || rc=$?
	run=$(find "$runs" -mindepth 1 -maxdepth 1 -type d -name "2*-$name" | sort | tail -1)
	if ((rc != 0)) || [[ -z $run || ! -r $run/report.txt ]]; then
		fail "debian_real.$name.run" "exit $rc: $(grep -m1 'error:' "$out/$name.out" || tail -1 "$out/$name.out")"
		continue
	fi
	pass "debian_real.$name.run" "$run ($(record_field "$run" timings.qemu_wall_s) s in QEMU)"
	rec=$(sed -n '/^== Fire record (read from the vmcore/,/^$/p' "$run/report.txt")
	check "debian_real.$name.fire_record" "$(grep -E '^ +(trigger|comm|action|detail)=' <<<"$rec" | tr -s ' \n' ' ')" \
		grep -qx "   trigger=$name" <<<"$rec"
	check "debian_real.$name.action" "$(grep -m1 -E '^ +action=' <<<"$rec" || echo 'no action= in the fire record')" \
		grep -qx '   action=crash_kexec' <<<"$rec"
	kline=$(grep -m1 '^kernel: ' "$run/report.txt" || true)
	check "debian_real.$name.kernel_release" "${kline:-no kernel: line in the report}" \
		grep -q "^kernel: *$kver #[0-9]* SMP .*Debian ${pkg#* } " <<<"$kline"
	check_field "debian_real.$name.dbg_vmlinux" "$run" guest.vmlinux "$(readlink -f "$dk/vmlinux")"
	if [[ $name == hung_task ]]; then
		# the hung task blocks in lkdtm.ko, built out of tree with its
		# DWARF: drgn names the frame (gcc split it into direct_entry.cold)
		stack=$(sed -n "/^-- hung task/,/^-- /p" "$run/report.txt" | grep -E '^   #' | head -6 | tr -s ' \n' ' ')
		check "debian_real.$name.module_frame" "${stack:-no hung task stack in the report}" \
			grep -qE 'schedule\+0x.* direct_entry(\.cold)?\+0x' <<<"$stack"
	fi
done
