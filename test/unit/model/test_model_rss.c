/* SPDX-License-Identifier: BSD-3-Clause */
/* RSS: Toeplitz against the Microsoft RSS verification suite, and the
 * default path spreading over RETA deterministically. */
#include "tally_model_priv.h"
#include "tally_mt.h"
#include "tally_test.h"

static const uint8_t ms_key[TALLY_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Microsoft "Verifying the RSS Hash Calculation", IPv4 table. */
static const struct {
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
	uint32_t l3, l4;
} ms_v4[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217, 0x82989176, 0xafc7327f },
	{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303, 0x5d1809c5, 0x10e828a2 },
};

static uint32_t
input(uint8_t *in, const uint8_t *src, const uint8_t *dst, size_t alen,
      uint16_t sport, uint16_t dport, bool l4)
{
	memcpy(in, src, alen);
	memcpy(in + alen, dst, alen);
	if (!l4)
		return (uint32_t)(2 * alen);
	in[2 * alen] = (uint8_t)(sport >> 8);
	in[2 * alen + 1] = (uint8_t)sport;
	in[2 * alen + 2] = (uint8_t)(dport >> 8);
	in[2 * alen + 3] = (uint8_t)dport;
	return (uint32_t)(2 * alen + 4);
}

static int
test_toeplitz_ms_vectors(void)
{
	/* IPv6 row 1: 3ffe:2501:200:1fff::7 -> 3ffe:2501:200:3::1, 2794 -> 1766 */
	static const uint8_t s6[16] = { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff,
					0, 0, 0, 0, 0, 0, 0, 7 };
	static const uint8_t d6[16] = { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03,
					0, 0, 0, 0, 0, 0, 0, 1 };
	uint8_t in[36];
	uint32_t i, n;

	for (i = 0; i < TALLY_ARRAY_SIZE(ms_v4); i++) {
		n = input(in, ms_v4[i].src, ms_v4[i].dst, 4, 0, 0, false);
		TEST_ASSERT_EQ(tally_model_toeplitz(ms_key, in, n), ms_v4[i].l3, "row %u", i);
		n = input(in, ms_v4[i].src, ms_v4[i].dst, 4, ms_v4[i].sport,
			  ms_v4[i].dport, true);
		TEST_ASSERT_EQ(tally_model_toeplitz(ms_key, in, n), ms_v4[i].l4, "row %u", i);
	}
	n = input(in, s6, d6, 16, 0, 0, false);
	TEST_ASSERT_EQ(tally_model_toeplitz(ms_key, in, n), 0x2cc18cd5, "ipv6");
	n = input(in, s6, d6, 16, 2794, 1766, true);
	TEST_ASSERT_EQ(tally_model_toeplitz(ms_key, in, n), 0x40207d3d, "ipv6 tcp");
	return TEST_SUCCESS;
}

static uint32_t
be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void
program_rss(struct mt_dev *d, uint32_t hf)
{
	uint32_t i;

	for (i = 0; i < TALLY_RSS_KEY_LEN / 4; i++)
		mt_wr(d, TALLY_REG_RSS_KEY(i), (uint32_t)ms_key[4 * i] |
		      (uint32_t)ms_key[4 * i + 1] << 8 | (uint32_t)ms_key[4 * i + 2] << 16 |
		      (uint32_t)ms_key[4 * i + 3] << 24);
	/* RETA entry e -> queue e % 4 */
	for (i = 0; i < TALLY_RSS_RETA_SIZE / 4; i++)
		mt_wr(d, TALLY_REG_RSS_RETA(i), 0x03020100);
	mt_wr(d, TALLY_REG_RSS_HF, hf);
	mt_port(d, TALLY_CTRL_RSS);
}

static int
test_rss_reta(void)
{
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0 };
	static uint8_t f[256], r[2048];
	struct tally_model_config cfg;
	struct mt_rx_info info;
	struct mt_rxq rq[4];
	struct mt_dev d;
	uint32_t i, q, got[4] = { 0 }, first[64];
	int n, pass;

	mt_config(&cfg);
	cfg.rx_queues = 4;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	for (q = 0; q < 4; q++)
		TEST_ASSERT_EQ(mt_rxq_start(&d, &rq[q], q, 7, 2048, false), 0, "rxq");
	program_rss(&d, TALLY_RSS_HF_IPV4 | TALLY_RSS_HF_IPV4_UDP);
	/* the Microsoft tuples as UDP: hash value and queue RETA[hash % 128] */
	for (i = 0; i < TALLY_ARRAY_SIZE(ms_v4); i++) {
		mt_udp_frame(f, 100, mac, be32(ms_v4[i].src), be32(ms_v4[i].dst),
			     ms_v4[i].sport, ms_v4[i].dport, i);
		TEST_ASSERT_EQ(tally_model_inject(d.m, f, 100), 0, "");
		q = (ms_v4[i].l4 % TALLY_RSS_RETA_SIZE) % 4;
		TEST_ASSERT_EQ(mt_rxq_recv(&rq[q], r, sizeof(r), &info), 100, "row %u", i);
		TEST_ASSERT(info.flags & TALLY_RXC_F_RSS, "");
		TEST_ASSERT_EQ(info.hash, ms_v4[i].l4, "row %u", i);
		TEST_ASSERT_EQ(info.ptype, TALLY_PTYPE_L3_IPV4 | TALLY_PTYPE_L4_UDP << 2, "");
	}
	/* IPv4 only: the 2-tuple value */
	program_rss(&d, TALLY_RSS_HF_IPV4);
	mt_udp_frame(f, 100, mac, be32(ms_v4[0].src), be32(ms_v4[0].dst),
		     ms_v4[0].sport, ms_v4[0].dport, 0);
	tally_model_inject(d.m, f, 100);
	q = (ms_v4[0].l3 % TALLY_RSS_RETA_SIZE) % 4;
	TEST_ASSERT_EQ(mt_rxq_recv(&rq[q], r, sizeof(r), &info), 100, "");
	TEST_ASSERT_EQ(info.hash, ms_v4[0].l3, "");
	/* 64 flows, twice: same queue each time, every queue used */
	program_rss(&d, TALLY_RSS_HF_IPV4_UDP);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 64; i++) {
			mt_udp_frame(f, 80, mac, 0x0a000000 | ((i * 2654435761u) >> 8),
				     0x0a0000ff, (uint16_t)(1000 + i * 7919), 53, i);
			tally_model_inject(d.m, f, 80);
			for (q = 0; q < 4; q++) {
				n = mt_rxq_recv(&rq[q], r, sizeof(r), &info);
				if (n <= 0)
					continue;
				TEST_ASSERT_EQ(q, (info.hash % 128) % 4, "RETA");
				if (pass == 0)
					first[i] = q;
				TEST_ASSERT_EQ(first[i], q, "flow %u deterministic", i);
				got[q]++;
			}
		}
	}
	for (q = 0; q < 4; q++)
		TEST_ASSERT(got[q] > 0, "queue %u used", q);
	TEST_ASSERT_EQ(got[0] + got[1] + got[2] + got[3], 128, "");
	/* non-IP frames: no hash, RETA entry 0 */
	memset(f + 12, 0x88, 2);
	tally_model_inject(d.m, f, 80);
	TEST_ASSERT_EQ(mt_rxq_recv(&rq[0], r, sizeof(r), &info), 80, "");
	TEST_ASSERT(!(info.flags & TALLY_RXC_F_RSS), "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_toeplitz_ms_vectors),
	TEST_CASE(test_rss_reta),
};

TEST_MAIN("model-rss", cases)
