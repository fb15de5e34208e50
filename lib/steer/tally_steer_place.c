/* SPDX-License-Identifier: BSD-3-Clause */
/* Rule placement: TCP/UDP port masks merged into one matcher. */
#include <string.h>

#include "tally_steer_place.h"

#define PLACE_PROTO_TCP		6
#define PLACE_PROTO_UDP		17

static bool
place_zero(const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* One L2-L4 section starting at key offset base. */
static bool
place_merge_section(struct tally_match_key *mask, struct tally_match_key *value,
		    uint32_t base)
{
	uint8_t *mk = &mask->b[base], *vl = &value->b[base];
	uint32_t own, other;

	if (mk[TALLY_L24_IP_PROTOCOL] != 0xff)
		return false;
	switch (vl[TALLY_L24_IP_PROTOCOL]) {
	case PLACE_PROTO_TCP:
		own = TALLY_L24_TCP_SPORT;
		other = TALLY_L24_UDP_SPORT;
		break;
	case PLACE_PROTO_UDP:
		own = TALLY_L24_UDP_SPORT;
		other = TALLY_L24_TCP_SPORT;
		break;
	default:
		return false;
	}
	/* sport and dport are adjacent (4 bytes) in both protocols */
	if (place_zero(&mk[own], 4) || !place_zero(&mk[other], 4))
		return false;
	memcpy(&mk[other], &mk[own], 4);
	memset(&vl[other], 0, 4);
	return true;
}

bool
tally_steer_merge_ports(struct tally_match_key *mask, struct tally_match_key *value)
{
	bool outer, inner;

	if (mask == NULL || value == NULL)
		return false;
	outer = place_merge_section(mask, value, TALLY_MS_OFF(TALLY_MS_OUTER));
	inner = place_merge_section(mask, value, TALLY_MS_OFF(TALLY_MS_INNER));
	return outer || inner;
}
