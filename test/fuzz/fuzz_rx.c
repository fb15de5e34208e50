/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the driver's burst functions fed by a hostile device.
 *
 * EAL starts once (no huge pages, no shared files) with two in-process
 * ports on wire=none (nothing arrives by itself): port 0 receives without
 * scatter, port 1 with it; each has one Rx and one Tx queue of 32
 * descriptors. The input is a list of 8-byte operations, the fuzzer playing
 * the device: write an Rx completion into any slot ahead of the driver
 * (any length, flags, packet type, error, with the phase the driver expects
 * there or the other one), call the Rx burst for up to 32 frames, transmit
 * frames of 1 to 3 segments, write a Tx completion into any slot (any
 * status, either phase). After every operation the frames the Rx burst
 * returned are checked and freed; after the input both queues of both
 * ports are stopped and started again, so every input starts from the same
 * state.
 *
 * Checked besides ASan/UBSan (abort on violation): every mbuf the Rx burst
 * returns passes rte_mbuf_check(), each segment's bytes lie within its
 * buffer, a frame has at most the queue's max_segs segments (one without
 * scatter) and at most max_pkt bytes; after the queues are stopped every
 * mbuf is back in the pool (none lost, none freed twice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rte_pmd_tally.h"
#include "tally_pmd.h"

#define FR_PORTS	2
#define FR_DESC		32
#define FR_BURST	32
#define FR_NB_MBUF	1024

static struct rte_mempool *fr_pool;
static uint16_t fr_port[FR_PORTS];
void *fr_keep;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fr_die(const char *what)
{
	fprintf(stderr, "fuzz_rx: %s\n", what);
	abort();
}

static void
fr_port_setup(uint16_t port, bool scatter)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	if (scatter)
		conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, FR_DESC, rte_socket_id(), NULL, fr_pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, FR_DESC, rte_socket_id(), NULL) != 0 ||
	    rte_eth_dev_start(port) != 0)
		fr_die("port set-up");
}

/* At exit: ports closed, EAL's memory released (the leak check runs after). */
static void
fr_fini(void)
{
	unsigned int p;

	for (p = 0; p < FR_PORTS; p++) {
		(void)rte_eth_dev_stop(fr_port[p]);
		(void)rte_eth_dev_close(fr_port[p]);
	}
	rte_mempool_free(fr_pool);
	(void)rte_eal_cleanup();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = {
		"fuzz_rx", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level", "1", "-l", "0", "--file-prefix", prefix,
		"--vdev", "net_tally0,wire=none,rxq=1,txq=1,counters=64,comp_counters=64",
		"--vdev", "net_tally1,wire=none,rxq=1,txq=1,counters=64,comp_counters=64",
	};
	unsigned int i;

	(void)argc;
	(void)argv;
	/* a use of the PMD, so the link keeps it (its vdev driver registers
	 * when it loads) */
	fr_keep = (void *)(uintptr_t)rte_pmd_tally_model_step;
	snprintf(prefix, sizeof(prefix), "fuzz-rx-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0)
		fr_die("EAL init");
	fr_pool = rte_pktmbuf_pool_create("fuzz_rx", FR_NB_MBUF, 0, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (fr_pool == NULL)
		fr_die("mbuf pool");
	for (i = 0; i < FR_PORTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "net_tally%u", i);
		if (rte_eth_dev_get_port_by_name(name, &fr_port[i]) != 0)
			fr_die("port");
		fr_port_setup(fr_port[i], i == 1);
	}
	atexit(fr_fini);
	return 0;
}

static struct tally_rxq *
fr_rxq(unsigned int p)
{
	return rte_eth_devices[fr_port[p]].data->rx_queues[0];
}

static struct tally_txq *
fr_txq(unsigned int p)
{
	return rte_eth_devices[fr_port[p]].data->tx_queues[0];
}

/* The phase the driver expects in the slot j places after its consumer
 * index: flipped once per lap. */
static uint8_t
fr_phase(uint32_t cons, uint8_t phase, uint32_t mask, uint32_t j)
{
	return phase ^ ((((cons & mask) + j) / (mask + 1)) & 1);
}

static void
fr_check(const struct tally_rxq *q, struct rte_mbuf *m)
{
	const struct rte_mbuf *s;
	const char *reason = NULL;
	uint32_t sum = 0;

	if (rte_mbuf_check(m, 1, &reason) != 0)
		fr_die(reason);
	if (m->nb_segs > q->max_segs || m->pkt_len > q->max_pkt)
		fr_die("frame over the queue's limits");
	for (s = m; s != NULL; s = s->next) {
		if (s->data_len == 0 || (uint32_t)s->data_off + s->data_len > s->buf_len)
			fr_die("segment outside its buffer");
		sum += s->data_len;
	}
	if (sum != m->pkt_len)
		fr_die("pkt_len is not the sum of the segments");
	rte_pktmbuf_free(m);
}

static void
fr_rx(unsigned int p, uint16_t n)
{
	struct rte_mbuf *b[FR_BURST];
	uint16_t got, k;

	got = rte_eth_rx_burst(fr_port[p], 0, b, n);
	if (got > n)
		fr_die("more frames than asked for");
	for (k = 0; k < got; k++)
		fr_check(fr_rxq(p), b[k]);
}

static void
fr_tx(unsigned int p, unsigned int nf, unsigned int nseg, uint16_t len)
{
	struct rte_mbuf *b[8];
	unsigned int i, s;
	uint16_t sent;

	for (i = 0; i < nf; i++) {
		b[i] = NULL;
		for (s = 0; s < nseg; s++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(fr_pool);

			if (m == NULL || rte_pktmbuf_append(m, len) == NULL ||
			    (b[i] != NULL && rte_pktmbuf_chain(b[i], m) != 0)) {
				rte_pktmbuf_free(m);
				break;
			}
			if (b[i] == NULL)
				b[i] = m;
		}
		if (b[i] == NULL)
			break;
	}
	sent = rte_eth_tx_burst(fr_port[p], 0, b, (uint16_t)i);
	for (; sent < i; sent++)
		rte_pktmbuf_free(b[sent]);
}

static void
fr_rx_cqe(unsigned int p, const uint8_t *o)
{
	struct tally_rxq *q = fr_rxq(p);
	uint32_t j = o[1] % (q->mask + 1);
	struct tally_rx_cqe *c = &q->cq[(q->cons + j) & q->mask];
	uint8_t ph = fr_phase(q->cons, q->phase, q->mask, j);

	c->len = (uint16_t)(o[2] | o[3] << 8);
	c->flags = (uint16_t)(o[4] | o[5] << 8);
	c->ptype = o[6];
	c->err = o[7] >> 1;
	c->mark = o[2] * 0x01010101u;
	c->rss_hash = o[3] * 0x01010101u;
	__atomic_store_n(&c->phase, (o[7] & 1) ? ph : (uint8_t)(ph ^ 1), __ATOMIC_RELEASE);
}

static void
fr_tx_cqe(unsigned int p, const uint8_t *o)
{
	struct tally_txq *q = fr_txq(p);
	uint32_t j = o[1] % (q->mask + 1);
	struct tally_tx_cqe *c = &q->cq[(q->cons + j) & q->mask];
	uint8_t ph = fr_phase(q->cons, q->phase, q->mask, j);

	c->len = (uint16_t)(o[3] | o[4] << 8);
	c->status = o[2];
	__atomic_store_n(&c->phase, (o[5] & 1) ? ph : (uint8_t)(ph ^ 1), __ATOMIC_RELEASE);
}

static void
fr_reset(void)
{
	unsigned int p;

	for (p = 0; p < FR_PORTS; p++) {
		if (rte_eth_dev_rx_queue_stop(fr_port[p], 0) != 0 ||
		    rte_eth_dev_tx_queue_stop(fr_port[p], 0) != 0)
			fr_die("queue stop");
	}
	if (rte_mempool_in_use_count(fr_pool) != 0) {
		fprintf(stderr, "fuzz_rx: %u mbufs not back in the pool\n",
			rte_mempool_in_use_count(fr_pool));
		abort();
	}
	for (p = 0; p < FR_PORTS; p++) {
		if (rte_eth_dev_rx_queue_start(fr_port[p], 0) != 0 ||
		    rte_eth_dev_tx_queue_start(fr_port[p], 0) != 0)
			fr_die("queue start");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off;

	for (off = 0; off + 8 <= size; off += 8) {
		const uint8_t *o = data + off;
		unsigned int p = (o[0] >> 2) & 1;

		switch (o[0] & 3) {
		case 0:
			fr_rx_cqe(p, o);
			break;
		case 1:
			fr_rx(p, (uint16_t)(o[1] % (FR_BURST + 1)));
			break;
		case 2:
			fr_tx(p, o[1] % 8u, 1 + o[2] % 3u,
			      (uint16_t)(1 + (o[3] | o[4] << 8) % 2048));
			break;
		default:
			fr_tx_cqe(p, o);
			break;
		}
	}
	fr_rx(0, FR_BURST);
	fr_rx(1, FR_BURST);
	fr_reset();
	return 0;
}
