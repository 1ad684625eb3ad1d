/* SPDX-License-Identifier: GPL-2.0 */
/* Does this kernel have tracefs event category:name? (tp= of tracepoint) */
#ifndef BPK_TRACEFS_H
#define BPK_TRACEFS_H

#include <stddef.h>

/*
 * Check @cat:@name against tracefs' events/ directory, the kernel's own
 * list: 0, or -1 with a reason in @err naming what is missing (the
 * category, the event, or tracefs itself).
 */
int tracefs_event_check(const char *cat, const char *name, char *err,
			size_t errlen);

#endif
