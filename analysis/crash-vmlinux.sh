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
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

mode=${1:-}
vmlinux=${2:-}
[[ ($mode == --build || $mode == --lookup) && -n $vmlinux && $# == 2 ]] ||
	bad_input "usage: crash-vmlinux.sh --build|--lookup VMLINUX"
[[ -r $vmlinux ]] || bad_input "$vmlinux: not readable"
cache=${BPK_CACHE:-$HOME/.cache/bpf-panic-kdump}/gdb-index

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

[[ ! -r $entry/vmlinux ]] || exit 0
need_cmd gdb-add-index gdb
need_cmd objcopy binutils
step "gdb index for crash ($vmlinux, build ID $id)"
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.new-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
objcopy --remove-section='.rela.debug_*' "$vmlinux" "$tmp/vmlinux" 2>"$tmp/log" ||
	die "objcopy $vmlinux failed: $(tail -2 "$tmp/log" | tr '\n' ' ')"
gdb-add-index "$tmp/vmlinux" >"$tmp/log" 2>&1 || die "gdb-add-index $vmlinux failed: $(tail -2 "$tmp/log" | tr '\n' ' ')"
sections=$(readelf -SW "$tmp/vmlinux")
grep -q '\.gdb_index' <<<"$sections" || die "gdb-add-index wrote no .gdb_index into the copy of $vmlinux"
! grep -q '\.rela\.debug_' <<<"$sections" || die "objcopy left .rela.debug_* sections in the copy of $vmlinux"
rm -f "$tmp/log"
# Another clone may have finished first: keep theirs.
mv -T "$tmp" "$entry" 2>/dev/null || [[ -r $entry/vmlinux ]] || die "cannot file $entry"
# the copies older recipes made of the same vmlinux are not read any more
# (recipe 1's had no suffix)
rm -rf "${cache:?}/$id"
for ((r = 2; r < recipe; r++)); do rm -rf "${cache:?}/$id.r$r"; done
step_done "$entry/vmlinux"
