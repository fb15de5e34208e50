/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the rte_flow tests: a port on the loop wire and a send/receive
 * call that keeps what came back and on which queue.
 */
#ifndef FLOW_TEST_UTIL_H
#define FLOW_TEST_UTIL_H

#include <inttypes.h>

#include "tally_dpdk_test.h"

#define RS_MAX		512

/* ---- ports, traffic ------------------------------------------------------- */

struct fport {
	char name[32];
	int port;
	uint16_t nb_rxq;
};

/* Devargs every fp_open() adds (a program's whole run in another setting). */
static const char *fp_devargs_all;

static inline int
fp_open(struct fport *fp, const char *devargs, uint16_t nb_rxq)
{
	struct tdt_port_conf pc = { .nb_rxq = nb_rxq, .nb_txq = 1 };
	char all[256];

	if (fp_devargs_all != NULL) {
		snprintf(all, sizeof(all), "%s%s%s", devargs, *devargs ? "," : "",
			 fp_devargs_all);
		devargs = all;
	}
	fp->nb_rxq = nb_rxq;
	fp->port = tdt_port_create(devargs, fp->name, sizeof(fp->name));
	if (fp->port < 0)
		return fp->port;
	return tdt_port_setup((uint16_t)fp->port, &pc);
}

static inline void
fp_close(struct fport *fp)
{
	if (fp->port >= 0) {
		rte_flow_flush((uint16_t)fp->port, NULL);
		tdt_port_destroy((uint16_t)fp->port, fp->name);
	}
	fp->port = -1;
}

/* Frames received by one or more xfer() calls. */
struct rx_set {
	struct rte_mbuf *m[RS_MAX];
	uint16_t q[RS_MAX];
	unsigned int n;
	unsigned int per_q[TDT_MAX_Q];
};

static inline void
rs_init(struct rx_set *rs)
{
	memset(rs, 0, sizeof(*rs));
}

static inline void
rs_free(struct rx_set *rs)
{
	tdt_free_all(rs->m, RTE_MIN(rs->n, (unsigned int)RS_MAX));
	rs_init(rs);
}

/* Send n copies of frame i (len bytes) and receive what comes back (waits
 * until n frames arrived or the wire is idle for 200 ms). Returns the number
 * received by this call, or -1 when sending failed. */
static inline int
xfer(struct fport *fp, uint32_t i, uint32_t len, unsigned int n,
     struct rx_set *rs)
{
	unsigned int done = 0, got = 0;

	while (done < n) {
		struct rte_mbuf *tx[32];
		unsigned int k, c = RTE_MIN(n - done, 32u), r;

		for (k = 0; k < c; k++) {
			tx[k] = tdt_mbuf_build(len, i, 1);
			if (tx[k] == NULL) {
				tdt_free_all(tx, k);
				return -1;
			}
		}
		if (tdt_tx_all((uint16_t)fp->port, 0, tx, c) != c)
			return -1;
		done += c;
		r = tdt_rx_all((uint16_t)fp->port, fp->nb_rxq, rs->m + rs->n,
			       rs->q + rs->n, RS_MAX - rs->n, c);
		for (k = 0; k < r && rs->n + k < RS_MAX; k++)
			rs->per_q[rs->q[rs->n + k]]++;
		rs->n += r;
		got += r;
	}
	return (int)got;
}

/* ---- the port's dump ------------------------------------------------------ */

/* The number after `what` in the port's rte_flow_dev_dump, e.g. "key
 * builder " (keys the synchronous key builder made so far). */
static inline int
dump_count(uint16_t port, const char *what, uint64_t *v)
{
	struct rte_flow_error err;
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f;
	int ret;

	f = open_memstream(&buf, &len);
	if (f == NULL)
		return -1;
	ret = rte_flow_dev_dump(port, NULL, f, &err);
	fclose(f);
	p = buf != NULL ? strstr(buf, what) : NULL;
	if (ret == 0 && (p == NULL || sscanf(p + strlen(what), "%" SCNu64, v) != 1))
		ret = -1;
	free(buf);
	return ret;
}

#endif /* FLOW_TEST_UTIL_H */
