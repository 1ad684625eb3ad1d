#!/usr/bin/env bash
# runs first: it touches the clone's kernel inputs and runs make all, which a make beside it would rebuild with
# needs root: it touches the clone's kernel inputs and rebuilds (root owns them)
# The build's dependencies are real files: `make bench` has what a run needs
# among its prerequisites, and a kernel input touched without a change of
# content (the kernel cache answers) rebuilds nothing that depends on the
# kernel: not vmlinux.h, the BPF objects, triggerctl, nor the images.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

# make's own database: the prerequisites it read for bench
prereqs=$(make -pq bench 2>/dev/null | sed -n 's/^bench: *//p' | head -1 || true)
for want in "$build/appliance/root.cpio.gz" "$build/triggers/triggerctl" \
	"$build/bpk/bpk" "$build/analysis/fire-decode"; do
	if [[ " $prereqs " == *" $want "* ]]; then
		pass "build.bench_needs.${want##*/}" "bench: ... $want ..."
	else
		fail "build.bench_needs.${want##*/}" "not among bench's prerequisites: ${prereqs:-none}"
	fi
done

# Everything built first; then a kernel input touched, same content.
products=("$build/kernel.ok" "$build/triggers/vmlinux.h" "$build/triggers/names-gen.c"
	"$build/triggers/triggerctl" "$build/guard" "$build/appliance/root.cpio.gz"
	"$build/guard-initramfs.cpio.gz" "$build/bpk/bpk")
if ! make all >"$out/make-first.log" 2>&1; then
	fail build.first "make all failed: $(tail -1 "$out/make-first.log")"
	exit 1
fi
declare -A mtime
for f in "${products[@]}"; do
	mtime[$f]=$(stat -c %.9Y "$f" 2>/dev/null || echo missing)
done
touch kernel-series/series kernel-series/appliance.config kernel-series/0001-*.patch
t0=$(now_ms)
rc=0
make all >"$out/make-touched.log" 2>&1 || rc=$?
dt=$(($(now_ms) - t0))
check build.touched_input_make_ok "make all exit $rc in $(fmt_ms "$dt"): $(grep -m1 'cached' "$out/make-touched.log" || tail -1 "$out/make-touched.log")" \
	test "$rc" = 0
for f in "${products[@]}"; do
	now=$(stat -c %.9Y "$f" 2>/dev/null || echo missing)
	if [[ ${mtime[$f]} != missing && $now == "${mtime[$f]}" ]]; then
		pass "build.unchanged.${f#"$build"/}" "mtime $now kept"
	else
		fail "build.unchanged.${f#"$build"/}" "mtime ${mtime[$f]} -> $now: rebuilt"
	fi
done
rebuilt=$(grep -cE '^(clang|gcc|bpftool|appliance/mkinitramfs)' "$out/make-touched.log" || true)
check build.touched_input_no_commands "$rebuilt compile/image command(s) run (log: $out/make-touched.log)" \
	test "$rebuilt" = 0
