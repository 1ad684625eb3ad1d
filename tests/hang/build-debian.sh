#!/usr/bin/env bash
# build-debian.sh DEBIAN-KERNEL OUT: bpk_hang.ko built out of tree against
# Debian's headers of the cached Debian kernel (DEBIAN-KERNEL: build/debian-
# kernel, made by appliance/debian-kernel.sh), into OUT.
#
# As lkdtm there: linux-headers-KVER, its -common part and linux-kbuild-6.1
# of the kernel's version are downloaded (about 14 MB, never installed) and
# unpacked into the cache, once per kernel version and module source; the
# -common Makefile's absolute /usr/src include is pointed at the copy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../lib/log.sh
. "$here/../../lib/log.sh"

(($# == 2)) || bad_input "usage: build-debian.sh DEBIAN-KERNEL OUT"
entry=$(readlink -f "$1") || die "$1: cannot resolve"
out=$2
[[ -s $entry/ok ]] || die "$1: not a Debian kernel entry (no ok: make debian-kernel)"
kver=$(sed -n 's/^kver=//p' "$entry/ok")
ver=$(sed -n 's/^version=//p' "$entry/ok")
[[ -n $kver && -n $ver ]] || die "$entry/ok names no kver= or version="
need_cmd apt-get apt
need_cmd make make
need_cmd gcc-12 gcc-12
key=$(cat "$here/bpk_hang.c" "$here/Kbuild" "$0" | sha256sum | cut -c1-16)
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}/hang/$kver-$key
if [[ -s $cache/bpk_hang.ko ]]; then
	mkdir -p "$(dirname "$out")"
	cp "$cache/bpk_hang.ko" "$out"
	say "bpk_hang.ko for $kver cached: $cache"
	exit 0
fi
t0=$(now_ms)
work=$(mktemp -d "${TMPDIR:-/tmp}/bpk-hang-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
common=linux-headers-${kver%-amd64}-common
say "downloading linux-headers-$kver, $common, linux-kbuild-6.1 $ver (about 14 MB, never installed)"
mkdir -p "$work/debs" "$work/root" "$work/m"
for p in "linux-headers-$kver" "$common" linux-kbuild-6.1; do
	(cd "$work/debs" && apt-get download -q "$p=$ver" >download.log 2>&1) ||
		die "apt-get download $p=$ver failed: $(tail -2 "$work/debs/download.log" | tr '\n' ' ')"
done
for deb in "$work"/debs/*.deb; do
	dpkg-deb -x "$deb" "$work/root" || die "cannot unpack $deb"
done
hdr=$work/root/usr/src/linux-headers-$kver
[[ -r $hdr/Makefile ]] || die "linux-headers-$kver has no Makefile"
sed -i "s|^include /usr/src/|include $work/root/usr/src/|" "$hdr/Makefile"
cp "$here/bpk_hang.c" "$here/Kbuild" "$work/m/"
make -C "$hdr" M="$work/m" modules >"$work/build.log" 2>&1 ||
	die "bpk_hang.ko against linux-headers-$kver failed: $(grep -m2 -E 'error|ERROR' "$work/build.log" | tr '\n' ' ')"
modinfo -F vermagic "$work/m/bpk_hang.ko" | grep -q "^$kver " ||
	die "bpk_hang.ko: vermagic '$(modinfo -F vermagic "$work/m/bpk_hang.ko")' is not $kver"
mkdir -p "$cache" "$(dirname "$out")"
cp "$work/m/bpk_hang.ko" "$cache/bpk_hang.ko.tmp"
mv "$cache/bpk_hang.ko.tmp" "$cache/bpk_hang.ko"
cp "$cache/bpk_hang.ko" "$out"
say "bpk_hang.ko against linux-headers-$kver in $(fmt_ms $(($(now_ms) - t0)))"
