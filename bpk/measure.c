// SPDX-License-Identifier: GPL-2.0
/*
 * The crash kernel's reservation of a kernel, measured by boots: the
 * smallest crashkernel= that still brings a verified dump back. A size the
 * guest's kernel could not place is told apart from one whose capture
 * failed: only the second is too small (the search: rsearch.c). For a
 * Debian kernel the machine keeps it (doubled, as its default) under
 * paths.reservations, so every later run, campaign and clone uses it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "bpk.h"
#include "escape.h"
#include "kernels.h"
#include "proc.h"
#include "record.h"
#include "rsearch.h"

/*
 * The guest the reservation is measured in: the size every run boots with
 * unless told otherwise (bpk run --mem), so that what is measured is what
 * runs get.
 */
#define MEASURE_MEM "1G"
#define MEASURE_MEM_MIB 1024

/* The newest run under @runs, or NULL when there is none. */
static char *newest_run(const char *runs)
{
	char **ids, *dir = NULL;
	int n = run_ids(runs, &ids);

	if (n > 0)
		dir = path_join(runs, ids[n - 1]);
	for (int i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return dir;
}

/* @path of @run's record as escaped text, "" when it is not there. */
static char *field_text(const char *run, const char *path)
{
	char *v = NULL, err[256], *e;

	if (record_field(run, path, &v, err, sizeof(err)))
		return xstrdup("");
	e = escape_text(v, strlen(v));
	free(v);
	return e;
}

/*
 * One run of the demo trigger on @spec with a reservation of @mib MiB, the
 * guest's own check off, filed under @runs, and what it says of @mib:
 * 0 with *@res and the guest's words in @why, or -1 with the reason in
 * @err when the run failed for anything but the reservation (it never
 * armed, it was refused for another reason, it filed nothing): a search
 * on it would be wrong. -2 (@err too): the guest never said it booted,
 * its kernel died on the way (under TCG a Debian kernel now and then
 * meets a stale int3 of its own code patching): nothing about the size.
 */
static int try_reservation(const char *self, const char *spec, int mib,
			   const char *runs, enum rsearch_result *res,
			   char *why, size_t whylen, char *err, size_t errlen)
{
	char ck[32], el[32];
	const char *argv[] = {
		self, "--runs", runs, "run", "syscall_errno", "syscall=openat",
		"errno=ENOENT", "comm=bpk-demo", "--kernel", spec, "--mem",
		MEASURE_MEM, "--crashkernel", ck, "--no-reservation-check",
		"--no-report", "--no-build", "--quiet",
		/* a capture kernel that dies takes the guest down at once;
		 * one that hangs must not hold the search up
		 */
		"--timeout", "120", NULL
	};
	int64_t t0 = now_ms();
	char *before = newest_run(runs), *run, *refused, *state, *reason;
	int rc, ret = 0;

	snprintf(ck, sizeof(ck), "%dM", mib);
	rc = proc_wait_quiet(argv);
	run = newest_run(runs);
	if (!run || (before && !strcmp(run, before))) {
		snprintf(
			err, errlen,
			"crashkernel=%dM: the run filed nothing under %s (exit %d)",
			mib, runs, rc);
		free(before);
		free(run);
		return -1;
	}
	refused = field_text(run, "console.refused");
	state = field_text(run, "console.last_state");
	reason = field_text(run, "reason");
	if (rsearch_classify(rc, refused, state, res)) {
		snprintf(
			err, errlen,
			"crashkernel=%dM: the run failed before the trigger could fire (the guest got to \"%s\"): %s (run %s)",
			mib, *state ? state : "nothing",
			*refused ? refused : reason, run);
		ret = *state ? -1 : -2;
	} else {
		snprintf(why, whylen, "%s", *refused ? refused : reason);
		print_line(stderr, "kernels: crashkernel=%dM: %s (%s)%s%s", mib,
			   rsearch_result_text(*res),
			   fmt_ms(now_ms() - t0, el, sizeof(el)),
			   *res == RS_NOT_PLACED ? ": " : "",
			   *res == RS_NOT_PLACED ? why : "");
	}
	free(refused);
	free(state);
	free(reason);
	free(before);
	free(run);
	return ret;
}

/*
 * A measured reservation is kept apart from the kernel's cache entry: the
 * entry is what was downloaded, the same on every machine; the reservation
 * is what this machine's guests needed with this appliance's capture
 * image. One file an entry, RESERVATIONS/<entry>, key=value lines.
 */
static char *reservation_file(const char *name)
{
	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return NULL;
	return path_join(paths.reservations, name);
}

char *kernel_reservation(const char *name)
{
	char *file = reservation_file(name), *ck;

	if (!file)
		return NULL;
	ck = kv_get(file, "crashkernel");
	free(file);
	return ck;
}

/* Keep @mib (the smallest that dumped), doubled, as @k's reservation. */
static int keep(const struct kernel_info *k, int mib, char *err, size_t errlen)
{
	char *file = reservation_file(k->name), *tmp, when[32];
	time_t t = time(NULL);
	struct tm tm;
	FILE *f;
	int rc = -1;

	if (!file) {
		snprintf(err, errlen, "%s: no cache entry to keep it for",
			 k->spec);
		return -1;
	}
	tmp = xasprintf("%s.tmp", file);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	if (mkdir_p(paths.reservations, 0755)) {
		snprintf(err, errlen, "%s: %s", paths.reservations,
			 strerror(errno));
		goto out;
	}
	f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	fprintf(f,
		"kernel=%s\ncrashkernel=%dM\ncrashkernel_smallest=%dM\nguest_mem=%s\nmeasured=%s\n",
		k->spec, 2 * mib, mib, MEASURE_MEM, when);
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		goto out;
	}
	if (fclose(f) || rename(tmp, file)) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		unlink(tmp);
		goto out;
	}
	fprintf(stderr,
		"kernels: %s: crashkernel=%dM (the smallest that dumped, %dM, doubled), kept in %s\n",
		k->spec, 2 * mib, mib, file);
	rc = 0;
out:
	free(tmp);
	free(file);
	return rc;
}

int kernel_measure(struct kernel_info *k)
{
	char self[4096], *runs, el[32], why[1024], err[2048];
	char failed_why[1024] = "", placed_why[1024] = "";
	struct rsearch s;
	bool boot_retried = false;
	ssize_t sl;
	int64_t t0 = now_ms();

	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0)
		die("/proc/self/exe: %s", strerror(errno));
	self[sl] = '\0';
	runs = xasprintf("%s/measure-%s", paths.runs, k->name);
	if (mkdir_p(runs, 0700))
		die("%s: %s", runs, strerror(errno));
	rsearch_init(&s, MEASURE_MEM_MIB);
	fprintf(stderr,
		"kernels: measuring %s's crash reservation: the smallest that dumps in a %s guest, from %dM, at most %dM (4-6 boots; runs in %s)\n",
		k->spec, MEASURE_MEM, s.next, s.most, runs);
	while (s.state == RS_GOING) {
		enum rsearch_result r;
		int rc = try_reservation(self, k->spec, s.next, runs, &r, why,
					 sizeof(why), err, sizeof(err));

		if (rc == -2 && !boot_retried) {
			/* once: a second death while booting is the kernel's */
			print_line(stderr, "kernels: %s: booting it again",
				   err);
			boot_retried = true;
			continue;
		}
		if (rc)
			die("%s: %s", k->spec, err);
		if (r == RS_CAPTURE_FAILED)
			snprintf(failed_why, sizeof(failed_why), "%s", why);
		else if (r == RS_NOT_PLACED)
			snprintf(placed_why, sizeof(placed_why), "%s", why);
		rsearch_feed(&s, r);
	}
	if (s.state == RS_TOO_SMALL)
		die("%s does not dump with any reservation a %s guest places: crashkernel=%dM was too small (%s)%s%s (runs in %s)",
		    k->spec, MEASURE_MEM, s.lo,
		    failed_why[0] ? failed_why : "no dump",
		    placed_why[0] ? "; a larger one was not placed: " : "",
		    placed_why, runs);
	if (s.state == RS_NEVER_PLACED)
		die("%s: crashkernel=%dM was not placed %d times in a row, although %dM was: %s (runs in %s)",
		    k->spec, s.next, s.refusals, s.hi, placed_why, runs);
	fprintf(stderr,
		"kernels: %s: the smallest reservation that dumps is %dM; its default: %dM (%d boots, %s)\n",
		k->spec, s.hi, 2 * s.hi, s.tries,
		fmt_ms(now_ms() - t0, el, sizeof(el)));
	if (!strcmp(k->flavor, "debian")) {
		if (keep(k, s.hi, err, sizeof(err)))
			die("keeping the measured reservation: %s", err);
		kernel_refresh(k);
	}
	free(runs);
	return s.hi;
}

void kernel_measure_unmeasured(struct kernel_info *k)
{
	char *lock;
	int fd;

	if (k->measured || strcmp(k->flavor, "debian"))
		return;
	kernel_refresh(k);
	lock = reservation_file(k->name);
	if (!lock)
		die("%s: %s (the kernel's cache entry) is not there", k->spec,
		    k->dir);
	free(lock);
	if (mkdir_p(paths.reservations, 0755) ||
	    access(paths.reservations, W_OK)) {
		/* another user's cache: its owner measures it */
		fprintf(stderr,
			"kernels: %s: its crash reservation is not measured, and %s is not ours to keep it in (%s): crashkernel=%s; its owner runs bpk kernels --measure %s\n",
			k->spec, paths.reservations, strerror(errno),
			k->default_crashkernel, k->spec);
		return;
	}
	/* two runs of one new kernel measure it once */
	lock = xasprintf("%s/%s.lock", paths.reservations, k->name);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die("%s: %s", lock, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK)
			die("%s: %s", lock, strerror(errno));
		fprintf(stderr,
			"kernels: %s: another bpk is measuring its crash reservation: waiting for it\n",
			k->spec);
		if (flock(fd, LOCK_EX))
			die("%s: %s", lock, strerror(errno));
	}
	kernel_refresh(k);
	if (!k->measured) {
		fprintf(stderr,
			"kernels: %s has no measured crash reservation: measuring it once, kept for this machine in %s (--crashkernel SIZE skips this)\n",
			k->spec, paths.reservations);
		kernel_measure(k);
	}
	close(fd);
	free(lock);
}
