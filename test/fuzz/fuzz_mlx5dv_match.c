/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the mlx5dv match-buffer checks of libtally_verbs
 * (tally_verbs_match_copy, tally_verbs_match_criteria), as
 * mlx5dv_create_flow_matcher and mlx5dv_create_flow run them. The input is
 * match_criteria_enable (first byte) then the match buffer, whose
 * match_sz is the rest of the input (the buffer is exactly that long, so
 * ASan catches any read past it). Invariants (abort on violation): 0 or
 * EINVAL; on success the key equals the buffer zero-extended to 512 bytes,
 * and a buffer over 640 bytes or with a non-zero byte beyond 512 fails.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tally_verbs_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t key[TALLY_MATCH_KEY_LEN], want[TALLY_MATCH_KEY_LEN];
	struct mlx5dv_flow_match_parameters *p;
	size_t sz, i;
	bool tail = false;
	int rc;

	if (size < 1 || size > 2048)
		return 0;
	sz = size - 1;
	p = malloc(sizeof(*p) + sz);
	if (p == NULL)
		return 0;
	p->match_sz = sz;
	memcpy(p->match_buf, data + 1, sz);
	memset(key, 0xee, sizeof(key));
	rc = tally_verbs_match_copy(p, key);
	for (i = TALLY_MATCH_KEY_LEN; i < sz; i++)
		tail |= data[1 + i] != 0;
	if (rc != 0 && rc != EINVAL)
		abort();
	if ((rc == 0) != (sz != 0 && sz <= 640 && !tail))
		abort();
	if (rc == 0) {
		memset(want, 0, sizeof(want));
		memcpy(want, data + 1, sz < sizeof(want) ? sz : sizeof(want));
		if (memcmp(key, want, sizeof(key)) != 0)
			abort();
		rc = tally_verbs_match_criteria(key, data[0]);
		if (rc != 0 && rc != EINVAL)
			abort();
	}
	free(p);
	return 0;
}
