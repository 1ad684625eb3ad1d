/* SPDX-License-Identifier: GPL-2.0 */
/* The trigger table as people read it: triggerctl list and bpk list print
 * it through these, so the two never differ.
 */
#ifndef BPK_DESCRIBE_H
#define BPK_DESCRIBE_H

#include <stdio.h>

#include "table.h"

/* "name: summary", its parameters, its example and example workload. */
void describe_trigger(FILE *f, const struct trigger_def *t);
/* "common parameters (every trigger):" and them. */
void describe_common(FILE *f);
/* Every trigger, then the common parameters. */
void describe_table(FILE *f);

#endif
