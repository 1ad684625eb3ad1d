# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # globals shared with run.sh, which sources this
# Field-bug runs (issue 11), the host side, sourced by run.sh:
#
# field_kernel FLAVOR  ours | debian: which kernel the guest boots. Sets
#   kernel (the directory with vmlinux), kernel_image, root_img, the default
#   crashkernel, field_preinit (1: boot with rdinit=/etc/bpk/preinit) and
#   field_meta (collector --meta arguments).
# field_hostfs MODE WORKLOAD STAGE-DIR: whether the workload runs in the
#   host's user space (MODE auto | on | off | command; auto: a dynamically linked
#   program or a script for another interpreter than /bin/sh), and if so
#   adds to STAGE-DIR (the run's initramfs piece) the host view's skeleton
#   and its share list, and to qemu_args the 9p shares. Shares come from
#   field_shares (read-only) and field_share_rw (the one writable one).
#
# Nothing in the guest can write to the host through these shares but
# field_share_rw: every other share is exported with QEMU's readonly=on,
# which refuses writes in QEMU itself, whatever the guest kernel does.

field_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The crashkernel= reservation for Debian's kernel. Measured with a 1 GiB
# guest: 112M dumps; 96M and 80M do not (the capture kernel dies "System is
# deadlocked on memory" while unpacking its initramfs). Its kernel needs
# 63 MiB to decompress and run in place (init_size; ours: 25), its dracut
# image with modules and kmod is 5.1 MiB packed, 11.8 unpacked. 256M: over
# twice the need, as 192M is for ours (whose need is 48M).
DEBIAN_CRASHKERNEL=256M

field_kernel() {
	field_flavor=$1
	field_preinit=0 field_meta=()
	case $field_flavor in
	ours)
		kernel=$build/kernel
		kernel_image=$kernel/bzImage
		[[ -r $kernel_image ]] || bad_input "$kernel_image: kernel not built (make kernel)"
		;;
	debian)
		kernel=$build/debian-kernel
		kernel_image=$kernel/vmlinuz
		root_img=${BPK_ROOT_IMG:-$build/appliance/debian/root.cpio.gz}
		[[ -r $kernel/ok && -r $kernel_image && -r $kernel/vmlinux ]] ||
			bad_input "$kernel: Debian kernel not fetched (make debian-kernel)"
		[[ -r $root_img ]] || bad_input "$root_img: Debian guest image not built (make debian-appliance)"
		[[ -n ${crashkernel_given:-} ]] || crashkernel=$DEBIAN_CRASHKERNEL
		# its drivers are modules: the preinit loads them before /init
		field_preinit=1
		field_meta=(--meta "kernel_package=$(sed -n 's/^package=//p' "$kernel/ok") $(sed -n 's/^version=//p' "$kernel/ok")"
			--meta "kernel_release=$(sed -n 's/^kver=//p' "$kernel/ok")")
		;;
	*) bad_input "--kernel '$field_flavor' must be ours or debian" ;;
	esac
	field_meta+=(--meta "kernel_flavor=$field_flavor")
}

# field_needs_host FILE: prints why FILE needs the host's user space
field_needs_host() {
	local f=$1 interp
	if [[ $(head -c 4 "$f" | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; then
		readelf -l "$f" 2>/dev/null | grep -q 'program interpreter' || return 1
		echo "a dynamically linked program"
		return 0
	fi
	[[ $(head -c 2 "$f") == '#!' ]] || return 1
	read -r interp _ < <(head -1 "$f" | cut -c3-)
	[[ $interp != /bin/sh ]] || return 1
	echo "a script for $interp"
}

# The /etc files a host program commonly needs, copied (not shared: the
# rest of the host's /etc, its secrets included, stays out of the guest).
FIELD_ETC=(alternatives ld.so.cache ld.so.conf ld.so.conf.d passwd group nsswitch.conf
	localtime timezone os-release debian_version host.conf hosts mime.types
	python3 "python3.*" bash.bashrc profile environment)

field_hostfs() {
	local mode=$1 workload=$2 wl=$3 why='' p n=0 tag
	case $mode in
	on) why="asked for (--host-fs on)" ;;
	command) why="a command line given after -- (the host's programs, as vng runs them)" ;; # issue 12
	off) ;;
	auto) why=$(field_needs_host "$workload") || why='' ;;
	*) bad_input "--host-fs '$mode' must be auto, on or off" ;;
	esac
	if [[ -z $why ]] && ((${#field_shares[@]} + ${#field_share_rw})); then
		[[ $mode != off ]] || bad_input "--share/--share-rw need the host view: not with --host-fs off"
		why="shares were given"
	fi
	if [[ -z $why ]]; then
		field_meta+=(--meta "host_fs=off")
		return 0
	fi
	say "the workload runs in the host's user space ($why): the host's /usr over virtio 9p, read-only"
	mkdir -p "$wl/host/etc" "$wl/etc/bpk"
	cp "$field_here/guest/preinit" "$wl/etc/bpk/preinit"
	chmod 755 "$wl/etc/bpk/preinit"
	# TAG MODE PATH lines, in mount order: /usr first, shares after it
	echo "hostusr ro /usr" >"$wl/etc/bpk/hostfs"
	qemu_args+=(-virtfs "local,path=/usr,mount_tag=hostusr,security_model=none,readonly=on")
	# /bin, /sbin, /lib*: symlinks into /usr as on the host (merged /usr), or
	# shares of their own on a host that still has them as directories
	for p in /bin /sbin /lib /lib32 /lib64 /libx32; do
		if [[ -L $p ]]; then
			ln -s "$(readlink "$p")" "$wl/host$p"
		elif [[ -d $p ]]; then
			tag=host${p#/}
			echo "$tag ro $p" >>"$wl/etc/bpk/hostfs"
			qemu_args+=(-virtfs "local,path=$p,mount_tag=$tag,security_model=none,readonly=on")
		fi
	done
	(cd /etc && for p in "${FIELD_ETC[@]}"; do
		# shellcheck disable=SC2086 # python3.* is a pattern
		for e in $p; do
			[[ -e $e || -L $e ]] && cp -a --parents "$e" "$wl/host/etc/"
		done
	done)
	ln -sfn /proc/self/mounts "$wl/host/etc/mtab"
	for p in "${field_shares[@]}" ${field_share_rw:+"$field_share_rw"}; do
		tag=bpkshare$n
		n=$((n + 1))
		if [[ $p == "$field_share_rw" ]]; then
			# mapped-xattr: the guest's owners and modes are kept in xattrs,
			# never applied to the host's files (no setuid file can appear)
			echo "$tag rw $p" >>"$wl/etc/bpk/hostfs"
			qemu_args+=(-virtfs "local,path=$p,mount_tag=$tag,security_model=mapped-xattr")
		else
			echo "$tag ro $p" >>"$wl/etc/bpk/hostfs"
			qemu_args+=(-virtfs "local,path=$p,mount_tag=$tag,security_model=none,readonly=on")
		fi
	done
	field_preinit=1
	field_meta+=(--meta "host_fs=on: $why" --meta "shares_ro=${field_shares[*]}" --meta "share_rw=$field_share_rw")
}

# field_resolve_shares: field_shares and field_share_rw as absolute paths,
# each a directory that can be shared, none twice
field_resolve_shares() {
	local i d seen=' '
	for i in "${!field_shares[@]}"; do
		d=$(field_share "${field_shares[i]}")
		[[ $seen != *" $d "* ]] || bad_input "share '$d' given twice"
		seen+="$d " field_shares[i]=$d
	done
	[[ -n $field_share_rw ]] || return 0
	d=$(field_share "$field_share_rw")
	[[ $seen != *" $d "* ]] || bad_input "share '$d' given both read-only and writable"
	field_share_rw=$d
}

# field_share DIR: the absolute path of a directory that can be shared
field_share() {
	local d
	d=$(realpath -e -- "$1" 2>/dev/null) || bad_input "share '$1': no such directory"
	[[ -d $d ]] || bad_input "share '$1': not a directory"
	[[ $d != *[[:space:]]* ]] || bad_input "share '$d': a path with white space cannot be shared"
	[[ $d != *,* ]] || bad_input "share '$d': a path with a comma cannot be shared (QEMU's option syntax)"
	case $d in
	/ | /proc | /proc/* | /sys | /sys/* | /dev | /dev/* | /usr)
		bad_input "share '$d': not a directory that can be shared (/, /usr, /proc, /sys, /dev)"
		;;
	esac
	echo "$d"
}
