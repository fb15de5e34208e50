/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit statistics and transmit-only progress, in both device modes.
 *
 * Loss accounting: a known number of frames is lost in each way a frame can
 * be lost on Tx (the wire refuses it, the device finds a bad DMA address, the
 * burst function refuses it) and every ethdev statistic and xstat involved
 * must hold the exact value, each frame counted once. The refusing wire is
 * wire=if on the loopback interface of a network namespace of our own, where
 * it is down (send() fails with ENETDOWN); skipped when that namespace cannot
 * be made (not root).
 *
 * Progress: a transmit-only application (never calls Rx) on the loop wire
 * sends far more frames than the rings and the wire hold; every one leaves
 * the port and the ones nobody receives count as rx_missed.
 */
#include <sched.h>

#include "tally_dpdk_test.h"

#define LOSS_WIRE	40	/* frames the wire refuses */
#define LOSS_DMA	7	/* 3-segment frames with a bad first address */
#define LOSS_DMA_SEGS	3
#define LOSS_REJECT	3	/* 17-segment frames the burst refuses */
#define BAD_IOVA	0x7ff0000000000000ull
#define SETTLE_MS	3000

static bool own_netns;

struct ext_seg {
	struct rte_mbuf_ext_shared_info shinfo;
	char data[128];
};

static struct ext_seg ext_segs[LOSS_DMA];
static int ext_freed;

static void
ext_free_cb(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	(*(int *)opaque)++;
}

/* A 3-segment frame whose first segment claims an IOVA outside every DMA
 * region the driver registered. */
static struct rte_mbuf *
bad_dma_frame(unsigned int i)
{
	struct ext_seg *e = &ext_segs[i];
	struct rte_mbuf *head = rte_pktmbuf_alloc(tdt_pool);
	struct rte_mbuf *rest = tdt_mbuf_build(120, i, LOSS_DMA_SEGS - 1);

	if (head == NULL || rest == NULL)
		goto fail;
	memset(&e->shinfo, 0, sizeof(e->shinfo));
	e->shinfo.free_cb = ext_free_cb;
	e->shinfo.fcb_opaque = &ext_freed;
	rte_mbuf_ext_refcnt_set(&e->shinfo, 1);
	rte_pktmbuf_attach_extbuf(head, e->data, BAD_IOVA, sizeof(e->data),
				  &e->shinfo);
	if (rte_pktmbuf_append(head, 60) == NULL || rte_pktmbuf_chain(head, rest) != 0)
		goto fail;
	return head;
fail:
	rte_pktmbuf_free(head);
	rte_pktmbuf_free(rest);
	return NULL;
}

/* Let the device and the Tx burst run (no frame offered) until cond holds. */
#define SETTLE(port, cond) do {						\
	uint64_t end_ = rte_get_timer_cycles() +				\
			rte_get_timer_hz() * SETTLE_MS / 1000;		\
	while (!(cond) && rte_get_timer_cycles() < end_)		\
		rte_eth_tx_burst((port), 0, NULL, 0);			\
} while (0)

static int
loss_send(int port)
{
	struct rte_mbuf *m[LOSS_WIRE];
	unsigned int i, sent;

	for (i = 0; i < LOSS_WIRE; i++) {
		m[i] = tdt_mbuf_build(100 + i, i, 1 + i % 2);
		TEST_ASSERT(m[i] != NULL, "alloc");
	}
	sent = tdt_tx_all(port, 0, m, LOSS_WIRE);
	TEST_ASSERT_EQ(sent, LOSS_WIRE, "the burst takes frames the wire will refuse");
	for (i = 0; i < LOSS_DMA; i++) {
		m[i] = bad_dma_frame(i);
		TEST_ASSERT(m[i] != NULL, "alloc");
	}
	TEST_ASSERT_EQ(tdt_tx_all(port, 0, m, LOSS_DMA), LOSS_DMA, "");
	for (i = 0; i < LOSS_REJECT; i++) {
		m[0] = tdt_mbuf_build(17 * 64, i, 17);
		TEST_ASSERT(m[0] != NULL, "alloc");
		TEST_ASSERT_EQ(rte_eth_tx_burst(port, 0, m, 1), 0, "17 segments refused");
		rte_pktmbuf_free(m[0]);
	}
	return TEST_SUCCESS;
}

static int
loss_check(int port, const char *mode)
{
	const uint64_t lost = LOSS_WIRE + LOSS_DMA + LOSS_REJECT;
	struct rte_eth_stats st;

	SETTLE(port, ext_freed == LOSS_DMA &&
		     tdt_xstat(port, "tx_wire_drop") == LOSS_WIRE);
	TEST_ASSERT_EQ(ext_freed, LOSS_DMA, "%s: bad-DMA frames completed and freed", mode);
	TEST_ASSERT_EQ(rte_eth_stats_get(port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.opackets, 0, "%s", mode);
	TEST_ASSERT_U64_EQ(st.obytes, 0, "%s", mode);
	TEST_ASSERT_U64_EQ(st.oerrors, lost, "%s: each lost frame once", mode);
	TEST_ASSERT_U64_EQ(st.q_opackets[0], 0, "%s", mode);
	TEST_ASSERT_U64_EQ(st.ipackets + st.imissed + st.ierrors, 0, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_errors"), lost, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_packets"), 0, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_wire_drop"), LOSS_WIRE, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_q0_drops"), LOSS_WIRE, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_desc_errors"),
			   LOSS_DMA * LOSS_DMA_SEGS, "%s: descriptors, not frames", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_q0_errors"), LOSS_DMA + LOSS_REJECT,
			   "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_rejected"), LOSS_REJECT, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "dma_faults"), LOSS_DMA, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "desc_faults"), 0, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "dev_faults"), LOSS_DMA, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_q0_packets"), 0, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_q1_drops") + tdt_xstat(port, "tx_q1_errors"),
			   0, "%s", mode);
	TEST_ASSERT_U64_EQ(st.oerrors, tdt_xstat(port, "tx_q0_errors") +
				       tdt_xstat(port, "tx_q0_drops") +
				       tdt_xstat(port, "tx_q1_errors") +
				       tdt_xstat(port, "tx_q1_drops"),
			   "%s: oerrors is the sum of the queues' losses", mode);
	return TEST_SUCCESS;
}

static int
tx_loss(const char *mode)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 2, .scatter = true };
	unsigned int in_use;
	char name[32], args[64];
	int port, rc;

	if (!own_netns)
		return TEST_SKIPPED;
	snprintf(args, sizeof(args), "wire=if,iface=lo,mode=%s", mode);
	port = tdt_port_create(args, name, sizeof(name));
	TEST_ASSERT(port >= 0, "%s: probe: %d", mode, port);
	rc = tdt_port_setup(port, &pc);
	if (rc != 0)
		goto out;
	ext_freed = 0;
	in_use = rte_mempool_in_use_count(tdt_pool);
	rc = loss_send(port);
	if (rc == TEST_SUCCESS)
		rc = loss_check(port, mode);
	if (rc != TEST_SUCCESS)
		goto out;
	rc = TEST_FAILED;
	TEST_ASSERT_EQ(rte_mempool_in_use_count(tdt_pool), in_use, "%s: no mbuf kept", mode);
	/* after a reset, the same accounting from zero */
	TEST_ASSERT_EQ(rte_eth_stats_reset(port), 0, "");
	ext_freed = 0;
	rc = loss_send(port);
	if (rc == TEST_SUCCESS)
		rc = loss_check(port, mode);
out:
	tdt_port_destroy(port, name);
	return rc;
}

static int test_loss_inline(void) { return tx_loss("inline"); }
static int test_loss_thread(void) { return tx_loss("thread"); }

/* Transmit only, never receive: per txq `per_q` frames of 64 bytes. */
static int
tx_only(const char *mode, uint16_t nb_txq, unsigned int per_q)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = nb_txq };
	unsigned int sent[TDT_MAX_Q] = { 0 }, zero_calls = 0, done = 0, q;
	uint64_t total = (uint64_t)per_q * nb_txq, end;
	struct rte_eth_stats st;
	char name[32], args[64], xs[32];
	int port, rc;

	snprintf(args, sizeof(args), "mode=%s", mode);
	port = tdt_port_create(args, name, sizeof(name));
	TEST_ASSERT(port >= 0, "%s: probe: %d", mode, port);
	rc = tdt_port_setup(port, &pc);
	if (rc != 0)
		goto out;
	rc = TEST_FAILED;
	end = rte_get_timer_cycles() + rte_get_timer_hz() * 60;
	while (done < nb_txq && rte_get_timer_cycles() < end) {
		for (q = 0; q < nb_txq; q++) {
			struct rte_mbuf *b[32];
			unsigned int n = RTE_MIN(32u, per_q - sent[q]), k;

			if (n == 0)
				continue;
			for (k = 0; k < n; k++) {
				b[k] = tdt_mbuf_build(64, sent[q] + k, 1);
				TEST_ASSERT(b[k] != NULL, "alloc");
			}
			k = rte_eth_tx_burst(port, q, b, (uint16_t)n);
			zero_calls += k == 0;
			tdt_free_all(b + k, n - k);
			sent[q] += k;
			done += sent[q] == per_q && k > 0;
		}
	}
	for (q = 0; q < nb_txq; q++)
		TEST_ASSERT_EQ(sent[q], per_q, "%s: txq %u stalled", mode, q);
	/* an in-process inline device runs inside the burst; a device
	 * process runs beside it, so a full ring may wait for it */
	if (strcmp(mode, "inline") == 0 && tdt_nic_path() == NULL)
		TEST_ASSERT_EQ(zero_calls, 0, "inline: every burst makes room");
	SETTLE(port, rte_eth_stats_get(port, &st) == 0 &&
		     st.opackets == total && st.ipackets + st.imissed == total);
	TEST_ASSERT_EQ(rte_eth_stats_get(port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.opackets, total, "%s", mode);
	TEST_ASSERT_U64_EQ(st.obytes, total * 64, "%s", mode);
	TEST_ASSERT_U64_EQ(st.oerrors, 0, "%s", mode);
	/* nobody receives: the Rx ring fills once, the rest is missed */
	TEST_ASSERT_U64_EQ(st.ipackets, TDT_NB_DESC, "%s", mode);
	TEST_ASSERT_U64_EQ(st.imissed, total - TDT_NB_DESC, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_wire_drop"), 0, "%s", mode);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_desc_errors"), 0, "%s", mode);
	for (q = 0; q < nb_txq; q++) {
		snprintf(xs, sizeof(xs), "tx_q%u_packets", q);
		TEST_ASSERT_U64_EQ(tdt_xstat(port, xs), per_q, "%s", mode);
	}
	rc = TEST_SUCCESS;
out:
	tdt_port_destroy(port, name);
	return rc;
}

static int test_txonly_inline(void) { return tx_only("inline", 1, 20000); }
static int test_txonly_thread(void) { return tx_only("thread", 1, 20000); }
static int test_txonly_4q_inline(void) { return tx_only("inline", 4, 5000); }
static int test_txonly_4q_thread(void) { return tx_only("thread", 4, 5000); }

static const struct tally_test_case cases[] = {
	TEST_CASE(test_loss_inline),
	TEST_CASE(test_loss_thread),
	TEST_CASE(test_txonly_inline),
	TEST_CASE(test_txonly_thread),
	TEST_CASE(test_txonly_4q_inline),
	TEST_CASE(test_txonly_4q_thread),
};

int
main(void)
{
	int rc;

	/* a namespace of our own: its lo is down, and nothing else sees it */
	own_netns = unshare(CLONE_NEWNET) == 0;
	tdt_eal_init("tally-txstats");
	rc = tally_test_run("dpdk-tx-stats", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
