/* SPDX-License-Identifier: BSD-3-Clause */
/* No wire: nothing arrives; sent frames are counted and dropped. */
#include "tally_model_priv.h"

static int
tally_wire_none_open(struct tally_model *m, char *errbuf, size_t errlen)
{
	return 0;
}

static void
tally_wire_none_close(struct tally_model *m)
{
}

static int
tally_wire_none_tx(struct tally_model *m, const uint8_t *frame, uint32_t len)
{
	return 0;
}

static int
tally_wire_none_rx(struct tally_model *m, uint8_t *buf, uint32_t buflen,
		   uint32_t *caplen, uint32_t *len)
{
	return 0;
}

static int
tally_wire_none_eof(struct tally_model *m)
{
	return 1;	/* nothing will ever arrive */
}

const struct tally_wire_ops tally_wire_none_ops = {
	.name = "none",
	.open = tally_wire_none_open,
	.close = tally_wire_none_close,
	.tx = tally_wire_none_tx,
	.rx = tally_wire_none_rx,
	.eof = tally_wire_none_eof,
};
