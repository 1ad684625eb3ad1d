#!/usr/bin/env bash
# Build a guest root initramfs: static busybox, our PID 1, the guest's
# protocol library (guest/bpk-lib.sh at /usr/lib/bpk/bpk-lib.sh, which /init,
# the preinit and the jobs source), and the given files.
#
#   mkinitramfs.sh OUT.cpio.gz [SRC=DST ...]
#
# Every SRC must exist; DST is the path inside the guest (parent directories
# are created; a SRC that is executable stays executable; a dynamically
# linked one brings its shared libraries).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

out=${1:?usage: mkinitramfs.sh OUT.cpio.gz [SRC=DST ...]}
shift
busybox=${BUSYBOX:-/bin/busybox}
[[ -x $busybox ]] || die "$busybox: not found (install Debian package busybox-static)"
# The guest has no dynamic loader: everything in it must be static.
if grep -q 'program interpreter' <<<"$(readelf -l "$busybox")"; then
	die "$busybox is dynamically linked (install Debian package busybox-static)"
fi
need_cmd cpio cpio

stage=$(mktemp -d)
chmod 755 "$stage" # the guest root: mktemp makes it 0700, which locks out non-root users
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,etc/bpk/jobs,proc,sys,dev,tmp,run,var,root,mnt}
cp "$busybox" "$stage/bin/busybox"
for applet in $("$busybox" --list); do
	[[ -e $stage/bin/$applet ]] || ln -s busybox "$stage/bin/$applet"
done
cp "$here/guest/init" "$stage/init"
mkdir -p "$stage/usr/lib/bpk"
cp "$here/guest/bpk-lib.sh" "$stage/usr/lib/bpk/bpk-lib.sh"
echo 'root:x:0:0:root:/root:/bin/sh' >"$stage/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/false' >>"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"

# A dynamically linked program brings its loader and libraries, at the
# paths ldd resolves them to (the guest's libc is the build machine's).
add_libs() {
	local lib
	grep -q 'program interpreter' <<<"$(readelf -l "$1" 2>/dev/null)" || return 0
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		[[ -e $stage$lib ]] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

for spec in "$@"; do
	[[ $spec == ?*=/?* ]] || die "'$spec' is not SRC=/DST"
	src=${spec%%=*} dst=${spec#*=}
	[[ -e $src ]] || die "$src: not found (wanted in the initramfs as $dst)"
	mkdir -p "$stage$(dirname "$dst")"
	cp -L "$src" "$stage$dst"
	add_libs "$src"
done

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --owner 0:0 --quiet) |
	gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
