// SPDX-License-Identifier: GPL-2.0
/*
 * The streaming JSON writer (json_writer.h). It keeps no tree: each call
 * writes its text at once, and the writer only remembers what the next
 * call needs to place a comma and an indentation.
 */
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

struct json_writer {
	FILE *out;
	unsigned int depth;
	bool pretty;
	/* Nothing written yet in the innermost object or array. */
	bool first;
	/* A name was just written: its value follows on the same line. */
	bool named;
};

json_writer_t *jw_new(FILE *f)
{
	json_writer_t *self = calloc(1, sizeof(*self));

	if (!self)
		return NULL;
	self->out = f;
	self->first = true;
	return self;
}

void jw_destroy(json_writer_t **self)
{
	if (!self || !*self)
		return;
	putc('\n', (*self)->out);
	free(*self);
	*self = NULL;
}

void jw_pretty(json_writer_t *self, bool on)
{
	self->pretty = on;
}

static void newline(json_writer_t *self)
{
	if (!self->pretty)
		return;
	putc('\n', self->out);
	for (unsigned int i = 0; i < self->depth; i++)
		putc(' ', self->out);
}

/* What goes before a name or a value: the comma after the one before it
 * and, pretty, a new line at the current depth. A value after its name
 * gets neither. Values at the top level go one per line, as JSON Lines.
 */
static void begin_item(json_writer_t *self)
{
	if (self->named) {
		self->named = false;
		return;
	}
	if (!self->depth) {
		if (!self->first)
			putc('\n', self->out);
	} else {
		if (!self->first)
			putc(',', self->out);
		newline(self);
	}
	self->first = false;
}

/*
 * The length of the well-formed UTF-8 sequence at @s (at most @len bytes)
 * and its code point in *@cp, or 0 if @s does not start one. The ranges
 * of the second byte are those of the Unicode standard's table of
 * well-formed sequences: they exclude overlong forms, the UTF-16
 * surrogates and code points past U+10FFFF.
 */
static size_t utf8_seq(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t v;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		v = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		v = s[0] & 0x0f;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		v = s[0] & 0x07;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	*cp = v;
	return n;
}

static void put_string(FILE *out, const unsigned char *s, size_t len)
{
	putc('"', out);
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		uint32_t cp;
		size_t n;

		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(out, "\\u%04x", c);
			} else if (c < 0x80) {
				putc(c, out);
			} else if ((n = utf8_seq(s + i, len - i, &cp))) {
				/*
				 * The C1 controls and the Unicode line and
				 * paragraph separators are valid JSON as they
				 * are, but some readers (JavaScript, line
				 * splitters) take them as line ends.
				 */
				if (cp <= 0x9f || cp == 0x2028 || cp == 0x2029)
					fprintf(out, "\\u%04" PRIx32, cp);
				else
					fwrite(s + i, 1, n, out);
				i += n;
				continue;
			} else {
				/* Not UTF-8: the JSON text of "\xNN" keeps
				 * the byte's value without producing invalid
				 * output.
				 */
				fprintf(out, "\\\\x%02x", c);
			}
		}
		i++;
	}
	putc('"', out);
}

void jw_start_object(json_writer_t *self)
{
	begin_item(self);
	putc('{', self->out);
	self->depth++;
	self->first = true;
}

static void end(json_writer_t *self, int c)
{
	/* An unbalanced end is the caller's bug; writing it would only move
	 * the damage further down the output.
	 */
	if (!self->depth)
		return;
	self->depth--;
	if (!self->first)
		newline(self);
	putc(c, self->out);
	self->first = false;
	self->named = false;
}

void jw_end_object(json_writer_t *self)
{
	end(self, '}');
}

void jw_start_array(json_writer_t *self)
{
	begin_item(self);
	putc('[', self->out);
	self->depth++;
	self->first = true;
}

void jw_end_array(json_writer_t *self)
{
	end(self, ']');
}

void jw_name(json_writer_t *self, const char *name)
{
	begin_item(self);
	put_string(self->out, (const unsigned char *)name, strlen(name));
	putc(':', self->out);
	if (self->pretty)
		putc(' ', self->out);
	self->named = true;
}

void jw_string(json_writer_t *self, const char *s)
{
	jw_string_len(self, s, s ? strlen(s) : 0);
}

void jw_string_len(json_writer_t *self, const char *s, size_t len)
{
	if (!s) {
		jw_null(self);
		return;
	}
	begin_item(self);
	put_string(self->out, (const unsigned char *)s, len);
}

void jw_int(json_writer_t *self, int64_t v)
{
	begin_item(self);
	fprintf(self->out, "%" PRId64, v);
}

void jw_uint(json_writer_t *self, uint64_t v)
{
	begin_item(self);
	fprintf(self->out, "%" PRIu64, v);
}

/*
 * Seconds are for people first: three decimals (milliseconds) are all a
 * run's timings mean, and 2 reads better than 2.000.
 */
void jw_seconds(json_writer_t *self, double v)
{
	char buf[32];
	size_t n;

	if (!isfinite(v) || v < 0) {
		jw_null(self);
		return;
	}
	/*
	 * %.3f of a huge value is a long run of digits without a point,
	 * which readers with 64-bit integers (jansson) reject as too big.
	 */
	if (v >= 1e15) {
		jw_float(self, v);
		return;
	}
	/* -0.0 passed the test above; it is written as 0. */
	snprintf(buf, sizeof(buf), "%.3f", fabs(v));
	n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	begin_item(self);
	fputs(buf, self->out);
}

/*
 * The shortest text that reads back as @v, so 0.1 is not written as
 * 0.10000000000000001; without an exponent where Python's repr() has none
 * (1e-4 <= |v| < 1e16), so 100 is not written as 1e+02. bpk never calls
 * setlocale(): the decimal point is the C locale's '.'.
 */
void jw_format_double(char *buf, size_t size, double v)
{
	char e[JW_DOUBLE_LEN];
	int prec, exp10;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, size, "%.*g", prec, v);
	snprintf(e, sizeof(e), "%.*e", prec - 1, v);
	exp10 = atoi(strchr(e, 'e') + 1);
	/*
	 * Here the shortest form is an integer below 1e16 ending in zeros,
	 * which a double holds exactly: the digits %g adds are those zeros.
	 */
	if (exp10 >= -4 && exp10 < 16 && exp10 + 1 > prec)
		snprintf(buf, size, "%.*g", exp10 + 1, v);
}

void jw_float(json_writer_t *self, double v)
{
	char buf[JW_DOUBLE_LEN];

	if (!isfinite(v)) {
		jw_null(self);
		return;
	}
	jw_format_double(buf, sizeof(buf), v);
	begin_item(self);
	fputs(buf, self->out);
}

void jw_bool(json_writer_t *self, bool v)
{
	begin_item(self);
	fputs(v ? "true" : "false", self->out);
}

void jw_null(json_writer_t *self)
{
	begin_item(self);
	fputs("null", self->out);
}

void jw_string_field(json_writer_t *self, const char *name, const char *s)
{
	jw_name(self, name);
	jw_string(self, s);
}

void jw_int_field(json_writer_t *self, const char *name, int64_t v)
{
	jw_name(self, name);
	jw_int(self, v);
}

void jw_uint_field(json_writer_t *self, const char *name, uint64_t v)
{
	jw_name(self, name);
	jw_uint(self, v);
}

void jw_seconds_field(json_writer_t *self, const char *name, double v)
{
	jw_name(self, name);
	jw_seconds(self, v);
}

void jw_float_field(json_writer_t *self, const char *name, double v)
{
	jw_name(self, name);
	jw_float(self, v);
}

void jw_bool_field(json_writer_t *self, const char *name, bool v)
{
	jw_name(self, name);
	jw_bool(self, v);
}

void jw_null_field(json_writer_t *self, const char *name)
{
	jw_name(self, name);
	jw_null(self);
}
