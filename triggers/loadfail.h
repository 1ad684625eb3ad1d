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

/*
 * What the verifier said when it refused a program, from libbpf's log
 * (the last "-- BEGIN PROG LOAD LOG --" block): the program's name into
 * @prog, the last source line the verifier printed ("; if (x)", from the
 * program's BTF line info) into @src ("" when none), and the error: the
 * first line after the last instruction it checked, into @why. 1, or 0
 * when the log has no verifier log.
 */
int verifier_rejection(const char *log, char *prog, size_t plen, char *src,
		       size_t slen, char *why, size_t wlen);

/*
 * Where source line @text of the program in ELF section @sec is: the file
 * and line of the BTF line info record (.BTF.ext) with that text, in the
 * BPF object @elf of @size bytes. 1 with @file and *@line, 0 when there
 * is none.
 */
int source_line_of(const void *elf, size_t size, const char *sec,
		   const char *text, char *file, size_t flen,
		   unsigned int *line);

#endif
