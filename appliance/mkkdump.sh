#!/usr/bin/env bash
# Build the kdump (capture) initramfs with dracut from our module 99bpkdump.
#
#   mkkdump.sh OUT.img [MAKEDUMPFILE_OPTS] [--kver KVER --kmoddir DIR --drivers "MOD ..."]
#
# dracut only looks for modules under its base dir, so it runs on a private
# base dir: links to the system's dracut files, plus our module. No kernel
# modules go in (--no-kernel): the appliance kernel has everything built in.
# A kernel whose drivers are modules (Debian's, --kernel debian) names them
# with --drivers: dracut installs them and what they depend on from --kmoddir
# (a .../lib/modules/KVER tree), and the capture step loads them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

out=${1:?usage: mkkdump.sh OUT.img [MAKEDUMPFILE_OPTS] [--kver KVER --kmoddir DIR --drivers "MOD ..."]}
opts=${2:--d 31}
# a kernel with modular drivers (Debian's)
kernel_args=(--no-kernel) drivers=''
if (($# > 2)); then
	shift 2
	kver='' kmoddir=''
	while (($#)); do
		case $1 in
		--kver) kver=${2:?--kver needs a kernel release} && shift ;;
		--kmoddir) kmoddir=${2:?--kmoddir needs a directory} && shift ;;
		--drivers) drivers=${2:?--drivers needs module names} && shift ;;
		*) bad_input "unknown argument '$1'" ;;
		esac
		shift
	done
	[[ -n $kver && -n $drivers ]] || bad_input "--kver and --drivers go together"
	[[ -r $kmoddir/modules.dep ]] || bad_input "$kmoddir: no modules.dep (a depmod'ed lib/modules/$kver tree)"
	kernel_args=(--kver "$kver" --kmoddir "$kmoddir" --add-drivers "$drivers")
fi
sysbase=/usr/lib/dracut
need_cmd dracut dracut-core
need_cmd makedumpfile makedumpfile

# makedumpfile tells the kinds of pages apart by the page flags of the
# kernels it knows; Debian 12's 1.7.2 knows them up to 6.1. On a newer
# kernel (6.10 moved PG_slab into page_type) its exclusion of free, cache
# and user pages drops pages the kernel uses: crash and drgn then meet
# "Excluded page" in slab objects. There, only zero pages are excluded
# (-d 1), and the dump is larger (94 MB against 36 MB on a 1 GiB 6.12
# guest).
md_version=$(dpkg-query -W -f '${Version}' makedumpfile 2>/dev/null || true)
case $md_version in
*:1.7.2-* | 1.7.2-*) md_knows=6.1 ;;
*) md_knows= ;;
esac
if [[ -n ${kver:-} && -n $md_knows && $opts =~ -d\ ?[0-9]+ ]]; then
	newest=$(printf '%s\n%s\n' "$md_knows" "${kver%%[-+]*}" | sort -V | tail -1)
	if [[ $newest != "$md_knows" && ${kver%%[-+]*} != "$md_knows".* ]]; then
		opts=$(sed -E 's/-d ?[0-9]+/-d 1/' <<<"$opts")
		# Unfiltered, most of the guest's memory goes out: lzo keeps the
		# dump of an idle 1 GiB guest to 241 MiB (the disk, and the
		# host's reading, with it); uncompressed it was not measured
		[[ " $opts " =~ \ -[clpz]\  ]] || opts="-l $opts"
		say "makedumpfile $md_version knows kernels up to $md_knows, not $kver: only zero pages are excluded (makedumpfile $opts)"
	fi
fi
need_cmd vmcore-dmesg kexec-tools
need_cmd busybox busybox-static
[[ -d $sysbase/modules.d/99base ]] || die "$sysbase: no dracut modules (install dracut-core)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
base=$work/dracut
mkdir -p "$base/modules.d"
for f in "$sysbase"/*; do
	[[ ${f##*/} == modules.d ]] || ln -s "$f" "$base/${f##*/}"
done
for m in "$sysbase"/modules.d/*; do ln -s "$m" "$base/modules.d/${m##*/}"; done
ln -s "$here/kdump/99bpkdump" "$base/modules.d/99bpkdump"
# The capture step sources this file (busybox sh): each value in single
# quotes, a quote in it as '\'', so it comes back verbatim, whatever quotes
# or $(...) it holds (POSIX quoting: bash's %q can write $'...').
sq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
	echo "MAKEDUMPFILE_OPTS=$(sq "$opts")"
	echo "BPK_MODULES=$(sq "$drivers")"
} >"$work/bpk-kdump.conf"
mkdir -p "$work/none"

mkdir -p "$(dirname "$out")"
step "dracut kdump initramfs"
dracutbasedir=$base BPK_KDUMP_CONF=$work/bpk-kdump.conf \
	dracut --quiet --force "${kernel_args[@]}" --no-hostonly --no-early-microcode \
	--conf /dev/null --confdir "$work/none" --tmpdir "$work" \
	-m "bpkdump" --no-compress "$out.tmp" >"$work/dracut.log" 2>&1 ||
	{ tail -20 "$work/dracut.log" >&2; die "dracut failed"; }
# dracut writes 0600; the image is a build product like the root
# initramfs, read by whoever runs bpk (and holds no secret)
chmod 644 "$out.tmp"
mv "$out.tmp" "$out"
step_done "$out, $(($(stat -c %s "$out") / 1024)) KiB, makedumpfile $opts${drivers:+, modules $drivers}"
