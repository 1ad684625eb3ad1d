// SPDX-License-Identifier: GPL-2.0
/*
 * The reservation search's steps (rsearch.h). Until something dumped, a
 * size not placed lowers the most the guest is asked for and the search
 * goes on halfway down to what was too small; a size too small moves the
 * search up to the most the guest places. Once something dumped, it halves
 * between the two in 16M steps.
 */
#include <string.h>

#include "protocol.h"
#include "rsearch.h"

static int step_down(int mib)
{
	return mib / RSEARCH_STEP_MIB * RSEARCH_STEP_MIB;
}

void rsearch_init(struct rsearch *s, int mem_mib)
{
	s->lo = RSEARCH_LEAST_MIB;
	s->hi = -1;
	s->most = step_down(mem_mib / 2 > 512 ? 512 : mem_mib / 2);
	s->next = step_down(mem_mib / 4 > 256 ? 256 : mem_mib / 4);
	if (s->next <= s->lo)
		s->next = s->lo + RSEARCH_STEP_MIB;
	s->refusals = 0;
	s->tries = 0;
	s->state = s->most > s->lo ? RS_GOING : RS_TOO_SMALL;
}

void rsearch_feed(struct rsearch *s, enum rsearch_result r)
{
	if (s->state != RS_GOING)
		return;
	s->tries++;
	switch (r) {
	case RS_DUMPED:
		s->hi = s->next;
		s->refusals = 0;
		break;
	case RS_CAPTURE_FAILED:
		s->lo = s->next;
		s->refusals = 0;
		break;
	case RS_NOT_PLACED:
		if (s->hi < 0) {
			s->most = s->next - RSEARCH_STEP_MIB;
			break;
		}
		if (++s->refusals >= RSEARCH_REFUSALS_MAX)
			s->state = RS_NEVER_PLACED;
		return; /* the same size, another boot */
	}
	if (s->hi < 0) {
		if (s->lo >= s->most) {
			s->state = RS_TOO_SMALL;
			return;
		}
		s->next = r == RS_CAPTURE_FAILED ?
				  s->most :
				  step_down((s->lo + s->next) / 2);
		if (s->next <= s->lo)
			s->next = s->lo + RSEARCH_STEP_MIB;
		return;
	}
	if (s->hi - s->lo <= RSEARCH_STEP_MIB) {
		s->state = RS_FOUND;
		return;
	}
	s->next = step_down((s->lo + s->hi) / 2);
}

/* The guest's refusals (appliance/guest/jobs/appliance): the kernel placed
 * no reservation; kexec could not load the capture kernel into the one it
 * placed (smaller than the kernel and its initramfs).
 */
#define NOT_PLACED_WORDS "kexec -p failed: no crash kernel: crashkernel="
#define NOT_PLACED_MARK " reserved nothing ("
#define NOT_LOADED_WORDS "kexec -p failed: no crash kernel (crashkernel="

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int rsearch_classify(int rc, const char *refused, const char *last_state,
		     enum rsearch_result *r)
{
	if (rc == 0)
		*r = RS_DUMPED;
	else if (starts(refused, NOT_PLACED_WORDS) &&
		 strstr(refused, NOT_PLACED_MARK))
		*r = RS_NOT_PLACED;
	else if (starts(refused, NOT_LOADED_WORDS))
		*r = RS_CAPTURE_FAILED;
	else if (!*refused && !strcmp(last_state, STATE_ARMED))
		/* armed, then went down, and nothing verified came back */
		*r = RS_CAPTURE_FAILED;
	else
		return -1;
	return 0;
}

const char *rsearch_result_text(enum rsearch_result r)
{
	switch (r) {
	case RS_DUMPED:
		return "dumped";
	case RS_CAPTURE_FAILED:
		return "no dump";
	case RS_NOT_PLACED:
		return "not placed";
	}
	return "?";
}
