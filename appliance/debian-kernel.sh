#!/usr/bin/env bash
# Debian's kernels for the appliance (bpk run --kernel debian, or
# --kernel debian:RELEASE): a stock linux-image the archive serves, and later
# the vmlinux of its -dbg package, for crash and drgn. Nothing is installed:
# the packages are fetched with `apt-get download` and only what the
# appliance needs is extracted, outside the clone, keyed by the kernel
# release and the package version:
#
#   $BPK_CACHE/debian/<kver>_<version>/
#     vmlinuz, config               from the image package (its System.map
#                                   is a placeholder: the real one is in -dbg)
#     btf-names                     the functions and tracepoints of the
#                                   kernel's BTF (from vmlinuz): what bpk
#                                   checks func=, tp= and SEC() names against
#                                   before the debug package is fetched
#     vmlinux                       from the -dbg package (DWARF, for crash),
#                                   fetched only when a dump is analysed
#                                   (debian-kernel.sh debug), with a
#                                   .gdb_index added: crash starts in half the
#                                   time (28 s instead of 53 s, loaded host)
#     modules/lib/modules/<kver>/   the modules the guests need, their
#                                   dependencies, modules.dep (depmod)
#     modules.load                  the root guest's insmod order
#                                   (lkdtm.ko built out of tree, see below)
#     debs/                         the image .deb (kept: 67 MiB; the -dbg
#                                   .deb, 819 MiB, is deleted once vmlinux is out)
#     vmlinux.ok, ok                done markers (ok: what was extracted)
#
#   debian-kernel.sh fetch LINK [RELEASE]   fetch/extract if needed; LINK ->
#                                           the entry
#   debian-kernel.sh debug ENTRY            the entry's vmlinux, fetched if
#                                           it is not there yet
#   debian-kernel.sh resolve [RELEASE]      print "package version kver"
#   debian-kernel.sh list                   what the archive serves and what
#                                           is cached, one kernel a line
#   debian-kernel.sh changelog ENTRY OLDVER its package's changelog entries
#                                           newer than OLDVER
#
# RELEASE is a kernel release the archive serves (6.1.0-50-amd64,
# 6.12.100+deb12-rt-amd64) or a series with an optional flavour (6.1,
# 6.12-rt, 6.12-cloud-amd64) for its newest release. Without it: the
# linux-image-6.1.0-*-amd64 of the installed linux-source-6.1's version (the
# source our kernel is built from).
#
# An entry is complete only with its "ok" file (for this RECIPE); a failed
# or interrupted extraction is redone, never half-used. Two fetches of the
# same kernel wait for each other (flock), as build-kernel.sh does.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

# Bump when the extraction changes (the module list below, LKDTM, what is
# done to vmlinux), so that an entry made by another recipe is redone (from
# the kept image .deb).
RECIPE=6
# The modules the guests need, when they are modules (built-in ones are
# skipped): virtio transport, console (the result and dump ports) and blk;
# 9p over virtio for the host's /usr, if the package has it (the cloud
# flavour does not: its guests run busybox workloads only); LKDTM for the
# warn and hung_task examples, if the package has it (a trailing ? marks a
# module that may be missing: Debian 12's config has "# CONFIG_LKDTM is not
# set"); qemu_fw_cfg, which publishes the kernel's vmcoreinfo to QEMU's
# vmcoreinfo device, so that a dump the host takes (the capture kernel
# died, bpk dump) tells drgn where the kernel is, as kdump's does. The
# capture kernel's dracut image takes the ones in KDUMP_MODULES.
ROOT_MODULES="virtio_pci virtio_console virtio_blk 9pnet_virtio? 9p? lkdtm? qemu_fw_cfg?"
KDUMP_MODULES="virtio_pci virtio_console"

# The cache is read by whoever runs bpk (QEMU runs as an ordinary user),
# whatever the umask of the process that fetched it
umask 022

mode=${1:-}
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}

mib() { awk -v b="$1" 'BEGIN { printf "%.0f MiB", b / 1048576 }'; }

# source_version: sets ver, linux-source-6.1's installed version (fast: no apt)
source_version() {
	ver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null) ||
		die "linux-source-6.1 is not installed: its version picks the Debian kernel (make deps)"
	[[ -n $ver ]] || die "linux-source-6.1: dpkg reports no version"
}

# image_packages: the archive's linux-image-<kver> package names (signed
# kernels only: the -unsigned and -dbg twins carry the same kernel)
image_packages() {
	apt-cache search --names-only '^linux-image-[0-9]' | cut -d' ' -f1 |
		grep -E '^linux-image-[0-9]+\.[0-9]+\.[0-9][^ ]*-amd64$' | grep -vE -- '-(unsigned|dbg)$' | sort -V
}

# resolve_default: sets pkg, the linux-image-6.1.0-*-amd64 of linux-source-
# 6.1's version (ver)
resolve_default() {
	local cands found
	cands=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' | cut -d' ' -f1)
	[[ -n $cands ]] || die "apt knows no linux-image-6.1.0-*-amd64 package (apt-get update?)"
	# shellcheck disable=SC2086 # a list of package names
	found=$(apt-cache madison $cands | awk -F' *[|] *' -v v="$ver" '$2 == v { sub(/^ */, "", $1); print $1 }' | sort -u)
	[[ -n $found ]] || die "no linux-image-6.1.0-*-amd64 package has linux-source-6.1's version $ver (candidates: $(echo "$cands" | tr '\n' ' '))"
	[[ $(wc -l <<<"$found") == 1 ]] || die "several packages have version $ver: $(echo "$found" | tr '\n' ' ')"
	pkg=$found
}

# resolve_release RELEASE: sets pkg and ver, the newest version of the
# package RELEASE names; bad input (exit 2) when the archive has none
resolve_release() {
	local rel=$1 all series flavour re
	[[ $rel =~ ^[0-9A-Za-z.+~-]+$ ]] ||
		bad_input "debian:$rel: not a kernel release (e.g. 6.1.0-50-amd64, 6.12.100+deb12-rt-amd64, 6.1, 6.12-rt)"
	all=$(image_packages)
	[[ -n $all ]] || die "apt knows no linux-image package (apt-get update?)"
	if [[ $rel =~ ^([0-9]+\.[0-9]+)(-([a-z]+))?(-amd64)?$ ]]; then
		series=${BASH_REMATCH[1]} flavour=${BASH_REMATCH[3]}
		# "6.12-amd64": the flavour group took the suffix
		[[ $flavour != amd64 ]] || flavour=
		flavour=${flavour:+$flavour-}amd64
		case $flavour in
		amd64 | cloud-amd64 | rt-amd64) ;;
		*) bad_input "debian:$rel: no flavour $flavour in the archive (amd64, cloud-amd64, rt-amd64)" ;;
		esac
		re="^linux-image-${series//./\\.}\\.[0-9][^-]*(-[0-9]+)?-$flavour\$"
		pkg=$(grep -E "$re" <<<"$all" | tail -1)
		[[ -n $pkg ]] || bad_input "debian:$rel: the archive serves no $series kernel of flavour $flavour (bpk kernels lists what it serves)"
	else
		pkg=linux-image-$rel
		if ! grep -qxF "$pkg" <<<"$all"; then
			[[ $rel == *-amd64 ]] ||
				bad_input "debian:$rel: no such flavour in the archive (a release ends in -amd64, -cloud-amd64 or -rt-amd64; bpk kernels lists them)"
			bad_input "debian:$rel: the archive serves no $pkg (bpk kernels lists what it serves)"
		fi
	fi
	ver=$(apt-cache madison "$pkg" | awk -F' *[|] *' 'NR == 1 { print $2 }')
	[[ -n $ver ]] || die "apt-cache madison $pkg: no version"
}

# resolve [RELEASE]: sets pkg, ver, kver, dbg and the download sizes, from
# apt (each apt call reads apt's whole cache, 1-4 s here).
resolve() {
	if [[ -n ${1:-} ]]; then
		resolve_release "$1"
	else
		source_version
		resolve_default
	fi
	kver=${pkg#linux-image-}
	dbg=$pkg-dbg
	local show
	# a kernel whose dumps could not be read is refused before anything
	# is fetched
	show=$(apt-cache show "$pkg=$ver" "$dbg=$ver" 2>&1) || [[ -n ${1:-} ]] ||
		die "apt has no $dbg version $ver (the debug symbols, for crash): $(tail -1 <<<"$show")"
	pkg_size=$(awk -v p="$pkg" '/^Package: / { on = ($2 == p) } on && /^Size: / { print $2; exit }' <<<"$show")
	dbg_size=$(awk -v p="$dbg" '/^Package: / { on = ($2 == p) } on && /^Size: / { print $2; exit }' <<<"$show")
	dbg_isize=$(awk -v p="$dbg" '/^Package: / { on = ($2 == p) } on && /^Installed-Size: / { print $2; exit }' <<<"$show")
	if [[ -z $dbg_size && -n ${1:-} ]]; then
		bad_input "debian:$1: the archive serves no $dbg of version $ver, the debug symbols its dumps are read with (bpk kernels shows which kernels have them)"
	fi
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
	local dir=$entry/.dbg member t0 pid sections
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
	# read whole first: grep -q would leave readelf writing into a closed
	# pipe, and pipefail would take that for no .debug_info
	sections=$(readelf -S "$entry/vmlinux.tmp")
	grep -q '\.debug_info' <<<"$sections" || die "$member in $deb has no .debug_info"
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

# btf_names: the kernel's functions and tracepoints, from the BTF of the ELF
# inside vmlinuz (stripped of its symbols, not of .BTF), as lines "func NAME"
# and "tp NAME" (a btf_trace_NAME typedef per tracepoint): bpk checks func=,
# tp= and SEC() targets against them until the -dbg vmlinux is fetched.
# magic_offset BYTES: the first offset of BYTES in vmlinuz, or nothing
magic_offset() {
	LC_ALL=C grep -abo "$1" "$entry/vmlinuz" 2>/dev/null | awk -F: 'NR == 1 { print $1 }' || true
}

btf_names() {
	local magic off elf=$entry/.vmlinux.elf tool
	need_cmd bpftool bpftool
	step "BTF names of $kver (from vmlinuz)"
	rm -f "$elf"
	# The payload's compression, as scripts/extract-vmlinux finds it: the
	# first offset of a known magic that unpacks to an ELF file.
	for magic in xz zstd gzip; do
		case $magic in
		xz) tool="xz -dc" off=$(magic_offset $'\xfd7zXZ\x00') ;;
		zstd) tool="zstd -dcq" off=$(magic_offset $'\x28\xb5\x2f\xfd') ;;
		gzip) tool="gzip -dc" off=$(magic_offset $'\x1f\x8b\x08') ;;
		esac
		[[ -n $off ]] || continue
		# a stream with trailing bytes makes the unpacker complain: what
		# counts is that an ELF came out
		tail -c +$((off + 1)) "$entry/vmlinuz" | $tool >"$elf" 2>/dev/null || true
		[[ $(head -c 4 "$elf" 2>/dev/null) == $'\x7fELF' ]] && break
		rm -f "$elf"
	done
	[[ -s $elf ]] || die "$entry/vmlinuz: no xz, zstd or gzip payload that unpacks to an ELF kernel"
	bpftool btf dump file "$elf" 2>"$entry/.btf.err" |
		awk '$2 == "FUNC" { n = $3; gsub("\047", "", n); print "func " n }
		     $2 == "TYPEDEF" && $3 ~ /^\047btf_trace_/ { n = $3; gsub("\047", "", n); sub("^btf_trace_", "", n); print "tp " n }' \
			>"$entry/btf-names.tmp" || die "bpftool btf dump of $kver's vmlinuz failed: $(head -1 "$entry/.btf.err")"
	grep -q '^func ' "$entry/btf-names.tmp" || die "$kver's vmlinuz: its BTF names no function ($(head -1 "$entry/.btf.err"))"
	build_id=$(readelf -n "$elf" | sed -n 's/.*Build ID: *//p' | head -1)
	mv "$entry/btf-names.tmp" "$entry/btf-names"
	rm -f "$elf" "$entry/.btf.err"
	step_done "$(grep -c '^func ' "$entry/btf-names") functions, $(grep -c '^tp ' "$entry/btf-names") tracepoints"
}

# entry_of: sets entry, the cache entry of pkg ver kver
entry_of() {
	entry=$cache/debian/${kver}_$ver
	# an entry of the earlier layout, keyed by the version alone: moved
	local old=$cache/debian/$ver
	if [[ -d $old && $(sed -n 's/^package=//p' "$old/ok" 2>/dev/null) == "$pkg" && ! -e $entry ]]; then
		mv "$old" "$entry"
		rm -f "$old.lock"
		say "cache entry $old moved to $entry"
	fi
}

# debug: the vmlinux of the -dbg package into the entry, once
debug_vmlinux() {
	[[ -e $entry/vmlinux.ok && -s $entry/vmlinux ]] || {
		ver=$(sed -n 's/^version=//p' "$entry/ok") kver=$(sed -n 's/^kver=//p' "$entry/ok")
		dbg=$(sed -n 's/^dbg_package=//p' "$entry/ok")
		[[ -n $ver && -n $kver && -n $dbg ]] || die "$entry/ok names no version=, kver= or dbg_package="
		local show
		show=$(apt-cache show "$dbg=$ver" 2>&1) || die "apt has no $dbg version $ver: $(tail -1 <<<"$show")"
		dbg_size=$(awk '/^Size: / { print $2; exit }' <<<"$show")
		dbg_isize=$(awk '/^Installed-Size: / { print $2; exit }' <<<"$show")
		say "the dump of a $kver guest is read with its debug symbols: $dbg is fetched once, now"
		extract_vmlinux
	}
	gdb_index
	local want have
	want=$(sed -n 's/^build_id=//p' "$entry/ok")
	have=$(readelf -n "$entry/vmlinux" | sed -n 's/.*Build ID: *//p' | head -1)
	[[ -z $want || $want == "$have" ]] || die "$entry/vmlinux (build ID $have) is not the kernel of $entry/vmlinuz (build ID $want)"
}

# lock NAME: one process at a time works on an entry
lock_entry() {
	mkdir -p "$cache/debian"
	exec {lock}>"$entry.lock"
	if ! flock -n "$lock"; then
		say "Debian kernel $kver is being fetched by another process; waiting for it ($entry.lock)"
		flock "$lock"
	fi
}

# list: one line a kernel the archive serves or the cache holds:
# "kver version image_bytes dbg_bytes cached_bytes|- vmlinux|-"
list() {
	local all p
	local -a pkgs
	all=$(image_packages)
	[[ -n $all ]] || die "apt knows no linux-image package (apt-get update?)"
	mapfile -t pkgs <<<"$all"
	apt-cache show "${pkgs[@]}" "${pkgs[@]/%/-dbg}" 2>/dev/null | awk -v cache="$cache/debian" '
		/^Package: / { p = $2 } /^Version: / { v = $2 }
		/^Size: / { if (p ~ /-dbg$/) dbg[substr(p, 1, length(p) - 4) " " v] = $2; else img[p " " v] = $2 }
		END { for (k in img) { split(k, a, " "); print a[1], a[2], img[k], (k in dbg) ? dbg[k] : "-" } }' |
		sed 's/^linux-image-//' | sort -V -k1,1 -k2,2 >"$cache/.list.$$" || true
	# newest version of each release only, as apt would pick
	awk '{ last[$1] = $0 } END { for (k in last) print last[k] }' "$cache/.list.$$" | sort -V |
		while read -r k v isz dsz; do
			e=$cache/debian/${k}_$v
			if [[ -e $e/ok ]]; then
				echo "$k $v $isz $dsz $(du -sb "$e" | cut -f1) $([[ -e $e/vmlinux.ok ]] && echo vmlinux || echo -)"
			else
				echo "$k $v $isz $dsz - -"
			fi
		done
	rm -f "$cache/.list.$$"
	# cached entries the archive no longer serves
	for p in "$cache"/debian/*_*/ok; do
		[[ -e $p ]] || continue
		e=${p%/ok} k=$(sed -n 's/^kver=//p' "$p") v=$(sed -n 's/^version=//p' "$p")
		grep -qxF "linux-image-$k" <<<"$all" && continue
		echo "$k $v - - $(du -sb "$e" | cut -f1) $([[ -e $e/vmlinux.ok ]] && echo vmlinux || echo -)"
	done
}

# changelog ENTRY OLDVERSION: the entries of ENTRY's package changelog
# newer than OLDVERSION (what changed between two kernels, for bpk
# bisect), the signing wrappers' entries left out ("Sign kernel from ...")
changelog() {
	local entry=$1 old=$2 pkg deb
	pkg=$(sed -n 's/^package=//p' "$entry/ok")
	deb=$(find "$entry/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -1)
	[[ -n $pkg && -n $deb ]] || die "$entry: no package= or no kept .deb of it"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/share/doc/$pkg/changelog.gz" 2>/dev/null | gzip -dc |
		{
			local line v keep=0
			while IFS= read -r line; do
				if [[ $line =~ ^([a-z0-9.+-]+)\ \(([^\)]+)\) ]]; then
					v=${BASH_REMATCH[2]}
					dpkg --compare-versions "$v" gt "$old" || break
					keep=1
					[[ ${BASH_REMATCH[1]} != linux-signed-* ]] || keep=0
				fi
				((keep)) && printf '%s\n' "$line"
			done
		} || true
}

case $mode in
changelog)
	[[ -n ${2:-} && -n ${3:-} ]] || bad_input "usage: debian-kernel.sh changelog ENTRY OLDVERSION"
	entry=$(readlink -f "$2") || bad_input "$2: no such entry"
	[[ -s $entry/ok ]] || bad_input "$2: not a Debian kernel entry (no ok file)"
	changelog "$entry" "$3"
	exit 0
	;;
resolve)
	resolve "${2:-}"
	echo "$pkg $ver $kver"
	say "$pkg: $(mib "$pkg_size") download; $dbg: $(mib "$dbg_size") download ($(mib $((dbg_isize * 1024))) installed, never installed here)"
	exit 0
	;;
list)
	mkdir -p "$cache"
	list
	exit 0
	;;
debug)
	[[ -n ${2:-} ]] || bad_input "usage: debian-kernel.sh debug ENTRY"
	entry=$(readlink -f "$2") || bad_input "$2: no such entry"
	[[ -s $entry/ok ]] || bad_input "$2: not a Debian kernel entry (no ok file)"
	need_cmd apt-get apt
	need_cmd dpkg-deb dpkg
	need_cmd flock util-linux
	kver=$(sed -n 's/^kver=//p' "$entry/ok")
	lock_entry
	debug_vmlinux
	echo "$entry/vmlinux"
	exit 0
	;;
fetch)
	link=${2:-}
	release=${3:-}
	[[ -n $link ]] || bad_input "usage: debian-kernel.sh fetch LINK [RELEASE]"
	;;
*) bad_input "usage: debian-kernel.sh fetch LINK [RELEASE] | debug ENTRY | resolve [RELEASE] | list | changelog ENTRY OLDVERSION" ;;
esac

need_cmd apt-get apt
need_cmd dpkg-deb dpkg
need_cmd depmod kmod
need_cmd flock util-linux

cached() {
	[[ -e $entry/ok ]] && grep -qx "recipe=$RECIPE" "$entry/ok" || return 1
	mkdir -p "$(dirname "$link")"
	ln -sfn "$entry" "$link"
	say "Debian kernel $(sed -n 's/^kver=//p' "$entry/ok") ($(sed -n 's/^package=//p' "$entry/ok") $(sed -n 's/^version=//p' "$entry/ok")) cached: $entry"
}

t_all=$(now_ms)
if [[ -z $release ]]; then
	# linux-source-6.1's kernel: found without apt when it is cached
	source_version
	for entry in "$cache"/debian/6.1.0-*-amd64_"$ver"; do
		[[ $entry != *-rt-amd64_* && $entry != *-cloud-amd64_* ]] || continue
		cached && exit 0
	done
fi
step "resolve the Debian kernel ${release:-of version $ver} (apt)"
resolve "$release"
step_done "$pkg $ver, debug symbols $dbg"
entry_of
cached && exit 0
lock_entry
cached && exit 0

mkdir -p "$entry"
rm -f "$entry/ok"
# the earlier recipe fetched the -dbg vmlinux here: kept, and indexed
[[ ! -e $entry/vmlinux.ok || ! -s $entry/vmlinux ]] || gdb_index
extract_image
btf_names
lkdtm=
if [[ " $missing " == *" lkdtm "* ]]; then
	# built where the source and the kernel's headers are to be had: the
	# archive keeps linux-kbuild-6.1 of its newest version only
	if [[ $kver != 6.1.* ]]; then
		lkdtm="not built: linux-source-6.1's lkdtm is for 6.1 kernels"
	elif ! apt-cache madison linux-kbuild-6.1 | awk -F' *[|] *' -v v="$ver" '$2 == v { f = 1 } END { exit !f }'; then
		lkdtm="not built: the archive serves no linux-kbuild-6.1 of version $ver, the headers it builds against"
	fi
	if [[ -z $lkdtm ]]; then
		build_lkdtm
		missing=${missing// lkdtm/}
	else
		rm -rf "$entry/.lkdtm"
		say "lkdtm: $lkdtm (the warn and hung_task examples need it)"
	fi
fi
{
	echo "recipe=$RECIPE"
	echo "package=$pkg"
	echo "version=$ver"
	echo "kver=$kver"
	echo "build_id=$build_id"
	echo "dbg_package=$dbg"
	echo "dbg_bytes=$dbg_size"
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
say "Debian kernel $kver ($pkg $ver) ready in $(fmt_ms $(($(now_ms) - t_all))): $entry, $(du -sh "$entry" | cut -f1) on disk; its debug symbols ($dbg, $(mib "$dbg_size")) are fetched when a dump is analysed"
