// SPDX-License-Identifier: GPL-2.0
/*
 * The run record (record.h): written with the JSON writer, field by field
 * in the schema's order; read with jansson and checked against the
 * schema's required fields and types, so that the rest of bpk can trust
 * the struct it gets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_writer.h"
#include "record.h"

#define RECORD_TMP RECORD_FILE ".tmp"

static const char *const status_names[] = {
	[RUN_SUCCESS] = "success",
	[RUN_FAILED] = "failed",
	[RUN_INTERRUPTED] = "interrupted",
};

static const char *const dump_names[] = {
	[DUMP_NONE] = "none",
	[DUMP_COMPLETE] = "complete",
	[DUMP_INCOMPLETE] = "incomplete",
	[DUMP_UNVERIFIED] = "unverified",
};

static const char *const report_names[] = {
	[REPORT_NOT_RUN] = "not-run",
	[REPORT_WRITTEN] = "written",
	[REPORT_FAILED] = "failed",
};

#define N_NAMES(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *name_of(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : "?";
}

const char *run_status_name(enum run_status s)
{
	return name_of(status_names, N_NAMES(status_names), s);
}

const char *dump_state_name(enum dump_state s)
{
	return name_of(dump_names, N_NAMES(dump_names), s);
}

const char *report_state_name(enum report_state s)
{
	return name_of(report_names, N_NAMES(report_names), s);
}

/*
 * Errors are one line: a file name or a guest's text quoted in one may
 * hold any byte, and a newline in it would look like a second message.
 */
static void fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

static int join(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

void record_init(struct run_record *r)
{
	memset(r, 0, sizeof(*r));
	r->qemu.nmi_injected_ms = -1;
	r->console.not_kernel = -1;
	r->cause.after = CAUSE_NONE;
	r->timings.boot_to_armed = RECORD_NO_TIME;
	r->timings.armed_to_panic = RECORD_NO_TIME;
	r->timings.panic_to_capture = RECORD_NO_TIME;
	r->timings.dmesg = RECORD_NO_TIME;
	r->timings.dump = RECORD_NO_TIME;
	r->timings.restore = RECORD_NO_TIME;
	r->timings.start_to_armed = RECORD_NO_TIME;
	r->timings.down_to_filed = RECORD_NO_TIME;
	r->timings.qemu_wall = RECORD_NO_TIME;
	r->timings.collect = RECORD_NO_TIME;
}

static void write_str_array(json_writer_t *jw, const char *name, char **arr,
			    int n)
{
	jw_name(jw, name);
	jw_start_array(jw);
	for (int i = 0; arr && i < n; i++)
		jw_string(jw, arr[i] ? arr[i] : "");
	jw_end_array(jw);
}

static void free_str_array(char **arr, int n)
{
	if (arr)
		for (int i = 0; i < n; i++)
			free(arr[i]);
	free(arr);
}

void record_free(struct run_record *r)
{
	char **strings[] = {
		&r->id,
		&r->reason,
		&r->interrupted,
		&r->trigger.name,
		&r->trigger.args,
		&r->trigger.fire_action,
		&r->trigger.prog,
		&r->guest.kernel_flavor,
		&r->guest.kernel,
		&r->guest.kernel_package,
		&r->guest.kernel_release,
		&r->guest.vmlinux,
		&r->guest.mem,
		&r->guest.crashkernel,
		&r->guest.accel,
		&r->guest.workload,
		&r->guest.host_fs,
		&r->guest.share_rw,
		&r->qemu.stopped_why,
		&r->qemu.stall,
		&r->cause.detail,
		&r->console.panic_message,
		&r->console.capture_panic,
		&r->console.last_state,
		&r->console.refused,
		&r->console.claimed,
		&r->dump.makedumpfile_opts,
		&r->dump.path,
		&r->dump.path_why,
		&r->guest.restored_from,
		&r->guest.restore_error,
		&r->guest.cold_why,
		&r->report.error,
	};

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		free(*strings[i]);
	free_str_array(r->guest.shares_ro, r->guest.n_shares_ro);
	free_str_array(r->capped, r->n_capped);
	/* A freed record is an empty one: freeing it again is harmless. */
	record_init(r);
}

int record_set(char **field, const char *value)
{
	char *copy = NULL;

	if (value) {
		copy = strdup(value);
		if (!copy)
			return -1;
	}
	free(*field);
	*field = copy;
	return 0;
}

/* --- writing */

/* A required string: NULL is written as "" so the field is never absent. */
static void req_string(json_writer_t *jw, const char *name, const char *s)
{
	jw_string_field(jw, name, s ? s : "");
}

static void write_record(json_writer_t *jw, const struct run_record *r)
{
	jw_start_object(jw);
	jw_int_field(jw, "schema_version", RECORD_SCHEMA_VERSION);
	req_string(jw, "id", r->id);
	jw_string_field(jw, "status", run_status_name(r->status));
	req_string(jw, "reason", r->reason);
	jw_string_field(jw, "interrupted", r->interrupted);

	jw_name(jw, "trigger");
	jw_start_object(jw);
	req_string(jw, "name", r->trigger.name);
	req_string(jw, "args", r->trigger.args);
	jw_bool_field(jw, "dry_run", r->trigger.dry_run);
	jw_string_field(jw, "fire_action", r->trigger.fire_action);
	jw_string_field(jw, "prog", r->trigger.prog);
	jw_end_object(jw);

	jw_name(jw, "guest");
	jw_start_object(jw);
	req_string(jw, "kernel_flavor", r->guest.kernel_flavor);
	req_string(jw, "kernel", r->guest.kernel);
	jw_string_field(jw, "kernel_package", r->guest.kernel_package);
	jw_string_field(jw, "kernel_release", r->guest.kernel_release);
	req_string(jw, "vmlinux", r->guest.vmlinux);
	req_string(jw, "mem", r->guest.mem);
	jw_int_field(jw, "smp", r->guest.smp);
	req_string(jw, "crashkernel", r->guest.crashkernel);
	req_string(jw, "accel", r->guest.accel);
	jw_bool_field(jw, "destructive_sysctl", r->guest.destructive_sysctl);
	jw_bool_field(jw, "panic_on_oops", r->guest.panic_on_oops);
	jw_bool_field(jw, "panic_on_warn", r->guest.panic_on_warn);
	req_string(jw, "workload", r->guest.workload);
	req_string(jw, "host_fs", r->guest.host_fs);
	write_str_array(jw, "shares_ro", r->guest.shares_ro,
			r->guest.n_shares_ro);
	jw_string_field(jw, "share_rw", r->guest.share_rw);
	jw_string_field(jw, "restored_from", r->guest.restored_from);
	jw_string_field(jw, "restore_error", r->guest.restore_error);
	jw_string_field(jw, "cold_why", r->guest.cold_why);
	jw_end_object(jw);

	jw_name(jw, "qemu");
	jw_start_object(jw);
	jw_int_field(jw, "exit", r->qemu.exit);
	jw_string_field(jw, "stopped_why", r->qemu.stopped_why);
	if (r->qemu.stall)
		jw_string_field(jw, "stall", r->qemu.stall);
	if (r->qemu.nmi_injected_ms >= 0)
		jw_int_field(jw, "nmi_injected_ms", r->qemu.nmi_injected_ms);
	jw_end_object(jw);

	jw_name(jw, "cause");
	jw_start_object(jw);
	jw_string_field(jw, "run", cause_name(r->cause.run));
	req_string(jw, "detail", r->cause.detail);
	if (r->cause.dump_known) {
		jw_string_field(jw, "dump", cause_name(r->cause.dump));
		jw_bool_field(jw, "confirmed", r->cause.dump == r->cause.run);
	} else {
		jw_null_field(jw, "dump");
		jw_null_field(jw, "confirmed");
	}
	if (r->cause.after != CAUSE_NONE)
		jw_string_field(jw, "after", cause_name(r->cause.after));
	jw_end_object(jw);

	jw_name(jw, "console");
	jw_start_object(jw);
	req_string(jw, "panic_message", r->console.panic_message);
	jw_string_field(jw, "capture_panic", r->console.capture_panic);
	req_string(jw, "last_state", r->console.last_state);
	jw_string_field(jw, "refused", r->console.refused);
	jw_int_field(jw, "lines", r->console.lines);
	jw_int_field(jw, "lines_cut", r->console.lines_cut);
	if (r->console.not_kernel >= 0)
		jw_int_field(jw, "not_kernel", r->console.not_kernel);
	if (r->console.claims > 0) {
		jw_int_field(jw, "claims", r->console.claims);
		jw_string_field(jw, "claimed", r->console.claimed);
	}
	jw_end_object(jw);

	jw_name(jw, "dump");
	jw_start_object(jw);
	jw_string_field(jw, "state", dump_state_name(r->dump.state));
	jw_uint_field(jw, "stream_bytes", r->dump.stream_bytes);
	jw_uint_field(jw, "vmcore_bytes", r->dump.vmcore_bytes);
	jw_string_field(jw, "makedumpfile_opts", r->dump.makedumpfile_opts);
	if (r->dump.path)
		jw_string_field(jw, "path", r->dump.path);
	if (r->dump.path_why)
		jw_string_field(jw, "path_why", r->dump.path_why);
	jw_end_object(jw);

	if (r->campaign.attempt > 0) {
		jw_name(jw, "campaign");
		jw_start_object(jw);
		jw_int_field(jw, "attempt", r->campaign.attempt);
		jw_end_object(jw);
	}

	if (r->n_capped)
		write_str_array(jw, "capped", r->capped, r->n_capped);

	jw_name(jw, "report");
	jw_start_object(jw);
	jw_string_field(jw, "state", report_state_name(r->report.state));
	jw_string_field(jw, "error", r->report.error);
	jw_end_object(jw);

	/* jw_seconds() writes RECORD_NO_TIME, being negative, as null. */
	jw_name(jw, "timings");
	jw_start_object(jw);
	jw_seconds_field(jw, "boot_to_armed_s", r->timings.boot_to_armed);
	jw_seconds_field(jw, "armed_to_panic_s", r->timings.armed_to_panic);
	jw_seconds_field(jw, "panic_to_capture_s", r->timings.panic_to_capture);
	jw_seconds_field(jw, "dmesg_s", r->timings.dmesg);
	jw_seconds_field(jw, "dump_s", r->timings.dump);
	jw_seconds_field(jw, "restore_s", r->timings.restore);
	jw_seconds_field(jw, "start_to_armed_s", r->timings.start_to_armed);
	jw_seconds_field(jw, "down_to_filed_s", r->timings.down_to_filed);
	jw_seconds_field(jw, "qemu_wall_s", r->timings.qemu_wall);
	jw_seconds_field(jw, "collect_s", r->timings.collect);
	jw_end_object(jw);

	jw_end_object(jw);
}

/* Write @r into the open @fd and close it; 0, or -1 with errno set. */
static int write_fd(int fd, const struct run_record *r)
{
	json_writer_t *jw;
	FILE *f;
	int e;

	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	jw = jw_new(f);
	if (!jw) {
		fclose(f);
		errno = ENOMEM;
		return -1;
	}
	jw_pretty(jw, true);
	errno = 0;
	write_record(jw, r);
	jw_destroy(&jw);
	if (fflush(f) == EOF || ferror(f) || fsync(fileno(f))) {
		e = errno ? errno : EIO;
		fclose(f);
		errno = e;
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

int record_write(const char *dir, const struct run_record *r, char *err,
		 size_t errlen)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd;

	if (join(tmp, sizeof(tmp), dir, RECORD_TMP) ||
	    join(path, sizeof(path), dir, RECORD_FILE)) {
		fail(err, errlen, "%s: path too long", dir);
		return -1;
	}
	/* A tmp left by a writer that died: O_EXCL below would refuse it. */
	if (unlink(tmp) && errno != ENOENT) {
		fail(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fail(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	/* 0600 whatever the umask: bpk must be able to rewrite its record,
	 * and the guest's texts in it are nobody else's business.
	 */
	if (fchmod(fd, 0600)) {
		fail(err, errlen, "%s: %s", tmp, strerror(errno));
		close(fd);
		goto remove_tmp;
	}
	if (write_fd(fd, r)) {
		fail(err, errlen, "%s: %s", tmp, strerror(errno));
		goto remove_tmp;
	}
	if (rename(tmp, path)) {
		fail(err, errlen, "%s: cannot replace it with %s: %s", path,
		     tmp, strerror(errno));
		goto remove_tmp;
	}
	/* The rename is durable only once the directory is on disk. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd)) {
		fail(err, errlen, "%s: sync after writing %s: %s", dir,
		     RECORD_FILE, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (close(fd)) {
		fail(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;

remove_tmp:
	unlink(tmp);
	return -1;
}

/* --- reading */

/*
 * @dir/run.json parsed, a JSON object of schema_version 1; NULL with @err
 * set if it is not. @path receives the file's name.
 */
static json_t *load(const char *dir, char *path, size_t pathsize, char *err,
		    size_t errlen)
{
	json_error_t jerr;
	json_t *root, *v;
	struct stat st;
	FILE *f;
	int fd;

	if (join(path, pathsize, dir, RECORD_FILE)) {
		fail(err, errlen, "%s: path too long", dir);
		return NULL;
	}
	/* O_NONBLOCK: a FIFO in the record's place must not hang bpk. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(err, errlen, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!root) {
		fail(err, errlen, "%s: not JSON: line %d column %d: %s", path,
		     jerr.line, jerr.column, jerr.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		fail(err, errlen, "%s: not a JSON object", path);
		goto bad;
	}
	v = json_object_get(root, "schema_version");
	if (!v) {
		fail(err, errlen,
		     "%s: required field schema_version is missing", path);
		goto bad;
	}
	if (!json_is_integer(v) ||
	    json_integer_value(v) != RECORD_SCHEMA_VERSION) {
		char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		fail(err, errlen, "%s: schema_version %.40s, this bpk reads %d",
		     path, text ? text : "?", RECORD_SCHEMA_VERSION);
		free(text);
		goto bad;
	}
	return root;
bad:
	json_decref(root);
	return NULL;
}

/* How a field must be there: present and not null; present, maybe null;
 * or absent or null, which mean the same.
 */
enum need { REQUIRED, NULLABLE, OPTIONAL };

/*
 * The reader stops at the first error: every helper does nothing once one
 * is set, so the field list below reads as a list and is checked once.
 */
struct reader {
	const char *file;
	char *err;
	size_t errlen;
	bool failed;
};

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a real number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "?";
}

static void bad_field(struct reader *rd, const char *where, const char *key,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void bad_field(struct reader *rd, const char *where, const char *key,
		      const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fail(rd->err, rd->errlen, "%s: field %s%s%s: %s", rd->file,
	     where ? where : "", where ? "." : "", key, what);
	rd->failed = true;
}

/*
 * Member @key of @obj (whose path is @where, NULL at the top), checked
 * with @is_type (described as @type); NULL if absent or null where @need
 * allows it, or on an error.
 */
static json_t *member(struct reader *rd, json_t *obj, const char *where,
		      const char *key, enum need need,
		      int (*is_type)(const json_t *), const char *type)
{
	json_t *v;

	if (rd->failed || !obj)
		return NULL;
	v = json_object_get(obj, key);
	if (!v) {
		if (need != OPTIONAL) {
			fail(rd->err, rd->errlen,
			     "%s: required field %s%s%s is missing", rd->file,
			     where ? where : "", where ? "." : "", key);
			rd->failed = true;
		}
		return NULL;
	}
	if (json_is_null(v) && need != REQUIRED)
		return NULL;
	if (!is_type(v)) {
		bad_field(rd, where, key, "expected %s, found %s", type,
			  type_name(v));
		return NULL;
	}
	return v;
}

/* jansson's json_is_* are macros; member() needs functions. */
static int is_object(const json_t *v)
{
	return json_is_object(v);
}

static int is_array(const json_t *v)
{
	return json_is_array(v);
}

static int is_string(const json_t *v)
{
	return json_is_string(v);
}

static int is_integer(const json_t *v)
{
	return json_is_integer(v);
}

static int is_number(const json_t *v)
{
	return json_is_number(v);
}

static int is_boolean(const json_t *v)
{
	return json_is_boolean(v);
}

static json_t *object(struct reader *rd, json_t *obj, const char *where,
		      const char *key, enum need need)
{
	return member(rd, obj, where, key, need, is_object, "an object");
}

static char *dup_string(struct reader *rd, const json_t *v)
{
	char *s = strdup(json_string_value(v));

	if (!s) {
		fail(rd->err, rd->errlen, "%s: out of memory", rd->file);
		rd->failed = true;
	}
	return s;
}

static void string(struct reader *rd, json_t *obj, const char *where,
		   const char *key, enum need need, char **dst)
{
	json_t *v = member(rd, obj, where, key, need, is_string, "a string");

	if (v)
		*dst = dup_string(rd, v);
}

static void boolean(struct reader *rd, json_t *obj, const char *where,
		    const char *key, bool *dst)
{
	json_t *v =
		member(rd, obj, where, key, REQUIRED, is_boolean, "a boolean");

	if (v)
		*dst = json_is_true(v);
}

/* An integer between @min and @max, into *@dst when present. */
static void integer(struct reader *rd, json_t *obj, const char *where,
		    const char *key, enum need need, long long min,
		    long long max, long long *dst)
{
	json_t *v = member(rd, obj, where, key, need, is_integer, "an integer");

	if (!v)
		return;
	if (json_integer_value(v) < min || json_integer_value(v) > max) {
		bad_field(rd, where, key,
			  "%" JSON_INTEGER_FORMAT " is out of range",
			  json_integer_value(v));
		return;
	}
	*dst = json_integer_value(v);
}

static void int_field(struct reader *rd, json_t *obj, const char *where,
		      const char *key, enum need need, int min, int *dst)
{
	long long v = *dst;

	integer(rd, obj, where, key, need, min, INT_MAX, &v);
	*dst = (int)v;
}

static void long_field(struct reader *rd, json_t *obj, const char *where,
		       const char *key, enum need need, long *dst)
{
	long long v = *dst;

	integer(rd, obj, where, key, need, LONG_MIN, LONG_MAX, &v);
	*dst = (long)v;
}

static void size_field(struct reader *rd, json_t *obj, const char *where,
		       const char *key, unsigned long long *dst)
{
	long long v = 0;

	integer(rd, obj, where, key, REQUIRED, 0, LLONG_MAX, &v);
	*dst = (unsigned long long)v;
}

static void seconds(struct reader *rd, json_t *obj, const char *key,
		    double *dst)
{
	json_t *v = member(rd, obj, "timings", key, OPTIONAL, is_number,
			   "a number");

	*dst = v ? json_number_value(v) : RECORD_NO_TIME;
}

/* One of @names (@n of them), its index into *@dst. */
static void enumeration(struct reader *rd, json_t *obj, const char *where,
			const char *key, const char *const *names, int n,
			int *dst)
{
	json_t *v =
		member(rd, obj, where, key, REQUIRED, is_string, "a string");

	if (!v)
		return;
	for (int i = 0; i < n; i++) {
		if (!strcmp(json_string_value(v), names[i])) {
			*dst = i;
			return;
		}
	}
	bad_field(rd, where, key, "\"%.40s\" is not a known value",
		  json_string_value(v));
}

/* An optional array of strings @where.@key into *@arr (NULL-ended) and
 * *@n.
 */
static void str_array(struct reader *rd, json_t *obj, const char *where,
		      const char *key, char ***arr, int *n)
{
	json_t *v = member(rd, obj, where, key, OPTIONAL, is_array, "an array");
	size_t count = v ? json_array_size(v) : 0;
	char item[64];

	if (!count)
		return;
	if (count > INT_MAX) {
		bad_field(rd, where, key, "too many items");
		return;
	}
	/* One more, NULL, for callers that walk the array to its end. */
	*arr = calloc(count + 1, sizeof(**arr));
	if (!*arr) {
		fail(rd->err, rd->errlen, "%s: out of memory", rd->file);
		rd->failed = true;
		return;
	}
	for (size_t i = 0; i < count; i++) {
		json_t *s = json_array_get(v, i);

		if (!json_is_string(s)) {
			snprintf(item, sizeof(item), "%s[%zu]", key, i);
			bad_field(rd, where, item,
				  "expected a string, found %s", type_name(s));
			return;
		}
		(*arr)[i] = dup_string(rd, s);
		if (!(*arr)[i])
			return;
		*n = (int)i + 1;
	}
}

static void read_record(struct reader *rd, json_t *root, struct run_record *r)
{
	json_t *trigger, *guest, *qemu, *cause, *console, *dump, *campaign;
	json_t *report, *timings, *run;
	int e;

	string(rd, root, NULL, "id", REQUIRED, &r->id);
	e = RUN_SUCCESS;
	enumeration(rd, root, NULL, "status", status_names,
		    N_NAMES(status_names), &e);
	r->status = (enum run_status)e;
	string(rd, root, NULL, "reason", REQUIRED, &r->reason);
	string(rd, root, NULL, "interrupted", OPTIONAL, &r->interrupted);

	trigger = object(rd, root, NULL, "trigger", REQUIRED);
	string(rd, trigger, "trigger", "name", REQUIRED, &r->trigger.name);
	string(rd, trigger, "trigger", "args", REQUIRED, &r->trigger.args);
	boolean(rd, trigger, "trigger", "dry_run", &r->trigger.dry_run);
	string(rd, trigger, "trigger", "fire_action", NULLABLE,
	       &r->trigger.fire_action);
	/* records older than programs of one's own have none */
	string(rd, trigger, "trigger", "prog", OPTIONAL, &r->trigger.prog);

	guest = object(rd, root, NULL, "guest", REQUIRED);
	string(rd, guest, "guest", "kernel_flavor", REQUIRED,
	       &r->guest.kernel_flavor);
	string(rd, guest, "guest", "kernel", REQUIRED, &r->guest.kernel);
	string(rd, guest, "guest", "kernel_package", OPTIONAL,
	       &r->guest.kernel_package);
	string(rd, guest, "guest", "kernel_release", OPTIONAL,
	       &r->guest.kernel_release);
	string(rd, guest, "guest", "vmlinux", REQUIRED, &r->guest.vmlinux);
	string(rd, guest, "guest", "mem", REQUIRED, &r->guest.mem);
	int_field(rd, guest, "guest", "smp", REQUIRED, INT_MIN, &r->guest.smp);
	string(rd, guest, "guest", "crashkernel", REQUIRED,
	       &r->guest.crashkernel);
	string(rd, guest, "guest", "accel", REQUIRED, &r->guest.accel);
	boolean(rd, guest, "guest", "destructive_sysctl",
		&r->guest.destructive_sysctl);
	boolean(rd, guest, "guest", "panic_on_oops", &r->guest.panic_on_oops);
	boolean(rd, guest, "guest", "panic_on_warn", &r->guest.panic_on_warn);
	string(rd, guest, "guest", "workload", REQUIRED, &r->guest.workload);
	string(rd, guest, "guest", "host_fs", REQUIRED, &r->guest.host_fs);
	str_array(rd, guest, "guest", "shares_ro", &r->guest.shares_ro,
		  &r->guest.n_shares_ro);
	string(rd, guest, "guest", "share_rw", OPTIONAL, &r->guest.share_rw);
	string(rd, guest, "guest", "restored_from", OPTIONAL,
	       &r->guest.restored_from);
	string(rd, guest, "guest", "restore_error", OPTIONAL,
	       &r->guest.restore_error);
	string(rd, guest, "guest", "cold_why", OPTIONAL, &r->guest.cold_why);

	qemu = object(rd, root, NULL, "qemu", REQUIRED);
	int_field(rd, qemu, "qemu", "exit", REQUIRED, INT_MIN, &r->qemu.exit);
	string(rd, qemu, "qemu", "stopped_why", OPTIONAL, &r->qemu.stopped_why);
	string(rd, qemu, "qemu", "stall", OPTIONAL, &r->qemu.stall);
	integer(rd, qemu, "qemu", "nmi_injected_ms", OPTIONAL, 0, LLONG_MAX,
		&r->qemu.nmi_injected_ms);

	cause = object(rd, root, NULL, "cause", REQUIRED);
	run = member(rd, cause, "cause", "run", REQUIRED, is_string,
		     "a string");
	if (run && cause_parse(json_string_value(run), &r->cause.run))
		bad_field(rd, "cause", "run", "\"%.40s\" is not a known cause",
			  json_string_value(run));
	string(rd, cause, "cause", "detail", REQUIRED, &r->cause.detail);
	{
		json_t *d = member(rd, cause, "cause", "dump", OPTIONAL,
				   is_string, "a string");

		if (d && cause_parse(json_string_value(d), &r->cause.dump))
			bad_field(rd, "cause", "dump",
				  "\"%.40s\" is not a known cause",
				  json_string_value(d));
		else if (d)
			r->cause.dump_known = true;
		/* derived from run and dump: checked, not kept */
		member(rd, cause, "cause", "confirmed", OPTIONAL, is_boolean,
		       "a boolean");
	}
	{
		json_t *a = member(rd, cause, "cause", "after", OPTIONAL,
				   is_string, "a string");

		/* only what can go wrong after the first kernel went down */
		if (a && (cause_parse(json_string_value(a), &r->cause.after) ||
			  r->cause.after != CAUSE_CAPTURE_DIED)) {
			r->cause.after = CAUSE_NONE;
			bad_field(rd, "cause", "after",
				  "\"%.40s\" is not capture_died",
				  json_string_value(a));
		}
	}

	console = object(rd, root, NULL, "console", REQUIRED);
	string(rd, console, "console", "panic_message", REQUIRED,
	       &r->console.panic_message);
	string(rd, console, "console", "capture_panic", OPTIONAL,
	       &r->console.capture_panic);
	string(rd, console, "console", "last_state", REQUIRED,
	       &r->console.last_state);
	string(rd, console, "console", "refused", OPTIONAL,
	       &r->console.refused);
	long_field(rd, console, "console", "lines", REQUIRED,
		   &r->console.lines);
	long_field(rd, console, "console", "lines_cut", OPTIONAL,
		   &r->console.lines_cut);
	long_field(rd, console, "console", "not_kernel", OPTIONAL,
		   &r->console.not_kernel);
	long_field(rd, console, "console", "claims", OPTIONAL,
		   &r->console.claims);
	string(rd, console, "console", "claimed", OPTIONAL,
	       &r->console.claimed);

	dump = object(rd, root, NULL, "dump", REQUIRED);
	e = DUMP_NONE;
	enumeration(rd, dump, "dump", "state", dump_names, N_NAMES(dump_names),
		    &e);
	r->dump.state = (enum dump_state)e;
	size_field(rd, dump, "dump", "stream_bytes", &r->dump.stream_bytes);
	size_field(rd, dump, "dump", "vmcore_bytes", &r->dump.vmcore_bytes);
	string(rd, dump, "dump", "makedumpfile_opts", OPTIONAL,
	       &r->dump.makedumpfile_opts);
	string(rd, dump, "dump", "path", OPTIONAL, &r->dump.path);
	string(rd, dump, "dump", "path_why", OPTIONAL, &r->dump.path_why);

	/* attempt 0 would read as "no campaign": the schema's minimum is 1. */
	campaign = object(rd, root, NULL, "campaign", OPTIONAL);
	int_field(rd, campaign, "campaign", "attempt", REQUIRED, 1,
		  &r->campaign.attempt);

	str_array(rd, root, NULL, "capped", &r->capped, &r->n_capped);
	report = object(rd, root, NULL, "report", REQUIRED);
	e = REPORT_NOT_RUN;
	enumeration(rd, report, "report", "state", report_names,
		    N_NAMES(report_names), &e);
	r->report.state = (enum report_state)e;
	string(rd, report, "report", "error", OPTIONAL, &r->report.error);

	timings = object(rd, root, NULL, "timings", REQUIRED);
	seconds(rd, timings, "boot_to_armed_s", &r->timings.boot_to_armed);
	seconds(rd, timings, "armed_to_panic_s", &r->timings.armed_to_panic);
	seconds(rd, timings, "panic_to_capture_s",
		&r->timings.panic_to_capture);
	seconds(rd, timings, "dmesg_s", &r->timings.dmesg);
	seconds(rd, timings, "dump_s", &r->timings.dump);
	seconds(rd, timings, "restore_s", &r->timings.restore);
	seconds(rd, timings, "start_to_armed_s", &r->timings.start_to_armed);
	seconds(rd, timings, "down_to_filed_s", &r->timings.down_to_filed);
	seconds(rd, timings, "qemu_wall_s", &r->timings.qemu_wall);
	seconds(rd, timings, "collect_s", &r->timings.collect);
}

int record_read(const char *dir, struct run_record *r, char *err, size_t errlen)
{
	struct reader rd = { .err = err, .errlen = errlen };
	char path[PATH_MAX];
	json_t *root;

	record_init(r);
	root = load(dir, path, sizeof(path), err, errlen);
	if (!root)
		return -1;
	rd.file = path;
	read_record(&rd, root, r);
	json_decref(root);
	if (rd.failed) {
		record_free(r);
		return -1;
	}
	return 0;
}

/* --- one field as text */

/* An item of an array, or the value itself: what record_field() prints. */
static int put_value(FILE *out, const json_t *v)
{
	char num[JW_DOUBLE_LEN];
	char *text;

	switch (json_typeof(v)) {
	case JSON_STRING:
		fwrite(json_string_value(v), 1, json_string_length(v), out);
		return 0;
	case JSON_INTEGER:
		fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		jw_format_double(num, sizeof(num), json_real_value(v));
		fputs(num, out);
		return 0;
	case JSON_TRUE:
		fputs("true", out);
		return 0;
	case JSON_FALSE:
		fputs("false", out);
		return 0;
	case JSON_NULL:
		return 0;
	case JSON_ARRAY:
	case JSON_OBJECT:
		break;
	}
	/* Nested objects and arrays: as compact JSON, on one line. */
	text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!text)
		return -1;
	fputs(text, out);
	free(text);
	return 0;
}

/* Member @path (dotted) of @root, NULL if there is none. */
static json_t *walk(json_t *root, const char *path)
{
	const char *p = path;
	json_t *v = root;

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (!len || !json_is_object(v))
			return NULL;
		v = json_object_getn(v, p, len);
		if (!v)
			return NULL;
		if (!dot)
			return v;
		p = dot + 1;
	}
}

int record_field(const char *dir, const char *path, char **out, char *err,
		 size_t errlen)
{
	char file[PATH_MAX];
	size_t size;
	json_t *root, *v;
	FILE *m;
	int rc = 0;

	*out = NULL;
	root = load(dir, file, sizeof(file), err, errlen);
	if (!root)
		return -1;
	v = walk(root, path);
	if (!v) {
		json_decref(root);
		return 1;
	}
	m = open_memstream(out, &size);
	if (!m) {
		json_decref(root);
		fail(err, errlen, "%s: out of memory", file);
		return -1;
	}
	if (json_is_array(v)) {
		for (size_t i = 0; !rc && i < json_array_size(v); i++) {
			if (i)
				putc('\n', m);
			rc = put_value(m, json_array_get(v, i));
		}
	} else {
		rc = put_value(m, v);
	}
	json_decref(root);
	if (ferror(m))
		rc = -1;
	if (fclose(m))
		rc = -1;
	if (rc) {
		free(*out);
		*out = NULL;
		fail(err, errlen, "%s: out of memory", file);
		return -1;
	}
	return 0;
}

json_t *report_json_load(const char *dir)
{
	char path[PATH_MAX];

	if (join(path, sizeof(path), dir, "report.json"))
		return NULL;
	return json_load_file(path, JSON_DECODE_INT_AS_REAL, NULL);
}
