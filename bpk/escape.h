/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest text made safe to show: every byte a broken kernel or a user's
 * reproducer sent is untrusted. Control characters (C0, DEL, C1), the
 * Unicode line and paragraph separators, and bytes that are not valid
 * UTF-8 come out as \xNN, as fire-decode prints a fire record's text, so
 * that nothing guest-made moves the cursor, sets a title, clears the
 * screen or splits a line in a reader; so do the invisible characters that
 * reorder or hide text (bidi overrides and isolates, zero-width ones). A backslash stays as it is: the
 * escape is idempotent (text escaped twice reads the same), so a record's
 * escaped text can pass through the analysis' escape again unchanged.
 */
#ifndef BPK_ESCAPE_H
#define BPK_ESCAPE_H

#include <stddef.h>

/* The escaped form of @len bytes of @s, malloc'd and NUL-terminated. */
char *escape_text(const char *s, size_t len);

/* Escape into @buf of @size bytes (cut at a whole escape), returns @buf. */
char *escape_into(char *buf, size_t size, const char *s, size_t len);

#endif
