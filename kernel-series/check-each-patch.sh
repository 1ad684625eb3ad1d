#!/usr/bin/env bash
# Prove that the tree builds after each patch of the series in turn, so the
# series stays bisectable.
#
#   check-each-patch.sh KERNEL-LINK
#
# Works on a copy of the cached full build (KERNEL-LINK, made by
# build-kernel.sh), bind-mounted over the original paths in a private mount
# namespace: kbuild records absolute paths in its dependency files, so the
# copy must be seen at the original place for make to notice what changed,
# while the cache entry itself is never touched. It reverts the series down
# to its first patch, builds bzImage, then re-applies the patches one by one
# and builds after each; only what a patch touches is recompiled. A patch
# that only touches tools/testing/selftests is checked by compiling the
# selftests it changes.
# Prints one "PASS|FAIL patch N: ..." line per patch; exits non-zero on a FAIL.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

link=${1:?usage: check-each-patch.sh KERNEL-LINK}
entry=$(readlink -f "$link")
[[ -e $entry/ok ]] || die "$link: not a complete kernel build (run make kernel)"
jobs=${JOBS:-$(($(nproc) + 1))}
mapfile -t patches < <(grep -v '^\s*\(#\|$\)' "$here/series")

if [[ ${BPK_IN_NS:-} != 1 ]]; then
	((EUID == 0)) || die "needs root for a private mount namespace (unshare -m)"
	work=$entry.each-patch
	step "copy the cached build"
	rm -rf "$work"
	mkdir -p "$work"
	cp -a "$entry/src" "$entry/obj" "$work/"
	step_done "$work"
	rc=0
	BPK_IN_NS=1 BPK_WORK=$work unshare --mount --propagation private "$0" "$@" || rc=$?
	rm -rf "$work"
	exit "$rc"
fi
work=$BPK_WORK
mount --bind "$work/src" "$entry/src"
mount --bind "$work/obj" "$entry/obj"
src=$entry/src obj=$entry/obj

step "revert patches ${#patches[@]}..2"
for ((i = ${#patches[@]} - 1; i >= 1; i--)); do
	patch -d "$src" -p1 -R --batch -s --no-backup-if-mismatch <"$here/${patches[i]}" ||
		die "cannot revert ${patches[i]}"
done
step_done

failed=0
for ((i = 0; i < ${#patches[@]}; i++)); do
	p=${patches[i]}
	if ((i > 0)); then
		patch -d "$src" -p1 --batch -s --no-backup-if-mismatch <"$here/$p" || die "cannot apply $p"
	fi
	touched=$(sed -n 's|^+++ b/||p' "$here/$p")
	t0=$(now_ms)
	if ! grep -qv '^tools/testing/selftests/' <<<"$touched"; then
		# Selftests only: build them as the selftests' Makefile does. BPF
		# programs (progs/) with clang against the vmlinux.h of the tree
		# just built and the tree's bpf_helpers.h, whose
		# bpf_helper_defs.h comes from its UAPI, each with its skeleton;
		# then the other C files, which include the skeletons.
		st=$src/tools/testing/selftests/bpf
		gen=$work/selftest-gen
		log=$work/build-$((i + 1)).log
		ok=1
		mkdir -p "$gen/bpf"
		{
			bpftool btf dump file "$obj/vmlinux" format c >"$gen/vmlinux.h" &&
				python3 "$src/scripts/bpf_doc.py" --header \
					--file "$src/tools/include/uapi/linux/bpf.h" >"$gen/bpf/bpf_helper_defs.h" &&
				cp "$src"/tools/lib/bpf/{bpf_helpers.h,bpf_tracing.h,bpf_core_read.h} "$gen/bpf/"
		} >"$log" 2>&1 || ok=0
		for f in $touched; do
			[[ $f == */progs/*.c ]] || continue
			((ok)) || break
			n=$(basename "$f" .c)
			clang -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 -I"$gen" -I"$st" \
				-I"$src/tools/include/uapi" -idirafter /usr/include/x86_64-linux-gnu \
				-c "$src/$f" -o "$gen/$n.bpf.o" >>"$log" 2>&1 &&
				bpftool gen skeleton "$gen/$n.bpf.o" name "$n" >"$gen/$n.skel.h" 2>>"$log" || ok=0
		done
		for f in $touched; do
			[[ $f == *.c && $f != */progs/* ]] || continue
			((ok)) || break
			gcc -std=gnu11 -c -o /dev/null -Wall -Werror -I"$gen" -I"$st" -I"$src/tools/include" \
				-I"$src/tools/include/uapi" -I"$src/tools/lib" \
				-I"$src/tools/arch/x86/include" "$src/$f" >>"$log" 2>&1 || ok=0
		done
		what="selftest build (BPF programs, skeletons, test files)"
	else
		ok=1
		make -C "$src" O="$obj" ARCH=x86_64 -j"$jobs" bzImage >"$work/build-$((i + 1)).log" 2>&1 || ok=0
		what="bzImage, $(grep -c '^  CC ' "$work/build-$((i + 1)).log" || true) objects rebuilt"
	fi
	dt=$(fmt_ms $(($(now_ms) - t0)))
	if ((ok)); then
		echo "PASS patch $((i + 1)) $p: $what in $dt"
	else
		echo "FAIL patch $((i + 1)) $p: $what failed after $dt:"
		grep -E 'error' "$work/build-$((i + 1)).log" | head -5
		failed=1
	fi
done
exit "$failed"
