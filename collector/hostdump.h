/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's dump of a guest (QMP dump-guest-memory) made a vmcore like
 * kdump's: kdump-compressed, read by crash and drgn alike.
 *
 * QEMU 7.2 writes its kdump-zlib form only as makedumpfile's flattened
 * stream (it may write into a pipe), which makedumpfile -R rearranges, as
 * the guest's own dump stream is. And it leaves the header's utsname empty
 * but for the machine: crash reads the kernel's utsname from the dump's
 * memory, but libkdumpfile (drgn's reader) takes a header whose sysname,
 * release or version is empty for no header at all and then knows no
 * architecture. The booted kernel image names both (its setup header's
 * version string), so the host fills them in from there.
 */
#ifndef BPK_HOSTDUMP_H
#define BPK_HOSTDUMP_H

#include <stddef.h>
#include <stdint.h>

/* utsname's field size in a kdump header (__NEW_UTS_LEN + 1) */
#define UTS_FIELD 65

/* makedumpfile -R @out < @flat, its output discarded: its exit status,
 * -1 if it could not be run. @out is made readable by its owner only.
 */
int flat_rebuild(const char *flat, const char *out);

/*
 * The release and the version (uname -r, uname -v) of the x86 kernel image
 * @image, from its setup header's version string ("RELEASE (BUILDER)
 * VERSION"). 0, or -1 with a one-line reason naming @image in @why.
 */
int bzimage_uts(const char *image, char release[UTS_FIELD],
		char version[UTS_FIELD], char *why, size_t whylen);

/*
 * Fill the empty sysname ("Linux"), release and version of the utsname in
 * the header of the kdump-compressed file @path. Fields that are set are
 * left alone. 0, or -1 with @why (not a kdump-compressed file, I/O).
 */
int kdump_fill_uts(const char *path, const char *release, const char *version,
		   char *why, size_t whylen);

/*
 * The host's dump, QEMU's flattened kdump-zlib stream @flat, made the
 * vmcore @out: the stream checked whole and bounded by the guest's memory
 * @max_mem (0: none; kdump's page descriptors and bitmaps are allowed on
 * top), rearranged, then its utsname filled from @image; @flat is removed
 * once @out is made. 0: @out is a complete vmcore; 1: it is, but its
 * utsname could not be filled (drgn will not open it; crash will), said in
 * @why; -1: no vmcore (@out removed, @flat kept), the reason in @why.
 */
int host_dump_finish(const char *flat, const char *out, uint64_t max_mem,
		     const char *image, char *why, size_t whylen);

#endif
