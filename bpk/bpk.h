/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every file of bpk shares: the verbs' entry points, the global
 * options, error reporting and small helpers. One file per verb family
 * (run.c, runs.c, list.c, open.c, campaign.c ...), as bpftool has one per
 * object.
 */
#ifndef BPK_BPK_H
#define BPK_BPK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "json_writer.h"

/* Exit statuses of bpk, kept from the shell front end it replaced. */
#define EXIT_OK 0
#define EXIT_FAILED 1 /* the task failed, named on stderr */
#define EXIT_BAD_INPUT 2 /* one line, nothing started */
#define EXIT_UNFILED 3 /* a run could not be filed; what the guest sent kept */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* --- global options (main.c) */
extern bool json_output; /* -j/--json */
extern bool pretty_output; /* -p/--pretty */
extern json_writer_t *json_wtr; /* stdout, when json_output */
extern const char *bin_name; /* "bpk" */
/* The umask bpk was started with (its own is 077): the build make runs
 * for it is the clone's, shared with make and other users, not private
 */
extern mode_t user_umask;

/* --- where things are (config.c) */
struct bpk_paths {
	char *top; /* the clone: Makefile, appliance/, analysis/ ... */
	char *build; /* BUILD, else TOP/build */
	char *cache; /* BPK_CACHE, else $XDG_CACHE_HOME/bpf-panic-kdump, else
		      * ~/.cache/bpf-panic-kdump
		      */
	char *runs; /* --runs, else BPK_RUNS, else the config's, else TOP/runs */
	char *reservations; /* BPK_RESERVATIONS, else CACHE/reservations: the
			     * crash reservations measured on this machine
			     */
	char *version; /* an installed copy: the version install recorded */
	bool installed; /* found through share/bpk/bpk.conf */
	char *sdk; /* installed: the include dir beside share/ holding bpk/ */
};
extern struct bpk_paths paths;
/* Fill @paths; exits 1 naming what is missing when the clone cannot be
 * found. @runs_opt: the --runs option or NULL.
 */
void config_load(const char *runs_opt);
/* BPK_ACCEL, else "auto" */
const char *config_accel(void);
const char *bpk_version(void);

/* --- errors and messages (util.c) */
/* "bpk: error: ..." on stderr (or {"error": ...} with -j) */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line on @f, built from whatever @fmt's arguments hold (a reason
 * quoted from the guest, a user's word), escaped (escape.h), then a
 * newline: what the messages below do, for lines of bpk's own shape.
 */
void print_line(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "bpk: ..." on stderr */
void p_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Called before a message is printed: ends an open progress line. */
extern void (*before_message)(void);

/* Bad input: one line, exit 2, nothing started. */
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* The task failed: one line, exit 1. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *path_join(const char *dir, const char *name);

/* A growable list of strings (argv building). */
struct strv {
	char **v;
	int n, cap;
};
void strv_add(struct strv *s, const char *str);
void strv_addf(struct strv *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strv_free(struct strv *s);
/* @s's strings with @sep between them; malloc'd. */
char *strv_join(const struct strv *s, const char *sep);
/* The NULL-terminated array (valid until the next add). */
char **strv_argv(struct strv *s);

/* Monotonic milliseconds. */
int64_t now_ms(void);
/* "12.3s" or "4m05s" */
const char *fmt_ms(int64_t ms, char *buf, size_t len);
/* "2.000" style seconds with three decimals */
double ms_to_s(int64_t ms);

bool file_exists(const char *path);
bool is_dir(const char *path);
bool is_executable(const char *path);
/* mkdir -p with @mode for what it makes; 0, or -1 with errno */
int mkdir_p(const char *path, mode_t mode);
/* The whole file as a NUL-terminated string, at most @max bytes (more is an
 * error: EFBIG); NULL with errno on failure. *@len gets its size if not
 * NULL.
 */
char *read_file(const char *path, size_t max, size_t *len);
/* The first line of a small file, its newline dropped; NULL with errno. */
char *read_line_file(const char *path);
/* The last line of @text (NULL reads as ""), its trailing newlines cut in
 * place: what a program's stderr says last, usually why it failed.
 */
char *last_line(char *text);
/* Copy @src (at most 64 MiB) to @dst, a new file; 0 or -1 with errno. */
int copy_file_small(const char *src, const char *dst);
/* Does @s hold a byte below 0x20, or 0x7f? */
bool has_control(const char *s);
/* realpath(3), or NULL with errno */
char *abs_path(const char *path);
/* QEMU's option syntax: every ',' in @s doubled. */
char *qemu_escape(const char *s);

/* Parse a size like 512M or 1G into bytes; -1 if not such a size. */
long long parse_size(const char *s);
/* A decimal number in [min, max]; -1 on error (min >= 0). */
long long parse_num(const char *s, long long min, long long max);

/* --- verbs: each takes the arguments after its name */
int do_run(int argc, char **argv);
int do_demo(int argc, char **argv);
int do_selftest(int argc, char **argv);
int do_list(int argc, char **argv);
int do_sdk(int argc, char **argv);
int do_new_trigger(int argc, char **argv);
int do_check(int argc, char **argv);
int do_kernels(int argc, char **argv);
int do_cache(int argc, char **argv);
int do_runs(int argc, char **argv);
int do_show(int argc, char **argv);
int do_crash(int argc, char **argv);
int do_drgn(int argc, char **argv);
int do_dump(int argc, char **argv);
int do_campaign(int argc, char **argv);
int do_matrix(int argc, char **argv);
int do_bisect(int argc, char **argv);
int do_snapshot(int argc, char **argv);
int do_collect(int argc, char **argv);
int do_boot(int argc, char **argv);

/* --- runs (runs.c) */
/* The directory of RUN: an id, a unique prefix, "last" or a directory.
 * Bad input (exit 2) when it matches no run or more than one.
 */
char *run_resolve(const char *want);
/* The filed runs' ids under @runs, oldest first (ids start with their UTC
 * time; .unfiled dirs and campaign dirs are not runs). Returns the count.
 */
int run_ids(const char *runs, char ***ids);

#endif
