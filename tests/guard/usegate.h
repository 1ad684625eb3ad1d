/* SPDX-License-Identifier: GPL-2.0 */
/* The fd is not the key: CAP_SYS_BOOT at each use of a destructive program. */
#ifndef GUARD_USEGATE_H
#define GUARD_USEGATE_H

#include <stddef.h>

void check_use_gates(int msg_fd, char *log, size_t log_size);

#endif
