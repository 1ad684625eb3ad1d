// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpk.h"
#include "digest.h"
#include "proc.h"
#include "protocol.h"
#include "qemu.h"

#define QEMU "qemu-system-x86_64"
#define KVM_PROBE_S 15

static const char *const port_names[S_NSTREAMS] = {
	[S_RESULTS] = PORT_RESULTS,
	[S_DMESG] = PORT_DMESG,
	[S_DUMP] = PORT_DUMP,
	[S_STATUS] = PORT_STATUS,
};

void qemu_argv(const struct qemu_setup *s, const struct guest *g,
	       struct strv *a)
{
	char *name = qemu_escape(s->name);

	strv_add(a, QEMU);
	if (!strcmp(s->accel, "kvm")) {
		strv_add(a, "-accel");
		strv_add(a, "kvm");
		strv_add(a, "-cpu");
		strv_add(a, "host");
	} else {
		strv_add(a, "-accel");
		strv_add(a, "tcg");
		strv_add(a, "-cpu");
		strv_add(a, "max");
	}
	strv_add(a, "-m");
	strv_add(a, s->mem);
	strv_add(a, "-smp");
	strv_addf(a, "%d", s->smp);
	strv_add(a, "-nodefaults");
	strv_add(a, "-display");
	strv_add(a, "none");
	strv_add(a, "-no-reboot");
	/* which run this QEMU belongs to, for ps and pgrep */
	strv_add(a, "-name");
	strv_addf(a, "guest=bpk:%s", name);
	strv_add(a, "-chardev");
	strv_addf(a, "socket,id=console,fd=%d", g->qemu_fd[S_CONSOLE]);
	strv_add(a, "-serial");
	strv_add(a, "chardev:console");
	if (s->ram_file) {
		char *ram = qemu_escape(s->ram_file);

		strv_add(a, "-object");
		strv_addf(
			a,
			"memory-backend-file,id=bpkmem,size=%s,mem-path=%s,share=%s",
			s->mem, ram, s->ram_shared ? "on" : "off");
		strv_add(a, "-machine");
		strv_add(a, "memory-backend=bpkmem");
		free(ram);
	}
	if (s->incoming) {
		strv_add(a, "-incoming");
		strv_add(a, "defer");
	}
	if (g->qemu_qmp_fd >= 0) {
		strv_add(a, "-chardev");
		strv_addf(a, "socket,id=qmp,fd=%d", g->qemu_qmp_fd);
		strv_add(a, "-mon");
		strv_add(a, "chardev=qmp,mode=control");
	}
	strv_add(a, "-kernel");
	strv_add(a, s->kernel_image);
	strv_add(a, "-initrd");
	strv_add(a, s->initrd);
	strv_add(a, "-append");
	strv_addf(a, GUEST_CMDLINE_BASE " %s", s->append);
	strv_add(a, "-device");
	strv_add(a, "virtio-serial-pci");
	for (int i = S_RESULTS; i < S_NSTREAMS; i++) {
		strv_add(a, "-chardev");
		strv_addf(a, "socket,id=port%d,fd=%d", i, g->qemu_fd[i]);
		strv_add(a, "-device");
		strv_addf(a, "virtserialport,chardev=port%d,name=%s", i,
			  port_names[i]);
	}
	if (g->qemu_control_fd >= 0) {
		strv_add(a, "-chardev");
		strv_addf(a, "socket,id=bpkctl,fd=%d", g->qemu_control_fd);
		strv_add(a, "-device");
		strv_add(a, "virtserialport,chardev=bpkctl,name=" PORT_CONTROL);
	}
	for (int i = 0; s->extra && i < s->extra->n; i++)
		strv_add(a, s->extra->v[i]);
	free(name);
}

const char *qemu_version(void)
{
	static char *version;
	const char *argv[] = { QEMU, "--version", NULL };

	if (!version) {
		if (proc_capture(argv, &version, NULL) != 0)
			die("%s --version failed: install Debian package qemu-system-x86 (make deps)",
			    QEMU);
		version[strcspn(version, "\n")] = '\0';
	}
	return version;
}

/* Boot @kernel under KVM for a moment: does it reach its banner? */
static bool kvm_probe(const char *kernel)
{
	char dir[] = "/tmp/bpk-kvm-probe-XXXXXX", *log, *text, *serial;
	struct spawn s = { 0 };
	struct pollfd p;
	bool ok = false;
	pid_t pid;
	int pfd;

	if (!mkdtemp(dir))
		return false;
	log = path_join(dir, "console");
	serial = xasprintf("file:%s", log);
	{
		const char *argv[] = {
			QEMU,
			"-accel",
			"kvm",
			"-cpu",
			"host",
			"-m",
			"256M",
			"-smp",
			"1",
			"-nodefaults",
			"-display",
			"none",
			"-no-reboot",
			"-serial",
			serial,
			"-kernel",
			kernel,
			"-append",
			"console=ttyS0 panic=-1 rdinit=/nonexistent",
			NULL
		};

		s.argv = argv;
		s.in = s.out = s.err = -1;
		s.die_with_parent = true;
		pid = proc_spawn(&s);
	}
	if (pid > 0) {
		pfd = pidfd_open(pid, 0);
		p = (struct pollfd){ .fd = pfd, .events = POLLIN };
		if (pfd < 0 || poll(&p, 1, KVM_PROBE_S * 1000) <= 0)
			kill(pid, SIGKILL);
		if (pfd >= 0)
			close(pfd);
		proc_wait(pid);
		text = read_file(log, 1 << 24, NULL);
		ok = text && strstr(text, "Linux version");
		free(text);
	}
	unlink(log);
	rmdir(dir);
	free(log);
	free(serial);
	return ok;
}

const char *qemu_accel(const char *want, const char *kernel_image)
{
	struct digest *d;
	char key[17], *dir, *verdict_path, *verdict;
	bool ok;

	if (strcmp(want, "auto"))
		return want;
	if (access("/dev/kvm", W_OK))
		return "tcg";
	d = digest_new();
	digest_add_str(d, qemu_version());
	if (digest_add_file(d, kernel_image))
		die("%s: %s", kernel_image, strerror(errno));
	digest_end(d, key, 16);
	dir = xstrdup(paths.cache);
	verdict_path = xasprintf("%s/kvm-probe-%s", dir, key);
	verdict = read_line_file(verdict_path);
	if (!verdict) {
		ok = kvm_probe(kernel_image);
		if (!mkdir_p(dir, 0700)) {
			FILE *f = fopen(verdict_path, "w");

			if (f) {
				fprintf(f, "%s\n", ok ? "yes" : "no");
				fclose(f);
			}
		}
	} else {
		ok = !strcmp(verdict, "yes");
	}
	free(verdict);
	free(verdict_path);
	free(dir);
	return ok ? "kvm" : "tcg";
}
