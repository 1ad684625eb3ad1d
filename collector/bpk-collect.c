// SPDX-License-Identifier: GPL-2.0
/*
 * bpk-collect: file one appliance run on the host, after QEMU has exited.
 *
 *   bpk-collect --staging DIR --runs DIR --trigger NAME [--meta KEY=VALUE ...]
 *               [--dry-run] [--interrupted SIGNAME]
 *
 * DIR (staging) holds what QEMU wrote: console.log, and from the virtio
 * ports results.txt (the guest job), dmesg.txt, dump.flat (makedumpfile -F)
 * and status.txt (the capture step's record). Everything is checked and
 * renamed inside the staging dir, run.meta is written there, and only then
 * is the staging dir renamed to RUNS/<UTC time>-<trigger>[-N]/ (never over
 * another run). So a failure at any point leaves every byte the guest sent
 * in the staging dir. The run holds
 *   vmcore             rebuilt by makedumpfile -R from a complete stream whose
 *                      size and signature check out
 *   vmcore.incomplete  the raw stream when it was cut short
 *   vmcore.flat        the raw stream when it is whole but did not (only)
 *                      verify: trailing data, bad records, -R failed
 *   vmcore-dmesg.txt, console.log, guest.log, capture-status.txt, run.meta
 * --dry-run: no dump is expected; the run succeeded if the guest job got
 * to its "dry-run-done" state. --interrupted: the run was stopped by that
 * signal; it is filed with status=interrupted.
 *
 * Prints the run directory on stdout. Exit 0: filed, a verified dump (or a
 * completed dry run) and nothing failed; 1: filed, failed or interrupted
 * (the reason on stderr and in run.meta); 2: bad input, nothing touched;
 * 3: the run could not be filed (an I/O error, named), everything is still
 * in the staging dir.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "flat.h"
#include "guestlog.h"
#include "status.h"

#define MAX_META 32
#define STATUS_TEXT_MAX (64 * 1024)
/* Below this much free space the staging file system counts as full. */
#define FULL_BYTES (1024 * 1024)

static const char *prog = "bpk-collect";
static const char *staging;
static char reserved[2048]; /* the run dir, made empty to hold its name */

static void vdie(int code, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: error: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(code);
}

/* Bad input: nothing was touched. */
static void bad_input(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(2, fmt, ap);
	va_end(ap);
}

/* The run cannot be filed: give back the reserved name, say where
 * everything is.
 */
static void cannot_file(const char *fmt, ...)
{
	va_list ap;

	if (reserved[0])
		rmdir(reserved);
	fprintf(stderr, "%s: error: could not file the run: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; everything the guest sent is still in %s\n",
		staging);
	exit(3);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static void stage_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", staging, name);
}

/* The capture status record: small by design ("" if it does not exist). */
static char *read_status(void)
{
	char path[4096];
	char *buf = malloc(STATUS_TEXT_MAX + 1);
	FILE *f;
	size_t n;

	if (!buf)
		cannot_file("out of memory");
	stage_path(path, sizeof(path), "status.txt");
	f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT)
			cannot_file("%s: %s", path, strerror(errno));
		buf[0] = '\0';
		return buf;
	}
	n = fread(buf, 1, STATUS_TEXT_MAX, f);
	if (ferror(f))
		cannot_file("%s: %s", path, strerror(errno ? errno : EIO));
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void scan(struct guest_progress *g, const char *name, int console)
{
	char path[4096];
	FILE *f;

	stage_path(path, sizeof(path), name);
	f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return;
		cannot_file("%s: %s", path, strerror(errno));
	}
	errno = 0;
	if (guestlog_scan_file(g, f, console))
		cannot_file("%s: %s", path, strerror(errno));
	fclose(f);
}

/* mkdir RUNS/<stamp>-<trigger>, or -2, -3 ...: a run never reuses a dir. */
static void reserve_run_dir(const char *runs, const char *trigger)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		cannot_file("cannot format the time");
	for (int i = 1; i < 1000; i++) {
		if (i == 1)
			snprintf(reserved, sizeof(reserved), "%s/%s-%s", runs,
				 stamp, trigger);
		else
			snprintf(reserved, sizeof(reserved), "%s/%s-%s-%d",
				 runs, stamp, trigger, i);
		if (!mkdir(reserved, 0755))
			return;
		if (errno != EEXIST) {
			int e = errno;
			char dir[2048];

			snprintf(dir, sizeof(dir), "%s", reserved);
			reserved[0] = '\0';
			cannot_file("%s: %s", dir, strerror(e));
		}
	}
	reserved[0] = '\0';
	cannot_file("%s: too many runs in the same second", runs);
}

/* Rename staging/@from to staging/@to; an empty @from is dropped. */
static void rename_in_stage(const char *from, const char *to)
{
	char src[4096], dst[4096];
	off_t size;

	stage_path(src, sizeof(src), from);
	stage_path(dst, sizeof(dst), to);
	size = file_size(src);
	if (size < 0)
		return;
	if (size == 0) {
		unlink(src);
		return;
	}
	if (rename(src, dst))
		cannot_file("cannot rename %s to %s: %s", src, to,
			    strerror(errno));
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

/* " (the file system of STAGING is full: No space left on device)" when
 * it is: QEMU drops what it cannot write, so this is the only trace.
 */
static void full_note(char *buf, size_t len)
{
	struct statvfs vfs;

	unsigned long long avail;

	buf[0] = '\0';
	if (statvfs(staging, &vfs))
		return;
	/* QEMU runs as the user of this collector: root may use the blocks
	 * reserved for it
	 */
	avail = (unsigned long long)(geteuid() ? vfs.f_bavail : vfs.f_bfree) *
		vfs.f_frsize;
	if (avail < FULL_BYTES)
		snprintf(buf, len,
			 " (the file system of %s is full: %s, %llu KiB free)",
			 staging, strerror(ENOSPC), avail / 1024);
}

/* key=value, the value on one line */
static void meta(FILE *f, const char *key, const char *fmt, ...)
{
	char buf[2048];
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
	if (from >= 0 && to >= from)
		meta(f, key, "%.2f", to - from);
}

/* KEY=VALUE: a lower-case key, a one-line value (run.meta is key=value
 * lines, read back by shell scripts).
 */
static int meta_arg_ok(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg)
		return 0;
	for (const char *p = arg; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return !strpbrk(eq + 1, "\n\r");
}

static void usage(void)
{
	bad_input("usage: bpk-collect --staging DIR --runs DIR --trigger NAME "
		  "[--meta KEY=VALUE ...] [--dry-run] [--interrupted SIGNAME]");
}

/* What brought the first kernel down, from its console and the guest's
 * states: never from a line the capture kernel printed.
 */
static void find_cause(const struct guest_progress *g, const char *trigger,
		       char *cause, size_t clen, char *detail, size_t dlen)
{
	char oops[1024] = "";

	if (g->oops[0])
		snprintf(oops, sizeof(oops), "%s%s%s", g->oops,
			 g->oops_where[0] ? " at " : "", g->oops_where);
	detail[0] = '\0';
	if (!strncmp(g->panic_msg, "bpf_panic trigger ", 18)) {
		snprintf(cause, clen, "trigger");
		snprintf(detail, dlen, "%s", g->panic_msg);
	} else if (g->panic_msg[0] && g->oops[0]) {
		snprintf(cause, clen, "%s",
			 !strncmp(g->oops, "WARNING: ", 9) ? "warning" :
							     "oops");
		snprintf(detail, dlen, "%s; panic: %s", oops, g->panic_msg);
	} else if (g->boots >= 2 && g->oops[0] && !g->oops_ended) {
		/* panic_on_oops with a crash kernel loaded: the oops goes
		 * straight to crash_kexec(), before any panic line
		 */
		snprintf(cause, clen, "%s",
			 !strncmp(g->oops, "WARNING: ", 9) ? "warning" :
							     "oops");
		snprintf(detail, dlen, "%s", oops);
	} else if (g->panic_msg[0]) {
		snprintf(cause, clen, "panic");
		snprintf(detail, dlen, "%s", g->panic_msg);
	} else if (g->boots >= 2 && !strcmp(g->action, "crash_kexec")) {
		/* crash_kexec() prints nothing: the capture kernel booting
		 * after the job armed that action is the trigger firing; the
		 * report confirms it from the fire record in the dump
		 */
		snprintf(cause, clen, "trigger");
		snprintf(detail, dlen,
			 "%s fired through crash_kexec (no panic line)",
			 trigger);
	} else if (g->boots >= 2) {
		snprintf(cause, clen, "kexec");
		snprintf(detail, dlen,
			 "the capture kernel booted with no panic line%s%s",
			 oops[0] ? " after " : "", oops);
	} else if (oops[0]) {
		snprintf(cause, clen, "none");
		snprintf(detail, dlen, "no panic; the console shows %s", oops);
	} else {
		snprintf(cause, clen, "none");
	}
}

int main(int argc, char **argv)
{
	const char *runs = NULL, *trigger = NULL, *interrupted = NULL;
	const char *metas[MAX_META];
	int nmeta = 0, dry = 0;
	char run[2048], path[4096], flatpath[4096], corepath[4096];
	char why[512], err[256], full[512], reason[2048] = "";
	char cause[32], cause_detail[1536], oops_note[1200] = "";
	char *status_text;
	struct guest_progress g;
	struct capture_status st;
	struct flat_info info = { 0 };
	enum flat_verdict verdict = FLAT_EMPTY;
	int status_ok, dump_part_ok, dump_ok = 0, success;
	const char *dump_state = "none", *st_status = NULL;
	double t0 = now();
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dry-run")) {
			dry = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--staging")) {
			staging = argv[++i];
		} else if (!strcmp(argv[i], "--runs")) {
			runs = argv[++i];
		} else if (!strcmp(argv[i], "--trigger")) {
			trigger = argv[++i];
		} else if (!strcmp(argv[i], "--interrupted")) {
			interrupted = argv[++i];
		} else if (!strcmp(argv[i], "--meta")) {
			if (nmeta == MAX_META)
				bad_input("more than %d --meta", MAX_META);
			if (!meta_arg_ok(argv[i + 1])) {
				/* the message is one line, too */
				for (char *p = argv[i + 1]; *p; p++)
					if (*p == '\n' || *p == '\r')
						*p = ' ';
				bad_input(
					"--meta '%s': not KEY=VALUE with a lower-case key and a one-line value",
					argv[i + 1]);
			}
			metas[nmeta++] = argv[++i];
		} else {
			bad_input("bad argument '%s'", argv[i]);
		}
	}
	if (!staging || !runs || !trigger)
		usage();
	if (!*trigger || strchr(trigger, '/'))
		bad_input("--trigger '%s': not a trigger name", trigger);
	if (interrupted && (!*interrupted || strpbrk(interrupted, "\n\r/")))
		bad_input("--interrupted '%s': not a signal name", interrupted);
	stage_path(path, sizeof(path), "console.log");
	if (access(path, R_OK))
		bad_input("%s: %s (is %s a run's staging dir?)", path,
			  strerror(errno), staging);
	if (mkdir(runs, 0755) && errno != EEXIST)
		bad_input("%s: %s", runs, strerror(errno));

	guestlog_init(&g);
	scan(&g, "results.txt", 0);
	scan(&g, "console.log", 1);
	status_text = read_status();
	status_ok = *status_text &&
		    !status_parse(status_text, &st, err, sizeof(err));
	if (status_ok)
		st_status = status_get(&st, "status");

	stage_path(flatpath, sizeof(flatpath), "dump.flat");
	f = fopen(flatpath, "r");
	if (f) {
		verdict = flat_check(f, &info, why, sizeof(why));
		if (ferror(f))
			cannot_file("%s: %s", flatpath,
				    strerror(errno ? errno : EIO));
		fclose(f);
	} else if (errno != ENOENT) {
		cannot_file("%s: %s", flatpath, strerror(errno));
	} else {
		snprintf(why, sizeof(why), "no dump stream");
	}
	full_note(full, sizeof(full));
	find_cause(&g, trigger, cause, sizeof(cause), cause_detail,
		   sizeof(cause_detail));
	if (g.oops[0])
		snprintf(oops_note, sizeof(oops_note),
			 " (the console shows %s%s%s)", g.oops,
			 g.oops_where[0] ? " at " : "", g.oops_where);

	/* The dump: a stream that is whole up to its end marker was
	 * finished by makedumpfile; rebuild it unless the capture record
	 * says makedumpfile itself failed.
	 */
	dump_part_ok = !status_ok || !status_get(&st, "makedumpfile_rc") ||
		       !strcmp(status_get(&st, "makedumpfile_rc"), "0");
	stage_path(corepath, sizeof(corepath), "vmcore");
	if ((verdict == FLAT_COMPLETE || verdict == FLAT_TRAILING) &&
	    dump_part_ok) {
		int rc = rebuild(flatpath, corepath);

		if (rc != 0)
			snprintf(why, sizeof(why),
				 "makedumpfile -R exited %d%s", rc, full);
		else if (file_size(corepath) != (off_t)info.extent)
			snprintf(
				why, sizeof(why),
				"rebuilt vmcore is %lld bytes, the stream says %llu%s",
				(long long)file_size(corepath),
				(unsigned long long)info.extent, full);
		else if (!has_signature(corepath))
			snprintf(
				why, sizeof(why),
				"rebuilt vmcore has neither a KDUMP nor an ELF signature");
		else
			dump_ok = 1;
		if (!dump_ok)
			unlink(corepath);
	}

	/* The reasons, most telling first. */
	if (interrupted) {
		snprintf(reason, sizeof(reason),
			 "interrupted by %s (the guest had got to \"%s\"%s%s)",
			 interrupted,
			 g.last_state[0] ? g.last_state : "nothing",
			 g.boots >= 2 ? ", the capture kernel had booted" : "",
			 dump_ok	   ? ", the dump is complete" :
			 info.stream_bytes ? ", the dump was under way" :
					     "");
	} else if (g.refused[0]) {
		snprintf(reason, sizeof(reason), "the guest refused to arm: %s",
			 g.refused);
	} else if (dry) {
		if (strcmp(g.last_state, "dry-run-done"))
			snprintf(
				reason, sizeof(reason),
				"the dry run did not complete (the guest got to \"%s\")%s",
				g.last_state[0] ? g.last_state : "nothing",
				oops_note);
	} else if (!strcmp(g.last_state, "not-fired")) {
		snprintf(
			reason, sizeof(reason), "%s%s",
			strcmp(trigger, "none") ?
				"the trigger did not fire: the workload ran to the end with no panic" :
				"nothing crashed the guest: the workload ran to the end with no panic",
			oops_note);
	} else if (g.panic < 0 && g.boots < 2 && verdict == FLAT_EMPTY &&
		   !strcmp(g.last_state, "armed") &&
		   !strcmp(g.action, "crash_kexec")) {
		/* crash_kexec() prints nothing when it fires: a guest that
		 * went silent while armed may have fired into a capture
		 * kernel that died before its console came up
		 */
		snprintf(
			reason, sizeof(reason),
			"no panic line and no capture kernel after \"armed\": the trigger fires through crash_kexec, which prints nothing, so it may have fired into a capture kernel that died before its console came up (is crashkernel= big enough? the guest's reservation check refuses one that is too small)%s",
			oops_note);
	} else if (g.panic < 0 && g.boots < 2 && verdict == FLAT_EMPTY) {
		snprintf(reason, sizeof(reason),
			 "no panic happened (the guest got to \"%s\")%s",
			 g.last_state[0] ? g.last_state : "nothing", oops_note);
	} else if (g.capture_panic[0] && !dump_ok) {
		snprintf(
			reason, sizeof(reason),
			"the capture kernel itself panicked (is crashkernel= big enough?): %s",
			g.capture_panic);
	} else if (verdict == FLAT_EMPTY && !*status_text) {
		snprintf(
			reason, sizeof(reason),
			"the guest went down (%s) but the capture step sent no dump and no status%s",
			cause_detail[0] ? cause_detail : cause, full);
	} else if (verdict == FLAT_TRUNCATED || verdict == FLAT_NO_END) {
		snprintf(reason, sizeof(reason), "dump incomplete: %s%s", why,
			 full);
	} else if (verdict == FLAT_BAD) {
		snprintf(reason, sizeof(reason),
			 "the dump stream is not a valid flattened dump: %s",
			 why);
	} else if (verdict == FLAT_EMPTY) {
		snprintf(reason, sizeof(reason), "no dump stream%s%s",
			 status_ok && st_status ? ": capture status " : "",
			 status_ok && st_status ? st_status : "");
	} else if (!dump_ok && dump_part_ok) {
		snprintf(reason, sizeof(reason), "the dump did not verify: %s",
			 why);
	} else if (!status_ok) {
		snprintf(reason, sizeof(reason), "capture status record %s%s",
			 *status_text ?
				 err :
				 "missing: the capture step did not finish",
			 dump_ok ?
				 "; the dump itself is complete and verified" :
				 "");
	} else if (strcmp(st_status, "success")) {
		const char *step = status_get(&st, "failed_step");
		const char *rc = status_get(&st, "failed_rc");

		snprintf(
			reason, sizeof(reason),
			"capture step %s failed (exit %s)%s", step ? step : "?",
			rc ? rc : "?",
			dump_ok ?
				"; the dump itself is complete and verified (vmcore kept)" :
				"");
	} else if (verdict == FLAT_TRAILING) {
		snprintf(
			reason, sizeof(reason),
			"the dump stream has trailing data: %s; vmcore rebuilt from the stream up to the marker, the raw stream kept as vmcore.flat",
			why);
	}
	success = !reason[0] && (dry || dump_ok);
	if (!success && !reason[0])
		snprintf(reason, sizeof(reason), "no verified dump: %s", why);

	/* Name every file for what it is, still inside the staging dir. */
	if (dump_ok) {
		dump_state = "complete";
		if (verdict == FLAT_TRAILING)
			rename_in_stage("dump.flat", "vmcore.flat");
		else if (unlink(flatpath) && errno != ENOENT)
			cannot_file("%s: %s", flatpath, strerror(errno));
	} else if (file_size(flatpath) > 0) {
		int cut = verdict == FLAT_TRUNCATED || verdict == FLAT_NO_END;

		dump_state = cut ? "incomplete" : "unverified";
		rename_in_stage("dump.flat",
				cut ? "vmcore.incomplete" : "vmcore.flat");
	} else {
		rename_in_stage("dump.flat", "dump.flat"); /* drop if empty */
	}
	rename_in_stage("results.txt", "guest.log");
	rename_in_stage("dmesg.txt", "vmcore-dmesg.txt");
	rename_in_stage("status.txt", "capture-status.txt");

	reserve_run_dir(runs, trigger);
	snprintf(run, sizeof(run), "%s", reserved);
	stage_path(path, sizeof(path), "run.meta");
	f = fopen(path, "w");
	if (!f)
		cannot_file("%s: %s", path, strerror(errno));
	meta(f, "run", "%s", strrchr(run, '/') ? strrchr(run, '/') + 1 : run);
	meta(f, "trigger", "%s", trigger);
	meta(f, "status", "%s",
	     interrupted ? "interrupted" :
	     success	 ? "success" :
			   "failed");
	meta(f, "reason", "%s", success ? "" : reason);
	meta(f, "dump", "%s",
	     dry && !strcmp(dump_state, "none") ? "none (dry run)" :
						  dump_state);
	meta(f, "cause", "%s", cause);
	meta(f, "cause_detail", "%s", cause_detail);
	meta(f, "panic_message", "%s", g.panic_msg);
	if (g.capture_panic[0])
		meta(f, "capture_panic", "%s", g.capture_panic);
	meta(f, "guest_last_state", "%s", g.last_state);
	if (g.action[0])
		meta(f, "fire_action", "%s", g.action);
	if (interrupted)
		meta(f, "interrupted", "%s", interrupted);
	for (int i = 0; i < nmeta; i++)
		fprintf(f, "%s\n", metas[i]);
	meta_time(f, "boot_to_armed_s", 0, g.armed);
	/* only a panic line of the first kernel times the fire; with
	 * crash_kexec the report takes it from the fire record
	 */
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
	     dump_ok ? (unsigned long long)info.extent : 0ULL);
	meta(f, "console_lines", "%lu", g.console_lines);
	if (g.lines_cut)
		meta(f, "lines_cut",
		     "%lu (longer than %d bytes: scanned by their start)",
		     g.lines_cut, GUESTLOG_LINE_MAX);
	meta(f, "collect_s", "%.2f", now() - t0);
	/* a run.meta that could not be written whole is not left behind */
	if (fflush(f) || ferror(f) || fsync(fileno(f))) {
		int e = errno;

		fclose(f);
		unlink(path);
		cannot_file("%s: %s", path, strerror(e ? e : EIO));
	}
	if (fclose(f)) {
		int e = errno;

		unlink(path);
		cannot_file("%s: %s", path, strerror(e));
	}

	/* The last step: the staging dir becomes the run (over the empty
	 * dir that reserved its name).
	 */
	if (rename(staging, run))
		cannot_file("cannot rename %s to %s: %s", staging, run,
			    strerror(errno));
	reserved[0] = '\0';

	printf("%s\n", run);
	if (g.lines_cut)
		fprintf(stderr,
			"%s: note: %lu console/guest log line(s) longer than %d bytes were scanned by their start only\n",
			prog, g.lines_cut, GUESTLOG_LINE_MAX);
	if (!success) {
		fprintf(stderr, "%s: error: run filed as %s in %s: %s\n", prog,
			interrupted ? "interrupted" : "failed", run, reason);
		return 1;
	}
	return 0;
}
