// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "describe.h"
#include "params.h"

static void describe_params(FILE *f, const struct param_def *d)
{
	for (; d->key; d++)
		fprintf(f, "    %-10s %-9s %-12s %s\n", d->key,
			param_type_name(d->type),
			d->def ? (*d->def ? d->def : "\"\"") : "(required)",
			d->help);
}

void describe_trigger(FILE *f, const struct trigger_def *t)
{
	fprintf(f, "%s: %s\n", t->name, t->summary);
	describe_params(f, t->params);
	if (t->example)
		fprintf(f, "    example: triggerctl arm %s %s\n", t->name,
			t->example);
	if (t->workload)
		fprintf(f, "    example workload: %s\n", t->workload);
}

void describe_common(FILE *f)
{
	fprintf(f, "common parameters (every trigger):\n");
	describe_params(f, common_params);
}

void describe_table(FILE *f)
{
	for (const struct trigger_def *t = triggers; t->name; t++)
		describe_trigger(f, t);
	describe_common(f);
}
