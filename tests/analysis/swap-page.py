#!/usr/bin/env python3
"""swap-page.py VMCORE VMLINUX SYMBOL OUT: a copy of a kdump-compressed
VMCORE in which the page holding SYMBOL reads as the next dumped page.

Why: the analysis tests need a dump crash cannot open while drgn can. crash
checks at startup that linux_banner in the dump's memory equals the
vmlinux's ("vmlinux and vmcore do not match"); drgn never reads it. Pointing
that one page's descriptor at its neighbour's data breaks exactly that check,
wherever physical KASLR put the kernel, which a cut of the file at a fixed
fraction does not (the pages drgn needs can sit at the end of the file).

The page is found from the dump itself: the symbol's address in VMLINUX, plus
KERNELOFFSET and phys_base from the dump's VMCOREINFO, gives its physical
address; bitmap 2 (pages dumped) gives its descriptor's index. Layout from
makedumpfile's diskdump_mod.h (header version 6, 64-bit).
Exit 0 with a line naming the page; 1 with a one-line error.
"""
import re
import struct
import subprocess
import sys

START_KERNEL_MAP = 0xFFFFFFFF80000000
DESC_SIZE = 24  # struct page_desc: off_t offset; u32 size, flags; u64 page_flags


def die(msg):
    print(f"swap-page.py: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 5:
        die("usage: swap-page.py VMCORE VMLINUX SYMBOL OUT")
    vmcore, vmlinux, symbol, out = sys.argv[1:]
    try:
        data = bytearray(open(vmcore, "rb").read())
    except OSError as e:
        die(f"{vmcore}: {e.strerror}")
    if data[:8] != b"KDUMP   ":
        die(f"{vmcore}: not a kdump-compressed dump (signature {bytes(data[:8])!r})")
    # disk_dump_header: signature[8], header_version, new_utsname (6 x 65),
    # timeval (aligned to 8), then status, block_size, sub_hdr_size, bitmap_blocks
    version = struct.unpack_from("<i", data, 8)[0]
    block_size, sub_hdr_size, bitmap_blocks = struct.unpack_from("<iiI", data, 428)
    if version < 6 or block_size != 4096:
        die(f"{vmcore}: header version {version}, block size {block_size}: expected >= 6 and 4096")

    # VMCOREINFO sits in the sub header's blocks; NUMBER()s are signed
    # decimal (phys_base is negative on Debian's kernel), KERNELOFFSET hex
    info = dict(re.findall(rb"\n?([A-Z][A-Za-z_()]*)=(-?[0-9a-fA-Fx]+)\n", bytes(data[:(1 + sub_hdr_size) * block_size])))
    try:
        koff = int(info[b"KERNELOFFSET"], 16)
        phys_base = int(info[b"NUMBER(phys_base)"], 0)
    except KeyError as e:
        die(f"{vmcore}: VMCOREINFO has no {e.args[0].decode()}")

    nm = subprocess.run(["nm", vmlinux], capture_output=True, text=True)
    if nm.returncode != 0:
        die(f"nm {vmlinux}: {nm.stderr.strip() or 'exit %d' % nm.returncode}")
    addr = next((int(a, 16) for a, _, s in (l.split(None, 2) for l in nm.stdout.splitlines() if l.count(" ") == 2) if s == symbol), None)
    if addr is None:
        die(f"{vmlinux}: no symbol {symbol}")
    pfn = (addr + koff - START_KERNEL_MAP + phys_base) // block_size

    bitmap_off = (1 + sub_hdr_size) * block_size
    half = bitmap_blocks * block_size // 2
    dumped = data[bitmap_off + half:bitmap_off + 2 * half]  # bitmap 2
    if pfn // 8 >= len(dumped) or not dumped[pfn // 8] >> (pfn % 8) & 1:
        die(f"{vmcore}: pfn {pfn:#x} of {symbol} is not in the dump")
    index = sum(bin(b).count("1") for b in dumped[:pfn // 8]) + bin(dumped[pfn // 8] & ((1 << (pfn % 8)) - 1)).count("1")
    total = sum(bin(b).count("1") for b in dumped)
    if index + 1 >= total:
        die(f"{vmcore}: pfn {pfn:#x} is the last dumped page, no neighbour to swap in")
    desc = bitmap_off + 2 * half + index * DESC_SIZE
    data[desc:desc + DESC_SIZE] = data[desc + DESC_SIZE:desc + 2 * DESC_SIZE]
    try:
        with open(out, "wb") as f:
            f.write(data)
    except OSError as e:
        die(f"{out}: {e.strerror}")
    print(f"{symbol} at pfn {pfn:#x} (descriptor {index} of {total}) now reads as the next dumped page")


main()
