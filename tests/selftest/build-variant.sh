#!/usr/bin/env bash
# A variant of a built kernel, for a test that must see a deliberately
# broken kernel fail: the kernel of a build-kernel.sh cache entry with one
# more (test-only) patch, built incrementally.
#
#   build-variant.sh KERNEL PATCH OUT
#
# KERNEL is the entry or a link to it (build/kernel), PATCH a -p1 patch
# against its tree, OUT becomes a symlink to the variant's bzImage. The
# entry itself is never written: the build runs in a private mount
# namespace where an overlay (the entry below, a scratch dir above) is
# mounted on the entry's own path, so kbuild sees the same paths and
# rebuilds only what the patch touched (then relinks), minutes instead of
# a full build. The variant is kept in $cache/kernel/variants/<entry>-<patch
# hash>/ (bzImage, build.log, ok written last), reused while both match.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../lib/log.sh
. "$here/../../lib/log.sh"

(($# == 3)) || die "usage: build-variant.sh KERNEL PATCH OUT"
entry=$(readlink -f "$1") || die "$1: cannot resolve"
patch=$(readlink -f "$2") || die "$2: cannot resolve"
out=$3
jobs=${JOBS:-$(($(nproc) + 1))}
[[ -e $entry/ok && -d $entry/src && -d $entry/obj ]] || die "$1: not a built kernel entry (no ok, src/ or obj/ in $entry)"
[[ -r $patch ]] || die "$2: not readable"
need_cmd unshare util-linux
need_cmd flock util-linux

name=$(basename "$entry")-$(sha256sum <"$patch" | cut -c1-16)
vdir=$(dirname "$entry")/variants/$name
mkdir -p "$(dirname "$vdir")"
exec {lock}>"$vdir.lock"
flock "$lock"

link_out() {
	mkdir -p "$(dirname "$out")"
	ln -sfn "$vdir/bzImage" "$out"
}
if [[ -e $vdir/ok ]]; then
	link_out
	say "kernel variant $name cached: $vdir"
	exit 0
fi

# root mounts in a mount namespace of its own; anyone else in a user
# namespace, where overlayfs is allowed too (Linux 5.11 and later)
if ((EUID == 0)); then ns=(unshare -m --propagation private); else ns=(unshare -r -m --propagation private); fi

rm -rf "$vdir"
mkdir -p "$vdir/upper" "$vdir/work"
t0=$(now_ms)
step "kernel variant $name: $(basename "$patch") on $(basename "$entry"), incremental"
# shellcheck disable=SC2016 # expanded by the inner shell
if ! "${ns[@]}" bash -euc '
	entry=$1 vdir=$2 patch=$3 jobs=$4
	mount -t overlay overlay -o "lowerdir=$entry,upperdir=$vdir/upper,workdir=$vdir/work" "$entry"
	patch -d "$entry/src" -p1 --batch --forward --no-backup-if-mismatch -s <"$patch"
	make -C "$entry/src" O="$entry/obj" ARCH=x86_64 -j"$jobs" bzImage
	cp "$entry/obj/arch/x86/boot/bzImage" "$vdir/bzImage"
' variant "$entry" "$vdir" "$patch" "$jobs" >"$vdir/build.log" 2>&1; then
	tail -15 "$vdir/build.log" >&2
	die "kernel variant $name failed (log: $vdir/build.log)"
fi
# what the overlay caught (the relinked vmlinux and objects) is not needed
rm -rf "$vdir/upper" "$vdir/work"
[[ -s $vdir/bzImage ]] || die "kernel variant $name: no bzImage (log: $vdir/build.log)"
echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) seconds=$((($(now_ms) - t0) / 1000))" >"$vdir/ok"
link_out
step_done "$(grep -c '^  CC ' "$vdir/build.log" || true) objects compiled, $vdir/bzImage"
