/* SPDX-License-Identifier: GPL-2.0 */
/* An administrator can find armed programs: fdinfo and the kernel log. */
#ifndef GUARD_VISIBLE_H
#define GUARD_VISIBLE_H

#include <stddef.h>

/*
 * l.fdinfo_destructive: a program loaded with BPF_F_DESTRUCTIVE shows
 * "destructive: 1" in its fdinfo, one loaded without it "destructive: 0";
 * m.load_warning: the kernel log names the loading task and the program.
 * Uses the bpf_panic() message map @msg_fd; the verifier log goes to @log.
 */
void check_visible(int msg_fd, char *log, size_t log_size);

/* The value of "KEY:\t..." in FD's fdinfo, or "" */
const char *fdinfo_value(int fd, const char *key);

#endif
