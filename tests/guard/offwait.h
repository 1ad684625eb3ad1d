/* SPDX-License-Identifier: GPL-2.0 */
/* Turning the switch off waits for programs that may still run. */
#ifndef GUARD_OFFWAIT_H
#define GUARD_OFFWAIT_H

#include <stddef.h>

/* q.off_waits_for_running_programs: see offwait.c. Leaves the switch on. */
void check_off_waits(char *log, size_t log_size);

#endif
