/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's one-pass Rx burst (no classification, RSS or isolation: every
 * frame to the miss queue) against its general path. The general path runs
 * on the same traffic with CTRL_RSS set and RSS_HF 0: no frame then gets a
 * hash, every frame takes RETA entry 0 (queue 0, as the miss queue), so the
 * driver must see exactly the same statistics, completion counts, HEAD,
 * completions and frame bytes. The traffic mixes the common frames with
 * every way a frame can leave the short path: runts, oversize and truncated
 * frames, frames the MAC filter drops, frames larger than the buffer,
 * tagged, IPv6, ARP and VXLAN frames, a full ring, a descriptor outside the
 * translations, an empty descriptor and a buffer in a second translation.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tally_model_priv.h"
#include "tally_mt.h"
#include "tally_test.h"

#define RING_LOG2	6
#define BUF_LEN		1024
#define REGION1_LEN	(1u << 20)

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0 };
static const uint8_t other_mac[6] = { 0x02, 0, 0, 0, 0, 9 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mcast[6] = { 0x01, 0, 0x5e, 0, 0, 1 };

struct outcome {
	uint64_t stat[TALLY_STAT_NUM];
	uint64_t qstat[4];		/* rxq 0: pkts bytes drops errors */
	uint64_t cc[2];
	uint32_t q_head, nrx, nerr;
	uint64_t rx_hash;
};

static uint32_t
rnd(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

/* Frame i of a burst: mostly UDP to the port's MAC, else one of the kinds
 * that leave the short path. *caplen may come out shorter than the length. */
static uint32_t
make_frame(uint8_t *f, uint32_t *caplen, uint32_t *x)
{
	uint32_t r = rnd(x), len = 60 + rnd(x) % 400;
	const uint8_t *dst = own_mac;

	switch (r % 40) {
	case 0: dst = other_mac; break;			/* filtered unless promisc */
	case 1: dst = bcast; break;
	case 2: dst = mcast; break;			/* filtered without allmulti */
	case 3: len = 1 + rnd(x) % 13; break;		/* runt */
	case 4: len = 1519 + rnd(x) % 100; break;	/* over MTU + 18 */
	case 5: len = BUF_LEN + 1 + rnd(x) % 400; break;	/* over the buffer */
	default: break;
	}
	mt_udp_frame(f, len < 60 ? 60 : len, dst, r, r >> 3, (uint16_t)r, 53, r);
	switch (r % 40) {
	case 6:						/* TCP */
		f[23] = 6;
		break;
	case 7:						/* VLAN tag: typed by the parse */
		memmove(f + 16, f + 12, len - 16);
		f[12] = 0x81;
		f[13] = 0x00;
		f[14] = 0;
		f[15] = 5;
		break;
	case 8:						/* IPv6 */
		f[12] = 0x86;
		f[13] = 0xdd;
		f[14] = 0x60;
		f[20] = 17;
		break;
	case 9:						/* ARP */
		f[12] = 0x08;
		f[13] = 0x06;
		break;
	case 10:					/* VXLAN port */
		f[36] = 4789 >> 8;
		f[37] = 4789 & 0xff;
		break;
	case 11:					/* IPv4 fragment */
		f[20] = 0x20;
		break;
	case 12:					/* IPv4 options */
		f[14] = 0x46;
		break;
	case 13:					/* TCP, header cut short */
		f[23] = 6;
		len = 14 + 20 + 8 + rnd(x) % 12;
		break;
	default:
		break;
	}
	*caplen = len;
	if (r % 40 == 14)
		*caplen = len - 1 - rnd(x) % 10;	/* truncated capture */
	return len;
}

static void
drain(struct mt_rxq *rq, struct outcome *o, uint32_t max)
{
	static uint8_t r[MT_FRAME_MAX];
	struct mt_rx_info info;
	uint32_t k;
	int n;

	for (k = 0; k < max; k++) {
		n = mt_rxq_recv(rq, r, sizeof(r), &info);
		if (n == 0)
			break;
		o->nrx++;
		o->rx_hash = mt_fnv(o->rx_hash, &n, sizeof(n));
		o->rx_hash = mt_fnv(o->rx_hash, &info, sizeof(info));
		if (n > 0)
			o->rx_hash = mt_fnv(o->rx_hash, r, (size_t)n);
		else
			o->nerr++;
	}
}

static void
region1(struct mt_dev *d, uint8_t *base)
{
	uint64_t b = (uint64_t)(uintptr_t)base;

	(void)mt_map(d, b, b, REGION1_LEN);
}

/* The next posted descriptor (the one the device takes next) made bad. */
static void
spoil_next(struct mt_rxq *rq, uint32_t how, uint8_t *r1)
{
	struct tally_rx_desc *d = &rq->ring[rq->cons & (rq->size - 1)];

	if (rq->prod == rq->cons)
		return;
	if (how == 0)
		d->addr = 0x10;			/* outside every region */
	else if (how == 1)
		d->buf_len = 0;			/* empty */
	else
		d->addr = (uint64_t)(uintptr_t)(r1 + 4096);	/* the second translation */
}

static int
run(bool general, struct outcome *o)
{
	static uint8_t frames[TALLY_MODEL_BURST][2048];
	struct tally_model_rx_in in[TALLY_MODEL_BURST];
	struct mt_dev d;
	struct mt_rxq rq;
	uint32_t round, i, n, x = 777, ctrl;
	uint8_t *r1;

	memset(o, 0, sizeof(*o));
	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	r1 = mmap(NULL, REGION1_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	TEST_ASSERT(r1 != MAP_FAILED, "second translation");
	region1(&d, r1);
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, RING_LOG2, BUF_LEN, false), 0, "rxq");
	mt_wr(&d, TALLY_RXQ_REG(0, TALLY_Q_CCNT), TALLY_Q_CCNT_EN | 3);
	for (round = 0; round < 600; round++) {
		ctrl = general ? TALLY_CTRL_RSS : 0;
		if (rnd(&x) % 3 == 0)
			ctrl |= TALLY_CTRL_PROMISC;
		if (rnd(&x) % 5 == 0)
			ctrl |= TALLY_CTRL_ALLMULTI;
		mt_port(&d, ctrl);
		n = 1 + rnd(&x) % TALLY_MODEL_BURST;
		for (i = 0; i < n; i++) {
			in[i].frame = frames[i];
			in[i].len = make_frame(frames[i], &in[i].caplen, &x);
		}
		if (rnd(&x) % 8 == 0)
			spoil_next(&rq, rnd(&x) % 3, r1);
		tally_model_lock(d.m);
		tally_model_rx_burst(d.m, in, n);
		tally_model_unlock(d.m);
		drain(&rq, o, rnd(&x) % 80);	/* sometimes too few: misses */
	}
	drain(&rq, o, 1u << RING_LOG2);
	mt_stats(&d, o->stat);
	for (i = 0; i < 4; i++)
		o->qstat[i] = mt_rd64(&d, TALLY_RXQ_REG(0, TALLY_Q_STAT_PKTS + 8 * i));
	o->cc[0] = mt_rd64(&d, mt_rd(&d, TALLY_REG_CCNT_OFF) + 3 * 16);
	o->cc[1] = mt_rd64(&d, mt_rd(&d, TALLY_REG_CCNT_OFF) + 3 * 16 + 8);
	o->q_head = mt_rd(&d, TALLY_RXQ_REG(0, TALLY_Q_HEAD));
	mt_close(&d);
	munmap(r1, REGION1_LEN);
	return TEST_SUCCESS;
}

static int
test_same_as_general(void)
{
	static struct outcome a, b;
	uint32_t i;

	TEST_ASSERT_EQ(run(true, &a), TEST_SUCCESS, "general path");
	TEST_ASSERT_EQ(run(false, &b), TEST_SUCCESS, "one pass");
	i = mt_stats_diff(a.stat, b.stat);
	TEST_ASSERT(i == TALLY_STAT_NUM, "port stat %s: %llu, %llu", tally_port_stat_name(i),
		    (unsigned long long)b.stat[i], (unsigned long long)a.stat[i]);
	for (i = 0; i < 4; i++)
		TEST_ASSERT_U64_EQ(b.qstat[i], a.qstat[i], "queue stat %u", i);
	TEST_ASSERT_U64_EQ(b.cc[0], a.cc[0], "completions counted");
	TEST_ASSERT_U64_EQ(b.cc[1], a.cc[1], "errors counted");
	TEST_ASSERT_EQ(b.q_head, a.q_head, "HEAD");
	TEST_ASSERT_EQ(b.nrx, a.nrx, "frames received");
	TEST_ASSERT_EQ(b.nerr, a.nerr, "error completions");
	TEST_ASSERT_U64_EQ(b.rx_hash, a.rx_hash, "the same frames and completions, in order");
	/* the mix did what it is for */
	TEST_ASSERT(a.stat[TALLY_STAT_RX_PKTS] > 10000, "delivered: %llu",
		    (unsigned long long)a.stat[TALLY_STAT_RX_PKTS]);
	TEST_ASSERT(a.stat[TALLY_STAT_RX_MISSED] > 100, "misses: %llu",
		    (unsigned long long)a.stat[TALLY_STAT_RX_MISSED]);
	TEST_ASSERT(a.stat[TALLY_STAT_RX_FILTERED] > 100, "filtered: %llu",
		    (unsigned long long)a.stat[TALLY_STAT_RX_FILTERED]);
	TEST_ASSERT(a.stat[TALLY_STAT_RX_ERR_RUNT] > 50, "runts");
	TEST_ASSERT(a.stat[TALLY_STAT_RX_ERR_TRUNC] > 50, "truncated");
	TEST_ASSERT(a.stat[TALLY_STAT_RX_ERR_OVERSIZE] > 100, "oversize");
	TEST_ASSERT(a.nerr > 10, "error completions: %u", a.nerr);
	TEST_ASSERT(a.cc[1] > 10, "counted errors");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_same_as_general),
};

TEST_MAIN("model-rx_direct", cases)
