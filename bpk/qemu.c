// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
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
	[S_RESULTS] = PORT_RESULTS,   [S_DMESG] = PORT_DMESG,
	[S_DUMP] = PORT_DUMP,	      [S_STATUS] = PORT_STATUS,
	[S_WORKLOAD] = PORT_WORKLOAD,
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
	strv_add(a, "-sandbox");
	strv_add(
		a,
		"on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny");
	strv_add(a, "-nodefaults");
	strv_add(a, "-display");
	strv_add(a, "none");
	strv_add(a, "-no-reboot");
	/* the guest kernel publishes its vmcoreinfo there (fw_cfg): a dump
	 * the host takes of it (dump-guest-memory) is then read like kdump's
	 */
	strv_add(a, "-device");
	strv_add(a, "vmcoreinfo");
	/* pvpanic: a kernel with no crash kernel loaded tells QEMU of its
	 * panic from its panic notifiers, and QEMU pauses it for the host's
	 * dump (--dump host). Every guest has the device, so that one idle
	 * snapshot serves both ways (the action is QEMU's, not the guest's
	 * state); under kdump QEMU only notes it, so that a capture kernel
	 * that panics stays for the host to dump.
	 */
	strv_add(a, "-device");
	strv_add(a, "pvpanic");
	strv_add(a, "-action");
	strv_add(a, s->dump_host ? "panic=pause" : "panic=none");
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
	if (s->initrd) {
		strv_add(a, "-initrd");
		strv_add(a, s->initrd);
	}
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

const struct qemu_user *qemu_user(void)
{
	static struct qemu_user u;
	static bool done;
	const char *name;
	struct passwd *pw;
	struct group *gr;

	if (done)
		return &u;
	done = true;
	u.kvm_gid = (gid_t)-1;
	if (geteuid())
		return &u;
	name = getenv("BPK_QEMU_USER");
	if (!name || !*name)
		name = "nobody";
	pw = getpwnam(name);
	if (!pw)
		die("BPK_QEMU_USER=%s: no such user: QEMU must not run as root (set BPK_QEMU_USER to an unprivileged user)",
		    name);
	if (!pw->pw_uid)
		die("BPK_QEMU_USER=%s is root: QEMU must not run as root",
		    name);
	u.drop = true;
	u.uid = pw->pw_uid;
	u.gid = pw->pw_gid;
	snprintf(u.name, sizeof(u.name), "%s", name);
	gr = getgrnam("kvm");
	if (gr)
		u.kvm_gid = gr->gr_gid;
	return &u;
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

/* Boot @kernel under KVM for a moment, supervised as any guest: does it
 * reach its banner? (With no root file system it panics at once and
 * ends; where a nested guest hangs, the timeout ends it.)
 */
static bool kvm_probe(const char *kernel)
{
	char dir[] = "/tmp/bpk-kvm-probe-XXXXXX", *text, *log, *image;
	struct guest g = { 0 };
	struct qemu_setup q = { 0 };
	bool ok = false;

	if (!mkdtemp(dir))
		return false;
	g.staging = dir;
	g.timeout_s = KVM_PROBE_S;
	g.kvm = true;
	if (!guest_prepare(&g)) {
		image = guest_pass_file(&g, kernel, false, false);
		q.accel = "kvm";
		q.mem = "256M";
		q.smp = 1;
		q.kernel_image = image ? image : kernel;
		q.append = "rdinit=/nonexistent";
		q.name = dir;
		qemu_argv(&q, &g, &g.qemu_argv);
		if (image && !guest_start(&g))
			guest_supervise(&g);
		free(image);
	}
	guest_cleanup(&g);
	log = path_join(dir, "console.log");
	text = read_file(log, 1 << 24, NULL);
	ok = text && strstr(text, "Linux version");
	free(text);
	free(log);
	{
		const char *argv[] = { "rm", "-rf", "--", dir, NULL };

		proc_wait_quiet(argv);
	}
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
