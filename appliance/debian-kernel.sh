#!/usr/bin/env bash
# Debian's own kernel for the appliance (bpk run --kernel debian): the stock
# linux-image-6.1.0-<abi>-amd64 whose version is that of the installed
# linux-source-6.1 (the source our kernel is built from), resolved by apt,
# and the vmlinux of its -dbg package, for crash. Nothing is installed: the
# packages are fetched with `apt-get download` and only what the appliance
# needs is extracted, outside the clone, keyed by the package version:
#
#   $BPK_CACHE/debian/<version>/
#     vmlinuz, config               from the image package (its System.map
#                                   is a placeholder: the real one is in -dbg)
#     vmlinux                       from the -dbg package (DWARF, for crash),
#                                   with a .gdb_index added: crash starts in
#                                   half the time (28 s instead of 53 s, loaded host)
#     modules/lib/modules/<kver>/   the modules the guests need, their
#                                   dependencies, modules.dep (depmod)
#     modules.load                  the root guest's insmod order
#                                   (lkdtm.ko built out of tree, see below)
#     debs/                         the image .deb (kept: 67 MiB; the -dbg
#                                   .deb, 819 MiB, is deleted once vmlinux is out)
#     vmlinux.ok, ok                done markers (ok: what was extracted)
#
#   debian-kernel.sh fetch LINK    fetch/extract if needed; LINK -> the entry
#   debian-kernel.sh resolve       print "package version kver" and sizes
#
# An entry is complete only with its "ok" file (for this RECIPE); a failed
# or interrupted extraction is redone, never half-used. Two fetches of the
# same version wait for each other (flock), as build-kernel.sh does.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

# Bump when the extraction changes (the module list below, LKDTM, what is
# done to vmlinux), so that an entry made by another recipe is redone (from
# the kept image .deb).
RECIPE=4
# The modules the guests need, when they are modules (built-in ones are
# skipped): virtio transport, console (the result and dump ports) and blk;
# 9p over virtio for the host's /usr; LKDTM for the warn and hung_task
# examples, if the package has it (a trailing ? marks a module that may be
# missing: Debian 12's config has "# CONFIG_LKDTM is not set"). The capture
# kernel's dracut image takes the ones in KDUMP_MODULES.
ROOT_MODULES="virtio_pci virtio_console virtio_blk 9pnet_virtio 9p lkdtm?"
KDUMP_MODULES="virtio_pci virtio_console"

mode=${1:-}
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}

mib() { awk -v b="$1" 'BEGIN { printf "%.0f MiB", b / 1048576 }'; }

# source_version: sets ver, linux-source-6.1's installed version (fast: no apt)
source_version() {
	ver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null) ||
		die "linux-source-6.1 is not installed: its version picks the Debian kernel (make deps)"
	[[ -n $ver ]] || die "linux-source-6.1: dpkg reports no version"
}

# resolve: sets pkg, kver, dbg and the download sizes, from apt (three apt
# calls: each reads apt's whole cache, 1-4 s here).
resolve() {
	local cands found
	cands=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' | cut -d' ' -f1)
	[[ -n $cands ]] || die "apt knows no linux-image-6.1.0-*-amd64 package (apt-get update?)"
	# shellcheck disable=SC2086 # a list of package names
	found=$(apt-cache madison $cands | awk -F' *[|] *' -v v="$ver" '$2 == v { sub(/^ */, "", $1); print $1 }' | sort -u)
	[[ -n $found ]] || die "no linux-image-6.1.0-*-amd64 package has linux-source-6.1's version $ver (candidates: $(echo "$cands" | tr '\n' ' '))"
	[[ $(wc -l <<<"$found") == 1 ]] || die "several packages have version $ver: $(echo "$found" | tr '\n' ' ')"
	pkg=$found
	kver=${pkg#linux-image-}
	dbg=$pkg-dbg
	local show
	show=$(apt-cache show "$pkg=$ver" "$dbg=$ver" 2>&1) ||
		die "apt has no $dbg version $ver (the debug symbols, for crash): $(tail -1 <<<"$show")"
	pkg_size=$(awk -v p="$pkg" '/^Package: / { on = ($2 == p) } on && /^Size: / { print $2; exit }' <<<"$show")
	dbg_size=$(awk -v p="$dbg" '/^Package: / { on = ($2 == p) } on && /^Size: / { print $2; exit }' <<<"$show")
	dbg_isize=$(awk -v p="$dbg" '/^Package: / { on = ($2 == p) } on && /^Installed-Size: / { print $2; exit }' <<<"$show")
	[[ $pkg_size =~ ^[0-9]+$ && $dbg_size =~ ^[0-9]+$ && $dbg_isize =~ ^[0-9]+$ ]] ||
		die "apt-cache show gave no sizes for $pkg / $dbg $ver"
}

# download PKG DIR: apt-get download PKG=ver into DIR (apt checks its hash)
download() {
	local p=$1 dir=$2 t0
	mkdir -p "$dir"
	t0=$(now_ms)
	(cd "$dir" && apt-get download -q "$p=$ver" >download.log 2>&1) ||
		die "apt-get download $p=$ver failed: $(tail -2 "$dir/download.log" | tr '\n' ' ')"
	rm -f "$dir/download.log"
	deb=$(find "$dir" -maxdepth 1 -name "${p}_*.deb" | head -1)
	[[ -n $deb ]] || die "apt-get download $p=$ver left no .deb in $dir"
	say "downloaded $(basename "$deb"): $(mib "$(stat -c %s "$deb")") in $(fmt_ms $(($(now_ms) - t0)))"
}

# vmlinux from the -dbg package: one tar member out of a 5 GiB stream.
extract_vmlinux() {
	local dir=$entry/.dbg member t0 pid
	member=./usr/lib/debug/boot/vmlinux-$kver
	rm -rf "$dir"
	say "downloading $dbg $ver: $(mib "$dbg_size") (unpacked $(mib $((dbg_isize * 1024))); only vmlinux is kept)"
	download "$dbg" "$dir"
	step "extract vmlinux from $(basename "$deb")"
	t0=$(now_ms)
	# --occurrence: tar stops reading once the member is out, and dpkg-deb
	# then dies of a broken pipe: tar's status is the one that counts (a
	# stream cut short before the member makes tar fail).
	(
		set +o pipefail
		dpkg-deb --fsys-tarfile "$deb" 2>"$dir/dpkg-deb.err" | tar -x -O --occurrence=1 "$member" >"$entry/vmlinux.tmp"
	) &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 10
		kill -0 "$pid" 2>/dev/null || break
		say "[extract vmlinux] $(fmt_ms $(($(now_ms) - t0))): $(mib "$(stat -c %s "$entry/vmlinux.tmp")") so far"
	done
	wait "$pid" || die "extracting $member from $deb failed: $(grep -v 'Broken pipe' "$dir/dpkg-deb.err" | head -2 | tr '\n' ' ')"
	[[ -s $entry/vmlinux.tmp ]] || die "$deb has no $member"
	readelf -S "$entry/vmlinux.tmp" | grep -q '\.debug_info' || die "$member in $deb has no .debug_info"
	mv "$entry/vmlinux.tmp" "$entry/vmlinux"
	rm -rf "$dir"
	echo "$dbg $ver" >"$entry/vmlinux.ok"
	step_done "$(mib "$(stat -c %s "$entry/vmlinux")"); $(basename "$deb") deleted"
}

# gdb_index: vmlinux made quick for crash: a .gdb_index section
# (gdb-add-index) and no .rela.debug_* sections (--emit-relocs' leftovers,
# which gdb applies to every DWARF section it reads although the linked
# contents are final: crash's start on a Debian vmcore 5.6 -> 3.1 s, 671 ->
# 366 MB; see analysis/crash-vmlinux.sh). drgn reads the same file. An entry
# whose vmlinux still has the sections is redone here, in place.
gdb_index() {
	local sections
	sections=$(readelf -SW "$entry/vmlinux")
	grep -q '\.gdb_index' <<<"$sections" && ! grep -q '\.rela\.debug_' <<<"$sections" && return 0
	step "gdb index of vmlinux, without its .rela.debug_* sections ($(mib "$(stat -c %s "$entry/vmlinux")"))"
	rm -rf "$entry/.index"
	mkdir -p "$entry/.index"
	"$here/../analysis/crash-vmlinux.sh" --into "$entry/vmlinux" "$entry/.index/vmlinux"
	mv "$entry/.index/vmlinux" "$entry/vmlinux"
	rm -rf "$entry/.index"
	step_done "$(mib "$(stat -c %s "$entry/vmlinux")")"
}

# LKDTM, which provokes the warn and hung_task examples (and oopses on
# demand), is not built by Debian ("# CONFIG_LKDTM is not set"). Build it
# out of tree: its source from linux-source-6.1 (the same version), against
# the package's own headers (linux-headers-<kver>, -common, linux-kbuild-6.1:
# about 14 MB, downloaded, never installed). Two adjustments, both ours:
# the headers' Makefile includes its -common part by an absolute /usr/src
# path, pointed at the extracted copy; and native_write_cr4(), which 6.1
# exports only for an LKDTM module of the kernel's own build, is stubbed
# (lkdtm's UNSET_SMEP test then says it is not available). The source sits
# under .../drivers/misc/lkdtm so that WARN()s name the file the warn
# example filters on. The module is unsigned: loading it taints the kernel
# (O, E), which changes nothing here.
build_lkdtm() {
	local dir=$entry/.lkdtm common hdr src t0 ko p
	need_cmd gcc-12 gcc-12
	need_cmd make make
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$dir/root"
	common=linux-headers-${kver%-amd64}-common
	step "LKDTM out of tree for $kver (its headers, and lkdtm from linux-source-6.1)"
	t0=$(now_ms)
	local show bytes
	show=$(apt-cache show "linux-headers-$kver=$ver" "$common=$ver" "linux-kbuild-6.1=$ver" 2>&1) ||
		die "apt has no headers of version $ver for LKDTM: $(tail -1 <<<"$show")"
	bytes=$(awk '/^Size: / { n += $2 } END { print n + 0 }' <<<"$show")
	say "downloading linux-headers-$kver, $common, linux-kbuild-6.1 $ver: $(mib "$bytes") (never installed; deleted after the build)"
	for p in "linux-headers-$kver" "$common" linux-kbuild-6.1; do
		download "$p" "$dir/debs"
		dpkg-deb -x "$deb" "$dir/root"
	done
	hdr=$dir/root/usr/src/linux-headers-$kver
	[[ -r $hdr/Makefile ]] || die "linux-headers-$kver has no $hdr/Makefile"
	sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$hdr/Makefile"
	src=$dir/src/drivers/misc/lkdtm
	mkdir -p "$src"
	tar -xf "${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}" -C "$dir/src" --strip-components=1 \
		--wildcards '*/drivers/misc/lkdtm/*' || die "cannot extract drivers/misc/lkdtm from linux-source-6.1"
	cat >>"$src/Makefile" <<'MAKE'
# bpf-panic kdump appliance: built out of tree against Debian's headers,
# where native_write_cr4 is not exported: UNSET_SMEP is stubbed
lkdtm-$(CONFIG_LKDTM) += bpk-stubs.o
CFLAGS_bugs.o += -Dnative_write_cr4=bpk_lkdtm_native_write_cr4
MAKE
	cat >"$src/bpk-stubs.c" <<'C'
// SPDX-License-Identifier: GPL-2.0
#include <linux/printk.h>

void bpk_lkdtm_native_write_cr4(unsigned long val);
void bpk_lkdtm_native_write_cr4(unsigned long val)
{
	pr_err("lkdtm: UNSET_SMEP is not available in this out-of-tree build\n");
}
C
	make -C "$hdr" M="$src" CONFIG_LKDTM=m modules >"$dir/build.log" 2>&1 ||
		die "building lkdtm against linux-headers-$kver failed: $(grep -m2 -E 'error|ERROR' "$dir/build.log" | tr '\n' ' ') (log: $dir/build.log)"
	ko=$src/lkdtm.ko
	modinfo -F vermagic "$ko" | grep -q "^$kver " ||
		die "$ko: vermagic '$(modinfo -F vermagic "$ko")' is not $kver"
	mkdir -p "$entry/modules/lib/modules/$kver/extra"
	cp "$ko" "$entry/modules/lib/modules/$kver/extra/lkdtm.ko"
	echo extra/lkdtm.ko >>"$entry/modules.load"
	depmod -b "$entry/modules" "$kver" || die "depmod of the extracted modules failed"
	rm -rf "$dir"
	step_done "lkdtm.ko, $(fmt_ms $(($(now_ms) - t0)))"
	lkdtm="built out of tree from linux-source-6.1 against linux-headers-$kver"
}

# The kernel, its config and the guests' modules from the image package.
extract_image() {
	local deb full mods m f optional
	mkdir -p "$entry/debs"
	deb=$(find "$entry/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -1)
	if [[ -z $deb ]]; then
		say "downloading $pkg $ver: $(mib "$pkg_size") (kept in the cache, to redo the extraction without a download)"
		download "$pkg" "$entry/debs"
	fi
	step "extract the kernel and modules from $(basename "$deb")"
	full=$entry/.full
	rm -rf "$full" "$entry/modules" "$entry/modules.load"
	mkdir -p "$full"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$full" "./boot" "./lib/modules/$kver"
	for f in vmlinuz config; do
		cp "$full/boot/$f-$kver" "$entry/$f"
	done
	# Compressed modules (.ko.xz, .ko.zst) would need an insmod that can
	# read them: busybox's in the guest cannot be relied on. Decompress.
	while IFS= read -r -d '' m; do
		case $m in
		*.xz) xz -d "$m" ;;
		*.zst) zstd -q -d --rm "$m" ;;
		*.gz) gzip -d "$m" ;;
		esac
	done < <(find "$full/lib/modules/$kver" -name '*.ko.*' -print0)
	mkdir -p "$entry/.no-conf" # the host's modprobe.d has no say here
	depmod -b "$full" "$kver" || die "depmod -b $full $kver failed"
	# The wanted modules and what they depend on, in load order (as
	# modprobe would insmod them); built-in ones give no insmod line.
	mods=$entry/.modules
	: >"$mods"
	missing=
	for m in $ROOT_MODULES; do
		optional=0
		[[ $m != *\? ]] || optional=1 m=${m%\?}
		if grep -qE "/${m//_/[_-]}\.ko\$" "$full/lib/modules/$kver/modules.builtin"; then
			say "module $m: built into $kver"
			continue
		fi
		if ! modprobe -C "$entry/.no-conf" -d "$full" -S "$kver" --show-depends "$m" >"$entry/.dep" 2>&1; then
			((optional)) || die "$pkg has no module $m (nor is it built in): $(head -1 "$entry/.dep")"
			say "module $m: not in $pkg, neither built in nor a module ($(grep -m1 -E "^(# )?CONFIG_${m^^}[ =]" "$full/boot/config-$kver" || echo "no CONFIG_${m^^} line"))"
			missing+=" $m"
			continue
		fi
		sed -n 's/^insmod \([^ ]*\).*/\1/p' "$entry/.dep" >>"$mods"
	done
	mkdir -p "$entry/modules/lib/modules/$kver"
	: >"$entry/modules.load"
	while read -r m; do
		f=${m#"$full/lib/modules/$kver/"}
		grep -qxF "$f" "$entry/modules.load" && continue
		echo "$f" >>"$entry/modules.load"
		mkdir -p "$entry/modules/lib/modules/$kver/$(dirname "$f")"
		cp "$m" "$entry/modules/lib/modules/$kver/$f"
	done <"$mods"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		cp "$full/lib/modules/$kver/$f" "$entry/modules/lib/modules/$kver/"
	done
	depmod -b "$entry/modules" "$kver" || die "depmod of the extracted modules failed"
	rm -rf "$full" "$mods" "$entry/.dep" "$entry/.no-conf"
	step_done "$(wc -l <"$entry/modules.load") modules, $(du -sh "$entry/modules" | cut -f1)"
}

case $mode in
resolve)
	source_version
	resolve
	echo "$pkg $ver $kver"
	say "$pkg: $(mib "$pkg_size") download; $dbg: $(mib "$dbg_size") download ($(mib $((dbg_isize * 1024))) installed, never installed here)"
	exit 0
	;;
fetch) link=${2:?usage: debian-kernel.sh fetch LINK} ;;
*) bad_input "usage: debian-kernel.sh fetch LINK | resolve" ;;
esac

need_cmd apt-get apt
need_cmd dpkg-deb dpkg
need_cmd depmod kmod
need_cmd flock util-linux
source_version
entry=$cache/debian/$ver

cached() {
	[[ -e $entry/ok ]] && grep -qx "recipe=$RECIPE" "$entry/ok" || return 1
	mkdir -p "$(dirname "$link")"
	ln -sfn "$entry" "$link"
	say "Debian kernel $(sed -n 's/^kver=//p' "$entry/ok") ($(sed -n 's/^package=//p' "$entry/ok") $ver) cached: $entry"
}
cached && exit 0

mkdir -p "$cache/debian"
exec {lock}>"$cache/debian/$ver.lock"
if ! flock -n "$lock"; then
	say "Debian kernel $ver is being fetched by another process; waiting for it ($cache/debian/$ver.lock)"
	flock "$lock"
fi
cached && exit 0

t_all=$(now_ms)
step "resolve the Debian kernel of version $ver (apt)"
resolve
step_done "$pkg, debug symbols $dbg"
mkdir -p "$entry"
rm -f "$entry/ok"
[[ -e $entry/vmlinux.ok && -s $entry/vmlinux ]] || extract_vmlinux
gdb_index
extract_image
lkdtm=
if [[ " $missing " == *" lkdtm "* ]]; then
	build_lkdtm
	missing=${missing// lkdtm/}
fi
{
	echo "recipe=$RECIPE"
	echo "package=$pkg"
	echo "version=$ver"
	echo "kver=$kver"
	echo "dbg_package=$dbg"
	echo "root_modules=$ROOT_MODULES"
	echo "missing_modules=${missing# }"
	echo "lkdtm=${lkdtm:-from the package}"
	echo "kdump_modules=$KDUMP_MODULES"
	echo "disk_bytes=$(du -sb "$entry" | cut -f1)"
	echo "fetched=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$entry/ok.tmp"
mv "$entry/ok.tmp" "$entry/ok"
mkdir -p "$(dirname "$link")"
ln -sfn "$entry" "$link"
say "Debian kernel $kver ($pkg $ver) ready in $(fmt_ms $(($(now_ms) - t_all))): $entry, $(du -sh "$entry" | cut -f1) on disk"
