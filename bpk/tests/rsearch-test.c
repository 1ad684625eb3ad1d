// SPDX-License-Identifier: GPL-2.0
/*
 * The reservation search (rsearch.c) fed the outcomes a kernel would give:
 * a kernel that needs N MiB dumps at N and above, and a guest that cannot
 * place some sizes. Each case prints the sizes booted and the end state.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "rsearch.h"

/* The outcomes of a kernel needing @need MiB in a guest that places
 * nothing at or above @unplaceable (0: everything), the sizes in
 * @flaky (0-ended) not placed the first time each is booted after
 * something dumped.
 */
struct model {
	int need, unplaceable;
	const int *flaky;
	int flaky_seen[8];
};

static enum rsearch_result outcome(struct model *m, const struct rsearch *s,
				   int mib)
{
	if (m->unplaceable && mib >= m->unplaceable)
		return RS_NOT_PLACED;
	for (int i = 0; m->flaky && m->flaky[i]; i++)
		if (m->flaky[i] == mib && s->hi >= 0 && !m->flaky_seen[i]++)
			return RS_NOT_PLACED;
	return mib >= m->need ? RS_DUMPED : RS_CAPTURE_FAILED;
}

/* Run the search on @m; the sizes booted into @trail. */
static struct rsearch run(struct model *m, int mem, char *trail, size_t len)
{
	struct rsearch s;
	size_t o = 0;

	trail[0] = '\0';
	rsearch_init(&s, mem);
	while (s.state == RS_GOING && s.tries < 40) {
		enum rsearch_result r = outcome(m, &s, s.next);

		o += (size_t)snprintf(trail + o, len - o, "%s%d%c",
				      o ? " " : "", s.next,
				      r == RS_DUMPED	 ? '+' :
				      r == RS_NOT_PLACED ? '!' :
							   '-');
		if (o >= len)
			o = len - 1;
		rsearch_feed(&s, r);
	}
	return s;
}

static void expect(const char *name, struct model m, int mem,
		   enum rsearch_state state, int value, const char *want)
{
	char trail[512];
	struct rsearch s = run(&m, mem, trail, sizeof(trail));
	int got = state == RS_FOUND	? s.hi :
		  state == RS_TOO_SMALL ? s.lo :
					  s.next;

	check(name, s.state == state && got == value && !strcmp(trail, want),
	      "state %d (want %d), value %d (want %d), booted %s (want %s)",
	      s.state, state, got, value, vis(trail), want);
}

/* rsearch_classify of a run; @want -1: no answer */
static void classify(const char *name, int rc, const char *refused,
		     const char *state, int want)
{
	enum rsearch_result r = RS_DUMPED;
	int got = rsearch_classify(rc, refused, state, &r);

	got = got ? -1 : (int)r;
	check(name, got == want, "exit %d, refused %s, state %s: %d (want %d)",
	      rc, vis(refused), state, got, want);
}

int main(void)
{
	static const int flaky_96[] = { 96, 0 };
	static const int flaky_always[] = { 96, 96, 96, 0 };

	/* ours: 48M; Debian's: 112M; both found from 256M down */
	expect("found.ours", (struct model){ .need = 48 }, 1024, RS_FOUND, 48,
	       "256+ 144+ 80+ 48+");
	expect("found.debian", (struct model){ .need = 112 }, 1024, RS_FOUND,
	       112, "256+ 144+ 80- 112+ 96-");
	/* needs more than a quarter: up to half, once 256 was too small */
	expect("found.above_quarter", (struct model){ .need = 300 }, 1024,
	       RS_FOUND, 304, "256- 512+ 384+ 320+ 288- 304+");
	/* half the guest not placed: never taken for too small, the
	 * search goes below it
	 */
	expect("not_placed.searched_below",
	       (struct model){ .need = 300, .unplaceable = 448 }, 1024,
	       RS_FOUND, 304, "256- 512! 384+ 320+ 288- 304+");
	/* the first try not placed (a small guest): halfway down */
	expect("not_placed.first",
	       (struct model){ .need = 48, .unplaceable = 200 }, 1024, RS_FOUND,
	       48, "256! 144+ 80+ 48+");
	/* too small at the most the guest places: that is the answer */
	expect("too_small.at_most", (struct model){ .need = 600 }, 1024,
	       RS_TOO_SMALL, 512, "256- 512-");
	expect("too_small.below_not_placed",
	       (struct model){ .need = 600, .unplaceable = 400 }, 1024,
	       RS_TOO_SMALL, 384, "256- 512! 384- 496! 432! 400!");
	/* a size below one that dumped, not placed once: booted again */
	expect("not_placed.after_dump_retried",
	       (struct model){ .need = 112, .flaky = flaky_96 }, 1024, RS_FOUND,
	       112, "256+ 144+ 80- 112+ 96! 96-");
	/* ... and not placed every time: the search stops and says so */
	expect("not_placed.after_dump_gives_up",
	       (struct model){ .need = 112, .flaky = flaky_always }, 1024,
	       RS_NEVER_PLACED, 96, "256+ 144+ 80- 112+ 96! 96! 96!");
	/* a 512M guest: a quarter is 128, half 256 */
	expect("small_guest", (struct model){ .need = 112 }, 512, RS_FOUND, 112,
	       "128+ 80- 96- 112+");

	/* what a run says of its size */
	classify("classify.dumped", 0, "", "armed", RS_DUMPED);
	classify(
		"classify.not_placed", 1,
		"kexec -p failed: no crash kernel: crashkernel=512M reserved nothing (crashkernel reservation failed - No suitable area found.; 958 MiB of memory: more --mem or a smaller --crashkernel)",
		"refused", RS_NOT_PLACED);
	classify(
		"classify.not_loaded_is_too_small", 1,
		"kexec -p failed: no crash kernel (crashkernel=32M reserved 33554432 bytes)",
		"refused", RS_CAPTURE_FAILED);
	classify("classify.capture_failed", 1, "", "armed", RS_CAPTURE_FAILED);
	classify("classify.never_armed", 1, "", "booted", -1);
	classify("classify.other_refusal", 1,
		 "no bpk.trigger= on the kernel command line", "refused", -1);
	/* a reason that only quotes the words is no refusal of that kind */
	classify(
		"classify.words_must_lead", 1,
		"x kexec -p failed: no crash kernel: crashkernel=1M reserved nothing (",
		"refused", -1);
	return checks_done("rsearch");
}
