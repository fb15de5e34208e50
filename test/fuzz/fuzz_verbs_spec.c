/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the ibv_flow_spec walk of libtally_verbs
 * (tally_verbs_spec_walk), as ibv_create_flow runs it. The input is
 * num_of_specs (first byte) then the spec bytes that follow the attr. Like
 * libibverbs, the walk trusts the caller for the length of the spec list
 * (attr->size is not used), so the specs are followed by 1 KiB of zeros: a
 * spec can claim at most 512 bytes, and a zero header ends the walk.
 * Action specs go to a callback that checks it gets a whole aligned spec.
 * Invariants (abort on violation): the result is 0 or one of the errno
 * values the walk documents; on success every value bit lies under a mask
 * bit (values are ANDed with their masks).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tally_verbs_spec.h"

#define FV_PAD	1024

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
fv_action(void *arg, const struct ibv_flow_spec *s, uint32_t type)
{
	unsigned int *n = arg;

	if (((uintptr_t)s & 7) != 0 || s->hdr.size < 6)
		abort();
	(*n)++;
	return (type & 1) ? EINVAL : 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tally_verbs_spec_key k;
	struct ibv_flow_attr *attr;
	unsigned int nact = 0, i;
	int rc;

	if (size < 1 || size > 4096)
		return 0;
	attr = calloc(1, sizeof(*attr) + size - 1 + FV_PAD);
	if (attr == NULL)
		return 0;
	attr->num_of_specs = data[0];
	attr->port = 1;
	memcpy(attr + 1, data + 1, size - 1);
	memset(&k, 0, sizeof(k));
	rc = tally_verbs_spec_walk(&k, attr, fv_action, &nact);
	if (rc != 0 && rc != EINVAL && rc != EOPNOTSUPP)
		abort();
	if (nact > attr->num_of_specs)
		abort();
	for (i = 0; rc == 0 && i < TALLY_MATCH_KEY_LEN; i++)
		if (k.value[i] & ~k.mask[i])
			abort();
	free(attr);
	return 0;
}
