/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run record, RUN/run.json (schema: analysis/run.schema.json): the one
 * writer of it and bpk's one reader. Every change to a filed run's record
 * goes through record_write(): the whole record, to run.json.tmp, fsynced,
 * then renamed over run.json, so a reader sees the old record or the new
 * one, never half of one.
 */
#ifndef BPK_RECORD_H
#define BPK_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "causes.h" /* enum cause, cause_name(), cause_parse(): generated */

#define RECORD_FILE "run.json"
#define RECORD_SCHEMA_VERSION 1

enum run_status { RUN_SUCCESS, RUN_FAILED, RUN_INTERRUPTED };
enum dump_state { DUMP_NONE, DUMP_COMPLETE, DUMP_INCOMPLETE, DUMP_UNVERIFIED };
enum report_state { REPORT_NOT_RUN, REPORT_WRITTEN, REPORT_FAILED };

/* A time not measured: written as null. */
#define RECORD_NO_TIME (-1.0)

/*
 * Every string is owned by the record (malloc'd; record_free() frees them)
 * and may be NULL where the schema allows null; a NULL required string is
 * written as "". Strings that came from the guest are stored as they were
 * received; the writer makes them valid JSON (json_writer.h).
 */
struct run_record {
	char *id;
	enum run_status status;
	char *reason;
	char *interrupted; /* "SIGINT" ..., NULL if not */
	struct {
		char *name, *args;
		bool dry_run;
		char *fire_action; /* NULL: never armed */
		char *prog; /* a program of the user's own: its object in the
			     * run ("prog/NAME.bpf.o"); NULL: a built-in one
			     */
	} trigger;
	struct {
		char *kernel_flavor, *kernel, *kernel_package, *kernel_release;
		char *vmlinux, *mem;
		int smp;
		char *crashkernel, *accel;
		bool destructive_sysctl, panic_on_oops, panic_on_warn;
		char *workload, *host_fs;
		char **shares_ro; /* n_shares_ro of them; read: then NULL */
		int n_shares_ro;
		char *share_rw;
		/* the snapshot it was restored from; NULL: booted */
		char *restored_from, *restore_error;
		/* why a run that could have started warm booted (NULL: it
		 * started warm, or it is a campaign's attempt)
		 */
		char *cold_why;
	} guest;
	struct {
		int exit;
		char *stopped_why;
		/* --stall: what the watchdog saw and did; NULL: not watched */
		char *stall;
		long long nmi_injected_ms; /* after QEMU's start; -1: none */
	} qemu;
	struct {
		enum cause run; /* the console's: provisional */
		char *detail;
		/* the dump's, once the report read it (the dump decides;
		 * run.json's cause.confirmed is whether the two are the same)
		 */
		bool dump_known;
		enum cause dump;
		/* what went wrong after the first kernel went down
		 * (CAUSE_CAPTURE_DIED); CAUSE_NONE: nothing
		 */
		enum cause after;
	} cause;
	struct {
		char *panic_message, *capture_panic, *last_state, *refused;
		long lines, lines_cut;
		/* records not read for the cause on a console in syslog
		 * format: not the kernel's own (facility other than LOG_KERN,
		 * or no "<N>" at all); -1 on a plain console
		 */
		long not_kernel;
		/* state lines after the workload started that the job does
		 * not send then: the guest's user space claiming them, not
		 * acted on; the first of them
		 */
		long claims;
		char *claimed;
	} console;
	struct {
		enum dump_state state;
		unsigned long long stream_bytes, vmcore_bytes;
		char *makedumpfile_opts;
		/* what made the vmcore: "kdump", "nmi+kdump" (the host's
		 * --stall NMI, then kdump) or "host" (QEMU's dump of the
		 * guest); NULL: no vmcore. path_why: why not kdump, or NULL
		 */
		char *path, *path_why;
	} dump;
	struct {
		int attempt; /* 0: not an attempt of a campaign (no "campaign") */
	} campaign;
	/* what the guest sent more of than is kept: "console.log: ..." */
	char **capped;
	int n_capped;
	struct {
		enum report_state state;
		char *error;
	} report;
	struct {
		double boot_to_armed, armed_to_panic, panic_to_capture, dmesg,
			dump, restore, qemu_wall, collect;
		/* host clock, QEMU's start to the guest's "armed" */
		double start_to_armed;
		/* host clock, the guest seen going down to the run filed */
		double down_to_filed;
	} timings;
};

/* All zero, every time RECORD_NO_TIME. */
void record_init(struct run_record *r);
void record_free(struct run_record *r);

/* Replace *@field with a copy of @value (NULL allowed); -1 if out of memory. */
int record_set(char **field, const char *value);

/* Write @r as @dir/run.json (mode 0600). 0, or -1 with a one-line reason
 * naming the file in @err.
 */
int record_write(const char *dir, const struct run_record *r, char *err,
		 size_t errlen);

/* Read @dir/run.json into @r (record_init'ed by this call). 0, or -1 with a
 * one-line reason naming the file (and the field) in @err: missing, not
 * JSON, another schema_version, a required field missing, a field of the
 * wrong type or an enum's value out of the schema's list. Fields this bpk
 * does not know are ignored. On -1, @r is left empty.
 */
int record_read(const char *dir, struct run_record *r, char *err,
		size_t errlen);

/* The value at a dotted @path ("status", "cause.run",
 * "timings.boot_to_armed_s", "guest.shares_ro") of @dir/run.json, as text
 * in *@out (malloc'd, no final newline): a string as it is, a number or
 * bool as JSON writes it, null as "", an array as its items one per line,
 * an object as compact JSON. 0, 1 if there is no such field, -1 with @err
 * on a record that cannot be read (not JSON, another schema_version); the
 * other fields are not checked. *@out is NULL unless 0 is returned.
 */
int record_field(const char *dir, const char *path, char **out, char *err,
		 size_t errlen);

/* @dir/report.json, every integer read as a double (a stack's pc is beyond
 * what jansson takes as an integer, and a time in ns is exact as a double);
 * NULL when it is missing or not JSON. The caller json_decref()s it.
 */
json_t *report_json_load(const char *dir);

const char *run_status_name(enum run_status s);
const char *dump_state_name(enum dump_state s);
const char *report_state_name(enum report_state s);

#endif
