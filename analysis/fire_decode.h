/* SPDX-License-Identifier: GPL-2.0 */
/* Turning crash's "rd -8" hex dump of a .data.fire map value back into a
 * trigger_state, and printing it.
 */
#ifndef BPK_FIRE_DECODE_H
#define BPK_FIRE_DECODE_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "fire.h"

/*
 * Parse @text, lines of "ADDR:  hh hh ... [ascii]" as printed by crash's
 * "rd -8 ADDR COUNT", into @buf. Returns the number of bytes read, or -1
 * (with @err set) on a malformed line or a gap in the addresses.
 */
long hexdump_parse(const char *text, unsigned char *buf, size_t size, char *err,
		   size_t errlen);

/* Decode a trigger_state from exactly sizeof(struct trigger_state) bytes. */
int state_decode(const unsigned char *buf, size_t len, struct trigger_state *s,
		 char *err, size_t errlen);

/* Print @s as "key=value" lines; returns 1 if it holds a fire record. */
int state_print(FILE *out, const struct trigger_state *s);

#endif
