/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer of bpk: the run record, -j/--json output and QMP
 * commands all go through it. A streaming writer in the manner of
 * bpftool's: the caller opens and closes objects and arrays, the writer
 * places commas, indentation (pretty mode) and quotes.
 *
 * Strings are written so that the output is always valid JSON whatever
 * bytes they hold: '"', '\\' and control characters are escaped (\uXXXX
 * or the short forms), valid UTF-8 is kept, and a byte that is not part
 * of valid UTF-8 is written as the six characters \\xNN (a literal
 * backslash, x, two hex digits), so that the byte's value is kept and
 * nothing invalid is produced. (A string that holds the text \xNN itself
 * is written the same way: the escape is for reading, not for decoding.)
 * DEL, the C1 controls U+0080-U+009F and U+2028/U+2029 are written as
 * \uXXXX too, since some readers take them as line ends.
 *
 * The writer does not check its output calls: a write error stays in the
 * stream's error flag, which the owner of @f checks (ferror(), fflush())
 * once at the end. Values at the top level are written one per line.
 */
#ifndef BPK_JSON_WRITER_H
#define BPK_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json_writer json_writer_t;

/* NULL when out of memory. Writes to @f; the caller closes it. */
json_writer_t *jw_new(FILE *f);
/* Ends the output with a newline (pretty or not), frees the writer and
 * sets *@self to NULL. Flushes nothing: @f is the caller's.
 */
void jw_destroy(json_writer_t **self);
/* Pretty: one item a line, indented one space a level (Python's indent=1). */
void jw_pretty(json_writer_t *self, bool on);

void jw_start_object(json_writer_t *self);
void jw_end_object(json_writer_t *self);
void jw_start_array(json_writer_t *self);
void jw_end_array(json_writer_t *self);

/* The name of the next value inside an object. */
void jw_name(json_writer_t *self, const char *name);

void jw_string(json_writer_t *self, const char *s); /* NULL writes null */
/* @len bytes of @s, NUL bytes included (as \u0000) */
void jw_string_len(json_writer_t *self, const char *s, size_t len);
void jw_int(json_writer_t *self, int64_t v);
void jw_uint(json_writer_t *self, uint64_t v);
/* %.3f, trailing zeros and point kept off (1.250 as 1.25, 2.000 as 2); a
 * negative or non-finite value is null, one of 1e15 or more as jw_float().
 */
void jw_seconds(json_writer_t *self, double v);
/* the shortest text that reads back as @v; non-finite is null */
void jw_float(json_writer_t *self, double v);

/* What jw_float() writes for a finite @v, in @buf of @size bytes
 * (JW_DOUBLE_LEN is enough), for readers that print numbers as the
 * writer does.
 */
#define JW_DOUBLE_LEN 32
void jw_format_double(char *buf, size_t size, double v);
void jw_bool(json_writer_t *self, bool v);
void jw_null(json_writer_t *self);

/* name + value in one call */
void jw_string_field(json_writer_t *self, const char *name, const char *s);
void jw_int_field(json_writer_t *self, const char *name, int64_t v);
void jw_uint_field(json_writer_t *self, const char *name, uint64_t v);
void jw_seconds_field(json_writer_t *self, const char *name, double v);
void jw_float_field(json_writer_t *self, const char *name, double v);
void jw_bool_field(json_writer_t *self, const char *name, bool v);
void jw_null_field(json_writer_t *self, const char *name);

#endif
