#!/usr/bin/env bash
# Build the appliance kernel: Debian's linux-source-6.1 + our series + the
# appliance config fragment, outside the git clone, cached by input hash.
#
#   build-kernel.sh LINK
#
# LINK becomes a symlink to the cache entry, which holds bzImage, vmlinux,
# config, build.log, the patched tree (src/) and the object dir (obj/).
# An entry is only complete when its "ok" file exists; a failed or
# interrupted build leaves no "ok" and is redone from scratch.
#
# Environment: BPK_CACHE (default $XDG_CACHE_HOME/bpf-panic-kdump, else
# ~/.cache/bpf-panic-kdump), KSRC_TARBALL (default
# /usr/src/linux-source-6.1.tar.xz), JOBS (default nproc + 1).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

# Bump when the way the kernel is built changes (make targets, base config),
# so that cache entries of another recipe are not reused.
RECIPE=2

link=${1:?usage: build-kernel.sh LINK}
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}
tarball=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
jobs=${JOBS:-$(($(nproc) + 1))}
series_dir=$here
fragment=$here/appliance.config

[[ -r $tarball ]] || die "$tarball: not readable (install Debian package linux-source-6.1)"
[[ -r $series_dir/series ]] || die "$series_dir/series: missing"
[[ -r $fragment ]] || die "$fragment: missing"

# shellcheck disable=SC1091
made_on_pkg=$(sed -n 's/^package=//p' "$series_dir/source-version")
made_on_ver=$(sed -n 's/^kernelversion=//p' "$series_dir/source-version")
[[ -n $made_on_pkg && -n $made_on_ver ]] || die "$series_dir/source-version: no package= or kernelversion= line"

# The source version as Debian reports it, or the tarball itself when it was
# not installed by dpkg (a user pointing KSRC_TARBALL elsewhere).
if [[ $tarball == /usr/src/linux-source-6.1.tar.xz ]] &&
	src_pkg=$(dpkg-query -W -f '${Package} ${Version}' linux-source-6.1 2>/dev/null); then
	:
else
	src_pkg="tarball $(sha256sum "$tarball" | cut -c1-16)"
fi

mapfile -t patches < <(grep -v '^\s*\(#\|$\)' "$series_dir/series")
((${#patches[@]} > 0)) || die "$series_dir/series: lists no patches"

key=$({
	echo "recipe=$RECIPE"
	echo "source=$src_pkg"
	for p in "${patches[@]}"; do
		[[ -r $series_dir/$p ]] || die "$series_dir/series names $p, which does not exist"
		# only what the compiler sees: a reworded commit message or a new
		# changelog below "---" does not rebuild the kernel
		echo "patch=$p $(sed -n '/^diff --git /,$p' "$series_dir/$p" | grep -v '^index ' | sha256sum | cut -d' ' -f1)"
	done
	echo "config=$(sha256sum <"$fragment" | cut -d' ' -f1)"
} | sha256sum | cut -c1-16)
entry=$cache/kernel/$key

link_entry() {
	mkdir -p "$(dirname "$link")"
	ln -sfn "$entry" "$link"
}

cached() {
	[[ -e $entry/ok ]] || return 1
	link_entry
	say "kernel $key cached ($src_pkg + ${#patches[@]} patches): $entry"
}
cached && exit 0

# One build per entry at a time: another clone (or a parallel make) building
# the same key would otherwise wipe this one's tree half way. The second
# waits and then uses the first one's result.
mkdir -p "$cache/kernel"
need_cmd flock util-linux
exec {lock}>"$cache/kernel/$key.lock"
if ! flock -n "$lock"; then
	say "kernel $key is being built by another process; waiting for it ($cache/kernel/$key.lock)"
	flock "$lock"
fi
cached && exit 0

say "building kernel $key: $src_pkg + ${#patches[@]} patches + $(basename "$fragment")"
t_all=$(now_ms)
rm -rf "$entry"
mkdir -p "$entry"
src=$entry/src
obj=$entry/obj

step unpack
mkdir -p "$src"
tar -xf "$tarball" -C "$src" --strip-components=1
step_done "$tarball"

kver=$(make -s -C "$src" kernelversion 2>/dev/null) || die "$src: cannot read the kernel version"

step patch
if [[ $kver != "$made_on_ver" ]]; then
	say "note: the series was made on $made_on_ver ($made_on_pkg); this source is $kver ($src_pkg)"
fi
for p in "${patches[@]}"; do
	if ! patch -d "$src" -p1 --batch --forward --no-backup-if-mismatch -s --dry-run <"$series_dir/$p" >"$entry/patch.log" 2>&1; then
		cat "$entry/patch.log" >&2
		die "$p does not apply to linux $kver ($src_pkg); the series was made on $made_on_ver ($made_on_pkg)"
	fi
	patch -d "$src" -p1 --batch --forward --no-backup-if-mismatch -s <"$series_dir/$p"
done
step_done "${#patches[@]} patches"

step config
mkdir -p "$obj"
make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig >"$entry/config.log" 2>&1 ||
	{ tail -20 "$entry/config.log" >&2; die "make tinyconfig failed (log: $entry/config.log)"; }
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" >>"$entry/config.log" 2>&1 ||
	{ tail -20 "$entry/config.log" >&2; die "merging $fragment failed (log: $entry/config.log)"; }
make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >>"$entry/config.log" 2>&1 ||
	{ tail -20 "$entry/config.log" >&2; die "make olddefconfig failed (log: $entry/config.log)"; }
# Kconfig silently drops an option whose dependencies are not met: catch it.
dropped=0
fragment_name=${fragment##*/}
while IFS= read -r line; do
	case $line in '' | '#'*) continue ;; esac
	if ! grep -qxF "$line" "$obj/.config"; then
		say "config: $line was requested by $fragment_name but Kconfig did not keep it"
		dropped=1
	fi
done <"$fragment"
((dropped == 0)) || die "the config fragment does not hold on this tree (see above)"
cp "$obj/.config" "$entry/config"
step_done "$(grep -c '=y$' "$obj/.config") options =y"

step compile
say "make -j$jobs bzImage (log: $entry/build.log)"
make -C "$src" O="$obj" ARCH=x86_64 -j"$jobs" bzImage >"$entry/build.log" 2>&1 &
make_pid=$!
t0=$(now_ms)
while kill -0 "$make_pid" 2>/dev/null; do
	sleep 30
	kill -0 "$make_pid" 2>/dev/null || break
	say "[compile] $(fmt_ms $(($(now_ms) - t0))): $(grep -c '^  CC ' "$entry/build.log" || true) objects compiled"
done
if ! wait "$make_pid"; then
	grep -E 'error|Error' "$entry/build.log" | head -20 >&2 || true
	die "kernel build failed (log: $entry/build.log)"
fi
step_done "$(grep -c '^  CC ' "$entry/build.log" || true) objects"

ln -sfn obj/arch/x86/boot/bzImage "$entry/bzImage"
ln -sfn obj/vmlinux "$entry/vmlinux"
[[ -s $entry/bzImage && -s $entry/vmlinux ]] || die "build finished but bzImage or vmlinux is missing in $obj"
{
	echo "key=$key"
	echo "source=$src_pkg"
	echo "kernelversion=$kver"
	echo "patches=${#patches[@]}"
	echo "build_seconds=$((($(now_ms) - t_all) / 1000))"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$entry/ok.tmp"
mv "$entry/ok.tmp" "$entry/ok"
link_entry
say "kernel $key built in $(fmt_ms $(($(now_ms) - t_all))): $entry"
