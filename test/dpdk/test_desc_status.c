/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_eth_rx/tx_descriptor_status on a loopback port: what a slot holds
 * before traffic, with frames sent, with frames delivered but not yet
 * received, after rx_burst took them,
 * on a stopped queue, and offsets outside the ring.
 */
#include "tally_dpdk_test.h"

#define NB_DESC	64
#define NB_PKTS	8

/* In-process inline model: the device runs only when stepped, so the
 * states in between are observable. A device process runs on its own. */
static bool
device_runs_alone(void)
{
	return tdt_nic_path() != NULL;
}

/* Let the device deliver until rx slot `offset` holds a completion. */
static int
wait_rx_done(uint16_t port, uint16_t offset)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (rte_eth_rx_descriptor_status(port, 0, offset) == RTE_ETH_RX_DESC_DONE)
			return 0;
		if (rte_pmd_tally_model_step(port) < 0 || device_runs_alone())
			rte_delay_us_sleep(1000);
	}
	return -ETIMEDOUT;
}

static int
test_desc_status(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .nb_desc = NB_DESC };
	struct rte_mbuf *tx[NB_PKTS], *rx[NB_PKTS * 2];
	char name[32];
	int port, i, st;
	unsigned int got;

	port = tdt_port_create("", name, sizeof(name));
	TEST_ASSERT(port >= 0, "port: %d", port);
	TEST_ASSERT_EQ(tdt_port_setup(port, &pc), 0, "");

	/* idle: every Rx slot posted, every Tx slot free */
	TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, 0), RTE_ETH_RX_DESC_AVAIL, "");
	TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, NB_DESC - 1),
		       RTE_ETH_RX_DESC_AVAIL, "");
	TEST_ASSERT_EQ(rte_eth_tx_descriptor_status(port, 0, 0), RTE_ETH_TX_DESC_DONE, "");
	TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, NB_DESC), -EINVAL, "");
	TEST_ASSERT_EQ(rte_eth_tx_descriptor_status(port, 0, NB_DESC), -EINVAL, "");
	TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 1, 0), -EINVAL, "no queue 1");
	TEST_ASSERT_EQ(rte_eth_tx_descriptor_status(port, 1, 0), -EINVAL, "no queue 1");

	/* NB_PKTS frames handed to the device: slots NB_DESC - NB_PKTS.. ahead
	 * of the Tx tail are the ones in flight */
	for (i = 0; i < NB_PKTS; i++) {
		tx[i] = tdt_mbuf_build(64, i, 1);
		TEST_ASSERT(tx[i] != NULL, "alloc");
	}
	TEST_ASSERT_EQ(rte_eth_tx_burst(port, 0, tx, NB_PKTS), NB_PKTS, "");
	TEST_ASSERT_EQ(rte_eth_tx_descriptor_status(port, 0, NB_DESC - NB_PKTS - 1),
		       RTE_ETH_TX_DESC_DONE, "free slot");
	/* the model may send at the doorbell already: FULL until it did */
	st = rte_eth_tx_descriptor_status(port, 0, NB_DESC - NB_PKTS);
	TEST_ASSERT(st == RTE_ETH_TX_DESC_FULL || st == RTE_ETH_TX_DESC_DONE, "%d", st);

	/* the loop wire brings them back: NB_PKTS completions wait in Rx */
	TEST_ASSERT_EQ(wait_rx_done(port, NB_PKTS - 1), 0, "frames not delivered");
	for (i = 0; i < NB_PKTS; i++)
		TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, i),
			       RTE_ETH_RX_DESC_DONE, "slot %d", i);
	TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, NB_PKTS),
		       RTE_ETH_RX_DESC_AVAIL, "");
	TEST_ASSERT_EQ(rte_eth_tx_descriptor_status(port, 0, NB_DESC - NB_PKTS),
		       RTE_ETH_TX_DESC_DONE, "sent");

	/* rx_burst takes them: the slots are posted again */
	got = 0;
	for (i = 0; i < 100 && got < NB_PKTS; i++)
		got += rte_eth_rx_burst(port, 0, rx + got, RTE_DIM(rx) - got);
	TEST_ASSERT_EQ(got, NB_PKTS, "");
	tdt_free_all(rx, got);
	TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, 0), RTE_ETH_RX_DESC_AVAIL, "");

	/* a stopped queue holds nothing the device may use */
	TEST_ASSERT_EQ(rte_eth_dev_rx_queue_stop(port, 0), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_tx_queue_stop(port, 0), 0, "");
	TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, 0), RTE_ETH_RX_DESC_UNAVAIL, "");
	TEST_ASSERT_EQ(rte_eth_tx_descriptor_status(port, 0, 0), RTE_ETH_TX_DESC_UNAVAIL, "");
	tdt_port_destroy(port, name);
	return TEST_SUCCESS;
}

/* Past one pass over the ring the expected completion phase flips. */
static int
test_desc_status_wrap(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .nb_desc = NB_DESC };
	struct rte_mbuf *tx[NB_PKTS], *rx[NB_PKTS * 2];
	unsigned int round, got;
	char name[32];
	int port, i;

	port = tdt_port_create("", name, sizeof(name));
	TEST_ASSERT(port >= 0, "port: %d", port);
	TEST_ASSERT_EQ(tdt_port_setup(port, &pc), 0, "");
	for (round = 0; round < 2 * NB_DESC / NB_PKTS + 1; round++) {
		for (i = 0; i < NB_PKTS; i++) {
			tx[i] = tdt_mbuf_build(64, i, 1);
			TEST_ASSERT(tx[i] != NULL, "alloc");
		}
		TEST_ASSERT_EQ(rte_eth_tx_burst(port, 0, tx, NB_PKTS), NB_PKTS, "");
		TEST_ASSERT_EQ(wait_rx_done(port, NB_PKTS - 1), 0, "round %u", round);
		TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, NB_PKTS),
			       RTE_ETH_RX_DESC_AVAIL, "round %u", round);
		got = 0;
		for (i = 0; i < 100 && got < NB_PKTS; i++)
			got += rte_eth_rx_burst(port, 0, rx + got, RTE_DIM(rx) - got);
		TEST_ASSERT_EQ(got, NB_PKTS, "round %u", round);
		tdt_free_all(rx, got);
		TEST_ASSERT_EQ(rte_eth_rx_descriptor_status(port, 0, 0),
			       RTE_ETH_RX_DESC_AVAIL, "round %u", round);
	}
	tdt_port_destroy(port, name);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_desc_status),
	TEST_CASE(test_desc_status_wrap),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-desc-status");
	rc = tally_test_run("dpdk-desc-status", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
