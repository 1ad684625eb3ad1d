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
    inst_simple "${BPK_KDUMP_CONF:?BPK_KDUMP_CONF names the capture config}" /etc/bpk-kdump.conf
    # the mount points bpk-init.sh mounts on
    # shellcheck disable=SC2154 # dracut sets initdir
    mkdir -p "$initdir/proc" "$initdir/sys" "$initdir/dev"
}
