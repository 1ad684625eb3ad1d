/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-assembled BPF programs for the guard tests. They are built from raw
 * instructions, not compiled, so that each test controls exactly which call
 * the verifier sees and which program type and flags it is loaded with.
 */
#ifndef GUARD_PROGS_H
#define GUARD_PROGS_H

#include <stddef.h>
#include <linux/bpf.h>

#define VLOG_SIZE (256 * 1024)

/* Where a program is to be loaded: its type and, for BTF-attached tracing
 * programs, the kernel function or tracepoint it attaches to.
 */
struct prog_kind {
	const char *name;
	enum bpf_prog_type type;
	enum bpf_attach_type attach_type;
	const char *attach_to; /* NULL when the type needs no attach target */
	unsigned int flags; /* prog_flags the type needs (BPF_F_SLEEPABLE) */
};

/* A frozen, program-read-only array map holding @msg: what bpf_panic()
 * accepts as a constant string. Returns the map fd or -errno.
 */
int msg_map_create(const char *msg);

/* The first line of verifier log @log that contains @needle, or "". In a
 * static buffer: the next call overwrites it.
 */
const char *log_line(const char *log, const char *needle);

/* Why a load was refused: the verifier's last line in @log before its
 * "processed N insns" statistics, or "". Same buffer as log_line().
 */
const char *log_reason(const char *log);

/* Load "r1 = &msg; call bpf_panic; r0 = 0; exit" as @kind with @prog_flags
 * (and the kind's own flags). Returns the program fd or -errno; the
 * verifier log is left in @log.
 */
int load_panic_prog(const struct prog_kind *kind, int msg_map_fd,
		    unsigned int prog_flags, char *log, size_t log_size);

/* Load "r1 = &msg; r0 = bpf_panic(r1); exit" as a raw_tracepoint program
 * with BPF_F_DESTRUCTIVE: BPF_PROG_TEST_RUN then returns what the helper
 * returned. Returns the program fd or -errno; log in @log.
 */
int load_panic_ret_prog(int msg_map_fd, char *log, size_t log_size);

/* Run @prog_fd once with BPF_PROG_TEST_RUN; its return value in @retval.
 * Returns 0 or -errno.
 */
int prog_test_run(int prog_fd, int *retval);

/* Load a tp_btf/sys_enter program that calls the crash_kexec kfunc with the
 * tracepoint's pt_regs. Returns the program fd or -errno; log in @log.
 */
int load_crash_kexec_prog(char *log, size_t log_size);

/* Load "r0 = 0; exit" as @kind with @prog_flags: what the flag alone is
 * worth. Returns the program fd or -errno; log in @log.
 */
int load_plain_prog(const struct prog_kind *kind, unsigned int prog_flags,
		    char *log, size_t log_size);

/* Load a raw_tracepoint program without BPF_F_DESTRUCTIVE that tail-calls
 * slot 0 of @prog_array_fd. Returns the program fd or -errno.
 */
int load_tail_call_prog(int prog_array_fd, char *log, size_t log_size);

#endif
