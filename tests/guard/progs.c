// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "insns.h"
#include "progs.h"

#define MSG_MAX 256

int msg_map_create(const char *msg)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_RDONLY_PROG);
	char value[MSG_MAX] = { 0 };
	int fd, zero = 0, err;

	if (strlen(msg) >= sizeof(value))
		return -E2BIG;
	memcpy(value, msg, strlen(msg));
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "guard_msg", sizeof(zero),
			    sizeof(value), 1, &opts);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(fd, &zero, value, BPF_ANY) ||
	    bpf_map_freeze(fd)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static char line[256];

const char *log_line(const char *log, const char *needle)
{
	const char *p = strstr(log, needle), *start, *end;

	if (!p)
		return "";
	for (start = p; start > log && start[-1] != '\n'; start--)
		;
	end = strchr(p, '\n');
	snprintf(line, sizeof(line), "%.*s",
		 (int)(end ? end - start : (long)strlen(start)), start);
	return line;
}

const char *log_reason(const char *log)
{
	const char *end = log + strlen(log), *start;

	for (;;) {
		while (end > log && end[-1] == '\n')
			end--;
		for (start = end; start > log && start[-1] != '\n'; start--)
			;
		if (start == end || strncmp(start, "processed ", 10))
			break;
		end = start;
	}
	snprintf(line, sizeof(line), "%.*s", (int)(end - start), start);
	return line;
}

static int load(enum bpf_prog_type type, enum bpf_attach_type attach_type,
		const char *attach_to, const struct bpf_insn *insns,
		size_t insn_cnt, unsigned int prog_flags, char *log,
		size_t log_size)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1, .log_buf = log,
		    .log_size = log_size, .prog_flags = prog_flags,
		    .expected_attach_type = attach_type);
	int fd;

	log[0] = '\0';
	if (attach_to) {
		int id = libbpf_find_vmlinux_btf_id(attach_to, attach_type);

		if (id < 0) {
			snprintf(log, log_size, "no BTF id for %s: %s",
				 attach_to, strerror(-id));
			return id;
		}
		opts.attach_btf_id = id;
	}
	fd = bpf_prog_load(type, "guard", "GPL", insns, insn_cnt, &opts);
	return fd < 0 ? -errno : fd;
}

int load_panic_prog(const struct prog_kind *kind, int msg_map_fd,
		    unsigned int prog_flags, char *log, size_t log_size)
{
	const struct bpf_insn insns[] = {
		LD_MAP_VALUE(R1, msg_map_fd),
		CALL_HELPER(BPF_FUNC_panic),
		MOV64_IMM(R0, 0),
		EXIT_INSN(),
	};

	return load(kind->type, kind->attach_type, kind->attach_to, insns,
		    sizeof(insns) / sizeof(insns[0]), prog_flags | kind->flags,
		    log, log_size);
}

int load_panic_ret_prog(int msg_map_fd, char *log, size_t log_size)
{
	const struct bpf_insn insns[] = {
		LD_MAP_VALUE(R1, msg_map_fd),
		CALL_HELPER(BPF_FUNC_panic),
		EXIT_INSN(),
	};

	return load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, NULL, insns,
		    sizeof(insns) / sizeof(insns[0]), BPF_F_DESTRUCTIVE, log,
		    log_size);
}

int prog_test_run(int prog_fd, int *retval)
{
	__u64 args[1] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = sizeof(args));

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	*retval = (int)opts.retval;
	return 0;
}

int load_crash_kexec_prog(char *log, size_t log_size)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id;

	if (!vmlinux) {
		snprintf(log, log_size, "cannot load vmlinux BTF: %s",
			 strerror(errno));
		return -errno;
	}
	id = btf__find_by_name_kind(vmlinux, "crash_kexec", BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id < 0) {
		snprintf(log, log_size, "crash_kexec not in vmlinux BTF");
		return id;
	}

	/* tp_btf/sys_enter: ctx[0] is the syscall's struct pt_regs * */
	const struct bpf_insn insns[] = {
		LDX_DW(R1, R1, 0),
		CALL_KFUNC(id),
		MOV64_IMM(R0, 0),
		EXIT_INSN(),
	};

	return load(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, "sys_enter", insns,
		    sizeof(insns) / sizeof(insns[0]), 0, log, log_size);
}

int load_plain_prog(const struct prog_kind *kind, unsigned int prog_flags,
		    char *log, size_t log_size)
{
	const struct bpf_insn insns[] = {
		MOV64_IMM(R0, 0),
		EXIT_INSN(),
	};

	return load(kind->type, kind->attach_type, kind->attach_to, insns,
		    sizeof(insns) / sizeof(insns[0]), prog_flags | kind->flags,
		    log, log_size);
}

int load_tail_call_prog(int prog_array_fd, char *log, size_t log_size)
{
	const struct bpf_insn insns[] = {
		LD_MAP_FD(R2, prog_array_fd),
		MOV64_IMM(R3, 0),
		CALL_HELPER(BPF_FUNC_tail_call),
		MOV64_IMM(R0, 0),
		EXIT_INSN(),
	};

	return load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, NULL, insns,
		    sizeof(insns) / sizeof(insns[0]), 0, log, log_size);
}
