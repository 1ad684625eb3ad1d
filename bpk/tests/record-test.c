// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the run record (record.c): write and read back every
 * field, the escapes of the guest's strings, the reader's refusals, the
 * dotted-path lookup, the write's failure paths, and the schema
 * (python3-jsonschema) accepting what the writer writes. One
 * "PASS|FAIL record.<name>: ..." line per check; exit 1 on a FAIL.
 *
 *	record-test [analysis/run.schema.json]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "record.h"

static char top[] = "/tmp/record-test.XXXXXX";
static const char *schema = "analysis/run.schema.json";

/* A fresh directory under the test's own, named @name. */
static const char *subdir(const char *name)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", top, name);
	if (mkdir(b, 0700) && errno != EEXIST) {
		fprintf(stderr, "record-test: %s: %s\n", b, strerror(errno));
		exit(1);
	}
	return b;
}

static const char *file_in(const char *dir, const char *name)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", dir, name);
	return b;
}

static void set(char **field, const char *value)
{
	if (record_set(field, value)) {
		fprintf(stderr, "record-test: out of memory\n");
		exit(1);
	}
}

static void fill_full(struct run_record *r)
{
	static const char *const shares[] = { "/srv/a", "/srv/b c" };

	record_init(r);
	set(&r->id, "20240611T101010Z-panic-2");
	r->status = RUN_FAILED;
	set(&r->reason, "qemu killed at the timeout");
	set(&r->interrupted, "SIGINT");
	set(&r->trigger.name, "panic");
	set(&r->trigger.args, "syscall=openat errno=ENOENT");
	r->trigger.dry_run = true;
	set(&r->trigger.fire_action, "bpf_panic");
	set(&r->guest.kernel_flavor, "debian");
	set(&r->guest.kernel, "linux-6.1.0-18");
	set(&r->guest.kernel_package, "linux-image-6.1.0-18-amd64 6.1.76-1");
	set(&r->guest.kernel_release, "6.1.0-18-amd64");
	set(&r->guest.vmlinux, "/usr/lib/debug/boot/vmlinux-6.1.0-18-amd64");
	set(&r->guest.mem, "1G");
	r->guest.smp = 4;
	set(&r->guest.crashkernel, "256M");
	set(&r->guest.accel, "kvm");
	r->guest.destructive_sysctl = true;
	r->guest.panic_on_oops = true;
	r->guest.panic_on_warn = false;
	set(&r->guest.workload, "-- /bin/sh -c 'echo \"hi\"'");
	set(&r->guest.host_fs, "on: the workload needs the host's tools");
	r->guest.shares_ro = calloc(2, sizeof(char *));
	if (!r->guest.shares_ro)
		exit(1);
	r->guest.n_shares_ro = 2;
	for (int i = 0; i < 2; i++)
		set(&r->guest.shares_ro[i], shares[i]);
	set(&r->guest.share_rw, "/srv/rw");
	r->qemu.exit = 124;
	set(&r->qemu.stopped_why, "timeout after 300 s");
	set(&r->qemu.stall,
	    "no output and no state from the guest for 10s: NMI injected");
	r->qemu.nmi_injected_ms = 41234;
	r->cause.run = CAUSE_OOPS;
	set(&r->cause.detail, "BUG: kernel NULL pointer dereference");
	r->cause.after = CAUSE_CAPTURE_DIED;
	set(&r->console.panic_message, "Fatal exception");
	set(&r->console.capture_panic, "Out of memory");
	set(&r->console.last_state, "armed");
	set(&r->console.refused, "no BTF");
	r->console.lines = 1234;
	r->console.lines_cut = 2;
	r->dump.state = DUMP_INCOMPLETE;
	r->dump.stream_bytes = 123456789;
	r->dump.vmcore_bytes = 1ULL << 40;
	set(&r->dump.makedumpfile_opts, "-l -d 31");
	r->campaign.attempt = 3;
	set(&r->guest.restored_from, "armed.snap");
	set(&r->guest.restore_error, "snapshot too old");
	r->report.state = REPORT_FAILED;
	set(&r->report.error, "drgn: exit 1");
	r->timings.boot_to_armed = 1.25;
	r->timings.armed_to_panic = 0.5;
	r->timings.panic_to_capture = 3.125;
	r->timings.dmesg = 0.001;
	r->timings.dump = 2.0;
	r->timings.restore = 0;
	r->timings.qemu_wall = 12.345;
	r->timings.collect = 100;
}

/* A record with what the schema requires and nothing more. */
static void fill_minimal(struct run_record *r)
{
	record_init(r);
	set(&r->id, "20240611T101010Z-none");
	set(&r->reason, "");
	set(&r->trigger.name, "none");
	set(&r->trigger.args, "");
	set(&r->guest.kernel_flavor, "ours");
	set(&r->guest.kernel, "6.9-bpk");
	set(&r->guest.vmlinux, "/x/vmlinux");
	set(&r->guest.mem, "512M");
	r->guest.smp = 1;
	set(&r->guest.crashkernel, "none");
	set(&r->guest.accel, "tcg");
	set(&r->guest.workload, "demo");
	set(&r->guest.host_fs, "off");
	r->cause.run = CAUSE_NONE;
	set(&r->cause.detail, "");
	set(&r->console.panic_message, "");
	set(&r->console.last_state, "");
}

/*
 * The first field in which @a and @b differ, in @what; the number of
 * fields compared if none does.
 */
static int compare(const struct run_record *a, const struct run_record *b,
		   char *what, size_t size)
{
	int n = 0;

#define STR(f)                                                            \
	do {                                                              \
		n++;                                                      \
		if ((!a->f) != (!b->f) || (a->f && strcmp(a->f, b->f))) { \
			snprintf(what, size, #f ": %s, read back %s",     \
				 vis(a->f), vis(b->f));                   \
			return -1;                                        \
		}                                                         \
	} while (0)
#define NUM(f)                                                        \
	do {                                                          \
		n++;                                                  \
		if (a->f != b->f) {                                   \
			snprintf(what, size, #f ": %g, read back %g", \
				 (double)a->f, (double)b->f);         \
			return -1;                                    \
		}                                                     \
	} while (0)

	STR(id);
	NUM(status);
	STR(reason);
	STR(interrupted);
	STR(trigger.name);
	STR(trigger.args);
	NUM(trigger.dry_run);
	STR(trigger.fire_action);
	STR(guest.kernel_flavor);
	STR(guest.kernel);
	STR(guest.kernel_package);
	STR(guest.kernel_release);
	STR(guest.vmlinux);
	STR(guest.mem);
	NUM(guest.smp);
	STR(guest.crashkernel);
	STR(guest.accel);
	NUM(guest.destructive_sysctl);
	NUM(guest.panic_on_oops);
	NUM(guest.panic_on_warn);
	STR(guest.workload);
	STR(guest.host_fs);
	NUM(guest.n_shares_ro);
	for (int i = 0; i < a->guest.n_shares_ro; i++)
		STR(guest.shares_ro[i]);
	STR(guest.share_rw);
	NUM(qemu.exit);
	STR(qemu.stopped_why);
	STR(qemu.stall);
	NUM(qemu.nmi_injected_ms);
	NUM(cause.run);
	STR(cause.detail);
	NUM(cause.after);
	STR(console.panic_message);
	STR(console.capture_panic);
	STR(console.last_state);
	STR(console.refused);
	NUM(console.lines);
	NUM(console.lines_cut);
	NUM(dump.state);
	NUM(dump.stream_bytes);
	NUM(dump.vmcore_bytes);
	STR(dump.makedumpfile_opts);
	NUM(campaign.attempt);
	STR(guest.restored_from);
	STR(guest.restore_error);
	NUM(report.state);
	STR(report.error);
	NUM(timings.boot_to_armed);
	NUM(timings.armed_to_panic);
	NUM(timings.panic_to_capture);
	NUM(timings.dmesg);
	NUM(timings.dump);
	NUM(timings.restore);
	NUM(timings.qemu_wall);
	NUM(timings.collect);
#undef STR
#undef NUM
	snprintf(what, size, "all %d fields equal", n);
	return n;
}

/* Write @r into @dir, read it back and compare; the check is @name. */
static void round_trip(const char *name, const char *dir,
		       const struct run_record *r, struct run_record *back)
{
	char err[512], what[1024];
	int rc;

	rc = record_write(dir, r, err, sizeof(err));
	if (rc) {
		check(name, false, "record_write: %s", err);
		record_init(back);
		return;
	}
	rc = record_read(dir, back, err, sizeof(err));
	if (rc) {
		check(name, false, "record_read: %s", err);
		return;
	}
	check(name, compare(r, back, what, sizeof(what)) > 0, "%s", what);
}

/* python3-jsonschema's verdict on @dir/run.json. */
static void schema_check(const char *name, const char *dir)
{
	char cmd[2 * PATH_MAX + 512], out[2048];
	int rc;

	snprintf(
		cmd, sizeof(cmd),
		"python3 -c 'import json,sys,jsonschema\n"
		"d = json.load(open(sys.argv[1]))\n"
		"v = jsonschema.Draft202012Validator(json.load(open(sys.argv[2])))\n"
		"e = [\"%%s: %%s\" %% (\".\".join(map(str, x.absolute_path)), "
		"x.message) for x in v.iter_errors(d)]\n"
		"print(\"; \".join(e) if e else \"valid\")' '%s' '%s' 2>&1",
		file_in(dir, RECORD_FILE), schema);
	rc = run_capture(cmd, out, sizeof(out));
	check(name, rc == 0 && !strcmp(out, "valid\n"), "python3 exit %d: %s",
	      rc, out);
}

/* The text of @dir/run.json (at most 64 KiB), "" if unreadable. */
static const char *file_text(const char *dir)
{
	static char buf[65536];
	FILE *f = fopen(file_in(dir, RECORD_FILE), "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void test_full(void)
{
	const char *dir = subdir("full");
	struct run_record r, back;
	struct stat st;
	char err[512];
	int rc;

	record_init(&r);
	check("record.init",
	      !r.id && r.timings.boot_to_armed == RECORD_NO_TIME &&
		      r.timings.collect == RECORD_NO_TIME &&
		      r.campaign.attempt == 0,
	      "id %s, boot_to_armed %g, collect %g, attempt %d", vis(r.id),
	      r.timings.boot_to_armed, r.timings.collect, r.campaign.attempt);
	set(&r.id, "x");
	set(&r.id, NULL);
	check("record.set-null", !r.id, "id %s after record_set(NULL)",
	      vis(r.id));

	fill_full(&r);
	round_trip("record.round-trip.full", dir, &r, &back);
	schema_check("record.schema.full", dir);
	rc = stat(file_in(dir, RECORD_FILE), &st);
	check("record.mode-0600", !rc && (st.st_mode & 07777) == 0600,
	      "stat %d, mode %04o", rc, rc ? 0 : st.st_mode & 07777);
	rc = access(file_in(dir, RECORD_FILE ".tmp"), F_OK);
	check("record.no-tmp-after-write", rc && errno == ENOENT,
	      "access(run.json.tmp): %s", rc ? strerror(errno) : "exists");
	check("record.campaign-written",
	      strstr(file_text(dir), "\"campaign\": {") != NULL, "%s",
	      strstr(file_text(dir), "\"campaign\"") ? "present" : "absent");
	record_free(&back);

	/* A restrictive umask does not change the mode, nor does a stale
	 * tmp of another mode stand in the way.
	 */
	rc = open(file_in(dir, RECORD_FILE ".tmp"), O_WRONLY | O_CREAT, 0644);
	if (rc >= 0)
		close(rc);
	umask(0377);
	rc = record_write(dir, &r, err, sizeof(err));
	umask(022);
	if (rc || stat(file_in(dir, RECORD_FILE), &st))
		st.st_mode = 0;
	check("record.mode-0600-umask-0377-stale-tmp",
	      !rc && (st.st_mode & 07777) == 0600, "rc %d (%s), mode %04o", rc,
	      rc ? err : "ok", st.st_mode & 07777);
	record_free(&r);
	record_free(&r);
	check("record.free-twice", !r.id && !r.guest.shares_ro,
	      "a second record_free() left an empty record");
}

static void test_minimal(void)
{
	const char *dir = subdir("minimal");
	struct run_record r, back;
	char *out = NULL, err[512];
	const char *text;
	int rc;

	fill_minimal(&r);
	round_trip("record.round-trip.minimal", dir, &r, &back);
	schema_check("record.schema.minimal", dir);
	text = file_text(dir);
	check("record.campaign-absent", !strstr(text, "\"campaign\""),
	      "attempt 0: %s",
	      strstr(text, "\"campaign\"") ? "written" : "absent");
	check("record.interrupted-null",
	      strstr(text, "\"interrupted\": null,") != NULL,
	      "\"interrupted\" %s",
	      strstr(text, "\"interrupted\": null") ? "null" : "not null");
	check("record.timings-null",
	      back.timings.dump == RECORD_NO_TIME &&
		      strstr(text, "\"dump_s\": null"),
	      "dump_s read back as %g", back.timings.dump);
	check("record.shares-empty",
	      back.guest.n_shares_ro == 0 && strstr(text, "\"shares_ro\": []"),
	      "%d items, %s", back.guest.n_shares_ro,
	      strstr(text, "\"shares_ro\": []") ? "[] in the file" :
						  "no [] in the file");
	rc = record_field(dir, "campaign", &out, err, sizeof(err));
	check("record.field.campaign-absent", rc == 1, "rc %d", rc);
	free(out);
	record_free(&back);
	record_free(&r);

	/* NULL required strings are written as "", optional ones as null. */
	record_init(&r);
	rc = record_write(subdir("nulls"), &r, err, sizeof(err));
	if (!rc)
		rc = record_read(subdir("nulls"), &back, err, sizeof(err));
	check("record.null-required-as-empty",
	      !rc && back.id && !*back.id && back.guest.mem &&
		      !*back.guest.mem && !back.interrupted &&
		      !back.report.error,
	      "%s: id %s, mem %s, interrupted %s, report.error %s",
	      rc ? err : "read back", vis(rc ? NULL : back.id),
	      vis(rc ? NULL : back.guest.mem),
	      vis(rc ? NULL : back.interrupted),
	      vis(rc ? NULL : back.report.error));
	if (!rc)
		record_free(&back);
}

/* @text as @dir/run.json. */
static void put_file(const char *dir, const char *text)
{
	FILE *f = fopen(file_in(dir, RECORD_FILE), "w");

	if (!f || fputs(text, f) == EOF || fclose(f)) {
		fprintf(stderr, "record-test: %s: cannot write\n", dir);
		exit(1);
	}
}

static void test_optional_absent(void)
{
	static const char text[] =
		"{\"schema_version\": 1, \"id\": \"x\", \"status\": \"success\","
		" \"reason\": \"\","
		" \"trigger\": {\"name\": \"t\", \"args\": \"\", \"dry_run\": false,"
		" \"fire_action\": null},"
		" \"guest\": {\"kernel_flavor\": \"ours\", \"kernel\": \"k\","
		" \"vmlinux\": \"/v\", \"mem\": \"1G\", \"smp\": 2,"
		" \"crashkernel\": \"none\", \"accel\": \"tcg\","
		" \"destructive_sysctl\": false, \"panic_on_oops\": true,"
		" \"panic_on_warn\": false, \"workload\": \"w\","
		" \"host_fs\": \"off\", \"share_rw\": null},"
		" \"qemu\": {\"exit\": 0}, \"cause\": {\"run\": \"trigger\","
		" \"detail\": \"\"}, \"console\": {\"panic_message\": \"\","
		" \"last_state\": \"\", \"lines\": 7}, \"dump\": {\"state\":"
		" \"complete\", \"stream_bytes\": 1, \"vmcore_bytes\": 2},"
		" \"report\": {\"state\": \"written\"}, \"timings\": {},"
		" \"a_later_field\": {\"ignored\": true}}";
	const char *dir = subdir("optional-absent");
	struct run_record r;
	char err[512];
	int rc;

	put_file(dir, text);
	rc = record_read(dir, &r, err, sizeof(err));
	check("record.optional-absent",
	      !rc && !r.interrupted && !r.guest.kernel_package &&
		      !r.guest.shares_ro && !r.guest.n_shares_ro &&
		      !r.guest.share_rw && !r.qemu.stopped_why &&
		      !r.qemu.stall && r.qemu.nmi_injected_ms == -1 &&
		      !r.console.refused && r.console.lines == 7 &&
		      !r.console.lines_cut && !r.campaign.attempt &&
		      !r.report.error &&
		      r.timings.boot_to_armed == RECORD_NO_TIME &&
		      r.cause.run == CAUSE_TRIGGER && r.guest.smp == 2,
	      "rc %d %s: interrupted %s, kernel_package %s, shares %d, "
	      "lines %ld, lines_cut %ld, attempt %d, boot_to_armed %g, "
	      "cause %s",
	      rc, rc ? err : "", vis(r.interrupted),
	      vis(r.guest.kernel_package), r.guest.n_shares_ro, r.console.lines,
	      r.console.lines_cut, r.campaign.attempt, r.timings.boot_to_armed,
	      cause_name(r.cause.run));
	record_free(&r);
}

#define S(lit) lit, sizeof(lit) - 1

/* Strings from the guest: as JSON in the file, and as read back. */
static const struct {
	const char *name, *in, *json;
	const char *back;
	size_t back_len;
} guest_strings[] = {
	{ "quote", "say \"hi\"", "say \\\"hi\\\"", S("say \"hi\"") },
	{ "backslash", "a\\b", "a\\\\b", S("a\\b") },
	{ "newline", "a\nb", "a\\nb", S("a\nb") },
	{ "vt", "\v", "\\u000b", S("\v") },
	{ "ff", "\f", "\\f", S("\f") },
	{ "x1c", "\x1c", "\\u001c", S("\x1c") },
	{ "esc", "\x1b[1m", "\\u001b[1m", S("\x1b[1m") },
	{ "del", "\x7f", "\\u007f", S("\x7f") },
	{ "u0085", "\xc2\x85", "\\u0085", S("\xc2\x85") },
	{ "u2028", "\xe2\x80\xa8", "\\u2028", S("\xe2\x80\xa8") },
	{ "utf8", "caf\xc3\xa9 \xf0\x9f\x98\x80",
	  "caf\xc3\xa9 \xf0\x9f\x98\x80", S("caf\xc3\xa9 \xf0\x9f\x98\x80") },
	{ "lone-ff",
	  "a\xff"
	  "b",
	  "a\\\\xffb", S("a\\xffb") },
	{ "truncated",
	  "\xe2\x82"
	  "z",
	  "\\\\xe2\\\\x82z", S("\\xe2\\x82z") },
	{ "overlong", "\xc0\xaf", "\\\\xc0\\\\xaf", S("\\xc0\\xaf") },
	{ "surrogate", "\xed\xa0\x80", "\\\\xed\\\\xa0\\\\x80",
	  S("\\xed\\xa0\\x80") },
};

#define N_GUEST_STRINGS (sizeof(guest_strings) / sizeof(guest_strings[0]))

static void test_guest_strings(void)
{
	const char *dir = subdir("guest-strings");
	char name[64], err[512], cmd[PATH_MAX + 512], out[8192], hex[512];
	struct run_record r, back;
	const char *text, *line;
	int rc;

	fill_full(&r);
	for (int i = 0; i < r.guest.n_shares_ro; i++)
		free(r.guest.shares_ro[i]);
	free(r.guest.shares_ro);
	r.guest.shares_ro = calloc(N_GUEST_STRINGS, sizeof(char *));
	if (!r.guest.shares_ro)
		exit(1);
	r.guest.n_shares_ro = N_GUEST_STRINGS;
	for (size_t i = 0; i < N_GUEST_STRINGS; i++)
		set(&r.guest.shares_ro[i], guest_strings[i].in);
	/* and one in a plain string field, next to the array */
	set(&r.console.panic_message, "Oops\x1b[0m \xff\n");

	rc = record_write(dir, &r, err, sizeof(err));
	check("record.guest-strings.write", rc == 0, "%s",
	      rc ? err : "written");
	rc = record_read(dir, &back, err, sizeof(err));
	check("record.guest-strings.read", rc == 0, "%s", rc ? err : "read");
	text = file_text(dir);
	check("record.guest-strings.panic-message",
	      !rc && !strcmp(back.console.panic_message, "Oops\x1b[0m \\xff\n"),
	      "read back %s", vis(rc ? NULL : back.console.panic_message));

	/* Python's reading of each item, as the hex of its UTF-8. */
	snprintf(
		cmd, sizeof(cmd),
		"python3 -c 'import json,sys\n"
		"for s in json.load(open(sys.argv[1]))[\"guest\"][\"shares_ro\"]:"
		" print(s.encode().hex())' '%s' 2>&1",
		file_in(dir, RECORD_FILE));
	rc = run_capture(cmd, out, sizeof(out));
	check("record.guest-strings.python-parses", rc == 0, "python3 exit %d",
	      rc);
	line = out;
	for (size_t i = 0; i < N_GUEST_STRINGS; i++) {
		char want[256];
		const char *got = i < (size_t)back.guest.n_shares_ro ?
					  back.guest.shares_ro[i] :
					  NULL;
		const char *nl = strchr(line, '\n');
		size_t hlen = nl ? (size_t)(nl - line) : strlen(line);
		size_t o = 0;

		snprintf(want, sizeof(want), "\"%s\"", guest_strings[i].json);
		snprintf(name, sizeof(name), "record.escape.%s.file",
			 guest_strings[i].name);
		check(name, strstr(text, want) != NULL, "%s %s in the file",
		      vis(want), strstr(text, want) ? "found" : "not found");

		snprintf(name, sizeof(name), "record.escape.%s.read-back",
			 guest_strings[i].name);
		check(name,
		      got && strlen(got) == guest_strings[i].back_len &&
			      !memcmp(got, guest_strings[i].back,
				      guest_strings[i].back_len),
		      "%s read back as %s", vis(guest_strings[i].in), vis(got));

		for (size_t k = 0; k < guest_strings[i].back_len; k++)
			o += (size_t)sprintf(
				hex + o, "%02x",
				(unsigned char)guest_strings[i].back[k]);
		snprintf(name, sizeof(name), "record.escape.%s.python",
			 guest_strings[i].name);
		check(name, hlen == o && !strncmp(line, hex, o),
		      "python3 read hex %.*s", (int)hlen, line);
		line = nl ? nl + 1 : line + hlen;
	}
	if (!rc)
		record_free(&back);
	record_free(&r);
}

/* Edit the record in @dir with jansson: @edit on the parsed root. */
static int edit_file(const char *dir, void (*edit)(json_t *root))
{
	json_t *root = json_load_file(file_in(dir, RECORD_FILE), 0, NULL);
	int rc;

	if (!root)
		return -1;
	edit(root);
	rc = json_dump_file(root, file_in(dir, RECORD_FILE), JSON_INDENT(1));
	json_decref(root);
	return rc;
}

static void version_2(json_t *root)
{
	json_object_set_new(root, "schema_version", json_integer(2));
}

static void status_number(json_t *root)
{
	json_object_set_new(root, "status", json_integer(3));
}

static void no_smp(json_t *root)
{
	json_object_del(json_object_get(root, "guest"), "smp");
}

static void unknown_cause(json_t *root)
{
	json_object_set_new(json_object_get(root, "cause"), "run",
			    json_string("meteor"));
}

/* only capture_died can come after the first kernel went down */
static void after_not_capture(json_t *root)
{
	json_object_set_new(json_object_get(root, "cause"), "after",
			    json_string("oops"));
}

static void share_number(json_t *root)
{
	json_array_append_new(json_object_get(json_object_get(root, "guest"),
					      "shares_ro"),
			      json_integer(5));
}

static void attempt_zero(json_t *root)
{
	json_object_set_new(json_object_get(root, "campaign"), "attempt",
			    json_integer(0));
}

static void timing_string(json_t *root)
{
	json_object_set_new(json_object_get(root, "timings"), "dump_s",
			    json_string("2"));
}

static void fire_action_missing(json_t *root)
{
	json_object_del(json_object_get(root, "trigger"), "fire_action");
}

static void no_version(json_t *root)
{
	json_object_del(root, "schema_version");
}

static void read_error(const char *name, const char *dir, const char *want)
{
	struct run_record r;
	char err[512];
	int rc;

	memset(err, 0, sizeof(err));
	rc = record_read(dir, &r, err, sizeof(err));
	check(name,
	      rc == -1 && strstr(err, file_in(dir, RECORD_FILE)) &&
		      strstr(err, want) && !strchr(err, '\n') && !r.id,
	      "rc %d: %s", rc, vis(err));
	if (!rc)
		record_free(&r);
}

static void test_read_errors(void)
{
	static const struct {
		const char *name;
		void (*edit)(json_t *root);
		const char *want;
	} edits[] = {
		{ "record.read.schema-version-2", version_2,
		  "schema_version 2" },
		{ "record.read.schema-version-missing", no_version,
		  "schema_version" },
		{ "record.read.status-wrong-type", status_number,
		  "status: expected a string, found an integer" },
		{ "record.read.required-missing", no_smp,
		  "required field guest.smp is missing" },
		{ "record.read.nullable-missing", fire_action_missing,
		  "trigger.fire_action" },
		{ "record.read.unknown-cause", unknown_cause, "cause.run" },
		{ "record.read.after-not-capture-died", after_not_capture,
		  "cause.after: \"oops\" is not capture_died" },
		{ "record.read.share-not-string", share_number,
		  "guest.shares_ro[2]" },
		{ "record.read.attempt-zero", attempt_zero,
		  "campaign.attempt" },
		{ "record.read.timing-string", timing_string,
		  "timings.dump_s" },
	};
	struct run_record r;
	const char *dir;
	char err[512];

	dir = subdir("missing");
	read_error("record.read.missing-file", dir, "No such file");

	dir = subdir("not-json");
	put_file(dir, "{\"schema_version\": 1, \"id\": \n");
	read_error("record.read.not-json", dir, "not JSON");
	put_file(dir, "[1]");
	read_error("record.read.not-object", dir, "not a JSON object");
	put_file(dir, "{\"schema_version\": 1}{}");
	read_error("record.read.trailing-text", dir, "not JSON");
	put_file(dir, "{\"schema_version\": 1, \"schema_version\": 1}");
	read_error("record.read.duplicate-key", dir, "not JSON");

	dir = subdir("is-dir");
	if (mkdir(file_in(dir, RECORD_FILE), 0700) && errno != EEXIST)
		exit(1);
	read_error("record.read.not-a-file", dir, "not a regular file");

	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		dir = subdir(edits[i].name);
		fill_full(&r);
		if (record_write(dir, &r, err, sizeof(err)) ||
		    edit_file(dir, edits[i].edit)) {
			check(edits[i].name, false, "setting up: %s", err);
			record_free(&r);
			continue;
		}
		record_free(&r);
		read_error(edits[i].name, dir, edits[i].want);
	}
}

static void field(const char *name, const char *dir, const char *path,
		  int want_rc, const char *want)
{
	char *out = (char *)"unset", err[512] = "";
	int rc = record_field(dir, path, &out, err, sizeof(err));

	check(name,
	      rc == want_rc && (want ? out && !strcmp(out, want) : out == NULL),
	      "record_field(\"%s\"): rc %d, %s%s%s", path, rc, vis(out),
	      rc < 0 ? ", " : "", rc < 0 ? err : "");
	free(out);
}

static void test_field(void)
{
	const char *dir = subdir("field");
	struct run_record r;
	char *out = NULL, err[512];
	int rc;

	fill_full(&r);
	set(&r.qemu.stopped_why, NULL);
	set(&r.qemu.stall, NULL);
	r.qemu.nmi_injected_ms = -1;
	rc = record_write(dir, &r, err, sizeof(err));
	record_free(&r);
	if (rc) {
		check("record.field.setup", false, "%s", err);
		return;
	}
	field("record.field.top", dir, "status", 0, "failed");
	field("record.field.nested", dir, "cause.run", 0, "oops");
	field("record.field.integer", dir, "guest.smp", 0, "4");
	field("record.field.big", dir, "dump.vmcore_bytes", 0, "1099511627776");
	field("record.field.true", dir, "trigger.dry_run", 0, "true");
	field("record.field.false", dir, "guest.panic_on_warn", 0, "false");
	field("record.field.seconds", dir, "timings.boot_to_armed_s", 0,
	      "1.25");
	field("record.field.seconds-3", dir, "timings.qemu_wall_s", 0,
	      "12.345");
	field("record.field.seconds-whole", dir, "timings.dump_s", 0, "2");
	field("record.field.null", dir, "qemu.stopped_why", 0, "");
	field("record.field.array", dir, "guest.shares_ro", 0,
	      "/srv/a\n/srv/b c");
	field("record.field.object", dir, "qemu", 0,
	      "{\"exit\":124,\"stopped_why\":null}");
	field("record.field.missing", dir, "guest.nope", 1, NULL);
	field("record.field.missing-top", dir, "nope", 1, NULL);
	field("record.field.into-string", dir, "status.x", 1, NULL);
	field("record.field.empty-path", dir, "", 1, NULL);
	field("record.field.trailing-dot", dir, "guest.", 1, NULL);
	field("record.field.leading-dot", dir, ".status", 1, NULL);
	field("record.field.no-file", subdir("field-none"), "status", -1, NULL);
	rc = record_field(subdir("field-none"), "status", &out, err,
			  sizeof(err));
	check("record.field.no-file-named",
	      rc == -1 && strstr(err, "field-none/run.json"), "%s", vis(err));
	free(out);
}

static void test_write_errors(void)
{
	const char *nodir = file_in(top, "does-not-exist");
	const char *dir = subdir("run-json-is-dir");
	struct run_record r;
	char err[512];
	int rc, gone;

	fill_minimal(&r);
	rc = record_write(nodir, &r, err, sizeof(err));
	gone = access(file_in(nodir, RECORD_FILE ".tmp"), F_OK) &&
	       errno == ENOENT;
	check("record.write.no-dir",
	      rc == -1 && gone &&
		      strstr(err, file_in(nodir, RECORD_FILE ".tmp")),
	      "rc %d, tmp %s: %s", rc, gone ? "absent" : "present", vis(err));

	/* The rename fails: the tmp must not be left behind. */
	if (mkdir(file_in(dir, RECORD_FILE), 0700) ||
	    mkdir(file_in(file_in(dir, RECORD_FILE), "x"), 0700))
		exit(1);
	rc = record_write(dir, &r, err, sizeof(err));
	gone = access(file_in(dir, RECORD_FILE ".tmp"), F_OK) &&
	       errno == ENOENT;
	check("record.write.rename-fails",
	      rc == -1 && gone && strstr(err, file_in(dir, RECORD_FILE)) &&
		      !strchr(err, '\n'),
	      "rc %d, tmp %s: %s", rc, gone ? "absent" : "present", vis(err));
	record_free(&r);
}

static void test_causes(void)
{
	enum cause c = CAUSE_UNKNOWN;
	int bad = 0;

	for (int i = 0; i < CAUSE_COUNT; i++)
		if (cause_parse(cause_name((enum cause)i), &c) || (int)c != i ||
		    !*cause_meaning((enum cause)i))
			bad++;
	check("record.causes",
	      !bad && cause_parse("meteor", &c) == -1 &&
		      cause_parse(NULL, &c) == -1 &&
		      !strcmp(cause_name(CAUSE_TRIGGER), "trigger"),
	      "%d causes, %d not parsed back, first %s, last %s", CAUSE_COUNT,
	      bad, cause_name(0), cause_name(CAUSE_COUNT - 1));
}

int main(int argc, char **argv)
{
	char cmd[PATH_MAX + 16];

	if (argc > 1)
		schema = argv[1];
	if (!mkdtemp(top)) {
		perror(top);
		return 1;
	}
	umask(022);
	test_full();
	test_minimal();
	test_optional_absent();
	test_guest_strings();
	test_read_errors();
	test_field();
	test_write_errors();
	test_causes();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd))
		fprintf(stderr, "record-test: %s: not removed\n", top);
	return checks_done("record-test");
}
