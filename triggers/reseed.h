/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest restored from a snapshot starts with the random state the
 * snapshot was saved with: every restore would draw the same numbers until
 * the kernel's generator happens to reseed. The host sends fresh bytes with
 * each restore; they are credited to the input pool and the generator is
 * reseeded from it at once.
 */
#ifndef TRIGGERS_RESEED_H
#define TRIGGERS_RESEED_H

#include <stddef.h>

/* Mix @hex (the host's bytes, 16 to 512 hex digits) into the kernel's
 * input pool, credited, then reseed the generator. 0, or -1 with the
 * reason in @err.
 */
int reseed_from_hex(const char *hex, char *err, size_t errlen);

/* Set the wall clock to @epoch (decimal seconds since 1970, the host's):
 * a restored guest's clock is the snapshot's. 0, or -1 with the reason.
 */
int clock_from_host(const char *epoch, char *err, size_t errlen);

#endif
