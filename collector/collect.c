// SPDX-License-Identifier: GPL-2.0
/* Filing one run: see collect.h. */
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

#include "collect.h"
#include "escape.h"
#include "flat.h"
#include "guestlog.h"
#include "hostdump.h"
#include "protocol.h"
#include "status.h"

#define STATUS_TEXT_MAX (64 * 1024)
/* Below this much free space the staging file system counts as full. */
#define FULL_BYTES (1024 * 1024)

struct ctx {
	const struct collect_in *in;
	char *err;
	size_t errlen;
	char reserved[2048]; /* the run dir, made empty to hold its name */
};

/* The run cannot be filed: give back the reserved name, say why. */
static enum collect_result cannot_file(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->reserved[0])
		rmdir(c->reserved);
	n = snprintf(c->err, c->errlen, "could not file the run: ");
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->errlen)
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return COLLECT_UNFILED;
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

static void stage_path(const struct ctx *c, char *buf, size_t len,
		       const char *name)
{
	snprintf(buf, len, "%s/%s", c->in->staging, name);
}

/* The capture status record: small by design ("" if it does not exist);
 * NULL after an error (in c->err).
 */
static char *read_status(struct ctx *c)
{
	char path[4096];
	char *buf = malloc(STATUS_TEXT_MAX + 1);
	FILE *f;
	size_t n;

	if (!buf) {
		cannot_file(c, "out of memory");
		return NULL;
	}
	stage_path(c, path, sizeof(path), "status.txt");
	f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT) {
			cannot_file(c, "%s: %s", path, strerror(errno));
			free(buf);
			return NULL;
		}
		buf[0] = '\0';
		return buf;
	}
	n = fread(buf, 1, STATUS_TEXT_MAX, f);
	if (ferror(f)) {
		cannot_file(c, "%s: %s", path, strerror(errno ? errno : EIO));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static int scan(struct ctx *c, struct guest_progress *g, const char *name,
		int console)
{
	char path[4096];
	FILE *f;

	stage_path(c, path, sizeof(path), name);
	f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		cannot_file(c, "%s: %s", path, strerror(errno));
		return -1;
	}
	errno = 0;
	if (guestlog_scan_file(g, f, console)) {
		cannot_file(c, "%s: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* mkdir RUNS/<stamp>-<trigger>, or -2, -3 ...: a run never reuses a dir. */
static int reserve_run_dir(struct ctx *c)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm)) {
		cannot_file(c, "cannot format the time");
		return -1;
	}
	for (int i = 1; i < 1000; i++) {
		if (i == 1)
			snprintf(c->reserved, sizeof(c->reserved), "%s/%s-%s",
				 c->in->runs, stamp, c->in->trigger);
		else
			snprintf(c->reserved, sizeof(c->reserved),
				 "%s/%s-%s-%d", c->in->runs, stamp,
				 c->in->trigger, i);
		if (!mkdir(c->reserved, 0700))
			return 0;
		if (errno != EEXIST) {
			int e = errno;
			char dir[2048];

			snprintf(dir, sizeof(dir), "%s", c->reserved);
			c->reserved[0] = '\0';
			cannot_file(c, "%s: %s", dir, strerror(e));
			return -1;
		}
	}
	c->reserved[0] = '\0';
	cannot_file(c, "%s: too many runs in the same second", c->in->runs);
	return -1;
}

/* Rename staging/@from to staging/@to; an empty @from is dropped. */
static int rename_in_stage(struct ctx *c, const char *from, const char *to)
{
	char src[4096], dst[4096];
	off_t size;

	stage_path(c, src, sizeof(src), from);
	stage_path(c, dst, sizeof(dst), to);
	size = file_size(src);
	if (size < 0)
		return 0;
	if (size == 0) {
		unlink(src);
		return 0;
	}
	if (rename(src, dst)) {
		cannot_file(c, "cannot rename %s to %s: %s", src, to,
			    strerror(errno));
		return -1;
	}
	return 0;
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
 * it is: what the guest sent after that is lost, so this is the only trace.
 */
static void full_note(const struct ctx *c, char *buf, size_t len)
{
	struct statvfs vfs;
	unsigned long long avail;

	buf[0] = '\0';
	if (statvfs(c->in->staging, &vfs))
		return;
	/* the writer runs as this user: root may use the blocks reserved
	 * for it
	 */
	avail = (unsigned long long)(geteuid() ? vfs.f_bavail : vfs.f_bfree) *
		vfs.f_frsize;
	if (avail < FULL_BYTES)
		snprintf(buf, len,
			 " (the file system of %s is full: %s, %llu KiB free)",
			 c->in->staging, strerror(ENOSPC), avail / 1024);
}

static int kind_of(const char *msg, enum pattern_scope scope)
{
	return console_match(msg, strlen(msg), scope, NULL);
}

static enum cause oops_cause(const struct guest_progress *g)
{
	return console_is(g->oops, strlen(g->oops), PAT_WARNING) ?
		       CAUSE_WARNING :
		       CAUSE_OOPS;
}

/* What brought the first kernel down, from its console and the guest's
 * states: never from a line the capture kernel printed.
 */
static enum cause find_cause(const struct guest_progress *g,
			     const char *trigger, char *detail, size_t dlen)
{
	char oops[1024] = "";

	if (g->oops[0])
		snprintf(oops, sizeof(oops), "%s%s%s", g->oops,
			 g->oops_where[0] ? " at " : "", g->oops_where);
	detail[0] = '\0';
	/* a panic message names its own cause first (as the dump side reads
	 * it: analysis/bpk_report.py); then an oops the kernel did not
	 * survive; a survived one is only noted
	 */
	if (g->panic_msg[0]) {
		enum cause c = CAUSE_PANIC;

		switch (kind_of(g->panic_msg, SCOPE_PANIC)) {
		case PAT_TRIGGER:
			c = CAUSE_TRIGGER;
			break;
		case PAT_SYSRQ:
			c = CAUSE_SYSRQ;
			break;
		case PAT_NMI:
			c = CAUSE_NMI;
			break;
		case PAT_WARNING:
			c = CAUSE_WARNING;
			break;
		case PAT_SOFT_LOCKUP:
			c = CAUSE_SOFT_LOCKUP;
			break;
		case PAT_HUNG_TASK:
			c = CAUSE_HUNG_TASK;
			break;
		case PAT_RCU_STALL:
			c = CAUSE_RCU_STALL;
			break;
		case PAT_OOPS:
			c = oops_cause(g);
			break;
		default:
			if (g->oops[0] && !g->oops_ended)
				c = oops_cause(g);
			break;
		}
		if (c == CAUSE_TRIGGER || !g->oops[0])
			snprintf(detail, dlen, "%s", g->panic_msg);
		else
			snprintf(detail, dlen, "%s; panic: %s", oops,
				 g->panic_msg);
		return c;
	}
	if (g->boots >= 2 && g->oops[0] && !g->oops_ended) {
		/* panic_on_oops with a crash kernel loaded: the oops goes
		 * straight to crash_kexec(), before any panic line
		 */
		snprintf(detail, dlen, "%s", oops);
		return oops_cause(g);
	}
	if (g->boots >= 2 && !strcmp(g->action, "crash_kexec")) {
		/* crash_kexec() prints nothing: the capture kernel booting
		 * after the job armed that action is the trigger firing; the
		 * report confirms it from the fire record in the dump
		 */
		snprintf(detail, dlen,
			 "%s fired through crash_kexec (no panic line)",
			 trigger);
		return CAUSE_TRIGGER;
	}
	if (g->boots >= 2 && g->nmi >= 0) {
		/* a panic from NMI context may print nothing on the console:
		 * the unknown-NMI line before the capture kernel says why
		 */
		snprintf(detail, dlen,
			 "an NMI, then the capture kernel (no panic line)");
		return CAUSE_NMI;
	}
	if (g->boots >= 2 && g->sysrq >= 0) {
		snprintf(
			detail, dlen,
			"a sysrq crash, then the capture kernel (no panic line)");
		return CAUSE_SYSRQ;
	}
	if (g->boots >= 2) {
		snprintf(detail, dlen,
			 "the capture kernel booted with no panic line%s%s",
			 oops[0] ? " after " : "", oops);
		return CAUSE_KEXEC;
	}
	if (oops[0])
		snprintf(detail, dlen, "no panic; the console shows %s", oops);
	return CAUSE_NONE;
}

/* Guest text goes into the record escaped (escape.h): nothing a broken
 * kernel or a workload wrote can reach a terminal, a report or a reader as
 * a control character, a line separator or invalid UTF-8.
 */
static void set_guest_text(char **field, const char *text)
{
	char *e = text ? escape_text(text, strlen(text)) : NULL;

	record_set(field, e);
	free(e);
}

static double stamp_of(const struct capture_status *st, const char *key)
{
	const char *v = status_get(st, key);

	return v && *v ? strtod(v, NULL) : -1;
}

static double span(double from, double to)
{
	return from >= 0 && to >= from ? to - from : RECORD_NO_TIME;
}

enum collect_result collect_run(const struct collect_in *in,
				struct run_record *rec, char **run_dir,
				char *err, size_t errlen)
{
	struct ctx c = { .in = in, .err = err, .errlen = errlen };
	char path[4096], flatpath[4096], corepath[4096], hostpath[4096];
	char why[512], serr[256], full[200], reason[2048] = "";
	char cause_detail[1536], oops_note[1200] = "";
	char *status_text = NULL;
	struct guest_progress g;
	struct capture_status st;
	struct flat_info info = { 0 };
	enum flat_verdict verdict = FLAT_EMPTY;
	int status_ok, dump_part_ok, dump_ok = 0, success, host_ok = 0;
	char host_note[640] = "";
	const char *st_status = NULL, *id;
	enum collect_result rc = COLLECT_UNFILED;
	double t0 = now();
	FILE *f;

	*run_dir = NULL;
	err[0] = '\0';
	if (!in->staging || !in->runs || !in->trigger) {
		snprintf(err, errlen,
			 "the staging dir, runs dir and trigger are required");
		return COLLECT_BAD_INPUT;
	}
	if (!*in->trigger || strchr(in->trigger, '/')) {
		snprintf(err, errlen, "trigger '%s': not a trigger name",
			 in->trigger);
		return COLLECT_BAD_INPUT;
	}
	/* the guest chooses a dump's offsets: without a bound a record at
	 * 1 TiB rebuilds a 1 TiB sparse "verified" vmcore
	 */
	if (!in->max_dump) {
		snprintf(
			err, errlen,
			"no bound on the dump's size: the guest's memory is needed");
		return COLLECT_BAD_INPUT;
	}
	stage_path(&c, path, sizeof(path), "console.log");
	if (access(path, R_OK)) {
		snprintf(err, errlen, "%s: %s (is %s a run's staging dir?)",
			 path, strerror(errno), in->staging);
		return COLLECT_BAD_INPUT;
	}
	if (mkdir(in->runs, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", in->runs, strerror(errno));
		return COLLECT_BAD_INPUT;
	}

	if (in->progress) {
		g = *in->progress;
	} else {
		guestlog_init(&g);
		if (scan(&c, &g, "results.txt", 0) ||
		    scan(&c, &g, "console.log", 1))
			return COLLECT_UNFILED;
	}
	status_text = read_status(&c);
	if (!status_text)
		return COLLECT_UNFILED;
	status_ok = *status_text &&
		    !status_parse(status_text, &st, serr, sizeof(serr));
	if (status_ok)
		st_status = status_get(&st, "status");

	stage_path(&c, flatpath, sizeof(flatpath), "dump.flat");
	f = fopen(flatpath, "r");
	if (f) {
		verdict = flat_check(f, in->max_dump, &info, why, sizeof(why));
		if (ferror(f)) {
			cannot_file(&c, "%s: %s", flatpath,
				    strerror(errno ? errno : EIO));
			fclose(f);
			goto out;
		}
		fclose(f);
	} else if (errno != ENOENT) {
		cannot_file(&c, "%s: %s", flatpath, strerror(errno));
		goto out;
	} else {
		snprintf(why, sizeof(why), "no dump stream");
	}
	full_note(&c, full, sizeof(full));
	rec->cause.run =
		find_cause(&g, in->trigger, cause_detail, sizeof(cause_detail));
	if (rec->cause.run == CAUSE_NONE && in->pvpanicked) {
		/* a panic in NMI context prints after its notifiers, and
		 * pvpanic, one of them, has QEMU pause it first
		 */
		snprintf(
			cause_detail, sizeof(cause_detail),
			"pvpanic told QEMU of a panic the console had not shown yet");
		rec->cause.run = CAUSE_PANIC;
	}
	if (in->nmi_injected &&
	    (rec->cause.run == CAUSE_NMI || rec->cause.run == CAUSE_KEXEC ||
	     (rec->cause.run == CAUSE_PANIC && in->pvpanicked &&
	      !g.panic_msg[0]))) {
		/* the NMI was the host's answer to a guest that stopped:
		 * the stall is the cause (the panic from NMI context often
		 * prints nothing before the capture kernel); the dump tells
		 * a hard lockup (a CPU spinning with interrupts off) from the
		 * rest
		 */
		char nmi[sizeof(cause_detail)];

		snprintf(nmi, sizeof(nmi), "%s", cause_detail);
		snprintf(
			cause_detail, sizeof(cause_detail),
			"no progress: the host injected an NMI (--stall); %.1400s",
			nmi);
		rec->cause.run = CAUSE_STALL;
	}
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
	stage_path(&c, corepath, sizeof(corepath), "vmcore");
	if ((verdict == FLAT_COMPLETE || verdict == FLAT_TRAILING) &&
	    dump_part_ok) {
		int r = flat_rebuild(flatpath, corepath);

		if (r != 0) {
			/* the rebuilt vmcore may be what filled the file
			 * system: asked again while it is still there
			 */
			char now[200];

			full_note(&c, now, sizeof(now));
			snprintf(why, sizeof(why),
				 "makedumpfile -R exited %d%s", r,
				 now[0] ? now : full);
		} else if (file_size(corepath) != (off_t)info.extent)
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
	/* The host's dump, taken because the capture kernel made none:
	 * QEMU's flattened kdump-zlib stream, checked and bounded as the
	 * guest's stream is, made the vmcore (hostdump.h). The stream is
	 * dropped only once the vmcore is whole; a vmcore whose header could
	 * not be completed is kept and said.
	 */
	stage_path(&c, hostpath, sizeof(hostpath), HOST_DUMP_FILE);
	if (!dump_ok && in->host_dump_why && file_size(hostpath) > 0) {
		char hwhy[512];
		int r = host_dump_finish(hostpath, corepath, in->max_dump,
					 in->kernel_image, hwhy, sizeof(hwhy));

		if (r < 0) {
			snprintf(why, sizeof(why), "the host's dump: %.480s",
				 hwhy);
		} else {
			if (r > 0)
				snprintf(host_note, sizeof(host_note), "; %s",
					 hwhy);
			dump_ok = host_ok = 1;
		}
	}

	/* The reasons, most telling first. */
	if (in->interrupted) {
		snprintf(reason, sizeof(reason),
			 "interrupted by %s (the guest had got to \"%s\"%s%s)",
			 in->interrupted,
			 g.last_state[0] ? g.last_state : "nothing",
			 g.boots >= 2 ? ", the capture kernel had booted" : "",
			 dump_ok	   ? ", the dump is complete" :
			 info.stream_bytes ? ", the dump was under way" :
					     "");
	} else if (g.refused[0]) {
		snprintf(reason, sizeof(reason), "the guest refused to arm: %s",
			 g.refused);
	} else if (in->dry_run) {
		if (strcmp(g.last_state, STATE_DRY_DONE))
			snprintf(
				reason, sizeof(reason),
				"the dry run did not complete (the guest got to \"%s\")%s",
				g.last_state[0] ? g.last_state : "nothing",
				oops_note);
	} else if (host_ok) {
		/* a dump to read: how it was made is dump.path's */
	} else if (!strcmp(g.last_state, STATE_NOT_FIRED)) {
		snprintf(
			reason, sizeof(reason), "%s%s",
			strcmp(in->trigger, "none") ?
				"the trigger did not fire: the workload ran to the end with no panic" :
				"nothing crashed the guest: the workload ran to the end with no panic",
			oops_note);
	} else if (g.panic < 0 && g.boots < 2 && verdict == FLAT_EMPTY &&
		   !strcmp(g.last_state, STATE_ARMED) &&
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
			cause_detail[0] ? cause_detail :
					  cause_name(rec->cause.run),
			full);
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
				 serr :
				 "missing: the capture step did not finish",
			 dump_ok ?
				 "; the dump itself is complete and verified" :
				 "");
	} else if (strcmp(st_status, "success")) {
		const char *step = status_get(&st, "failed_step");
		const char *frc = status_get(&st, "failed_rc");

		snprintf(
			reason, sizeof(reason),
			"capture step %s failed (exit %s)%s", step ? step : "?",
			frc ? frc : "?",
			dump_ok ?
				"; the dump itself is complete and verified (vmcore kept)" :
				"");
	} else if (verdict == FLAT_TRAILING) {
		snprintf(
			reason, sizeof(reason),
			"the dump stream has trailing data: %s; vmcore rebuilt from the stream up to the marker, the raw stream kept as vmcore.flat",
			why);
	}
	success = !reason[0] && (in->dry_run || dump_ok);
	if (!success && !reason[0])
		snprintf(reason, sizeof(reason), "no verified dump: %s", why);

	/* Name every file for what it is, still inside the staging dir. */
	if (host_ok) {
		rec->dump.state = DUMP_COMPLETE;
		/* what the dying capture kernel sent, as evidence */
		if (rename_in_stage(&c, "dump.flat", "vmcore.flat"))
			goto out;
	} else if (dump_ok) {
		rec->dump.state = DUMP_COMPLETE;
		if (verdict == FLAT_TRAILING) {
			if (rename_in_stage(&c, "dump.flat", "vmcore.flat"))
				goto out;
		} else if (unlink(flatpath) && errno != ENOENT) {
			cannot_file(&c, "%s: %s", flatpath, strerror(errno));
			goto out;
		}
	} else if (file_size(flatpath) > 0) {
		int cut = verdict == FLAT_TRUNCATED || verdict == FLAT_NO_END;

		rec->dump.state = cut ? DUMP_INCOMPLETE : DUMP_UNVERIFIED;
		if (rename_in_stage(&c, "dump.flat",
				    cut ? "vmcore.incomplete" : "vmcore.flat"))
			goto out;
	} else {
		rec->dump.state = DUMP_NONE;
		if (rename_in_stage(&c, "dump.flat", "dump.flat"))
			goto out; /* dropped if empty */
	}
	if (rename_in_stage(&c, "results.txt", "guest.log") ||
	    rename_in_stage(&c, "dmesg.txt", "vmcore-dmesg.txt") ||
	    rename_in_stage(&c, "status.txt", "capture-status.txt") ||
	    rename_in_stage(&c, "workload.txt", "workload.log"))
		goto out;

	if (reserve_run_dir(&c))
		goto out;
	id = strrchr(c.reserved, '/') ? strrchr(c.reserved, '/') + 1 :
					c.reserved;
	record_set(&rec->id, id);
	record_set(&rec->trigger.name, in->trigger);
	rec->trigger.dry_run = in->dry_run;
	set_guest_text(&rec->trigger.fire_action,
		       g.action[0] ? g.action : NULL);
	rec->status = in->interrupted ? RUN_INTERRUPTED :
		      success	      ? RUN_SUCCESS :
					RUN_FAILED;
	set_guest_text(&rec->reason, success ? "" : reason);
	record_set(&rec->interrupted, in->interrupted);
	set_guest_text(&rec->cause.detail, cause_detail);
	set_guest_text(&rec->console.panic_message, g.panic_msg);
	set_guest_text(&rec->console.capture_panic,
		       g.capture_panic[0] ? g.capture_panic : NULL);
	set_guest_text(&rec->console.last_state, g.last_state);
	set_guest_text(&rec->console.refused, g.refused[0] ? g.refused : NULL);
	rec->console.lines = (long)g.console_lines;
	rec->console.lines_cut = (long)g.lines_cut;
	rec->console.not_kernel = g.syslog == 1 ? (long)g.not_kernel : -1;
	rec->console.claims = (long)g.claims;
	set_guest_text(&rec->console.claimed, g.claims ? g.claimed : NULL);
	rec->dump.stream_bytes = info.stream_bytes;
	rec->dump.vmcore_bytes =
		host_ok ? (unsigned long long)file_size(corepath) :
		dump_ok ? info.extent :
			  0;
	/* a capture kernel that died after its own dump was whole cost
	 * nothing
	 */
	if (in->capture_died && (host_ok || !dump_ok))
		rec->cause.after = CAUSE_CAPTURE_DIED;
	if (host_ok) {
		char *pw = NULL;

		record_set(&rec->dump.path, "host");
		if (asprintf(&pw, "%s%s", in->host_dump_why, host_note) < 0)
			pw = NULL;
		set_guest_text(&rec->dump.path_why,
			       pw ? pw : in->host_dump_why);
		free(pw);
	} else if (dump_ok && in->nmi_injected) {
		record_set(&rec->dump.path, "nmi+kdump");
		record_set(
			&rec->dump.path_why,
			"the guest made no progress: the host injected an NMI (--stall), which panicked it into kdump");
	} else if (dump_ok) {
		record_set(&rec->dump.path, "kdump");
	}
	rec->timings.boot_to_armed = span(0, g.armed);
	/* only a panic line of the first kernel times the fire; with
	 * crash_kexec the report takes it from the fire record
	 */
	rec->timings.armed_to_panic = span(g.armed, g.panic);
	if (status_ok) {
		double s = stamp_of(&st, "capture_started");
		double dm = stamp_of(&st, "dmesg_done");

		/* capture kernel uptime: from kexec to the capture step */
		rec->timings.panic_to_capture = span(0, s);
		rec->timings.dmesg = span(s, dm);
		rec->timings.dump = span(dm, stamp_of(&st, "dump_done"));
		set_guest_text(&rec->dump.makedumpfile_opts,
			       status_get(&st, "makedumpfile_opts"));
	}
	rec->timings.collect = now() - t0;
	if (in->down_ms > 0)
		rec->timings.down_to_filed = now() - (double)in->down_ms / 1000;
	if (record_write(in->staging, rec, err, errlen)) {
		char why2[1024];

		snprintf(why2, sizeof(why2), "%s", err);
		cannot_file(&c, "%s", why2);
		goto out;
	}

	/* The last step: the staging dir becomes the run (over the empty
	 * dir that reserved its name).
	 */
	if (rename(in->staging, c.reserved)) {
		cannot_file(&c, "cannot rename %s to %s: %s", in->staging,
			    c.reserved, strerror(errno));
		stage_path(&c, path, sizeof(path), RECORD_FILE);
		unlink(path);
		goto out;
	}
	*run_dir = strdup(c.reserved);
	c.reserved[0] = '\0';
	if (!success)
		snprintf(err, errlen, "run filed as %s in %s: %s",
			 in->interrupted ? "interrupted" : "failed", *run_dir,
			 reason);
	else if (g.lines_cut)
		snprintf(
			err, errlen,
			"note: %lu console/guest log line(s) longer than %d bytes were scanned by their start only",
			g.lines_cut, GUESTLOG_LINE_MAX);
	rc = success ? COLLECT_SUCCESS : COLLECT_FAILED;
out:
	free(status_text);
	return rc;
}
