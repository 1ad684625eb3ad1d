#!/usr/bin/env bash
# A CO-RE relocation a kernel cannot satisfy is named when loading fails
# (triggers/loadfail.c, which triggerctl arm uses): a probe program built
# against Debian's BTF reads task_struct.cgroups; on our kernel (built
# without CONFIG_CGROUPS) it is refused and the reason names that field.
# On Debian's kernel, which has it, the same object loads (70-debian-core).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

img=$build/field/core-probe-initramfs.cpio.gz
[[ -r $img ]] || {
	fail core.image "$img missing (make test builds it)"
	exit 1
}
check core.field_absent_here "our config: $(grep -m1 'CONFIG_CGROUPS[ =]' "$kernel/config" || echo 'no CONFIG_CGROUPS line')" \
	grep -qx '# CONFIG_CGROUPS is not set' "$kernel/config"
rc=0
boot_job "$img" core-probe 120 --quiet || rc=$?
line=$(grep -m1 '^CORE-PROBE ' "$out/results.txt" 2>/dev/null || true)
check core.refused_names_field "QEMU exit $rc: ${line:-no CORE-PROBE line in $out/results.txt}" \
	test "$line" = "CORE-PROBE refused: this kernel has no struct task_struct.cgroups (a CO-RE relocation it cannot satisfy)"
check core.verifier_log_kept "$(grep -c 'failed to resolve CO-RE relocation' "$out/results.txt" || true) relocation line(s) in the log" \
	grep -q 'failed to resolve CO-RE relocation .*struct task_struct\.cgroups' "$out/results.txt"

