#!/usr/bin/env bash
# The root initramfs of a guest running Debian's kernel (--kernel debian): the
# appliance's own (mkinitramfs.sh: busybox, /init, the guest's protocol
# library /usr/lib/bpk/bpk-lib.sh, the given files) with
# Debian's vmlinuz as /boot/bzImage (the job's kexec -p loads it as the
# crash kernel), its dracut kdump image, and the kernel modules the guest
# needs, loaded by /etc/bpk/preinit in the order of /etc/bpk/modules.load.
#
#   mkroot-debian.sh OUT.cpio.gz DEBIAN-KERNEL-DIR KDUMP.img [SRC=DST ...]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

out=${1:?usage: mkroot-debian.sh OUT.cpio.gz DEBIAN-KERNEL-DIR KDUMP.img [SRC=DST ...]}
dk=${2:?usage: mkroot-debian.sh OUT.cpio.gz DEBIAN-KERNEL-DIR KDUMP.img [SRC=DST ...]}
kdump=${3:?usage: mkroot-debian.sh OUT.cpio.gz DEBIAN-KERNEL-DIR KDUMP.img [SRC=DST ...]}
shift 3
[[ -r $dk/ok ]] || die "$dk: no complete Debian kernel (make debian-kernel)"
kver=$(sed -n 's/^kver=//p' "$dk/ok")
[[ -n $kver ]] || die "$dk/ok: no kver= line"
mods=()
while read -r m; do
	mods+=("$dk/modules/lib/modules/$kver/$m=/lib/modules/$kver/$m")
done <"$dk/modules.load"
((${#mods[@]} > 0)) || die "$dk/modules.load lists no modules"
step "Debian root initramfs ($kver, ${#mods[@]} modules)"
"$here/mkinitramfs.sh" "$out" "$dk/vmlinuz=/boot/bzImage" "$kdump=/boot/kdump.img" \
	"$here/guest/preinit=/etc/bpk/preinit" "$dk/modules.load=/etc/bpk/modules.load" \
	"${mods[@]}" "$@"
step_done "$out, $(($(stat -c %s "$out") / 1024)) KiB"
