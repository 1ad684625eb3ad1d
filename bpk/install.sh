#!/usr/bin/env bash
# make install / make uninstall for bpk.
#
#   install.sh install ROOT MAN-PAGE TOP BUILD CACHE RUNS PREFIX
#   install.sh uninstall ROOT
#
# ROOT is $(DESTDIR)$(PREFIX). install copies bpk, its man page, its bash
# completion and the SDK of users' own trigger programs (include/bpk/: the
# header and the part of it behind the interface, fire.h, the kernel's vmlinux.h; share/pkgconfig/bpk.pc) under ROOT and writes ROOT/share/bpk/bpk.conf, which tells the
# installed bpk where the clone, its build, the kernel cache and the runs
# are (the build stays in the clone: the guest images, kernels and tools are
# large and shared with make). Every file written and every directory made
# goes into ROOT/share/bpk/manifest; uninstall removes exactly those, files
# first, then the directories it made, deepest first, and only when empty.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
BPK_PROG=bpk-install
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

cmd=${1:-}
root=${2:-}
[[ -n $root ]] || bad_input "usage: install.sh install|uninstall ROOT ..."
manifest=$root/share/bpk/manifest

# mkdirs DIR: make DIR and the parents that are missing, recording each
mkdirs() {
	local d=$1 missing=()
	while [[ ! -d $d ]]; do
		missing=("$d" "${missing[@]}")
		d=$(dirname "$d")
	done
	for d in "${missing[@]}"; do
		mkdir "$d" || die "cannot make $d"
		made_dirs+=("$d")
	done
}

# put MODE SRC DEST: copy SRC to DEST (mode MODE), recording it
put() {
	mkdirs "$(dirname "$3")"
	install -m "$1" "$2" "$3" || die "cannot install $2 as $3"
	files+=("$3")
}

# uninstall: remove what the manifest lists
uninstall() {
	[[ -r $manifest ]] || die "$manifest: no manifest, nothing installed under $root by make install"
	mapfile -t entries <"$manifest"
	n=0
	for e in "${entries[@]}"; do
		[[ $e == file\ * ]] || continue
		if [[ -e ${e#file } ]]; then
			rm -f -- "${e#file }" || die "cannot remove ${e#file }"
			n=$((n + 1))
		fi
	done
	# directories install made, deepest first; one that holds something
	# else now is left, and said
	for ((i = ${#entries[@]} - 1; i >= 0; i--)); do
		e=${entries[i]}
		[[ $e == dir\ * && -d ${e#dir } ]] || continue
		rmdir -- "${e#dir }" 2>/dev/null || say "kept ${e#dir }: it holds files install did not write"
	done
	say "removed $n files installed under $root"
}

case $cmd in
install)
	(($# == 8)) || bad_input "usage: install.sh install ROOT MAN-PAGE TOP BUILD CACHE RUNS PREFIX"
	man=$3 top=$4 build=$5 cache=$6 runs=$7 prefix=$8
	[[ -s $build/triggers/vmlinux.h ]] || die "$build/triggers/vmlinux.h: not built (make triggers)"
	[[ -r $man ]] || die "$man: the man page is not built (make $man)"
	if [[ -e $manifest ]]; then
		# installed before: that install's files go first, exactly
		say "bpk is installed under $root already: removing that install first"
		uninstall
	fi
	files=() made_dirs=()
	version=$(git -C "$top" describe --tags --always --dirty 2>/dev/null) || version=unknown
	put 0755 "$build/bpk/bpk" "$root/bin/bpk"
	put 0644 "$man" "$root/share/man/man1/bpk.1"
	put 0644 "$top/bpk/bpk.bash-completion" "$root/share/bash-completion/completions/bpk"
	put 0644 "$top/triggers/sdk/bpk/trigger.bpf.h" "$root/include/bpk/trigger.bpf.h"
	put 0644 "$top/triggers/sdk/bpk/trigger-impl.bpf.h" "$root/include/bpk/trigger-impl.bpf.h"
	put 0644 "$top/triggers/fire.h" "$root/include/bpk/fire.h"
	put 0644 "$build/triggers/vmlinux.h" "$root/include/bpk/vmlinux.h"
	pc=$(mktemp)
	# shellcheck disable=SC2016 # ${prefix} and ${includedir} are pkg-config's
	printf 'prefix=%s\nincludedir=${prefix}/include\n\nName: bpk\nDescription: bpf-panic kdump appliance: the SDK of your own trigger programs (clang -g -O2 -target bpf)\nVersion: %s\nCflags: -I${includedir} -D__TARGET_ARCH_x86\n' \
		"$prefix" "$version" >"$pc"
	put 0644 "$pc" "$root/share/pkgconfig/bpk.pc"
	rm -f "$pc"
	conf=$(mktemp)
	printf '# written by make install: where the installed bpk finds the appliance\ntop=%s\nbuild=%s\ncache=%s\nruns=%s\nversion=%s\n' \
		"$top" "$build" "$cache" "$runs" "$version" >"$conf"
	put 0644 "$conf" "$root/share/bpk/bpk.conf"
	rm -f "$conf"
	# the manifest lists itself too: uninstall leaves nothing behind
	{
		printf 'file %s\n' "${files[@]}" "$manifest"
		((${#made_dirs[@]} == 0)) || printf 'dir %s\n' "${made_dirs[@]}"
	} >"$manifest" || die "cannot write $manifest"
	say "installed ${#files[@]} files under $root, and their list $manifest (bpk $version)"
	;;
uninstall)
	(($# == 2)) || bad_input "usage: install.sh uninstall ROOT"
	uninstall
	;;
*) bad_input "usage: install.sh install|uninstall ROOT ..." ;;
esac
