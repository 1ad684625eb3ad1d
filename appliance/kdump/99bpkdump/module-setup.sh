#!/bin/bash
# dracut module: the appliance's capture step, run in the crash kernel.
# In the manner of Fedora's 99kdumpbase, but it never mounts a root: the dump
# leaves through virtio-serial ports (see bpk-capture.sh). It brings its own
# /init (bpk-init.sh, busybox sh) instead of dracut's 99base, whose shell
# init and udev cost 2.7 s under TCG and most of the image (see bpk-init.sh).

check() {
    # Only when asked for by name (-m/--add): never on a host's own initramfs.
    return 255
}

depends() {
    return 0
}

install() {
    inst_multiple makedumpfile vmcore-dmesg
    # busybox-static runs /init and the capture step (sh, mount, sleep,
    # sync): no dynamic loading per process (see bpk-init.sh)
    inst /bin/busybox /usr/bin/busybox
    local applet
    for applet in sh mount sleep sync; do
        ln_r /usr/bin/busybox "/usr/bin/$applet"
    done
    # modprobe loads the drivers of a kernel built with modules (mkkdump.sh --drivers)
    [ "${no_kernel:-no}" = yes ] || inst_multiple modprobe
    # shellcheck disable=SC2154 # dracut sets moddir
    inst_script "$moddir/bpk-init.sh" /init
    inst_simple "$moddir/bpk-capture.sh" /usr/lib/bpk/bpk-capture.sh
    # the guest's protocol library, shared with the root image, at the same
    # path: appliance/guest/bpk-lib.sh, two levels up from this module's
    # real directory (mkkdump.sh links it into dracut's base dir). Without
    # it the capture step cannot run: stop dracut (it ignores what
    # install() returns).
    local lib
    lib=$(readlink -f "$moddir")
    lib=${lib%/*/*}/guest/bpk-lib.sh
    [[ -r $lib ]] || {
        dfatal "99bpkdump: $lib: not found (the guest protocol library)"
        exit 1
    }
    inst_simple "$lib" /usr/lib/bpk/bpk-lib.sh
    inst_simple "${BPK_KDUMP_CONF:?BPK_KDUMP_CONF names the capture config}" /etc/bpk-kdump.conf
    # the mount points bpk-init.sh mounts on
    # shellcheck disable=SC2154 # dracut sets initdir
    mkdir -p "$initdir/proc" "$initdir/sys" "$initdir/dev"
}
