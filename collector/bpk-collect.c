// SPDX-License-Identifier: GPL-2.0
/*
 * bpk-collect: file one appliance run on the host, after QEMU has exited.
 *
 *   bpk-collect --staging DIR --runs DIR --trigger NAME [--meta KEY=VALUE ...]
 *
 * DIR (staging) holds what QEMU wrote: console.log, and from the virtio
 * ports results.txt (the guest job), dmesg.txt, dump.flat (makedumpfile -F)
 * and status.txt (the capture step's record). The run is filed as
 * RUNS/<UTC time>-<trigger>[-N]/, never over another, with
 *   vmcore             rebuilt by makedumpfile -R, only if everything checks:
 *                      status=success, the stream complete, the size right
 *   vmcore.incomplete  the raw stream otherwise (nothing is thrown away)
 *   vmcore-dmesg.txt, console.log, guest.log, capture-status.txt, run.meta
 * Prints the run directory on stdout. Exit 0: a verified dump; 1: the run
 * is filed as failed (the reason on stderr and in run.meta); 2: bad input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "flat.h"
#include "guestlog.h"
#include "status.h"

#define MAX_META 32
#define TEXT_MAX (32 << 20)

static const char *prog = "bpk-collect";

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The whole of @path as a string ("" if it does not exist). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f) {
		if (errno != ENOENT)
			die(2, "%s: %s", path, strerror(errno));
		return strdup("");
	}
	buf = malloc(TEXT_MAX + 1);
	if (!buf)
		die(2, "out of memory");
	n = fread(buf, 1, TEXT_MAX, f);
	if (ferror(f))
		die(2, "%s: read error", path);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* mkdir RUNS/<stamp>-<trigger>, or -2, -3 ...: a run never reuses a dir. */
static void make_run_dir(const char *runs, const char *trigger, char *dir,
			 size_t len)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	if (mkdir(runs, 0755) && errno != EEXIST)
		die(2, "%s: %s", runs, strerror(errno));
	if (!gmtime_r(&t, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		die(2, "cannot format the time");
	for (int i = 1; i < 1000; i++) {
		if (i == 1)
			snprintf(dir, len, "%s/%s-%s", runs, stamp, trigger);
		else
			snprintf(dir, len, "%s/%s-%s-%d", runs, stamp, trigger,
				 i);
		if (!mkdir(dir, 0755))
			return;
		if (errno != EEXIST)
			die(2, "%s: %s", dir, strerror(errno));
	}
	die(2, "%s: too many runs in the same second", runs);
}

/* Move staging/@from to run/@to if it has any content. */
static void move(const char *staging, const char *from, const char *run,
		 const char *to)
{
	char src[4096], dst[4096];

	snprintf(src, sizeof(src), "%s/%s", staging, from);
	snprintf(dst, sizeof(dst), "%s/%s", run, to);
	if (file_size(src) <= 0)
		return;
	if (rename(src, dst))
		die(2, "cannot move %s to %s: %s", src, dst, strerror(errno));
}

/* makedumpfile -R @out < @in; the exit status, or -1. */
static int rebuild(const char *in, const char *out)
{
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(in, O_RDONLY);
		int null = open("/dev/null", O_WRONLY);

		if (fd < 0 || null < 0 || dup2(fd, 0) < 0 || dup2(null, 1) < 0)
			_exit(126);
		execlp("makedumpfile", "makedumpfile", "-R", out, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int has_signature(const char *path)
{
	char sig[8] = { 0 };
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(sig, 1, sizeof(sig), f);
	fclose(f);
	return n == sizeof(sig) &&
	       (!memcmp(sig, "KDUMP   ", 8) || !memcmp(sig, "\177ELF", 4));
}

/* key=value, the value on one line */
static void meta(FILE *f, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(f, "%s=%s\n", key, buf);
}

static void meta_time(FILE *f, const char *key, double from, double to)
{
	if (from >= 0 && to >= 0)
		meta(f, key, "%.2f", to - from);
}

static void usage(void)
{
	die(2, "usage: bpk-collect --staging DIR --runs DIR --trigger NAME "
	       "[--meta KEY=VALUE ...]");
}

int main(int argc, char **argv)
{
	const char *staging = NULL, *runs = NULL, *trigger = NULL;
	const char *metas[MAX_META];
	int nmeta = 0;
	char run[2048], path[4096], flatpath[4096], why[512], err[256];
	char reason[1024] = "";
	char *results, *console, *status_text;
	struct guest_progress g;
	struct capture_status st;
	struct flat_info info = { 0 };
	enum flat_verdict verdict = FLAT_EMPTY;
	int status_ok, success = 0;
	const char *dump_state = "none";
	double t0 = now();
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--staging"))
			staging = argv[++i];
		else if (!strcmp(argv[i], "--runs"))
			runs = argv[++i];
		else if (!strcmp(argv[i], "--trigger"))
			trigger = argv[++i];
		else if (!strcmp(argv[i], "--meta") && nmeta < MAX_META &&
			 strchr(argv[i + 1], '=') && argv[i + 1][0] != '=')
			metas[nmeta++] = argv[++i];
		else
			die(2, "bad argument '%s'", argv[i]);
	}
	if (!staging || !runs || !trigger)
		usage();
	if (!*trigger || strchr(trigger, '/'))
		die(2, "--trigger '%s': not a trigger name", trigger);
	snprintf(path, sizeof(path), "%s/console.log", staging);
	if (access(path, R_OK))
		die(2, "%s: %s (is %s a run's staging dir?)", path,
		    strerror(errno), staging);

	make_run_dir(runs, trigger, run, sizeof(run));

	snprintf(path, sizeof(path), "%s/results.txt", staging);
	results = slurp(path);
	snprintf(path, sizeof(path), "%s/console.log", staging);
	console = slurp(path);
	snprintf(path, sizeof(path), "%s/status.txt", staging);
	status_text = slurp(path);
	guestlog_scan(results, console, &g);

	status_ok = *status_text &&
		    !status_parse(status_text, &st, err, sizeof(err));

	snprintf(flatpath, sizeof(flatpath), "%s/dump.flat", staging);
	f = fopen(flatpath, "r");
	if (f) {
		verdict = flat_check(f, &info, why, sizeof(why));
		fclose(f);
	} else {
		snprintf(why, sizeof(why), "no dump stream");
	}

	/* The reasons, most telling first. */
	if (g.refused[0]) {
		snprintf(reason, sizeof(reason), "the guest refused to arm: %s",
			 g.refused);
	} else if (!strcmp(g.last_state, "not-fired")) {
		snprintf(
			reason, sizeof(reason),
			"the trigger did not fire: the workload ran to the end with no panic");
	} else if (g.panic < 0 && verdict == FLAT_EMPTY) {
		snprintf(reason, sizeof(reason),
			 "no panic happened (the guest got to \"%s\")",
			 g.last_state[0] ? g.last_state : "nothing");
	} else if (g.capture_panic[0] && verdict != FLAT_COMPLETE) {
		snprintf(
			reason, sizeof(reason),
			"the capture kernel itself panicked (is crashkernel= big enough?): %s",
			g.capture_panic);
	} else if (verdict == FLAT_EMPTY && !*status_text) {
		snprintf(
			reason, sizeof(reason),
			"the guest panicked but the capture step sent no dump and no status");
	} else if (verdict != FLAT_COMPLETE) {
		snprintf(reason, sizeof(reason), "dump incomplete: %s", why);
	} else if (!status_ok) {
		snprintf(reason, sizeof(reason), "capture status record %s",
			 *status_text ?
				 err :
				 "missing: the capture step did not finish");
	} else if (strcmp(status_get(&st, "status"), "success")) {
		snprintf(reason, sizeof(reason),
			 "capture step %s failed with status %s",
			 status_get(&st, "failed_step") ?
				 status_get(&st, "failed_step") :
				 "?",
			 status_get(&st, "failed_rc") ?
				 status_get(&st, "failed_rc") :
				 "?");
	}

	if (!reason[0]) {
		int rc;

		snprintf(path, sizeof(path), "%s/vmcore", run);
		rc = rebuild(flatpath, path);
		if (rc != 0)
			snprintf(reason, sizeof(reason),
				 "makedumpfile -R exited %d", rc);
		else if (file_size(path) != (off_t)info.extent)
			snprintf(
				reason, sizeof(reason),
				"rebuilt vmcore is %lld bytes, the stream says %llu",
				(long long)file_size(path),
				(unsigned long long)info.extent);
		else if (!has_signature(path))
			snprintf(
				reason, sizeof(reason),
				"rebuilt vmcore has neither a KDUMP nor an ELF signature");
		if (reason[0])
			unlink(path);
		else
			success = 1;
	}
	if (success) {
		dump_state = "complete";
		unlink(flatpath);
	} else if (file_size(flatpath) > 0) {
		dump_state = "incomplete";
		move(staging, "dump.flat", run, "vmcore.incomplete");
	}
	move(staging, "console.log", run, "console.log");
	move(staging, "results.txt", run, "guest.log");
	move(staging, "dmesg.txt", run, "vmcore-dmesg.txt");
	move(staging, "status.txt", run, "capture-status.txt");

	snprintf(path, sizeof(path), "%s/run.meta", run);
	f = fopen(path, "w");
	if (!f)
		die(2, "%s: %s", path, strerror(errno));
	meta(f, "run", "%s", strrchr(run, '/') ? strrchr(run, '/') + 1 : run);
	meta(f, "trigger", "%s", trigger);
	meta(f, "status", "%s", success ? "success" : "failed");
	meta(f, "reason", "%s", success ? "" : reason);
	meta(f, "dump", "%s", dump_state);
	meta(f, "panic_message", "%s", g.panic_msg);
	meta(f, "guest_last_state", "%s", g.last_state);
	for (int i = 0; i < nmeta; i++)
		fprintf(f, "%s\n", metas[i]);
	meta_time(f, "boot_to_armed_s", 0, g.armed);
	meta_time(f, "armed_to_panic_s", g.armed, g.panic);
	if (status_ok) {
		const char *started = status_get(&st, "capture_started");
		const char *dmesg = status_get(&st, "dmesg_done");
		const char *dump = status_get(&st, "dump_done");
		double s = started && *started ? strtod(started, NULL) : -1;

		/* capture kernel uptime: from kexec to the capture step */
		meta_time(f, "panic_to_capture_s", 0, s);
		meta_time(f, "dmesg_s", s,
			  dmesg && *dmesg ? strtod(dmesg, NULL) : -1);
		meta_time(f, "dump_s",
			  dmesg && *dmesg ? strtod(dmesg, NULL) : -1,
			  dump && *dump ? strtod(dump, NULL) : -1);
		meta(f, "makedumpfile_opts", "%s",
		     status_get(&st, "makedumpfile_opts") ?
			     status_get(&st, "makedumpfile_opts") :
			     "");
	}
	meta(f, "dump_stream_bytes", "%llu",
	     (unsigned long long)info.stream_bytes);
	meta(f, "vmcore_bytes", "%llu",
	     success ? (unsigned long long)info.extent : 0ULL);
	meta(f, "collect_s", "%.2f", now() - t0);
	if (fclose(f))
		die(2, "%s: write error", path);

	printf("%s\n", run);
	if (!success) {
		fprintf(stderr, "%s: error: run filed as failed in %s: %s\n",
			prog, run, reason);
		return 1;
	}
	return 0;
}
