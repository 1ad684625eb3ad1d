// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the run record's reader (record.c). Any bytes as
 * run.json give a record or an error: never a crash, a leak or undefined
 * behaviour (the sanitizers' part). And what reads must survive the
 * writer: a record read from the input, written and read back, is written
 * again byte for byte the same; otherwise bpk could file a record it then
 * refuses, or that changes each time it is rewritten.
 *
 *	TMPDIR=/dev/shm fuzz-record CORPUS bpk/fuzz/seeds/record
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

static char in_dir[PATH_MAX], out_dir[PATH_MAX];

static void __attribute__((noreturn)) die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz-record: %s: %s\n", what, detail);
	abort();
}

static void make_dir(char *buf, const char *base, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/fuzz-record-%s.XXXXXX", base, name);
	if (!mkdtemp(buf))
		die(buf, "cannot create");
}

static void remove_dir(const char *dir)
{
	static const char *const names[] = { RECORD_FILE, RECORD_FILE ".tmp" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	if (rmdir(dir))
		fprintf(stderr, "fuzz-record: %s: not removed\n", dir);
}

static void cleanup(void)
{
	remove_dir(in_dir);
	remove_dir(out_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *base = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	if (!base || !*base)
		base = "/tmp";
	make_dir(in_dir, base, "in");
	make_dir(out_dir, base, "out");
	if (atexit(cleanup))
		die("atexit", "cannot register the cleanup");
	return 0;
}

static void put_file(const char *dir, const uint8_t *data, size_t size)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, RECORD_FILE);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path, "cannot create");
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n <= 0)
			die(path, "cannot write");
		data += n;
		size -= (size_t)n;
	}
	if (close(fd))
		die(path, "cannot close");
}

/* @dir/run.json, malloc'd, its length in *@len. */
static char *get_file(const char *dir, size_t *len)
{
	char path[PATH_MAX];
	char *buf = NULL;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, RECORD_FILE);
	f = fopen(path, "r");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		die(path, "cannot read");
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(path, "cannot read");
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void rewrite(struct run_record *r)
{
	struct run_record back;
	char err[1024];
	char *first, *second;
	size_t first_len, second_len;

	if (record_write(out_dir, r, err, sizeof(err)))
		die("record_write", err);
	first = get_file(out_dir, &first_len);
	if (record_read(out_dir, &back, err, sizeof(err)))
		die("record_read of what record_write wrote", err);
	if (record_write(out_dir, &back, err, sizeof(err)))
		die("record_write", err);
	record_free(&back);
	second = get_file(out_dir, &second_len);
	if (first_len != second_len || memcmp(first, second, first_len))
		die("record_write", "a record read back is written otherwise");
	free(first);
	free(second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {
		"status",	  "cause.run", "guest.shares_ro",
		"timings.dump_s", "trigger",   "guest.smp",
		"a.b.c",	  "",	       ".",
	};
	struct run_record r;
	char err[1024];
	char *out;

	put_file(in_dir, data, size);
	if (!record_read(in_dir, &r, err, sizeof(err))) {
		rewrite(&r);
		record_free(&r);
	} else if (!*err || strchr(err, '\n')) {
		die("record_read", "an error without a one-line reason");
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (record_field(in_dir, paths[i], &out, err, sizeof(err)) >= 0)
			free(out);
	}
	return 0;
}
