/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame parser: placeholder until the steering work lands (fills nothing). */
#include <string.h>

#include "tally_model_dev.h"

void
tally_model_parse(const uint8_t *frame, uint32_t len, struct tally_model_pkt *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->frame = frame;
	pkt->len = len;
}
