/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the model's frame parser (tally_model_parse) on any bytes of
 * any length, 0 included. The input buffer is exactly the frame, so ASan
 * catches any read past its end. Invariants (abort on violation): the
 * result names the frame and its length, parsing is deterministic, and the
 * flags are booleans.
 */
#include <stdlib.h>
#include <string.h>

#include "tally_model_dev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tally_model_pkt a, b;

	if (size > 16384)
		return 0;	/* longer than any frame the wire carries */
	memset(&a, 0x5a, sizeof(a));
	memset(&b, 0xa5, sizeof(b));
	tally_model_parse(data, (uint32_t)size, &a);
	tally_model_parse(data, (uint32_t)size, &b);
	if (a.frame != data || a.len != size || a.has_vlan > 1)
		abort();
	if (memcmp(&a.key, &b.key, sizeof(a.key)) != 0 || a.ptype != b.ptype ||
	    a.l3 != b.l3 || a.l4 != b.l4 || a.sport != b.sport || a.dport != b.dport)
		abort();
	return 0;
}
