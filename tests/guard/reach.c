// SPDX-License-Identifier: GPL-2.0
/*
 * The roads to a destructive call that do not go through the flag:
 *
 *  n. an extension (BPF_PROG_TYPE_EXT) of a destructive program's global
 *     subprogram decides when that program panics: loading one, or linking
 *     one into such a program, needs CAP_SYS_BOOT;
 *  o. an iterator runs whenever its fd or pin is read: it may not call the
 *     crash_kexec kfunc;
 *  p. the do-nothing KF_DESTRUCTIVE kfunc the bpf selftests use
 *     (kfunc_call/destructive) loads as upstream has it: with CAP_SYS_BOOT,
 *     whatever the switch, and makes its caller destructive.
 *
 * Every program that could reach bpf_panic() here is disarmed first (the
 * switch to 0 and back to 1 after its load), so that a missing gate shows
 * as a bpf_panic() that returned -EPERM, not as a panicked guest.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "insns.h"
#include "privs.h"
#include "progs.h"
#include "reach.h"
#include "result.h"
#include "sysctl.h"
#include "visible.h"

#define ST_DW_IMM(dst, off, imm) \
	INSN(BPF_ST | BPF_MEM | BPF_DW, dst, 0, off, imm)

static int err_of(int fd)
{
	return fd >= 0 ? 0 : -errno;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

static int switch_cycle(void)
{
	int err = sysctl_write(DESTRUCTIVE_SYSCTL, "0");

	return err ? err : sysctl_write(DESTRUCTIVE_SYSCTL, "1");
}

/* The BTF of "int main(void)" and its global subprogram "int cond(void)",
 * which an extension replaces.
 */
struct ext_btf {
	struct btf *btf;
	struct bpf_func_info info[2];
};

static int ext_btf_make(struct ext_btf *b)
{
	int int_id, proto_id;

	memset(b, 0, sizeof(*b));
	b->btf = btf__new_empty();
	if (!b->btf)
		return -errno;
	int_id = btf__add_int(b->btf, "int", 4, BTF_INT_SIGNED);
	proto_id = btf__add_func_proto(b->btf, int_id);
	b->info[0].type_id =
		btf__add_func(b->btf, "main", BTF_FUNC_GLOBAL, proto_id);
	b->info[1].type_id =
		btf__add_func(b->btf, "cond", BTF_FUNC_GLOBAL, proto_id);
	if (int_id < 0 || proto_id < 0 || (int)b->info[0].type_id < 0 ||
	    (int)b->info[1].type_id < 0)
		return -EINVAL;
	return btf__load_into_kernel(b->btf);
}

/* A raw_tp program that returns bpf_panic(msg) when cond() returns 0, and 0
 * otherwise; its own cond() returns 1. (An extension of a raw_tp program
 * attached by BTF must return 0: that is the value that steers it.)
 */
static int load_cond_target(struct ext_btf *b, int msg_fd, unsigned int flags,
			    char *log, size_t log_size)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1, .log_buf = log,
		    .log_size = log_size, .prog_flags = flags);
	const struct bpf_insn insns[] = {
		CALL_SUBPROG(7), /* r0 = cond() */
		JNE_IMM(R0, 0, 4),
		LD_MAP_VALUE(R1, msg_fd),
		CALL_HELPER(BPF_FUNC_panic),
		EXIT_INSN(),
		MOV64_IMM(R0, 0),
		EXIT_INSN(),
		MOV64_IMM(R0, 1), /* int cond(void) */
		EXIT_INSN(),
	};
	struct bpf_func_info info[2] = { b->info[0], b->info[1] };

	info[1].insn_off = 8;
	opts.prog_btf_fd = btf__fd(b->btf);
	opts.func_info = info;
	opts.func_info_cnt = 2;
	opts.func_info_rec_size = sizeof(info[0]);
	log[0] = '\0';
	return bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "cond_target", "GPL",
			     insns, sizeof(insns) / sizeof(insns[0]), &opts);
}

/* "int cond(void) { return 0; }" as an extension of @target_fd's cond() */
static int load_cond_ext(struct ext_btf *b, int target_fd, char *log,
			 size_t log_size)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1, .log_buf = log,
		    .log_size = log_size);
	const struct bpf_insn insns[] = {
		MOV64_IMM(R0, 0),
		EXIT_INSN(),
	};
	struct bpf_func_info info = b->info[1];

	info.insn_off = 0;
	opts.prog_btf_fd = btf__fd(b->btf);
	opts.func_info = &info;
	opts.func_info_cnt = 1;
	opts.func_info_rec_size = sizeof(info);
	opts.attach_prog_fd = target_fd;
	opts.attach_btf_id = b->info[1].type_id;
	log[0] = '\0';
	return bpf_prog_load(BPF_PROG_TYPE_EXT, "cond_zero", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
}

/* Link extension @ext_fd into @target_fd's cond(): the link fd or -errno
 * (an extension's attach type is 0, its expected_attach_type)
 */
static int link_ext(struct ext_btf *b, int ext_fd, int target_fd)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts,
		    .target_btf_id = b->info[1].type_id);
	int fd = bpf_link_create(ext_fd, target_fd, 0, &opts);

	return fd >= 0 ? fd : -errno;
}

/* What the target's test run returned: 0 when cond() said no, -EPERM when
 * it reached its (disarmed) bpf_panic()
 */
static int target_retval(int target_fd, int *retval)
{
	return prog_test_run(target_fd, retval);
}

/* A raw_tp twin of the target without the flag and without bpf_panic():
 * an extension may be made for it by anyone who may load one
 */
static int load_cond_twin(struct ext_btf *b)
{
	const struct bpf_insn insns[] = {
		CALL_SUBPROG(1),
		EXIT_INSN(),
		MOV64_IMM(R0, 1), /* int cond(void) */
		EXIT_INSN(),
	};
	struct bpf_func_info info[2] = { b->info[0], b->info[1] };
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_btf_fd = btf__fd(b->btf),
		    .func_info = info, .func_info_cnt = 2,
		    .func_info_rec_size = sizeof(info[0]));

	info[1].insn_off = 2;
	return bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "cond_twin", "GPL",
			     insns, sizeof(insns) / sizeof(insns[0]), &opts);
}

static void check_extensions(int msg_fd, char *log, size_t log_size)
{
	struct ext_btf b;
	int target = -1, twin = -1, ext = -1, ext2 = -1, link = -1, link2 = -1,
	    err, ext_err, retval = 0, run_err;
	char why[256], why2[256];

	err = ext_btf_make(&b);
	if (!err) {
		target = load_cond_target(&b, msg_fd, BPF_F_DESTRUCTIVE, log,
					  log_size);
		err = err_of(target);
	}
	if (!err) {
		twin = load_cond_twin(&b);
		err = err_of(twin);
	}
	/* the target disarmed: a bpf_panic() it reaches returns -EPERM */
	if (!err)
		err = switch_cycle();
	if (!err)
		err = cap_drop_effective(CAP_SYS_BOOT);
	if (err) {
		result(0, "n.ext_setup",
		       "the extension's targets, the switch or CAP_SYS_BOOT: %s; log: %.200s",
		       strerror(-err), log);
		goto out;
	}
	/* without CAP_SYS_BOOT: an extension made for the twin, linked into
	 * the destructive program; then one made for it directly, linked
	 * (and left linked for the test run below)
	 */
	ext2 = load_cond_ext(&b, twin, log, log_size);
	snprintf(why2, sizeof(why2), "%s", log_reason(log));
	link2 = ext2 >= 0 ? link_ext(&b, ext2, target) : -errno;
	close_fd(link2);
	ext = load_cond_ext(&b, target, log, log_size);
	ext_err = err_of(ext);
	snprintf(why, sizeof(why), "%s", log_reason(log));
	if (ext >= 0)
		link = link_ext(&b, ext, target);
	if (cap_raise_effective(CAP_SYS_BOOT)) {
		fprintf(stderr, "guard: cannot raise CAP_SYS_BOOT again\n");
		_exit(2);
	}
	result(ext2 >= 0 && link2 == -EPERM, "n.ext_link_needs_cap_sys_boot",
	       "extension made for a plain twin (%s%s), linked into the destructive program without CAP_SYS_BOOT: %s (want EPERM)",
	       ext2 >= 0 ? "loaded" : "not loaded: ", ext2 >= 0 ? "" : why2,
	       link2 >= 0 ? "linked" : said(link2));
	result(ext_err == -EPERM, "n.ext_load_needs_cap_sys_boot",
	       "extension of the destructive program's cond(), without CAP_SYS_BOOT: %s (%s)%s (want EPERM)",
	       said(ext_err), why,
	       ext < 0	 ? "" :
	       link >= 0 ? ", and linked" :
			   ", link refused");

	/* what a missing gate did: the destructive program's cond() now
	 * says 0, and it reaches its (disarmed) bpf_panic()
	 */
	run_err = target_retval(target, &retval);
	result(!run_err && retval == 0, "n.ext_did_not_reach_panic",
	       "test run of the destructive program after those attempts: %s, retval %d (want 0; -EPERM is a disarmed bpf_panic() reached)",
	       said(run_err), retval);
	close_fd(link);
	close_fd(ext);

	/* with CAP_SYS_BOOT: it loads, and it is destructive itself */
	ext = load_cond_ext(&b, target, log, log_size);
	result(ext >= 0 && !strcmp(fdinfo_value(ext, "destructive"), "1"),
	       "n.ext_of_destructive_is_destructive",
	       "extension with CAP_SYS_BOOT: %s, fdinfo destructive: \"%s\" (want loaded, 1)",
	       ext >= 0 ? "loaded" : log_reason(log),
	       ext >= 0 ? fdinfo_value(ext, "destructive") : "");
out:
	close_fd(ext);
	close_fd(ext2);
	close_fd(twin);
	close_fd(target);
	btf__free(b.btf);
}

static int kfunc_id(const char *name)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id;

	if (!vmlinux)
		return -errno;
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
	btf__free(vmlinux);
	return id;
}

/* iter/task: crash_kexec(&zeroed pt_regs on the stack); return 0 */
static int load_iter_crash_kexec(int id, char *log, size_t log_size)
{
	enum { REGS = 168 }; /* sizeof(struct pt_regs) on x86_64 */
	struct bpf_insn insns[REGS / 8 + 5];
	int n = 0, btf_id = libbpf_find_vmlinux_btf_id("task", BPF_TRACE_ITER);
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1, .log_buf = log,
		    .log_size = log_size,
		    .expected_attach_type = BPF_TRACE_ITER);

	if (btf_id < 0)
		return btf_id;
	opts.attach_btf_id = btf_id;
	for (int off = -REGS; off < 0; off += 8)
		insns[n++] = ST_DW_IMM(R10, off, 0);
	insns[n++] = MOV64_REG(R1, R10);
	insns[n++] = ADD64_IMM(R1, -REGS);
	insns[n++] = CALL_KFUNC(id);
	insns[n++] = MOV64_IMM(R0, 0);
	insns[n++] = EXIT_INSN();
	log[0] = '\0';
	return bpf_prog_load(BPF_PROG_TYPE_TRACING, "iter_kexec", "GPL", insns,
			     n, &opts);
}

static void check_iterator(char *log, size_t log_size)
{
	int id = kfunc_id("crash_kexec"), fd, err;

	if (id < 0) {
		result(0, "o.iter_crash_kexec_refused",
		       "crash_kexec not in vmlinux BTF: %s", strerror(-id));
		return;
	}
	/* the switch on and CAP_SYS_BOOT: only the type can refuse */
	fd = load_iter_crash_kexec(id, log, log_size);
	err = err_of(fd);
	result(err == -EACCES &&
		       *log_line(log, "is not allowed in this program type"),
	       "o.iter_crash_kexec_refused",
	       "iter/task calling crash_kexec, switch on, CAP_SYS_BOOT: %s, log \"%s\" (want EACCES, not allowed in this program type)",
	       said(err), log_line(log, "crash_kexec"));
	close_fd(fd);
}

/* sched_cls: bpf_kfunc_call_test_destructive(); return 0 */
static int load_test_kfunc(int id, char *log, size_t log_size)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1, .log_buf = log,
		    .log_size = log_size);
	const struct bpf_insn insns[] = {
		CALL_KFUNC(id),
		MOV64_IMM(R0, 0),
		EXIT_INSN(),
	};

	log[0] = '\0';
	return bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "kfunc_destr", "GPL",
			     insns, sizeof(insns) / sizeof(insns[0]), &opts);
}

static void check_test_kfunc(char *log, size_t log_size)
{
	int id = kfunc_id("bpf_kfunc_call_test_destructive"), fd, err,
	    retval = 0, run_err;

	if (id < 0) {
		result(0, "p.test_kfunc_loads_with_cap_sys_boot",
		       "bpf_kfunc_call_test_destructive not in vmlinux BTF: %s",
		       strerror(-id));
		return;
	}
	err = sysctl_write(DESTRUCTIVE_SYSCTL, "0");
	if (err) {
		result(0, "p.test_kfunc_loads_with_cap_sys_boot",
		       "cannot turn the switch off: %s", strerror(-err));
		return;
	}
	fd = load_test_kfunc(id, log, log_size);
	err = err_of(fd);
	result(!err && !strcmp(fdinfo_value(fd, "destructive"), "1"),
	       "p.test_kfunc_loads_with_cap_sys_boot",
	       "sched_cls calling bpf_kfunc_call_test_destructive, CAP_SYS_BOOT, switch off: %s, fdinfo destructive \"%s\"; log \"%s\" (want loaded, 1)",
	       said(err), fd >= 0 ? fdinfo_value(fd, "destructive") : "",
	       log_line(log, "destructive"));
	if (fd >= 0) {
		run_err = prog_test_run(fd, &retval);
		result(run_err == -EPERM, "p.test_kfunc_caller_gated",
		       "its test run with the switch off: %s (want EPERM)",
		       said(run_err));
	} else {
		result(0, "p.test_kfunc_caller_gated", "nothing loaded");
	}
	close_fd(fd);

	err = cap_drop_effective(CAP_SYS_BOOT);
	fd = err ? err : load_test_kfunc(id, log, log_size);
	err = err ? err : err_of(fd);
	if (cap_raise_effective(CAP_SYS_BOOT)) {
		fprintf(stderr, "guard: cannot raise CAP_SYS_BOOT again\n");
		_exit(2);
	}
	result(err == -EACCES && *log_line(log, "require CAP_SYS_BOOT"),
	       "p.test_kfunc_needs_cap_sys_boot",
	       "the same without CAP_SYS_BOOT: %s, log \"%s\" (want EACCES, as upstream)",
	       said(err), log_line(log, "destructive"));
	close_fd(fd);
	err = sysctl_write(DESTRUCTIVE_SYSCTL, "1");
	if (err) {
		fprintf(stderr, "guard: cannot turn the switch on again: %s\n",
			strerror(-err));
		_exit(2);
	}
}

void check_reach(int msg_fd, char *log, size_t log_size)
{
	check_extensions(msg_fd, log, log_size);
	check_iterator(log, log_size);
	check_test_kfunc(log, log_size);
}
