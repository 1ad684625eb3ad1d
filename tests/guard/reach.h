/* SPDX-License-Identifier: GPL-2.0 */
/* Destructive calls reached around the flag: extensions, iterators, kfuncs. */
#ifndef GUARD_REACH_H
#define GUARD_REACH_H

#include <stddef.h>

/* n.*, o.*, p.*: see reach.c. The switch is on when it is called and when
 * it returns; @msg_fd is the bpf_panic() message map.
 */
void check_reach(int msg_fd, char *log, size_t log_size);

#endif
