/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the rte_flow benchmarks on a net_tally port share: clocks, EAL
 * without hugepages or PCI under a file prefix of their own, and a port
 * with one rx and one tx queue, configured but not started (a benchmark
 * may configure flow queues before it starts the port).
 */
#ifndef PERF_PORT_H
#define PERF_PORT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rte_pmd_tally.h"

static inline double
perf_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double
perf_now_s(void)
{
	return perf_clock_s(CLOCK_MONOTONIC);
}

/* CPU time of the calling thread. */
static inline double
perf_cpu_s(void)
{
	return perf_clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/* rte_eal_init on lcores with mem MB and no hugepages, no PCI, no shared
 * config, file prefix <name>-<pid>, the port's --vdev devargs. 0 or -1
 * (said on stderr). */
static inline int
perf_eal_init(char *prog, const char *lcores, unsigned long mem, const char *name,
	      const char *vdev)
{
	char lc[16], memarg[32], fp[64], dev[64];
	char *eargv[] = {
		prog, (char *)"-l", lc, (char *)"--no-huge",
		(char *)"-m", memarg, (char *)"--no-pci", (char *)"--no-shconf",
		fp, (char *)"--vdev", dev,
		(char *)"--log-level=pmd.net.tally*:notice",
	};

	/* a reference into the PMD keeps it linked */
	if (rte_pmd_tally_model_step(RTE_MAX_ETHPORTS) != -ENODEV)
		return -1;
	snprintf(lc, sizeof(lc), "%s", lcores);
	snprintf(memarg, sizeof(memarg), "%lu", mem);
	snprintf(fp, sizeof(fp), "--file-prefix=%s-%d", name, (int)getpid());
	snprintf(dev, sizeof(dev), "%s", vdev);
	if (rte_eal_init((int)RTE_DIM(eargv), eargv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* Port with one rx queue (512 descriptors, a pool named pool_name) and one
 * tx queue, not started. 0 or a negative errno. */
static inline int
perf_port_queues(uint16_t port, const char *pool_name)
{
	struct rte_eth_conf conf;
	struct rte_mempool *mp;
	int rc;

	memset(&conf, 0, sizeof(conf));
	mp = rte_pktmbuf_pool_create(pool_name, 2048, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (mp == NULL)
		return -rte_errno;
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 512, rte_socket_id(), NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 512, rte_socket_id(), NULL);
	return rc;
}

#endif /* PERF_PORT_H */
