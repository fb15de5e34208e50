/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RSS: the Toeplitz hash of the Microsoft RSS specification. The input is
 * source address, destination address, then (for TCP/UDP hash types) source
 * port and destination port, all in network byte order.
 */
#include <string.h>

#include "tally_model_priv.h"

uint32_t
tally_model_toeplitz(const uint8_t key[TALLY_RSS_KEY_LEN], const uint8_t *in,
		     size_t len)
{
	uint32_t hash = 0;
	uint32_t win;
	size_t i, kb;
	int b;

	/* win = key bits [i*8, i*8+32); shifted in one key bit per input bit */
	win = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 |
	      (uint32_t)key[2] << 8 | key[3];
	for (i = 0; i < len; i++) {
		kb = i + 4;
		for (b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				hash ^= win;
			win <<= 1;
			if (kb < TALLY_RSS_KEY_LEN && (key[kb] & (1u << b)))
				win |= 1;
		}
	}
	return hash;
}

static bool
tally_model_rss_l4(const struct tally_model_pkt *pkt, uint32_t hf,
		   uint32_t tcp_bit, uint32_t udp_bit)
{
	return (pkt->l4 == TALLY_PTYPE_L4_TCP && (hf & tcp_bit)) ||
	       (pkt->l4 == TALLY_PTYPE_L4_UDP && (hf & udp_bit));
}

bool
tally_model_rss_hash(const struct tally_model *m,
		     const struct tally_model_pkt *pkt, uint32_t hf,
		     uint32_t *hash)
{
	uint8_t key[TALLY_RSS_KEY_LEN];
	uint8_t in[36];
	size_t alen, n;
	bool l4;
	unsigned int i;
	uint32_t w;

	if (pkt->l3 == TALLY_PTYPE_L3_IPV4) {
		l4 = tally_model_rss_l4(pkt, hf, TALLY_RSS_HF_IPV4_TCP,
					TALLY_RSS_HF_IPV4_UDP);
		if (!l4 && !(hf & TALLY_RSS_HF_IPV4))
			return false;
		alen = 4;
	} else if (pkt->l3 == TALLY_PTYPE_L3_IPV6) {
		l4 = tally_model_rss_l4(pkt, hf, TALLY_RSS_HF_IPV6_TCP,
					TALLY_RSS_HF_IPV6_UDP);
		if (!l4 && !(hf & TALLY_RSS_HF_IPV6))
			return false;
		alen = 16;
	} else {
		return false;
	}
	memcpy(in, pkt->src, alen);
	memcpy(in + alen, pkt->dst, alen);
	n = 2 * alen;
	if (l4) {
		in[n++] = (uint8_t)(pkt->sport >> 8);
		in[n++] = (uint8_t)pkt->sport;
		in[n++] = (uint8_t)(pkt->dport >> 8);
		in[n++] = (uint8_t)pkt->dport;
	}
	for (i = 0; i < TALLY_RSS_KEY_LEN / 4; i++) {
		w = tally_model_bar_rd(m, TALLY_REG_RSS_KEY(i));
		key[4 * i] = (uint8_t)w;
		key[4 * i + 1] = (uint8_t)(w >> 8);
		key[4 * i + 2] = (uint8_t)(w >> 16);
		key[4 * i + 3] = (uint8_t)(w >> 24);
	}
	*hash = tally_model_toeplitz(key, in, n);
	return true;
}
