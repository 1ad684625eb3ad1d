// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "fire_decode.h"

static const char *action_text(__u32 action)
{
	switch (action) {
	case FIRE_NONE:
		return "none (dry run)";
	case FIRE_BPF_PANIC:
		return "bpf_panic";
	case FIRE_CRASH_KEXEC:
		return "crash_kexec";
	}
	return "unknown";
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * One line: "ADDR:  hh hh ... hh   ascii". Bytes are one space apart; the
 * ASCII column starts after three spaces and may itself look like hex, so
 * the spacing, not the characters, ends the byte list.
 */
static int parse_line(const char *line, unsigned long long *addr,
		      unsigned char *bytes)
{
	const char *p;
	char *end;
	int n = 0;

	*addr = strtoull(line, &end, 16);
	if (end == line || *end != ':')
		return -1;
	p = end + 1;
	while (*p == ' ')
		p++;
	while (n < 16 && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
		bytes[n++] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
		p += 2;
		if (p[0] != ' ' || p[1] == ' ')
			break;
		p++;
	}
	return n ? n : -1;
}

long hexdump_parse(const char *text, unsigned char *buf, size_t size, char *err,
		   size_t errlen)
{
	unsigned long long first = 0, addr;
	unsigned char bytes[16];
	size_t len = 0;
	int lineno = 0;

	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t linelen = nl ? (size_t)(nl - line) : strlen(line);
		int n;

		lineno++;
		if (strspn(line, " \t\r") >= linelen)
			goto next; /* blank line */
		n = parse_line(line, &addr, bytes);
		if (n < 0) {
			snprintf(err, errlen,
				 "line %d: not \"ADDRESS:  hh hh ...\"",
				 lineno);
			return -1;
		}
		if (!len)
			first = addr;
		else if (addr != first + len) {
			snprintf(err, errlen,
				 "line %d: address %llx, expected %llx", lineno,
				 addr, first + len);
			return -1;
		}
		if (len + (size_t)n > size) {
			snprintf(err, errlen, "more than %zu bytes", size);
			return -1;
		}
		memcpy(buf + len, bytes, (size_t)n);
		len += (size_t)n;
next:
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!len) {
		snprintf(err, errlen, "no bytes");
		return -1;
	}
	return (long)len;
}

int state_decode(const unsigned char *buf, size_t len, struct trigger_state *s,
		 char *err, size_t errlen)
{
	if (len != sizeof(*s)) {
		snprintf(err, errlen, "%zu bytes, a trigger state is %zu", len,
			 sizeof(*s));
		return -1;
	}
	memcpy(s, buf, sizeof(*s));
	return 0;
}

/* Print a fixed-size char field up to its NUL, non-printables escaped. */
static void print_text(FILE *out, const char *key, const char *text,
		       size_t size)
{
	fprintf(out, "%s=", key);
	for (size_t i = 0; i < size && text[i]; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c >= 0x20 && c < 0x7f)
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
	fputc('\n', out);
}

int state_print(FILE *out, const struct trigger_state *s)
{
	const struct fire_record *f = &s->fire;
	int fired = !memcmp(f->magic, FIRE_MAGIC, sizeof(f->magic));

	fprintf(out, "matches=%llu\n", (unsigned long long)s->matches);
	fprintf(out, "record=%s\n", fired ? "yes" : "no");
	/* earlier attempts that came back: the dump is of a later one */
	fprintf(out, "refused=%llu\n", (unsigned long long)s->refused);
	if (s->refused)
		fprintf(out, "refused_ret=%lld\n", (long long)s->refused_ret);
	if (!fired)
		return 0;
	print_text(out, "trigger", f->trigger, sizeof(f->trigger));
	fprintf(out, "hit=%llu\n", (unsigned long long)f->hits);
	fprintf(out, "pid=%u\ntgid=%u\ncpu=%u\n", f->pid, f->tgid, f->cpu);
	print_text(out, "comm", f->comm, sizeof(f->comm));
	fprintf(out, "action=%s\n", action_text(f->action));
	fprintf(out, "time=%llu.%09llu s after boot\n",
		(unsigned long long)(f->time_ns / 1000000000ULL),
		(unsigned long long)(f->time_ns % 1000000000ULL));
	print_text(out, "detail", f->detail, sizeof(f->detail));
	return 1;
}
