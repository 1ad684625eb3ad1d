// SPDX-License-Identifier: GPL-2.0
/*
 * bpk kernels: the Debian kernels the archive serves and those the cache
 * holds; bpk cache prune: the cached kernels no run needs, and the
 * snapshots no run will restore again, removed. What
 * the archive serves is asked of apt by appliance/debian-kernel.sh list,
 * the one place that knows the archive's names.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpk.h"
#include "kernels.h"
#include "proc.h"
#include "snapshot.h"
#include "record.h"
#include "run.h"

struct kernel_row {
	char kver[128], version[128];
	long long image, dbg, cached; /* bytes, -1: none */
	bool vmlinux;
};

static long long num_or_none(const char *s)
{
	return strcmp(s, "-") ? strtoll(s, NULL, 10) : -1;
}

static const char *mib(long long bytes, char *buf, size_t len)
{
	if (bytes < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld MiB", (bytes + (1 << 19)) >> 20);
	return buf;
}

/* The rows of debian-kernel.sh list; exits 1 when it fails. */
static int kernel_rows(struct kernel_row **rows)
{
	char *script = debian_kernel_script();
	const char *argv[] = { script, "list", NULL };
	char *out = NULL, *err = NULL, *line, *save = NULL;
	int rc = proc_capture(argv, &out, &err), n = 0, cap = 0;

	if (rc)
		die("%s list failed (exit %d): %s", script, rc, last_line(err));
	*rows = NULL;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char k[128], v[128], i[32], d[32], c[32], vm[16];
		struct kernel_row *r;

		if (sscanf(line, "%127s %127s %31s %31s %31s %15s", k, v, i, d,
			   c, vm) != 6)
			die("%s list: a line not understood: %s", script, line);
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*rows = xrealloc(*rows, (size_t)cap * sizeof(**rows));
		}
		r = &(*rows)[n++];
		snprintf(r->kver, sizeof(r->kver), "%s", k);
		snprintf(r->version, sizeof(r->version), "%s", v);
		r->image = num_or_none(i);
		r->dbg = num_or_none(d);
		r->cached = num_or_none(c);
		r->vmlinux = !strcmp(vm, "vmlinux");
	}
	free(out);
	free(err);
	free(script);
	return n;
}

/* --- bpk kernels --measure K: any kernel, measured before or not */
static int measure(const char *spec)
{
	struct kernel_info k;
	struct run_opts o;
	int mib;

	kernel_resolve(spec, &k);
	run_opts_init(&o);
	run_build(&o, &k);
	kernel_refresh(&k);
	kernel_refuse_unfit(&k);
	mib = kernel_measure(&k);
	printf("%s: the smallest reservation that dumps is %dM; its default: %dM\n",
	       k.spec, mib, 2 * mib);
	return 0;
}

static void usage_kernels(void)
{
	printf("usage: bpk [-j] kernels [--cached]\n"
	       "       bpk kernels --measure K\n"
	       "\n"
	       "The Debian kernels a run can boot (--kernel debian:RELEASE): every\n"
	       "linux-image the archive serves, with its download size and its debug\n"
	       "package's (read when a dump is analysed; a release without one is\n"
	       "refused), and what the cache holds of each. --cached: only those\n"
	       "in the cache. Also: ours (make kernel) and PATH (a kernel you built).\n"
	       "\n"
	       "--measure K: boot kernel K with smaller and smaller crash reservations\n"
	       "in a 1G guest (from 256M, halving down to 32M in 16M steps, 4-6\n"
	       "runs; at most 512M; a size the guest cannot place is not taken for\n"
	       "too small) to find the smallest that dumps; a Debian kernel keeps it,\n"
	       "doubled, as its default --crashkernel (in its cache entry).\n");
}

int do_kernels(int argc, char **argv)
{
	struct kernel_row *rows;
	bool cached_only = false;
	long long total = 0;
	int n;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_kernels();
			return 0;
		} else if (!strcmp(argv[i], "--cached")) {
			cached_only = true;
		} else if (!strcmp(argv[i], "--measure")) {
			if (i + 1 >= argc || !*argv[i + 1])
				usage_error(
					"--measure needs a kernel (bpk kernels --help)");
			return measure(argv[i + 1]);
		} else {
			usage_error(
				"kernels: unknown argument '%s' (bpk kernels --help)",
				argv[i]);
		}
	}
	n = kernel_rows(&rows);
	if (json_output)
		jw_start_array(json_wtr);
	else
		printf("%-36s %-22s %9s %9s %s\n", "KERNEL", "VERSION", "IMAGE",
		       "DEBUG", "CACHED");
	for (int i = 0; i < n; i++) {
		struct kernel_row *r = &rows[i];
		char a[32], b[32], c[32];

		if (cached_only && r->cached < 0)
			continue;
		if (r->cached > 0)
			total += r->cached;
		if (json_output) {
			char spec[160];

			snprintf(spec, sizeof(spec), "debian:%s", r->kver);
			jw_start_object(json_wtr);
			jw_string_field(json_wtr, "kernel", spec);
			jw_string_field(json_wtr, "release", r->kver);
			jw_string_field(json_wtr, "version", r->version);
			if (r->image >= 0)
				jw_uint_field(json_wtr, "image_bytes",
					      (uint64_t)r->image);
			else
				jw_null_field(json_wtr, "image_bytes");
			if (r->dbg >= 0)
				jw_uint_field(json_wtr, "debug_bytes",
					      (uint64_t)r->dbg);
			else
				jw_null_field(json_wtr, "debug_bytes");
			if (r->cached >= 0)
				jw_uint_field(json_wtr, "cached_bytes",
					      (uint64_t)r->cached);
			else
				jw_null_field(json_wtr, "cached_bytes");
			jw_bool_field(json_wtr, "vmlinux_cached", r->vmlinux);
			jw_end_object(json_wtr);
			continue;
		}
		printf("debian:%-29s %-22s %9s %9s %s%s\n", r->kver, r->version,
		       mib(r->image, a, sizeof(a)),
		       r->dbg >= 0 ? mib(r->dbg, b, sizeof(b)) : "none",
		       mib(r->cached, c, sizeof(c)),
		       r->cached < 0 ? "" :
		       r->vmlinux    ? " (with vmlinux)" :
				       " (vmlinux when a dump is read)");
	}
	if (json_output) {
		jw_end_array(json_wtr);
	} else {
		char t[32];

		printf("cache: %s/debian, %s\n", paths.cache,
		       mib(total, t, sizeof(t)));
	}
	free(rows);
	return 0;
}

/* --- bpk cache prune */

static long long tree_total;

static int add_size(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		tree_total += (long long)st->st_blocks * 512;
	return 0;
}

static long long tree_bytes(const char *dir)
{
	tree_total = 0;
	if (nftw(dir, add_size, 16, FTW_PHYS))
		return -1;
	return tree_total;
}

/* Is @entry (a real path) the kernel of a run under paths.runs, or linked
 * from the clone's build?
 */
static bool needed(const char *entry, char **ids, int n, const char **why)
{
	size_t len = strlen(entry);
	static char reason[1024];
	const char *links[] = { "debian-kernel", NULL };
	char *kdir;
	DIR *d;
	struct dirent *de;

	for (int i = 0; links[i]; i++) {
		char *l = path_join(paths.build, links[i]);
		char *real = abs_path(l);
		bool same = real && !strcmp(real, entry);

		free(real);
		free(l);
		if (same) {
			*why = "the clone's --kernel debian";
			return true;
		}
	}
	kdir = path_join(paths.build, "kernels");
	d = opendir(kdir);
	while (d && (de = readdir(d))) {
		char *l, *real;
		bool same;

		if (strncmp(de->d_name, "debian-", 7))
			continue;
		l = xasprintf("%s/%s/kernel", kdir, de->d_name);
		real = abs_path(l);
		same = real && !strcmp(real, entry);
		free(real);
		free(l);
		if (same) {
			snprintf(reason, sizeof(reason),
				 "the clone's build of %s", de->d_name);
			*why = reason;
			closedir(d);
			free(kdir);
			return true;
		}
	}
	if (d)
		closedir(d);
	free(kdir);
	for (int i = 0; i < n; i++) {
		char *dir = path_join(paths.runs, ids[i]), err[256];
		struct run_record r;
		bool uses = false;

		if (!record_read(dir, &r, err, sizeof(err))) {
			uses = r.guest.vmlinux &&
			       !strncmp(r.guest.vmlinux, entry, len) &&
			       r.guest.vmlinux[len] == '/';
			record_free(&r);
		}
		free(dir);
		if (uses) {
			snprintf(reason, sizeof(reason), "run %s", ids[i]);
			*why = reason;
			return true;
		}
	}
	return false;
}

/*
 * The snapshots under the cache no run will restore again
 * (snapshot_stale()), removed with their lock file; one being made (its
 * lock held) is kept.
 */
static void prune_snapshots(bool dry, int *kept, int *removed, long long *freed)
{
	char *root = path_join(paths.cache, "snapshot");
	char *link = path_join(paths.build, "kernel");
	char *entry = abs_path(link);
	struct dirent **list;
	int n = scandir(root, &list, NULL, alphasort);

	if (n < 0) {
		if (errno != ENOENT)
			die("%s: %s", root, strerror(errno));
		n = 0;
		list = NULL;
	}
	for (int i = 0; i < n; i++) {
		char *dir = path_join(root, list[i]->d_name);
		char *lock = xasprintf("%s.lock", dir), why[1024], size[32];
		long long bytes;
		int lfd = -1;

		if (list[i]->d_name[0] == '.' || !is_dir(dir))
			goto next;
		bytes = tree_bytes(dir);
		lfd = open(lock, O_RDWR | O_CLOEXEC);
		if (lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB)) {
			printf("keep    snapshot %-35s %9s  being made\n",
			       list[i]->d_name, mib(bytes, size, sizeof(size)));
			++*kept;
			goto next;
		}
		if (!snapshot_stale(dir, entry, why, sizeof(why))) {
			printf("keep    snapshot %-35s %9s\n", list[i]->d_name,
			       mib(bytes, size, sizeof(size)));
			++*kept;
		} else if (dry) {
			print_line(
				stdout,
				"prune   snapshot %-35s %9s  %s (--dry-run: kept)",
				list[i]->d_name, mib(bytes, size, sizeof(size)),
				why);
		} else {
			const char *rm[] = { "rm", "-rf", "--", dir, NULL };

			if (proc_wait_quiet(rm) || file_exists(dir))
				die("%s: could not be removed", dir);
			if (unlink(lock) && errno != ENOENT)
				die("%s: %s", lock, strerror(errno));
			print_line(stdout, "removed snapshot %-35s %9s  %s",
				   list[i]->d_name,
				   mib(bytes, size, sizeof(size)), why);
			*freed += bytes > 0 ? bytes : 0;
			++*removed;
		}
next:
		if (lfd >= 0)
			close(lfd);
		free(lock);
		free(dir);
		free(list[i]);
	}
	free(list);
	free(entry);
	free(link);
	free(root);
}

static void usage_cache(void)
{
	printf("usage: bpk cache prune [--dry-run]\n"
	       "\n"
	       "Remove the cached Debian kernels no run needs: those that neither\n"
	       "a run under the runs dir (--runs) was booted with nor the clone's\n"
	       "build links to; then the snapshots no run will restore again (not\n"
	       "whole, made by another bpk or QEMU, their kernel or root image\n"
	       "gone or changed, a shared dir gone, a build of our kernel that is\n"
	       "not the clone's).\n"
	       "Each is named with its size and why; --dry-run only names them.\n");
}

int do_cache(int argc, char **argv)
{
	bool dry = false;
	char *root, **ids;
	struct dirent **list;
	long long freed = 0;
	int n, nids, kept = 0, removed = 0;

	if (!argc || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
		usage_cache();
		return argc ? 0 : 2;
	}
	if (strcmp(argv[0], "prune"))
		usage_error("cache: unknown action '%s' (bpk cache --help)",
			    argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dry-run"))
			dry = true;
		else
			usage_error(
				"cache prune: unknown argument '%s' (bpk cache --help)",
				argv[i]);
	}
	root = path_join(paths.cache, "debian");
	n = scandir(root, &list, NULL, alphasort);
	if (n < 0) {
		if (errno != ENOENT)
			die("%s: %s", root, strerror(errno));
		printf("no cached Debian kernels (%s)\n", root);
		n = 0;
		list = NULL;
	}
	nids = run_ids(paths.runs, &ids);
	for (int i = 0; i < n; i++) {
		char *entry = path_join(root, list[i]->d_name), *ok;
		const char *why = NULL;
		char size[32];
		long long bytes;

		ok = path_join(entry, "ok");
		if (list[i]->d_name[0] == '.' || !is_dir(entry) ||
		    (!file_exists(ok) && !strchr(list[i]->d_name, '_'))) {
			free(ok);
			free(entry);
			free(list[i]);
			continue;
		}
		free(ok);
		bytes = tree_bytes(entry);
		if (needed(entry, ids, nids, &why)) {
			print_line(stdout, "keep    %-44s %9s  needed by %s",
				   list[i]->d_name,
				   mib(bytes, size, sizeof(size)), why);
			kept++;
		} else if (dry) {
			printf("prune   %-44s %9s  (--dry-run: kept)\n",
			       list[i]->d_name, mib(bytes, size, sizeof(size)));
		} else {
			const char *rm[] = { "rm", "-rf", "--", entry, NULL };

			if (proc_wait_quiet(rm) || file_exists(entry))
				die("%s: could not be removed", entry);
			printf("removed %-44s %9s\n", list[i]->d_name,
			       mib(bytes, size, sizeof(size)));
			freed += bytes > 0 ? bytes : 0;
			removed++;
		}
		free(entry);
		free(list[i]);
	}
	free(list);
	for (int i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	prune_snapshots(dry, &kept, &removed, &freed);
	{
		char f[32];

		printf("%d kept, %d removed, %s freed (runs looked at: %s)\n",
		       kept, removed, mib(freed, f, sizeof(f)), paths.runs);
	}
	free(root);
	return 0;
}
