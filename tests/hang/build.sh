#!/usr/bin/env bash
# build.sh KERNEL OUT: bpk_hang.ko (tests/hang/bpk_hang.c) built out of tree
# against our kernel's cached build (KERNEL: build/kernel), into OUT.
#
# The cached tree is never written: an overlay on it in a private mount
# namespace takes modules_prepare's output (the module linker script) and
# vmlinux.symvers stands in for the Module.symvers a modules build would
# have left. The module carries its own DWARF: drgn and crash name its
# functions and locks in the dump.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../lib/log.sh
. "$here/../../lib/log.sh"

(($# == 2)) || bad_input "usage: build.sh KERNEL OUT"
entry=$(readlink -f "$1") || die "$1: cannot resolve"
out=$2
[[ -e $entry/ok && -d $entry/src && -d $entry/obj ]] || die "$1: not a built kernel entry (no ok, src/ or obj/ in $entry)"
need_cmd unshare util-linux
work=$(mktemp -d "${TMPDIR:-/tmp}/bpk-hang.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/upper" "$work/work" "$work/m"
cp "$here/bpk_hang.c" "$here/Kbuild" "$work/m/"
if ((EUID == 0)); then ns=(unshare -m --propagation private); else ns=(unshare -r -m --propagation private); fi
t0=$(now_ms)
# shellcheck disable=SC2016 # expanded by the inner bash, from its arguments
if ! "${ns[@]}" bash -euc '
	entry=$1 work=$2
	mount -t overlay overlay -o "lowerdir=$entry,upperdir=$work/upper,workdir=$work/work" "$entry"
	cp "$entry/obj/vmlinux.symvers" "$entry/obj/Module.symvers"
	make -C "$entry/src" O="$entry/obj" ARCH=x86_64 -s modules_prepare
	make -C "$entry/obj" M="$work/m" modules
' build "$entry" "$work" >"$work/build.log" 2>&1; then
	tail -15 "$work/build.log" >&2
	die "bpk_hang.ko did not build against $entry"
fi
[[ -s $work/m/bpk_hang.ko ]] || die "bpk_hang.ko: no module after the build"
mkdir -p "$(dirname "$out")"
cp "$work/m/bpk_hang.ko" "$out"
say "bpk_hang.ko against $(basename "$entry") in $(fmt_ms $(($(now_ms) - t0)))"
