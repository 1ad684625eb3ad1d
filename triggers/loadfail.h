/* SPDX-License-Identifier: GPL-2.0 */
/* Why a BPF object did not load on this kernel, from libbpf's log. */
#ifndef BPK_LOADFAIL_H
#define BPK_LOADFAIL_H

#include <stddef.h>

/*
 * Name what this kernel lacks, when libbpf's log (@log, its warnings and the
 * verifier log it prints on failure) says a CO-RE relocation could not be
 * resolved (a struct field or type: "struct task_struct.cgroups") or a
 * kernel function (kfunc) is not in the kernel's BTF. Writes one phrase to
 * @buf and returns 1; returns 0 when the log says neither.
 */
int load_failure_reason(const char *log, char *buf, size_t len);

#endif
