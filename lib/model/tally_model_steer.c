/* SPDX-License-Identifier: BSD-3-Clause */
/* Steering executor: placeholder until the steering work lands (always miss). */
#include <string.h>

#include "tally_model_dev.h"

void
tally_model_steer_classify(struct tally_model *m, const struct tally_model_pkt *pkt,
			   struct tally_model_verdict *v)
{
	(void)m;
	(void)pkt;
	memset(v, 0, sizeof(*v));
}
