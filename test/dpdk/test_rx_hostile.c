/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rx against a faulty device (doc/security.md): the device is told to write
 * wrong completions (devarg bad_rx: a length of 65535 or 0, a "more
 * segments" flag that never clears) and the driver must refuse exactly
 * those, count each refused completion once by cause, deliver every other
 * frame intact, and never hand the application an mbuf that claims bytes
 * outside its buffer.
 *
 * Each case sends N frames of 64..263 bytes over the loop wire, one
 * descriptor each, receiving as it goes, then checks: every delivered mbuf
 * passes rte_mbuf_check(), each segment lies within its buffer, the frames
 * are the ones sent, in order, with the refused ones missing; delivered +
 * refused = N; the refused count is exactly what the devarg implies; it
 * shows in xstats rx_cqe_bad_len / rx_cqe_bad_chain, rx_q0_errors and
 * ierrors.
 */
#include "tally_dpdk_test.h"

#define HOSTILE_N	1000
#define HOSTILE_BURST	32

struct hostile_res {
	unsigned int delivered;
	unsigned int bad_frames;	/* delivered but not what was sent */
	unsigned int bad_mbufs;		/* fail rte_mbuf_check or overrun */
	uint64_t bad_len, bad_chain;
	uint64_t q_errors, ierrors;
};

static uint32_t
hostile_len(uint32_t i)
{
	return 64 + i % 200;
}

/* The mbuf claims nothing outside its buffers. */
static bool
hostile_mbuf_ok(const struct rte_mbuf *m)
{
	const struct rte_mbuf *s;
	const char *reason = NULL;
	uint32_t sum = 0;

	if (rte_mbuf_check(m, 1, &reason) != 0) {
		fprintf(stderr, "  mbuf check: %s\n", reason);
		return false;
	}
	for (s = m; s != NULL; s = s->next) {
		if ((uint32_t)s->data_off + s->data_len > s->buf_len || s->data_len == 0)
			return false;
		sum += s->data_len;
	}
	return sum == m->pkt_len;
}

/* Delivered frame m: the next expected one at or after *next (the refused
 * ones are missing). */
static bool
hostile_match(const struct rte_mbuf *m, uint32_t *next)
{
	uint32_t j;

	for (j = *next; j < HOSTILE_N && j < *next + 64; j++)
		if (tdt_mbuf_check(m, hostile_len(j), j) == 0) {
			*next = j + 1;
			return true;
		}
	return false;
}

static void
hostile_take(struct rte_mbuf **b, uint16_t n, uint32_t *next, struct hostile_res *r)
{
	uint16_t k;

	for (k = 0; k < n; k++) {
		r->delivered++;
		if (!hostile_mbuf_ok(b[k]))
			r->bad_mbufs++;
		else if (!hostile_match(b[k], next))
			r->bad_frames++;
		rte_pktmbuf_free(b[k]);
	}
}

static int
hostile_run(const char *devargs, bool scatter, struct hostile_res *r)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .scatter = scatter };
	struct rte_eth_stats st;
	char name[64];
	uint32_t sent = 0, next = 0;
	int port;

	memset(r, 0, sizeof(*r));
	port = tdt_port_create(devargs, name, sizeof(name));
	TEST_ASSERT(port >= 0, "port create (%s)", devargs);
	if (tdt_port_setup((uint16_t)port, &pc) != 0) {
		tdt_port_destroy((uint16_t)port, name);
		TEST_ASSERT(false, "port setup");
	}
	while (sent < HOSTILE_N) {
		struct rte_mbuf *tx[HOSTILE_BURST], *rx[HOSTILE_BURST];
		uint32_t n = RTE_MIN((uint32_t)HOSTILE_BURST, HOSTILE_N - sent), k;
		uint64_t end;

		for (k = 0; k < n; k++) {
			tx[k] = tdt_mbuf_build(hostile_len(sent + k), sent + k, 1);
			if (tx[k] == NULL)
				break;
		}
		k = tdt_tx_all((uint16_t)port, 0, tx, k);
		if (k < n) {
			tdt_free_all(tx + k, n - k);
			break;
		}
		sent += n;
		/* every completion of these ends up delivered or refused */
		end = rte_get_timer_cycles() + rte_get_timer_hz() * 2;
		do {
			uint16_t got = rte_eth_rx_burst((uint16_t)port, 0, rx, HOSTILE_BURST);

			hostile_take(rx, got, &next, r);
			r->bad_len = tdt_xstat((uint16_t)port, "rx_cqe_bad_len");
			r->bad_chain = tdt_xstat((uint16_t)port, "rx_cqe_bad_chain");
		} while (r->delivered + r->bad_len + r->bad_chain < sent &&
			 rte_get_timer_cycles() < end);
	}
	r->q_errors = tdt_xstat((uint16_t)port, "rx_q0_errors");
	r->ierrors = rte_eth_stats_get((uint16_t)port, &st) == 0 ? st.ierrors : UINT64_MAX;
	tdt_port_destroy((uint16_t)port, name);
	TEST_ASSERT_EQ(sent, HOSTILE_N, "%s: every frame sent", devargs);
	TEST_ASSERT_EQ(r->bad_mbufs, 0, "%s: an mbuf claims bytes outside its buffer", devargs);
	TEST_ASSERT_EQ(r->bad_frames, 0, "%s: a delivered frame is not one that was sent", devargs);
	TEST_ASSERT_U64_EQ(r->delivered + r->bad_len + r->bad_chain, HOSTILE_N,
			   "%s: each completion delivered or refused, once", devargs);
	TEST_ASSERT_U64_EQ(r->q_errors, r->bad_len + r->bad_chain, "%s", devargs);
	TEST_ASSERT_U64_EQ(r->ierrors, r->bad_len + r->bad_chain, "%s", devargs);
	return TEST_SUCCESS;
}

/* Every 50th length is 65535 (over any buffer): those 20 are refused. */
static int
test_len_oversize(void)
{
	struct hostile_res r;

	TEST_ASSERT_EQ(hostile_run("bad_rx=len,bad_rx_every=50", false, &r), 0, "");
	TEST_ASSERT_U64_EQ(r.bad_len, HOSTILE_N / 50, "");
	TEST_ASSERT_U64_EQ(r.bad_chain, 0, "");
	TEST_ASSERT_EQ(r.delivered, HOSTILE_N - HOSTILE_N / 50, "");
	return TEST_SUCCESS;
}

/* The same on a queue with scatter: a length never spills into a chain. */
static int
test_len_oversize_scatter(void)
{
	struct hostile_res r;

	TEST_ASSERT_EQ(hostile_run("bad_rx=len,bad_rx_every=50", true, &r), 0, "");
	TEST_ASSERT_U64_EQ(r.bad_len, HOSTILE_N / 50, "");
	TEST_ASSERT_EQ(r.delivered, HOSTILE_N - HOSTILE_N / 50, "");
	return TEST_SUCCESS;
}

/* Every 7th length is 0. */
static int
test_len_zero(void)
{
	struct hostile_res r;

	TEST_ASSERT_EQ(hostile_run("bad_rx=zero,bad_rx_every=7", false, &r), 0, "");
	TEST_ASSERT_U64_EQ(r.bad_len, HOSTILE_N / 7, "");
	TEST_ASSERT_EQ(r.delivered, HOSTILE_N - HOSTILE_N / 7, "");
	return TEST_SUCCESS;
}

/* "More segments" on every completion of a queue without scatter: nothing
 * is a frame, every completion is refused. */
static int
test_endless_chain(void)
{
	struct hostile_res r;

	TEST_ASSERT_EQ(hostile_run("bad_rx=more", false, &r), 0, "");
	TEST_ASSERT_U64_EQ(r.bad_chain, HOSTILE_N, "");
	TEST_ASSERT_EQ(r.delivered, 0, "");
	return TEST_SUCCESS;
}

/* The same with scatter: chains grow only to the device's frame size, then
 * go, with the rest of the chain. */
static int
test_endless_chain_scatter(void)
{
	struct hostile_res r;

	TEST_ASSERT_EQ(hostile_run("bad_rx=more", true, &r), 0, "");
	TEST_ASSERT_U64_EQ(r.bad_chain, HOSTILE_N, "");
	TEST_ASSERT_EQ(r.delivered, 0, "");
	return TEST_SUCCESS;
}

/* Every 10th completion claims "more" on a queue without scatter: it and
 * the frame after it (the rest of its "chain") are refused; the last
 * completion is one such, with nothing after it. */
static int
test_stray_more(void)
{
	struct hostile_res r;
	const unsigned int refused = 2 * (HOSTILE_N / 10) - 1;

	TEST_ASSERT_EQ(hostile_run("bad_rx=more,bad_rx_every=10", false, &r), 0, "");
	TEST_ASSERT_U64_EQ(r.bad_chain, refused, "");
	TEST_ASSERT_EQ(r.delivered, HOSTILE_N - refused, "");
	return TEST_SUCCESS;
}

/* An honest device: nothing refused. */
static int
test_honest(void)
{
	struct hostile_res r;

	TEST_ASSERT_EQ(hostile_run("bad_rx=none", false, &r), 0, "");
	TEST_ASSERT_U64_EQ(r.bad_len + r.bad_chain, 0, "");
	TEST_ASSERT_EQ(r.delivered, HOSTILE_N, "");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_honest),
	TEST_CASE(test_len_oversize),
	TEST_CASE(test_len_oversize_scatter),
	TEST_CASE(test_len_zero),
	TEST_CASE(test_endless_chain),
	TEST_CASE(test_endless_chain_scatter),
	TEST_CASE(test_stray_more),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-rx-hostile");
	rc = tally_test_run("dpdk-rx-hostile", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
