/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The search for a kernel's smallest crash reservation that dumps (bpk
 * kernels --measure), as a pure state machine: measure.c boots the sizes
 * it asks for, and the unit tests feed it outcomes. A size the guest's
 * kernel could not place ("reserved nothing": where its randomized image
 * landed left no free range that large) says nothing of what the capture
 * kernel needs, and is never taken for too small.
 */
#ifndef BPK_RSEARCH_H
#define BPK_RSEARCH_H

#include <stdbool.h>

/* Reservations are asked for in steps of this (x86 places them on 16M). */
#define RSEARCH_STEP_MIB 16
/* Below this no capture kernel fits: never tried, taken as too small. */
#define RSEARCH_LEAST_MIB 32
/* A size not placed although a larger one was is booted again (the next
 * boot places its kernel elsewhere), this many times in a row at most.
 */
#define RSEARCH_REFUSALS_MAX 3

enum rsearch_result {
	RS_DUMPED, /* a verified dump came back */
	RS_CAPTURE_FAILED, /* armed, went down, no dump: too small */
	RS_NOT_PLACED, /* the kernel reserved nothing: too big to place */
};

enum rsearch_state {
	RS_GOING, /* boot s->next */
	RS_FOUND, /* s->hi is the smallest that dumps */
	RS_TOO_SMALL, /* s->lo, the most the guest places, did not dump */
	RS_NEVER_PLACED, /* s->next was not placed too often, s->hi was */
};

struct rsearch {
	int lo; /* the largest size whose capture failed */
	int hi; /* the smallest that dumped; -1: none yet */
	int most; /* the largest the guest is still asked to place */
	int next; /* the size to boot next */
	int refusals; /* not placed in a row, after something dumped */
	int tries; /* boots fed in */
	enum rsearch_state state;
};

/*
 * For a guest of @mem_mib: the first size a quarter of the guest (which a
 * 1 GiB guest places wherever its kernel landed), never more than half
 * (the kernel and its initramfs must fit beside it: in a 1 GiB guest 512M
 * finds no free range about one boot in four).
 */
void rsearch_init(struct rsearch *s, int mem_mib);

/* The outcome of booting s->next; s->state and s->next say what now. */
void rsearch_feed(struct rsearch *s, enum rsearch_result r);

/*
 * What a try's run says of its size: @rc its exit status, @refused the
 * guest's reason for not arming ("" if none), @last_state the last
 * BPK-STATE it sent. 0 with *@r, or -1: the run failed for something else
 * (it never armed, or was refused for another reason), and no size
 * follows from it.
 */
int rsearch_classify(int rc, const char *refused, const char *last_state,
		     enum rsearch_result *r);

const char *rsearch_result_text(enum rsearch_result r);

#endif
