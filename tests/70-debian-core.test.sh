#!/usr/bin/env bash
# Debian's stock kernel, and the CO-RE claim tested on it.
#  - the fetched kernel (make debian-kernel, cached outside the clone) is
#    the linux-image of linux-source-6.1's version; a second fetch is a
#    cache hit; its vmlinux has DWARF and the same release banner as the
#    kernel that booted;
#  - booted with its own modules (virtio, 9p) from the preinit, it loads
#    its vmlinuz as crash kernel with its dracut kdump image;
#  - the SAME triggerctl and BPF objects, built against OUR kernel's BTF:
#    check picks crash_kexec; every tracing trigger is armed for real with
#    its table example (CO-RE relocations and the kfunc call accepted) and
#    disarmed; uprobe and cpu_hog are refused with their reason; the probe
#    of 73-core-failure (built against Debian's BTF) loads.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

dk=$build/debian-kernel
img=$build/debian-test-initramfs.cpio.gz
if [[ ! -r $dk/ok || ! -r $img ]]; then
	fail debian.fetched "$dk/ok or $img missing (make test builds them: make debian-kernel)"
	exit 1
fi
kval() { sed -n "s/^$1=//p" "$dk/ok"; }
kver=$(kval kver) pkg=$(kval package) ver=$(kval version)
src_ver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || echo none)
check debian.version_matches_source "$pkg $ver; linux-source-6.1 $src_ver" \
	test "$ver" = "$src_ver" -a "$kver" = "${pkg#linux-image-}"
check debian.package_name "${pkg:-no package= in the ok file of the cache entry}" grep -qE '^linux-image-6\.1\.0-[0-9]+-amd64$' <<<"$pkg"
check debian.cache_outside_clone "$(readlink -f "$dk")" \
	test "$(readlink -f "${BPK_CACHE:-$HOME/.cache/bpf-panic-kdump}/debian/${kver}_$ver")" = "$(readlink -f "$dk")"

t0=$(now_ms)
rc=0
"$top/appliance/debian-kernel.sh" fetch "$out/dk-link" >"$out/fetch.out" 2>&1 || rc=$?
ms=$(($(now_ms) - t0))
check debian.second_fetch_cached "exit $rc in $(fmt_ms "$ms"): $(tail -1 "$out/fetch.out")" \
	test "$rc" = 0 -a "$ms" -lt 10000 -a "$(readlink -f "$out/dk-link")" = "$(readlink -f "$dk")"
check debian.no_download_on_hit "$(grep -c 'download' "$out/fetch.out" || true) download lines" \
	test "$(grep -c 'download' "$out/fetch.out" || true)" = 0

banner=$(grep -a -o "Linux version $kver .*#[0-9][0-9]* SMP.*Debian $ver ([0-9-]*)" "$dk/vmlinux" | head -1 || true)
check debian.vmlinux_banner "${banner:-no Linux version $kver banner in $dk/vmlinux}" test -n "$banner"
check debian.vmlinux_dwarf "$(readelf -S "$dk/vmlinux" | grep -o '\.debug_info\|\.gdb_index' | sort -u | tr '\n' ' ')" \
	bash -c "readelf -S '$dk/vmlinux' | grep -q '\.debug_info'"

rc=0
"$bpk" boot --kernel debian --initrd "$img" --timeout 300 \
	--append "rdinit=/etc/bpk/preinit bpk.job=arm-all crashkernel=256M" \
	--out "$out" >"$out/qemu.out" 2>&1 || rc=$?
check debian.boot "QEMU exit $rc; $(grep -m1 'JOB-EXIT' "$out/results.txt" 2>/dev/null || echo 'no JOB-EXIT')" \
	grep -qx 'JOB-EXIT 0' "$out/results.txt"
booted=$(sed -n 's/^kernel: //p' "$out/results.txt" | head -1)
check debian.booted_release "${booted:-no kernel line}; vmlinux: $(grep -o '#[0-9]* SMP.*' <<<"$banner")" \
	test "$booted" = "$kver $(grep -o '#[0-9]* SMP.*' <<<"$banner")"
check debian.modules_loaded "$(grep -a -m1 'bpk-preinit: .* modules loaded' "$out/console.log" || echo 'no preinit line')" \
	grep -aq "bpk-preinit: $(wc -l <"$dk/modules.load") modules loaded for $kver" "$out/console.log"
guest_results "$out/results.txt" debian kexec check

# every trigger of the table: armed (a tracing program) or refused with the
# reason (not a tracing program: it needs bpf_panic, which Debian lacks)
mapfile -t names < <("$build/triggers/triggerctl" list | sed -n 's/^\([a-z_]*\): .*/\1/p')
((${#names[@]} > 0)) || fail debian.arm "triggerctl list gave no triggers"
armed=0
for name in "${names[@]}"; do
	line=$(grep -F "RESULT " "$out/results.txt" | grep -F " arm.$name: " | head -1 || true)
	case $line in
	"RESULT PASS "*"(crash_kexec)"*)
		pass "debian.arm.$name" "${line#RESULT PASS arm."$name": }"
		armed=$((armed + 1))
		;;
	"RESULT REFUSED "*"cannot fire with crash_kexec (not a tracing program)"*)
		pass "debian.refused.$name" "${line#RESULT REFUSED arm."$name": }"
		;;
	"") fail "debian.arm.$name" "no result from the guest (console: $out/console.log)" ;;
	*) fail "debian.arm.$name" "${line#RESULT }" ;;
	esac
done
check debian.core_triggers_armed "$armed of ${#names[@]} triggers armed with crash_kexec" test "$armed" -ge 11
# the CO-RE probe of 73-core-failure, built against Debian's BTF: it reads
# task_struct.cgroups, which this kernel has, so it loads here
line=$(grep -m1 '^CORE-PROBE ' "$out/results.txt" || true)
check debian.core_probe_loads "${line:-no CORE-PROBE line}" test "$line" = "CORE-PROBE loaded"
