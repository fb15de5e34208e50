/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic over the loopback wire: exact packet and byte counts in stats and
 * xstats, byte-exact delivery, multi-segment Tx, Tx with mbuf fast free,
 * 9000-byte frames with and without Rx scatter, RSS over 8 queues, MTU
 * drop, frames sent and looped back by the Tx burst itself (inline), Rx
 * with the mbuf pool exhausted in the middle of a burst, a burst of frames
 * of mixed packet types.
 */
#include "tally_dpdk_test.h"

#define NB_PKTS	200

struct burst_port {
	char name[32];
	int port;
	uint16_t nb_rxq;
};

static int
bp_open(struct burst_port *bp, const char *devargs,
	const struct tdt_port_conf *pc)
{
	bp->port = tdt_port_create(devargs, bp->name, sizeof(bp->name));
	if (bp->port < 0)
		return bp->port;
	bp->nb_rxq = pc->nb_rxq;
	return tdt_port_setup(bp->port, pc);
}

static void
bp_close(struct burst_port *bp)
{
	if (bp->port >= 0)
		tdt_port_destroy(bp->port, bp->name);
}

static uint32_t
frame_len(uint32_t i)
{
	return 60 + (i * 37) % (1514 - 60 + 1);
}

/* One-segment frames [0, n) of frame_len(i) bytes into m[]. */
static int
frames_build(struct rte_mbuf **m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		m[i] = tdt_mbuf_build(frame_len(i), i, 1);
		TEST_ASSERT(m[i] != NULL, "alloc");
	}
	return TEST_SUCCESS;
}

/* m[] holds frames [0, n) of frame_len(i) bytes, in order; freed. */
static int
frames_check(struct rte_mbuf **m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		TEST_ASSERT_EQ(tdt_mbuf_check(m[i], frame_len(i), i), 0, "frame %u", i);
	tdt_free_all(m, n);
	return TEST_SUCCESS;
}

/* Send frames [0, n) with len(i) as nseg-segment chains; receive them all and
 * check bytes. Returns TEST_SUCCESS or TEST_FAILED. */
static int
xfer_check(struct burst_port *bp, unsigned int n, uint32_t (*len)(uint32_t),
	   unsigned int nseg, uint64_t *bytes)
{
	static struct rte_mbuf *tx[NB_PKTS], *rx[NB_PKTS];
	unsigned int i, sent, got;

	*bytes = 0;
	for (i = 0; i < n; i++) {
		tx[i] = tdt_mbuf_build(len(i), i, nseg);
		TEST_ASSERT(tx[i] != NULL, "alloc");
		TEST_ASSERT_EQ(tx[i]->nb_segs, nseg, "");
		*bytes += len(i);
	}
	sent = 0;
	got = 0;
	/* interleave so the loop wire never holds more than a burst or two */
	while (sent < n) {
		unsigned int k = tdt_tx_all(bp->port, 0, tx + sent,
					    RTE_MIN(n - sent, 32u));

		TEST_ASSERT(k > 0, "tx stalled at %u", sent);
		sent += k;
		got += tdt_rx_all(bp->port, bp->nb_rxq, rx + got, NULL, n - got,
				  sent - got);
	}
	TEST_ASSERT_EQ(got, n, "received");
	for (i = 0; i < n; i++) {
		TEST_ASSERT_EQ(tdt_mbuf_check(rx[i], len(i), i), 0, "frame %u", i);
		TEST_ASSERT_EQ(rx[i]->port, bp->port, "");
	}
	tdt_free_all(rx, n);
	return TEST_SUCCESS;
}

static int
test_loop_counts(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct burst_port bp;
	struct rte_eth_stats st;
	uint64_t bytes;
	int rc;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	rc = xfer_check(&bp, NB_PKTS, frame_len, 1, &bytes);
	if (rc != TEST_SUCCESS)
		goto out;
	rc = TEST_FAILED;
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.opackets, NB_PKTS, "");
	TEST_ASSERT_U64_EQ(st.obytes, bytes, "");
	TEST_ASSERT_U64_EQ(st.ipackets, NB_PKTS, "");
	TEST_ASSERT_U64_EQ(st.ibytes, bytes, "");
	TEST_ASSERT_U64_EQ(st.ierrors + st.oerrors + st.imissed, 0, "");
	TEST_ASSERT_U64_EQ(st.q_ipackets[0], NB_PKTS, "");
	TEST_ASSERT_U64_EQ(st.q_obytes[0], bytes, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_q0_packets"), NB_PKTS, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_q0_bytes"), bytes, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_q0_packets"), NB_PKTS, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_q0_bytes"), bytes, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_packets"), NB_PKTS, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_bytes"), bytes, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_missed"), 0, "");
	/* reset is a software baseline: everything reads zero afterwards */
	TEST_ASSERT_EQ(rte_eth_stats_reset(bp.port), 0, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.ipackets + st.opackets + st.ibytes + st.obytes, 0, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_q0_packets"), 0, "");
	rc = xfer_check(&bp, 10, frame_len, 1, &bytes);
	if (rc != TEST_SUCCESS)
		goto out;
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_packets"), 10, "");
	TEST_ASSERT_EQ(rte_eth_xstats_reset(bp.port), 0, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_packets"), 0, "");
	rc = TEST_SUCCESS;
out:
	bp_close(&bp);
	return rc;
}

/* Every free mbuf of the pool is as the pool keeps them: next NULL, one
 * segment (Rx takes raw mbufs and relies on it). */
static int
pool_clean(void)
{
	static struct rte_mbuf *all[TDT_NB_MBUF];
	unsigned int n = 0, i, bad = 0;

	while (n < TDT_NB_MBUF && (all[n] = rte_mbuf_raw_alloc(tdt_pool)) != NULL)
		n++;
	for (i = 0; i < n; i++)
		if (all[i]->next != NULL || all[i]->nb_segs != 1)
			bad++;
	if (n != 0)
		rte_mempool_put_bulk(tdt_pool, (void **)all, n);
	TEST_ASSERT(n > 0, "pool empty");
	TEST_ASSERT_EQ(bad, 0, "%u of %u free mbufs not reset", bad, n);
	return TEST_SUCCESS;
}

static int
test_multiseg_tx(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct burst_port bp;
	struct rte_eth_stats st;
	uint64_t bytes;
	int rc;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	rc = xfer_check(&bp, 64, frame_len, 3, &bytes);
	if (rc == TEST_SUCCESS) {
		rte_eth_stats_get(bp.port, &st);
		if (st.obytes != bytes || st.ibytes != bytes)
			rc = TEST_FAILED;
	}
	/* the chains' segments went back to the pool reset, and frames received
	 * into those mbufs afterwards are single segments */
	if (rc == TEST_SUCCESS)
		rc = pool_clean();
	if (rc == TEST_SUCCESS)
		rc = xfer_check(&bp, NB_PKTS, frame_len, 1, &bytes);
	bp_close(&bp);
	return rc;
}

/*
 * RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE: the queue reports it, and over a ring
 * of 64 descriptors that wraps several times, one-segment frames and a few
 * 3-segment chains among them all arrive intact, and every mbuf goes back to
 * the pool once, reset (a chain's first segments through the general path).
 */
#define FF_ROUNDS	10
#define FF_FRAMES	20	/* one-segment frames a round */

static int
test_tx_fast_free(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .nb_desc = 64,
				    .fast_free = true };
	static struct rte_mbuf *tx[FF_FRAMES + 1], *rx[FF_FRAMES + 1];
	struct rte_eth_txq_info qi;
	unsigned int r, i, n, id = 0, avail;
	struct rte_eth_stats st;
	struct burst_port bp;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	TEST_ASSERT_EQ(rte_eth_tx_queue_info_get(bp.port, 0, &qi), 0, "");
	TEST_ASSERT(qi.conf.offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, "fast free on");
	avail = rte_mempool_avail_count(tdt_pool);
	for (r = 0; r < FF_ROUNDS; r++) {
		/* rounds 3 and 7 carry a chain in the middle */
		n = (r == 3 || r == 7) ? FF_FRAMES + 1 : FF_FRAMES;
		for (i = 0; i < n; i++) {
			tx[i] = tdt_mbuf_build(frame_len(id + i), id + i,
					       n > FF_FRAMES && i == FF_FRAMES / 2 ? 3 : 1);
			if (tx[i] == NULL)
				goto out;
		}
		if (tdt_tx_all(bp.port, 0, tx, n) != n ||
		    tdt_rx_all(bp.port, 1, rx, NULL, n, n) != n)
			goto out;
		for (i = 0; i < n; i++)
			if (tdt_mbuf_check(rx[i], frame_len(id + i), id + i) != 0) {
				printf("frame %u\n", id + i);
				goto out;
			}
		tdt_free_all(rx, n);
		id += n;
	}
	/* the last completions: a burst of nothing reclaims them */
	if (rte_eth_tx_burst(bp.port, 0, tx, 0) != 0)
		goto out;
	if (rte_eth_stats_get(bp.port, &st) != 0 || st.opackets != id ||
	    st.ipackets != id || st.oerrors != 0)
		goto out;
	if (rte_mempool_avail_count(tdt_pool) != avail) {
		printf("pool: %u mbufs, %u before\n", rte_mempool_avail_count(tdt_pool), avail);
		goto out;
	}
	rc = pool_clean();
out:
	bp_close(&bp);
	return rc;
}

static uint32_t
jumbo_len(uint32_t i)
{
	return 9000 - (i % 3);
}

static int
test_jumbo_scatter(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mtu = 9000,
				    .scatter = true };
	struct burst_port bp;
	struct rte_mbuf *m, *rx[4];
	uint64_t bytes;
	unsigned int n;
	int rc;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	rc = xfer_check(&bp, 16, jumbo_len, 5, &bytes);
	if (rc != TEST_SUCCESS)
		goto out;
	rc = TEST_FAILED;
	/* one more to look at the chain */
	m = tdt_mbuf_build(9000, 7, 5);
	TEST_ASSERT(m != NULL, "");
	TEST_ASSERT_EQ(tdt_tx_all(bp.port, 0, &m, 1), 1, "");
	n = tdt_rx_all(bp.port, 1, rx, NULL, 4, 1);
	TEST_ASSERT_EQ(n, 1, "");
	TEST_ASSERT(rx[0]->nb_segs >= 9000 / (RTE_MBUF_DEFAULT_DATAROOM) + 1,
		    "nb_segs %u", rx[0]->nb_segs);
	TEST_ASSERT_EQ(rx[0]->pkt_len, 9000, "");
	TEST_ASSERT_EQ(rte_pktmbuf_pkt_len(rx[0]), 9000, "");
	TEST_ASSERT_EQ(tdt_mbuf_check(rx[0], 9000, 7), 0, "");
	rte_pktmbuf_free(rx[0]);
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_err_oversize"), 0, "");
	rc = TEST_SUCCESS;
out:
	bp_close(&bp);
	return rc;
}

static int
test_jumbo_no_scatter(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mtu = 9000 };
	struct burst_port bp;
	struct rte_mbuf *m, *rx[4];
	uint64_t bytes;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	m = tdt_mbuf_build(9000, 1, 5);
	TEST_ASSERT(m != NULL, "");
	TEST_ASSERT_EQ(tdt_tx_all(bp.port, 0, &m, 1), 1, "");
	TEST_ASSERT_EQ(tdt_rx_all(bp.port, 1, rx, NULL, 4, 1), 0, "delivered");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_err_oversize"), 1, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_packets"), 1, "");
	/* the port keeps running */
	rc = xfer_check(&bp, 8, frame_len, 1, &bytes);
	bp_close(&bp);
	return rc;
}

static int
test_rss_8q(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 8, .nb_txq = 1, .rss = true };
	static struct rte_mbuf *tx[256], *rx[256];
	static uint16_t qs[256];
	unsigned int per_q[8] = { 0 }, i, got = 0, sent = 0, used = 0;
	struct burst_port bp;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	for (i = 0; i < 256; i++) {
		tx[i] = tdt_mbuf_build(128, i, 1);
		TEST_ASSERT(tx[i] != NULL, "");
	}
	while (sent < 256) {
		sent += tdt_tx_all(bp.port, 0, tx + sent, 32);
		got += tdt_rx_all(bp.port, 8, rx + got, qs + got, 256 - got,
				  sent - got);
	}
	TEST_ASSERT_EQ(got, 256, "");
	for (i = 0; i < got; i++) {
		per_q[qs[i]]++;
		TEST_ASSERT(rx[i]->ol_flags & RTE_MBUF_F_RX_RSS_HASH, "no hash");
		TEST_ASSERT(RTE_ETH_IS_IPV4_HDR(rx[i]->packet_type), "ptype 0x%x",
			    rx[i]->packet_type);
		TEST_ASSERT((rx[i]->packet_type & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_UDP,
			    "ptype 0x%x", rx[i]->packet_type);
	}
	for (i = 0; i < 8; i++) {
		TEST_ASSERT_U64_EQ(tdt_xstat(bp.port,
			(const char *[]){ "rx_q0_packets", "rx_q1_packets",
					  "rx_q2_packets", "rx_q3_packets",
					  "rx_q4_packets", "rx_q5_packets",
					  "rx_q6_packets", "rx_q7_packets" }[i]),
			per_q[i], "queue %u", i);
		used += per_q[i] > 0;
	}
	printf("  rss spread:");
	for (i = 0; i < 8; i++)
		printf(" %u", per_q[i]);
	printf("\n");
	TEST_ASSERT_EQ(used, 8, "RSS used %u of 8 queues", used);
	tdt_free_all(rx, got);
	rc = TEST_SUCCESS;
	bp_close(&bp);
	return rc;
}

static int
test_mtu_drop(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct burst_port bp;
	struct rte_mbuf *m, *rx[4];
	struct rte_eth_stats st;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	m = tdt_mbuf_build(1600, 3, 1);
	TEST_ASSERT_EQ(tdt_tx_all(bp.port, 0, &m, 1), 1, "");
	TEST_ASSERT_EQ(tdt_rx_all(bp.port, 1, rx, NULL, 4, 1), 0, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_err_oversize"), 1, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.ierrors, 1, "");
	TEST_ASSERT_U64_EQ(st.ipackets, 0, "");
	/* raise the MTU on the running port: now it passes */
	TEST_ASSERT_EQ(rte_eth_dev_set_mtu(bp.port, 1600), 0, "");
	m = tdt_mbuf_build(1600, 3, 1);
	TEST_ASSERT_EQ(tdt_tx_all(bp.port, 0, &m, 1), 1, "");
	TEST_ASSERT_EQ(tdt_rx_all(bp.port, 1, rx, NULL, 4, 1), 1, "");
	TEST_ASSERT_EQ(tdt_mbuf_check(rx[0], 1600, 3), 0, "");
	rte_pktmbuf_free(rx[0]);
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_err_oversize"), 1, "");
	bp_close(&bp);
	return TEST_SUCCESS;
}

static int
test_tx_reject(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mtu = 9000,
				    .scatter = true };
	struct burst_port bp;
	struct rte_mbuf *m[2], *m4[4], *r4[2];
	struct rte_eth_stats st;
	uint64_t bytes;
	int rc;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	/* 17 segments: refused, the burst stops there */
	m[0] = tdt_mbuf_build(17 * 64, 1, 17);
	m[1] = tdt_mbuf_build(64, 2, 1);
	TEST_ASSERT(m[0] != NULL && m[1] != NULL, "");
	TEST_ASSERT_EQ(rte_eth_tx_burst(bp.port, 0, m, 2), 0, "");
	/* larger than the device max frame */
	rte_pktmbuf_free(m[0]);
	m[0] = tdt_mbuf_build(9300, 1, 5);
	TEST_ASSERT(m[0] != NULL, "");
	TEST_ASSERT_EQ(rte_eth_tx_burst(bp.port, 0, m, 2), 0, "");
	rte_pktmbuf_free(m[0]);
	TEST_ASSERT_EQ(rte_eth_tx_burst(bp.port, 0, &m[1], 1), 1, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.oerrors, 2, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_rejected"), 2, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_q0_errors"), 2, "");
	tdt_drain(bp.port, 1);
	/* one-segment frames ahead of a refused one go; the burst stops at it */
	m4[0] = tdt_mbuf_build(64, 3, 1);
	m4[1] = tdt_mbuf_build(1514, 4, 1);
	m4[2] = tdt_mbuf_build(17 * 64, 5, 17);
	m4[3] = tdt_mbuf_build(64, 6, 1);
	TEST_ASSERT(m4[0] != NULL && m4[1] != NULL && m4[2] != NULL && m4[3] != NULL, "");
	TEST_ASSERT_EQ(rte_eth_tx_burst(bp.port, 0, m4, 4), 2, "");
	rte_pktmbuf_free(m4[2]);
	rte_pktmbuf_free(m4[3]);
	TEST_ASSERT_EQ(tdt_rx_all(bp.port, 1, r4, NULL, 2, 2), 2, "");
	rc = tdt_mbuf_check(r4[0], 64, 3) | tdt_mbuf_check(r4[1], 1514, 4);
	tdt_free_all(r4, 2);
	TEST_ASSERT_EQ(rc, 0, "both frames, in order");
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.opackets, 3, "");
	TEST_ASSERT_U64_EQ(st.obytes, 64 + 64 + 1514, "");
	TEST_ASSERT_U64_EQ(st.oerrors, 3, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "tx_rejected"), 3, "");
	tdt_drain(bp.port, 1);
	rc = xfer_check(&bp, 4, frame_len, 1, &bytes);
	bp_close(&bp);
	return rc;
}

/*
 * Inline mode, in-process device: the Tx burst ends with its own device
 * step, which sends the frames and on the loop wire hands them to the Rx
 * ring straight from the Tx mbufs. Once their completions let reclaim free
 * the mbufs, the test takes them from the pool again and overwrites them:
 * the received frames keep their bytes.
 */
static int
test_tx_burst_delivers(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	static struct rte_mbuf *tx[40], *rx[40], *junk[256];
	struct burst_port bp;
	struct rte_eth_stats st;
	unsigned int got, nj;

	/* a device process runs on its own: what is done when the burst
	 * returns depends on its timing */
	if (tdt_nic_path() != NULL)
		return TEST_SKIPPED;
	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	TEST_ASSERT_EQ(frames_build(tx, 40), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(rte_eth_tx_burst(bp.port, 0, tx, 40), 40, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.opackets, 40, "sent by the time the burst returned");
	TEST_ASSERT_U64_EQ(st.ipackets, 40, "and on the Rx ring");
	TEST_ASSERT_EQ(rte_eth_tx_burst(bp.port, 0, tx, 0), 0, "reclaim");
	for (nj = 0; nj < RTE_DIM(junk); nj++) {
		junk[nj] = rte_pktmbuf_alloc(tdt_pool);
		if (junk[nj] == NULL)
			break;
		memset(rte_pktmbuf_mtod(junk[nj], void *), 0xee, 1514);
	}
	got = tdt_rx_all(bp.port, 1, rx, NULL, 40, 40);
	tdt_free_all(junk, nj);
	TEST_ASSERT_EQ(got, 40, "received");
	TEST_ASSERT_EQ(frames_check(rx, 40), TEST_SUCCESS, "");
	bp_close(&bp);
	return TEST_SUCCESS;
}

/*
 * One burst of frames of mixed types (IPv4/UDP, IPv4/TCP, ARP, 802.1Q
 * tagged IPv4/UDP, in runs of one and of several): every mbuf carries the
 * packet type of its own frame, its lengths, no offload flags, one segment.
 * The Rx burst takes a run of frames of one type on a short path and
 * starts again where the type changes.
 */
#define MIX_N	32

static int
test_rx_mixed_types(void)
{
	static const uint8_t kind[] = { 0, 0, 0, 1, 0, 2, 2, 3, 3, 1 };
	static const uint32_t want[] = {
		RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_UDP,
		RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_TCP,
		RTE_PTYPE_L2_ETHER,
		RTE_PTYPE_L2_ETHER_VLAN | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN | RTE_PTYPE_L4_UDP,
	};
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_mbuf *tx[MIX_N], *rx[MIX_N];
	uint32_t len[MIX_N];
	struct burst_port bp;
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	unsigned int i, k;

	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	for (i = 0; i < MIX_N; i++) {
		k = kind[i % RTE_DIM(kind)];
		tx[i] = tdt_mbuf_build(64 + i, i, 1);
		TEST_ASSERT(tx[i] != NULL, "alloc");
		eh = rte_pktmbuf_mtod(tx[i], struct rte_ether_hdr *);
		ip = (struct rte_ipv4_hdr *)(eh + 1);
		if (k == 1)
			ip->next_proto_id = IPPROTO_TCP;
		else if (k == 2)
			eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
		else if (k == 3) {
			tx[i]->vlan_tci = (uint16_t)(100 + i);
			TEST_ASSERT_EQ(rte_vlan_insert(&tx[i]), 0, "vlan insert");
		}
		len[i] = tx[i]->pkt_len;
	}
	TEST_ASSERT_EQ(tdt_tx_all(bp.port, 0, tx, MIX_N), MIX_N, "");
	TEST_ASSERT_EQ(tdt_rx_all(bp.port, 1, rx, NULL, MIX_N, MIX_N), MIX_N, "");
	for (i = 0; i < MIX_N; i++) {
		k = kind[i % RTE_DIM(kind)];
		TEST_ASSERT_EQ(rx[i]->packet_type, want[k], "frame %u (kind %u): ptype 0x%x",
			       i, k, rx[i]->packet_type);
		TEST_ASSERT_EQ(rx[i]->pkt_len, len[i], "frame %u", i);
		TEST_ASSERT_EQ(rx[i]->data_len, len[i], "frame %u", i);
		TEST_ASSERT_EQ(rx[i]->nb_segs, 1, "frame %u", i);
		TEST_ASSERT(rx[i]->next == NULL, "frame %u", i);
		TEST_ASSERT_EQ(rx[i]->ol_flags, 0, "frame %u: ol_flags 0x%" PRIx64, i,
			       rx[i]->ol_flags);
		TEST_ASSERT_EQ(rx[i]->port, bp.port, "frame %u", i);
		TEST_ASSERT_EQ(rx[i]->data_off, RTE_PKTMBUF_HEADROOM, "frame %u", i);
		/* the frame's length in its IPv4 header: the bytes are its own */
		eh = rte_pktmbuf_mtod(rx[i], struct rte_ether_hdr *);
		if (k != 3)
			TEST_ASSERT_EQ(rte_be_to_cpu_16(((struct rte_ipv4_hdr *)(eh + 1))->total_length),
				       64 + i - sizeof(*eh), "frame %u", i);
	}
	tdt_free_all(rx, MIX_N);
	bp_close(&bp);
	return TEST_SUCCESS;
}

/* A queue polled empty for long (it backs off: tally_rxtx.c) receives on
 * its next poll what was sent meanwhile, and its first poll after that
 * finds the next frames at once: every poll still steps the device. */
static int
test_rx_after_idle(void)
{
	/* idle stretches around the back-off threshold and past it */
	static const unsigned int idle[] = { 1000, 1001, 63, 64, 65, 66, 200, 201 };
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	static struct rte_mbuf *tx[8], *rx[8];
	struct burst_port bp;
	unsigned int i, round;

	if (tdt_nic_path() != NULL)
		return TEST_SKIPPED;	/* the device process delivers on its own time */
	TEST_ASSERT_EQ(bp_open(&bp, "", &pc), 0, "");
	for (round = 0; round < RTE_DIM(idle); round++) {
		for (i = 0; i < idle[round]; i++)
			TEST_ASSERT_EQ(rte_eth_rx_burst(bp.port, 0, rx, 8), 0, "idle poll %u", i);
		TEST_ASSERT_EQ(frames_build(tx, 8), TEST_SUCCESS, "");
		TEST_ASSERT_EQ(rte_eth_tx_burst(bp.port, 0, tx, 8), 8, "");
		TEST_ASSERT_EQ(rte_eth_rx_burst(bp.port, 0, rx, 8), 8,
			       "round %u: all on the first poll after the idle ones", round);
		TEST_ASSERT_EQ(frames_check(rx, 8), TEST_SUCCESS, "round %u", round);
	}
	bp_close(&bp);
	return TEST_SUCCESS;
}

static int
test_thread_mode(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 2, .nb_txq = 2 };
	struct burst_port bp;
	struct rte_eth_stats st;
	uint64_t bytes;
	int rc;

	TEST_ASSERT_EQ(bp_open(&bp, "mode=thread,rxq=2,txq=2", &pc), 0, "");
	rc = xfer_check(&bp, NB_PKTS, frame_len, 2, &bytes);
	if (rc == TEST_SUCCESS) {
		rte_eth_stats_get(bp.port, &st);
		if (st.ipackets != NB_PKTS || st.ibytes != bytes ||
		    st.opackets != NB_PKTS || st.obytes != bytes)
			rc = TEST_FAILED;
	}
	bp_close(&bp);
	return rc;
}

/*
 * Rx with the mbuf pool running dry in the middle of a burst: the burst
 * returns the frames it could refill slots for, each failure counts once in
 * rx_nombuf, the frames not taken stay in the ring (nothing lost, nothing
 * reordered) and no mbuf leaks: the pool is full again once the port closed.
 */
#define NOMBUF_DESC	64
#define NOMBUF_SPARE	10
#define NOMBUF_FRAMES	40

static int
test_rx_nombuf(void)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("nombuf_pool",
		NOMBUF_DESC + NOMBUF_SPARE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		(int)rte_socket_id());
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1,
				    .nb_desc = NOMBUF_DESC, .mp = mp };
	struct rte_mbuf *tx[NOMBUF_FRAMES], *rx[32];
	unsigned int i, got = 0, tries = 0;
	struct rte_eth_stats st;
	struct burst_port bp;
	uint16_t n, k;
	int rc = TEST_FAILED;

	TEST_ASSERT(mp != NULL, "pool");
	bp.port = -1;
	if (bp_open(&bp, "", &pc) != 0)
		goto out;
	/* the ring took NOMBUF_DESC mbufs */
	TEST_ASSERT_EQ(rte_mempool_avail_count(mp), NOMBUF_SPARE, "");
	for (i = 0; i < NOMBUF_FRAMES; i++) {
		tx[i] = tdt_mbuf_build(64 + i, i, 1);
		TEST_ASSERT(tx[i] != NULL, "");
	}
	TEST_ASSERT_EQ(tdt_tx_all(bp.port, 0, tx, NOMBUF_FRAMES), NOMBUF_FRAMES, "");
	/* all of them in the ring (a device process delivers on its own) */
	while (rte_eth_rx_descriptor_status(bp.port, 0, NOMBUF_FRAMES - 1) !=
	       RTE_ETH_RX_DESC_DONE && tries++ < 2000) {
		rte_pmd_tally_model_step(bp.port);
		rte_delay_us_sleep(1000);
	}
	TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(bp.port, 0, NOMBUF_FRAMES - 1),
		       RTE_ETH_RX_DESC_DONE, "");
	tries = 0;
	/* 32 completions ready, 10 mbufs: 10 frames, one failure */
	n = rte_eth_rx_burst(bp.port, 0, rx, 32);
	TEST_ASSERT_EQ(n, NOMBUF_SPARE, "");
	TEST_ASSERT_EQ(rte_mempool_avail_count(mp), 0, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.rx_nombuf, 1, "");
	/* nothing left in the pool: no frame, one more failure */
	TEST_ASSERT_EQ(rte_eth_rx_burst(bp.port, 0, rx + n, 32), 0, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.rx_nombuf, 2, "");
	for (k = 0; k < n; k++, got++) {
		TEST_ASSERT_EQ(tdt_mbuf_check(rx[k], 64 + got, got), 0, "frame %u", got);
		rte_pktmbuf_free(rx[k]);
	}
	/* the rest, in order, as mbufs come back */
	while (got < NOMBUF_FRAMES && tries++ < 1000) {
		n = rte_eth_rx_burst(bp.port, 0, rx, 32);
		TEST_ASSERT(n <= NOMBUF_SPARE, "%u frames from %u spare mbufs", n,
			    NOMBUF_SPARE);
		for (k = 0; k < n; k++, got++) {
			TEST_ASSERT_EQ(tdt_mbuf_check(rx[k], 64 + got, got), 0,
				       "frame %u", got);
			rte_pktmbuf_free(rx[k]);
		}
	}
	TEST_ASSERT_EQ(got, NOMBUF_FRAMES, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(bp.port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.ipackets, NOMBUF_FRAMES, "");
	TEST_ASSERT_U64_EQ(st.imissed + st.ierrors, 0, "");
	TEST_ASSERT(st.rx_nombuf >= 2, "rx_nombuf %" PRIu64, st.rx_nombuf);
	TEST_ASSERT_U64_EQ(tdt_xstat(bp.port, "rx_mbuf_allocation_errors"), st.rx_nombuf, "");
	TEST_ASSERT_EQ(rte_mempool_avail_count(mp), NOMBUF_SPARE, "");
	bp_close(&bp);
	bp.port = -1;
	/* no leak: every mbuf is back */
	TEST_ASSERT_EQ(rte_mempool_avail_count(mp), NOMBUF_DESC + NOMBUF_SPARE, "");
	rc = TEST_SUCCESS;
out:
	bp_close(&bp);
	rte_mempool_free(mp);
	return rc;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_loop_counts),
	TEST_CASE(test_multiseg_tx),
	TEST_CASE(test_tx_fast_free),
	TEST_CASE(test_jumbo_scatter),
	TEST_CASE(test_jumbo_no_scatter),
	TEST_CASE(test_rss_8q),
	TEST_CASE(test_mtu_drop),
	TEST_CASE(test_tx_reject),
	TEST_CASE(test_tx_burst_delivers),
	TEST_CASE(test_rx_after_idle),
	TEST_CASE(test_thread_mode),
	TEST_CASE(test_rx_nombuf),
	TEST_CASE(test_rx_mixed_types),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-burst");
	rc = tally_test_run("dpdk-burst", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
