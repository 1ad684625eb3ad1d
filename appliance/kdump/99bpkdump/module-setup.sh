#!/bin/bash
# dracut module: the appliance's capture step, run in the crash kernel.
# In the manner of Fedora's 99kdumpbase, but it never mounts a root: the dump
# leaves through virtio-serial ports (see bpk-capture.sh).

check() {
    # Only when asked for by name (-m/--add): never on a host's own initramfs.
    return 255
}

depends() {
    echo bash base
}

install() {
    inst_multiple makedumpfile vmcore-dmesg sync cat
    # modprobe loads the drivers of a kernel built with modules (mkkdump.sh --drivers)
    [ "${no_kernel:-yes}" = yes ] || inst_multiple modprobe sleep
    # shellcheck disable=SC2154 # dracut sets moddir
    inst_hook cmdline 00 "$moddir/bpk-capture.sh"
    inst_simple "${BPK_KDUMP_CONF:?BPK_KDUMP_CONF names the capture config}" /etc/bpk-kdump.conf
}
