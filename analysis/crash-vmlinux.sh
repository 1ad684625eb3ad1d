#!/usr/bin/env bash
# The vmlinux crash should read: a copy of the kernel's vmlinux with a
# .gdb_index section (gdb-add-index), which halves crash's start (it spends
# most of its time reading DWARF without one: 3.0 s instead of 6.0 s
# measured on the demo vmcore), and without the .rela.debug_* sections.
# Those are --emit-relocs' leftovers (x86's relocatable kernel keeps them,
# ours and Debian's): gdb applies them to every DWARF section it reads,
# although the linked contents are already final. Dropping them cuts crash's
# start by another 0.3 s (2.26 to 1.96 s, median of 8, demo vmcore) and
# its output is the same (sys, bt, bt -l, log, bpf, ps, foreach bt, dis -l
# compared). Copies live in the cache, keyed by the vmlinux's GNU build ID
# and this recipe, so every clone shares one and a rebuilt kernel gets its
# own; the kernel's own cache entry is never modified.
#
#   crash-vmlinux.sh --build VMLINUX    make the indexed copy if missing
#   crash-vmlinux.sh --lookup VMLINUX   print the indexed copy, or VMLINUX
#                                       itself when there is none (slower)
#   crash-vmlinux.sh --into VMLINUX OUT write OUT, VMLINUX made quick for
#                                       crash, and no cache entry
#                                       (debian-kernel.sh keeps its own)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

mode=${1:-}
vmlinux=${2:-}
[[ -n $vmlinux && ((($mode == --build || $mode == --lookup) && $# == 2) || ($mode == --into && $# == 3)) ]] ||
	bad_input "usage: crash-vmlinux.sh --build|--lookup VMLINUX | --into VMLINUX OUT"
[[ -r $vmlinux ]] || bad_input "$vmlinux: not readable"

# quick VMLINUX OUT: OUT is VMLINUX without .rela.debug_*, with a
# .gdb_index (added unless VMLINUX has one already); checked
quick() {
	local in=$1 out=$2 sections
	need_cmd gdb-add-index gdb
	need_cmd objcopy binutils
	objcopy --remove-section='.rela.debug_*' "$in" "$out" 2>"$out.log" ||
		die "objcopy $in failed: $(tail -2 "$out.log" | tr '\n' ' ')"
	if ! grep -q '\.gdb_index' <<<"$(readelf -S "$out")"; then
		gdb-add-index "$out" >"$out.log" 2>&1 || die "gdb-add-index $in failed: $(tail -2 "$out.log" | tr '\n' ' ')"
	fi
	rm -f "$out.log"
	sections=$(readelf -SW "$out")
	grep -q '\.gdb_index' <<<"$sections" || die "gdb-add-index wrote no .gdb_index into the copy of $in"
	! grep -q '\.rela\.debug_' <<<"$sections" || die "objcopy left .rela.debug_* sections in the copy of $in"
}
if [[ $mode == --into ]]; then
	quick "$vmlinux" "$3"
	exit 0
fi
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}/gdb-index

id=$(readelf -n "$vmlinux" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | head -1)
if [[ -z $id ]]; then
	[[ $mode == --lookup ]] || die "$vmlinux: no GNU build ID, cannot key an indexed copy"
	echo "$vmlinux"
	exit 0
fi
recipe=2 # 1: gdb index; 2: and no .rela.debug_* sections
entry=$cache/$id.r$recipe
if [[ $mode == --lookup ]]; then
	if [[ -r $entry/vmlinux ]]; then echo "$entry/vmlinux"; else echo "$vmlinux"; fi
	exit 0
fi

# a copy of a kernel image is no secret: every user of the machine may
# read it, as the kernel's own cache entry (mktemp makes it 0700)
if [[ -r $entry/vmlinux ]]; then
	chmod go+rx "$entry" 2>/dev/null || true
	exit 0
fi
step "gdb index for crash ($vmlinux, build ID $id)"
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.new-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
quick "$vmlinux" "$tmp/vmlinux"
chmod 755 "$tmp"
chmod 644 "$tmp/vmlinux"
# Another clone may have finished first: keep theirs.
mv -T "$tmp" "$entry" 2>/dev/null || [[ -r $entry/vmlinux ]] || die "cannot file $entry"
# the copies older recipes made of the same vmlinux are not read any more
# (recipe 1's had no suffix)
rm -rf "${cache:?}/$id"
for ((r = 2; r < recipe; r++)); do rm -rf "${cache:?}/$id.r$r"; done
step_done "$entry/vmlinux"
