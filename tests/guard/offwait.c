// SPDX-License-Identifier: GPL-2.0
/*
 * q. Off means off once the write returns: a program that passed its armed
 * check before kernel.destructive_bpf_enabled went to 0 may still be
 * running (preempted, or asleep in a sleepable program). Writing 0 must
 * wait for it.
 *
 * A sleepable syscall program, run by BPF_PROG_TEST_RUN in one thread,
 * copies from a user page registered with userfaultfd and so sleeps in the
 * fault, inside its RCU tasks trace read-side section, until this test
 * resolves it. Meanwhile another thread writes 0. The write must still be
 * waiting a second later, and return once the program has finished.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <bpf/bpf.h>

#include "insns.h"
#include "offwait.h"
#include "result.h"
#include "sysctl.h"

struct run {
	int prog_fd;
	uint64_t addr; /* the program's context: the user address it reads */
	int err;
	atomic_int done;
};

static void *run_prog(void *arg)
{
	struct run *r = arg;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &r->addr,
		    .ctx_size_in = sizeof(r->addr));

	r->err = bpf_prog_test_run_opts(r->prog_fd, &opts) ? -errno : 0;
	atomic_store(&r->done, 1);
	return NULL;
}

struct off {
	int err;
	atomic_int done;
};

static void *write_off(void *arg)
{
	struct off *o = arg;

	o->err = sysctl_write(DESTRUCTIVE_SYSCTL, "0");
	atomic_store(&o->done, 1);
	return NULL;
}

/* syscall, sleepable: bpf_copy_from_user(fp - 8, 8, ctx->addr); return 0 */
static int load_sleeper(char *log, size_t log_size)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1, .log_buf = log,
		    .log_size = log_size, .prog_flags = BPF_F_SLEEPABLE);
	const struct bpf_insn insns[] = {
		LDX_DW(R3, R1, 0),
		MOV64_REG(R1, R10),
		ADD64_IMM(R1, -8),
		MOV64_IMM(R2, 8),
		CALL_HELPER(BPF_FUNC_copy_from_user),
		MOV64_IMM(R0, 0),
		EXIT_INSN(),
	};

	log[0] = '\0';
	return bpf_prog_load(BPF_PROG_TYPE_SYSCALL, "sleeper", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
}

/* A page whose first touch waits for this process: the userfaultfd, or
 * -errno; the page in *@page.
 */
static int uffd_page(void **page, long size)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	int fd, err;

	*page = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*page == MAP_FAILED)
		return -errno;
	fd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	reg.range.start = (uintptr_t)*page;
	reg.range.len = size;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

void check_off_waits(char *log, size_t log_size)
{
	const char *id = "q.off_waits_for_running_programs";
	long size = sysconf(_SC_PAGESIZE);
	struct run r = { .prog_fd = -1 };
	struct off o = { 0 };
	struct uffd_msg msg;
	struct pollfd pfd;
	pthread_t tr, to;
	void *page = NULL;
	int uffd, err, waited = -1, after = -1;

	uffd = uffd_page(&page, size);
	if (uffd < 0) {
		result(0, id, "userfaultfd: %s", strerror(-uffd));
		return;
	}
	r.prog_fd = load_sleeper(log, log_size);
	if (r.prog_fd < 0) {
		result(0, id, "sleepable syscall program: %s; log: %.200s",
		       strerror(errno), log);
		close(uffd);
		return;
	}
	r.addr = (uintptr_t)page;
	err = sysctl_write(DESTRUCTIVE_SYSCTL, "1");
	if (err || pthread_create(&tr, NULL, run_prog, &r)) {
		result(0, id, "switch on, or the program's thread: %s",
		       strerror(err ? -err : errno));
		close(r.prog_fd);
		close(uffd);
		return;
	}
	/* the program is asleep in the fault once its event arrives */
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	if (poll(&pfd, 1, 10000) != 1 ||
	    read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		result(0, id,
		       "the program did not fault on the page within 10 s (it %s)",
		       atomic_load(&r.done) ? "finished" : "still runs");
		/* nothing to resolve: the thread is left as it is */
		return;
	}
	if (pthread_create(&to, NULL, write_off, &o)) {
		result(0, id, "the writer's thread: %s", strerror(errno));
		return;
	}
	sleep(1);
	waited = !atomic_load(&o.done);
	{
		struct uffdio_zeropage zp = {
			.range = { .start = (uintptr_t)page, .len = size },
		};

		if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp)) {
			result(0, id, "UFFDIO_ZEROPAGE: %s", strerror(errno));
			return;
		}
	}
	pthread_join(tr, NULL);
	pthread_join(to, NULL);
	after = atomic_load(&o.done) && !o.err;
	result(waited == 1 && after == 1 && !r.err, id,
	       "a sleepable program asleep in a page fault: the write of 0 %s 1 s later, %s once the program finished (run: %s) (want still waiting, then returned)",
	       waited ? "was still waiting" : "had returned",
	       o.err ? strerror(-o.err) : "returned",
	       r.err ? strerror(-r.err) : "ok");
	close(r.prog_fd);
	close(uffd);
	munmap(page, size);
	err = sysctl_write(DESTRUCTIVE_SYSCTL, "1");
	if (err) {
		fprintf(stderr, "guard: cannot turn the switch on again: %s\n",
			strerror(-err));
		_exit(2);
	}
}
