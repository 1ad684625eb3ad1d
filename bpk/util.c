// SPDX-License-Identifier: GPL-2.0
/* Errors, memory, time and file helpers of bpk. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bpk.h"
#include "escape.h"

void (*before_message)(void);

/*
 * Every message bpk prints goes through here, and out escaped
 * (escape.h): a reason, a panic line or a state quoted from the guest is
 * guest bytes, and so may be a path or a word a user pasted; none of it
 * reaches a terminal raw. Escaping is idempotent, so text escaped before
 * (a run record's) reads the same.
 */
static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL, *safe;

	/* a progress line drawn at a terminal is ended first */
	if (before_message)
		before_message();
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	safe = msg ? escape_text(msg, strlen(msg)) : NULL;
	if (json_output && json_wtr && !strcmp(prefix, "error: ")) {
		jw_start_object(json_wtr);
		jw_string_field(json_wtr, "error",
				safe ? safe : "out of memory");
		jw_end_object(json_wtr);
	} else {
		fprintf(stderr, "%s: %s%s\n", bin_name, prefix,
			safe ? safe : "out of memory");
	}
	free(safe);
	free(msg);
}

void print_line(FILE *f, const char *fmt, ...)
{
	char *msg = NULL, *safe;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	safe = msg ? escape_text(msg, strlen(msg)) : NULL;
	fprintf(f, "%s\n", safe ? safe : "(out of memory)");
	free(safe);
	free(msg);
}

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("error: ", fmt, ap);
	va_end(ap);
}

void p_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

static void finish_json(void)
{
	if (json_wtr)
		jw_destroy(&json_wtr);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("error: ", fmt, ap);
	va_end(ap);
	finish_json();
	exit(EXIT_BAD_INPUT);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("error: ", fmt, ap);
	va_end(ap);
	finish_json();
	exit(EXIT_FAILED);
}

static void oom(void)
{
	fprintf(stderr, "%s: error: out of memory\n", bin_name);
	exit(EXIT_FAILED);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return s;
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	if (n && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

void strv_add(struct strv *s, const char *str)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = xrealloc(s->v, (size_t)s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = xstrdup(str);
	s->v[s->n] = NULL;
}

void strv_addf(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str;

	va_start(ap, fmt);
	if (vasprintf(&str, fmt, ap) < 0)
		oom();
	va_end(ap);
	strv_add(s, str);
	free(str);
}

void strv_free(struct strv *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

char **strv_argv(struct strv *s)
{
	if (!s->v) {
		s->cap = 4;
		s->v = xcalloc((size_t)s->cap, sizeof(*s->v));
	}
	return s->v;
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *fmt_ms(int64_t ms, char *buf, size_t len)
{
	if (ms < 0)
		ms = 0;
	if (ms >= 60000)
		snprintf(buf, len, "%lldm%02llds", (long long)(ms / 60000),
			 (long long)(ms % 60000 / 1000));
	else
		snprintf(buf, len, "%lld.%llds", (long long)(ms / 1000),
			 (long long)(ms % 1000 / 100));
	return buf;
}

double ms_to_s(int64_t ms)
{
	return (double)ms / 1000.0;
}

bool file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			rc = -1;
			break;
		}
		*s = '/';
	}
	if (!rc && mkdir(p, mode) && errno != EEXIST)
		rc = -1;
	if (!rc && !is_dir(p)) {
		errno = ENOTDIR;
		rc = -1;
	}
	free(p);
	return rc;
}

char *read_file(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t got;

		if (n + 1 >= cap) {
			if (cap > max + 1) {
				free(buf);
				close(fd);
				errno = EFBIG;
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (n > max) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *read_line_file(const char *path)
{
	char *s = read_file(path, 1 << 16, NULL);

	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

char *abs_path(const char *path)
{
	char *r = realpath(path, NULL);

	return r;
}

char *qemu_escape(const char *s)
{
	size_t n = 0;
	char *out, *o;

	for (const char *p = s; *p; p++)
		n += *p == ',' ? 2 : 1;
	out = o = xmalloc(n + 1);
	for (const char *p = s; *p; p++) {
		*o++ = *p;
		if (*p == ',')
			*o++ = ',';
	}
	*o = '\0';
	return out;
}

long long parse_size(const char *s)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || v <= 0 || end[0] == '\0' || end[1] != '\0')
		return -1;
	if (*end == 'M' && v <= (LLONG_MAX >> 20))
		return v << 20;
	if (*end == 'G' && v <= (LLONG_MAX >> 30))
		return v << 30;
	return -1;
}

long long parse_num(const char *s, long long min, long long max)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	return v;
}

/* Copy @src to @dst (a new file, 0644 under bpk's umask: 0600). */
int copy_file_small(const char *src, const char *dst)
{
	size_t len;
	char *text = read_file(src, 64 << 20, &len);
	FILE *f;
	int rc;

	if (!text)
		return -1;
	f = fopen(dst, "wx");
	rc = !f || fwrite(text, 1, len, f) != len;
	if (f && fclose(f))
		rc = 1;
	free(text);
	return rc ? -1 : 0;
}

char *strv_join(const struct strv *s, const char *sep)
{
	size_t n = 1, seplen = strlen(sep);
	char *t;

	for (int i = 0; i < s->n; i++)
		n += strlen(s->v[i]) + seplen;
	t = xcalloc(1, n);
	for (int i = 0; i < s->n; i++) {
		if (i)
			strcat(t, sep);
		strcat(t, s->v[i]);
	}
	return t;
}

char *last_line(char *text)
{
	size_t l;
	char *nl;

	if (!text)
		return "";
	l = strlen(text);
	while (l && text[l - 1] == '\n')
		text[--l] = '\0';
	nl = strrchr(text, '\n');
	return nl ? nl + 1 : text;
}
