/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One value kept in bpffs: a one-entry array map pinned at a path, so that
 * what arming decided (its arguments, a sysctl's old value) outlives
 * triggerctl and is found by the next one (status, disarm, rearm).
 */
#ifndef BPK_PINNED_H
#define BPK_PINNED_H

#include <stddef.h>

/* Pin @size bytes of @val at @pin, in a map named @name: 0 or -errno. */
int pinned_value_save(const char *pin, const char *name, const void *val,
		      size_t size);

/* Read the value pinned at @pin into @val (the map's value size): 0 or
 * -errno (-ENOENT: nothing pinned there).
 */
int pinned_value_load(const char *pin, void *val);

#endif
