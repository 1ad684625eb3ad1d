// SPDX-License-Identifier: GPL-2.0
/*
 * The host's programs in the guest: a workload that is a dynamically
 * linked program, or a script for another interpreter than /bin/sh, runs
 * in the host's user space: the host's /usr (and shares) over virtio 9p,
 * read-only, assembled under /host by the guest's preinit.
 *
 * Nothing in the guest can write to the host through these shares but the
 * one --share-rw: every other share is exported with QEMU's readonly=on,
 * which refuses writes in QEMU itself, whatever the guest kernel does.
 * security_model=none for the read-only ones: the guest sees the host's
 * owners and modes as they are (a program's setuid bit included, which the
 * guest may honour but cannot use to change anything on the host: nothing
 * is writable). mapped-xattr for the writable one: the guest's owners and
 * modes are kept in xattrs and never applied to the host's files, so no
 * setuid file can appear on the host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpk.h"
#include "hostfs.h"
#include "image.h"
#include "run.h"
#include "supervise.h"

/* The /etc files a host program commonly needs, copied (not shared: the
 * rest of the host's /etc, its secrets included, stays out of the guest).
 */
static const char *const host_etc[] = {
	"alternatives", "ld.so.cache", "ld.so.conf",	 "ld.so.conf.d",
	"passwd",	"group",       "nsswitch.conf",	 "localtime",
	"timezone",	"os-release",  "debian_version", "host.conf",
	"hosts",	"mime.types",  "python3",	 "python3.*",
	"bash.bashrc",	"profile",     "environment",	 NULL,
};

/* Does the ELF file @fd have a program interpreter (dynamic linking)? */
static int elf_dynamic(int fd)
{
	Elf *e;
	size_t n;
	int dyn = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return 0;
	if (elf_kind(e) == ELF_K_ELF && !elf_getphdrnum(e, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) &&
			    ph.p_type == PT_INTERP)
				dyn = 1;
		}
	}
	elf_end(e);
	return dyn;
}

char *hostfs_needed(const char *workload)
{
	char head[512];
	int fd = open(workload, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *interp, *end, *why = NULL;

	if (fd < 0)
		return NULL;
	n = read(fd, head, sizeof(head) - 1);
	if (n >= 4 && !memcmp(head, "\177ELF", 4)) {
		lseek(fd, 0, SEEK_SET);
		if (elf_dynamic(fd))
			why = xstrdup("a dynamically linked program");
		close(fd);
		return why;
	}
	close(fd);
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return NULL;
	head[n] = '\0';
	interp = head + 2;
	interp += strspn(interp, " \t");
	end = interp + strcspn(interp, " \t\n");
	*end = '\0';
	if (!strcmp(interp, "/bin/sh"))
		return NULL;
	return xasprintf("a script for %s", interp);
}

char *hostfs_share_path(const char *dir)
{
	static const char *const refused[] = { "/",    "/usr", "/proc",
					       "/sys", "/dev", NULL };
	char *d;

	if (has_control(dir))
		usage_error("share: a control character in the path");
	d = abs_path(dir);
	if (!d)
		usage_error("share '%s': no such directory", dir);
	if (!is_dir(d))
		usage_error("share '%s': not a directory", dir);
	if (strpbrk(d, " \t"))
		usage_error(
			"share '%s': a path with white space cannot be shared",
			d);
	if (strchr(d, ','))
		usage_error(
			"share '%s': a path with a comma cannot be shared (QEMU's option syntax)",
			d);
	for (int i = 0; refused[i]; i++)
		if (!strcmp(d, refused[i]) ||
		    (i >= 2 && !strncmp(d, refused[i], strlen(refused[i])) &&
		     d[strlen(refused[i])] == '/'))
			usage_error(
				"share '%s': not a directory that can be shared (/, /usr, /proc, /sys, /dev)",
				d);
	return d;
}

/* A share for QEMU, noted as "TAG MODE PATH" (tab-separated: share paths
 * have no white space) until the guest is set up (hostfs_virtfs).
 */
static void virtfs(struct strv *q, const char *path, const char *tag, bool rw)
{
	strv_addf(q, "%s\t%s\t%s", tag, rw ? "rw" : "ro", path);
}

int hostfs_virtfs(struct guest *g, const struct strv *specs,
		  struct strv *qemu_args)
{
	for (int i = 0; i < specs->n; i++) {
		char *spec = xstrdup(specs->v[i]);
		char *tag = spec, *mode = strchr(tag, '\t'), *path, *fd;
		bool rw;

		*mode++ = '\0';
		path = strchr(mode, '\t');
		*path++ = '\0';
		rw = !strcmp(mode, "rw");
		/* QEMU reaches the shared dir through an fd of bpk's: its
		 * user need not enter the dirs above it
		 */
		fd = guest_pass_file(g, path, false, true);
		if (!fd) {
			free(spec);
			return -1;
		}
		strv_add(qemu_args, "-virtfs");
		if (rw)
			strv_addf(
				qemu_args,
				"local,path=%s,mount_tag=%s,security_model=mapped-xattr",
				fd, tag);
		else
			strv_addf(
				qemu_args,
				"local,path=%s,mount_tag=%s,security_model=none,readonly=on",
				fd, tag);
		free(fd);
		free(spec);
	}
	return 0;
}

static const char *const top_dirs[] = { "/bin",	  "/sbin",   "/lib", "/lib32",
					"/lib64", "/libx32", NULL };

void hostfs_specs(const struct run_opts *o, struct strv *specs)
{
	int n = 0;

	/* in mount order: /usr first, shares after */
	virtfs(specs, "/usr", "hostusr", false);
	/* /bin, /sbin, /lib*: shares of their own on a host that still has
	 * them as dirs (merged /usr: symlinks in the image, hostfs_setup)
	 */
	for (int i = 0; top_dirs[i]; i++) {
		struct stat st;

		if (!lstat(top_dirs[i], &st) && S_ISDIR(st.st_mode)) {
			char *tag = xasprintf("host%s", top_dirs[i] + 1);

			virtfs(specs, top_dirs[i], tag, false);
			free(tag);
		}
	}
	for (int i = 0; o && i < o->shares.n; i++) {
		char *tag = xasprintf("bpkshare%d", n++);

		virtfs(specs, o->shares.v[i], tag, false);
		free(tag);
	}
	if (o && o->share_rw) {
		char *tag = xasprintf("bpkshare%d", n++);

		virtfs(specs, o->share_rw, tag, true);
		free(tag);
	}
}

int hostfs_setup(const struct run_opts *o, const char *why, struct cpio *c,
		 struct strv *specs)
{
	char *preinit, *text;
	size_t len;
	int rc = 0;

	if (why)
		p_info("the workload runs in the host's user space (%s): the host's /usr over virtio 9p, read-only",
		       why);
	if (cpio_add_dir(c, "host", 0755) || cpio_add_dir(c, "host/etc", 0755))
		return -1;
	preinit = path_join(paths.top, "appliance/guest/preinit");
	text = read_file(preinit, 1 << 20, &len);
	if (!text) {
		p_err("%s: %s", preinit, strerror(errno));
		free(preinit);
		return -1;
	}
	rc = cpio_add_data(c, "etc/bpk/preinit", 0755, text, len);
	free(text);
	free(preinit);
	/* merged /usr: /bin, /sbin, /lib* are symlinks into /usr, as on the
	 * host
	 */
	for (int i = 0; top_dirs[i]; i++) {
		struct stat st;
		char target[4096], *name;
		ssize_t tn;

		if (lstat(top_dirs[i], &st) || !S_ISLNK(st.st_mode))
			continue;
		name = xasprintf("host%s", top_dirs[i]);
		tn = readlink(top_dirs[i], target, sizeof(target) - 1);
		if (tn > 0) {
			target[tn] = '\0';
			rc |= cpio_add_symlink(c, name, target);
		}
		free(name);
	}
	for (int i = 0; host_etc[i]; i++) {
		glob_t g;
		char *pat = xasprintf("/etc/%s", host_etc[i]);

		/* sorted: the image is the same bytes while the host's files
		 * are (an idle snapshot's key reads it)
		 */
		if (!glob(pat, 0, NULL, &g)) {
			for (size_t j = 0; j < g.gl_pathc; j++) {
				char *name = xasprintf("host%s", g.gl_pathv[j]);

				rc |= cpio_add_path(c, name, g.gl_pathv[j]);
				free(name);
			}
			globfree(&g);
		}
		free(pat);
	}
	rc |= cpio_add_symlink(c, "host/etc/mtab", "/proc/self/mounts");
	/* TAG MODE PATH lines: the specs' own form, a space for the tab */
	hostfs_specs(o, specs);
	len = 0;
	for (int i = 0; i < specs->n; i++)
		len += strlen(specs->v[i]) + 1;
	text = xcalloc(1, len + 1);
	for (int i = 0; i < specs->n; i++) {
		char *line = xstrdup(specs->v[i]), *tab;

		/* the two tabs after the tag and the mode */
		for (int t = 0; t < 2 && (tab = strchr(line, '\t')); t++)
			*tab = ' ';
		strcat(text, line);
		strcat(text, "\n");
		free(line);
	}
	rc |= cpio_add_data(c, "etc/bpk/hostfs", 0644, text, len);
	free(text);
	return rc ? -1 : 0;
}
