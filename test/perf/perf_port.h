/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the rte_flow benchmarks on a net_tally port share: clocks, EAL
 * without PCI, in the memory mode of TALLY_TEST_MEM (test/tally_eal_mem.h:
 * hugepages with IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge)
 * under a file prefix of its own, and a port with one rx and one tx queue,
 * configured but not started (a benchmark may configure flow queues before
 * it starts the port).
 */
#ifndef PERF_PORT_H
#define PERF_PORT_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "perf_clock.h"
#include "rte_pmd_tally.h"
#include "tally_eal_mem.h"

/* EAL leaves its runtime directory (the telemetry socket) behind: removed
 * at exit. */
static char perf_run_dir[PATH_MAX];

static inline void
perf_run_dir_remove(void)
{
	char sock[PATH_MAX + 32];

	snprintf(sock, sizeof(sock), "%s/dpdk_telemetry.v2", perf_run_dir);
	unlink(sock);
	rmdir(perf_run_dir);
}

/* rte_eal_init on lcores in the memory mode of TALLY_TEST_MEM (mem MB with
 * --no-huge; hugepages grow as needed), no PCI, file prefix <name>-<pid>,
 * the port's --vdev devargs, and a PMD to load (-d) when plugin is not
 * NULL. 0 or -1 (said on stderr); exits 77 where the memory mode cannot
 * run. */
static inline int
perf_eal_init_plugin(char *prog, const char *lcores, unsigned long mem, const char *name,
		     const char *vdev, const char *plugin)
{
	char lc[16], fp[64], dev[64];
	char *eargv[10 + TALLY_EAL_MEM_MAX_ARGS] = {
		prog, (char *)"-l", lc, (char *)"--no-pci", fp,
		(char *)"--vdev", dev,
		(char *)"--log-level=pmd.net.tally*:notice",
	};
	int eargc = 8;

	if (plugin != NULL) {
		eargv[eargc++] = (char *)"-d";
		eargv[eargc++] = (char *)(uintptr_t)plugin;
	}

	/* a reference into the PMD keeps it linked */
	if (rte_pmd_tally_model_step(RTE_MAX_ETHPORTS) != -ENODEV)
		return -1;
	eargc += tally_eal_mem_args(eargv + eargc, (unsigned int)mem);
	snprintf(lc, sizeof(lc), "%s", lcores);
	snprintf(fp, sizeof(fp), "--file-prefix=%s-%d", name, (int)getpid());
	snprintf(dev, sizeof(dev), "%s", vdev);
	if (rte_eal_init(eargc, eargv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	snprintf(perf_run_dir, sizeof(perf_run_dir), "%s", rte_eal_get_runtime_dir());
	atexit(perf_run_dir_remove);
	return 0;
}

/* The floor PMD a benchmark runs on instead of net_tally: the path of
 * librte_net_flowfloor.so in environment variable var, or NULL (unset or
 * empty). */
static inline const char *
perf_floor_so(const char *var)
{
	const char *so = getenv(var);

	return so != NULL && *so != '\0' ? so : NULL;
}

/* The vdev name of the port: the floor's when floor_so, else net_tally's. */
static inline const char *
perf_vdev_name(const char *floor_so)
{
	return floor_so != NULL ? "net_flowfloor0" : "net_tally0";
}

/* perf_eal_init_plugin() without a plugin: the port is net_tally. */
static inline int
perf_eal_init(char *prog, const char *lcores, unsigned long mem, const char *name,
	      const char *vdev)
{
	return perf_eal_init_plugin(prog, lcores, mem, name, vdev, NULL);
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
