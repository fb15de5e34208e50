/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL ownership and the Tally ports behind verbs devices.
 *
 * First use (ibv_get_device_list / ibv_open_device):
 *  - EAL not initialised (rte_lcore_count() == 0): the library initialises
 *    it with the arguments of TALLY_VERBS_EAL_ARGS (split on blanks), by
 *    default "--no-huge -m 512 --no-pci --no-shconf
 *    --file-prefix=tally-verbs-<pid> --vdev net_tally0
 *    --log-level=pmd.net.tally*:notice". Every Tally port is then
 *    configured by the library: isolated (frames no rule steers are
 *    dropped, as for verbs QPs), promiscuous, all its queues set up; QPs take
 *    queue pairs from 0 up.
 *  - EAL already initialised by the application: ports the application did
 *    not configure are set up as above; ports it configured are left alone
 *    (flows and counters work on them); RAW_PACKET QPs on such a port take
 *    queue pairs from TALLY_VERBS_FIRST_QUEUE up to the application's
 *    queue count. Without that variable, QPs on it fail with ENOMEM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pmd_tally.h>

#include "tally_verbs_priv.h"

#define TALLY_VERBS_NB_MBUF	8192
#define TALLY_VERBS_MAX_ARGS	64

pthread_mutex_t tally_verbs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct tally_verbs_port ports[TALLY_VERBS_MAX_PORTS];
static struct tally_verbs_device devices[TALLY_VERBS_MAX_PORTS];
static unsigned int nb_devices;
static int env_state;		/* 0 not yet, 1 ready, < 0 failed (-errno) */

/* EAL started by this library: at exit, stop and close the ports it set up
 * and release EAL (the application never knew EAL was there). */
static void
eal_stop(void)
{
	unsigned int i;

	for (i = 0; i < TALLY_VERBS_MAX_PORTS; i++) {
		if (!ports[i].owned)
			continue;
		rte_eth_dev_stop(ports[i].port_id);
		rte_eth_dev_close(ports[i].port_id);
		ports[i].owned = false;
	}
	rte_eal_cleanup();
}

static int
eal_start(void)
{
	static char buf[1024];
	static char *argv[TALLY_VERBS_MAX_ARGS];
	const char *env = getenv("TALLY_VERBS_EAL_ARGS");
	int argc = 0;
	char *save = NULL, *tok;

	if (env != NULL && *env != '\0')
		snprintf(buf, sizeof(buf), "%s", env);
	else
		snprintf(buf, sizeof(buf), "--no-huge -m 512 --no-pci --no-shconf "
			 "--file-prefix=tally-verbs-%d --vdev net_tally0 "
			 "--log-level=pmd.net.tally*:notice", (int)getpid());
	argv[argc++] = (char *)"tally_verbs";
	for (tok = strtok_r(buf, " \t", &save);
	     tok != NULL && argc < TALLY_VERBS_MAX_ARGS - 1;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0)
		return rte_errno ? -rte_errno : -ENODEV;
	atexit(eal_stop);
	return 0;
}

/* Configure, isolate and start a port nobody configured. */
static int
port_setup_own(struct tally_verbs_port *p)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct rte_flow_error err;
	uint16_t q, nq;
	int rc;

	rc = rte_eth_dev_info_get(p->port_id, &info);
	if (rc)
		return rc;
	nq = RTE_MIN(info.max_rx_queues, info.max_tx_queues);
	nq = RTE_MIN(nq, (uint16_t)TALLY_VERBS_MAX_Q);
	memset(&conf, 0, sizeof(conf));
	rc = rte_flow_isolate(p->port_id, 1, &err);
	if (rc == 0)
		rc = rte_eth_dev_configure(p->port_id, nq, nq, &conf);
	for (q = 0; rc == 0 && q < nq; q++)
		rc = rte_eth_rx_queue_setup(p->port_id, q, TALLY_VERBS_NB_DESC,
					    rte_eth_dev_socket_id(p->port_id),
					    NULL, p->mp);
	for (q = 0; rc == 0 && q < nq; q++)
		rc = rte_eth_tx_queue_setup(p->port_id, q, TALLY_VERBS_NB_DESC,
					    rte_eth_dev_socket_id(p->port_id), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p->port_id);
	if (rc == 0)
		rc = rte_eth_promiscuous_enable(p->port_id);
	if (rc)
		return rc;
	p->owned = true;
	p->first_q = 0;
	p->nb_q = nq;
	return 0;
}

static int
port_attach(uint16_t port_id, bool eal_ours)
{
	struct tally_verbs_port *p = &ports[nb_devices];
	struct tally_verbs_device *d = &devices[nb_devices];
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	char name[RTE_MEMPOOL_NAMESIZE];
	const char *fq;
	uint8_t g[8];
	int rc;

	memset(p, 0, sizeof(*p));
	p->port_id = port_id;
	snprintf(name, sizeof(name), "tally_verbs_%u", port_id);
	p->mp = rte_pktmbuf_pool_create(name, TALLY_VERBS_NB_MBUF, 256, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					rte_eth_dev_socket_id(port_id));
	if (p->mp == NULL)
		return -ENOMEM;
	rc = rte_eth_dev_info_get(port_id, &info);
	if (rc)
		return rc;
	if (eal_ours || info.nb_rx_queues == 0) {
		rc = port_setup_own(p);
		if (rc)
			return rc;
	} else {
		fq = getenv("TALLY_VERBS_FIRST_QUEUE");
		p->nb_q = RTE_MIN(info.nb_rx_queues, info.nb_tx_queues);
		p->first_q = fq != NULL ? (uint16_t)atoi(fq) : p->nb_q;
		if (p->first_q > p->nb_q)
			p->first_q = p->nb_q;
	}
	memset(d, 0, sizeof(*d));
	d->port = p;
	d->ibdev.node_type = IBV_NODE_CA;
	d->ibdev.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->ibdev.name, sizeof(d->ibdev.name), "tally_%u", port_id);
	snprintf(d->ibdev.dev_name, sizeof(d->ibdev.dev_name), "uverbs%u", port_id);
	snprintf(d->ibdev.dev_path, sizeof(d->ibdev.dev_path),
		 "/sys/class/infiniband_verbs/uverbs%u", port_id);
	snprintf(d->ibdev.ibdev_path, sizeof(d->ibdev.ibdev_path),
		 "/sys/class/infiniband/tally_%u", port_id);
	/* EUI-64 from the MAC address, as RoCE devices do */
	rte_eth_macaddr_get(port_id, &mac);
	g[0] = mac.addr_bytes[0] ^ 0x02;
	g[1] = mac.addr_bytes[1];
	g[2] = mac.addr_bytes[2];
	g[3] = 0xff;
	g[4] = 0xfe;
	g[5] = mac.addr_bytes[3];
	g[6] = mac.addr_bytes[4];
	g[7] = mac.addr_bytes[5];
	memcpy(&d->guid, g, sizeof(g));
	nb_devices++;
	return 0;
}

/* Once: EAL (when nobody started it) and the device list. */
int
tally_verbs_env_init(void)
{
	bool eal_ours = false;
	uint16_t pid;
	int rc = 0;

	pthread_mutex_lock(&tally_verbs_lock);
	if (env_state != 0) {
		rc = env_state < 0 ? env_state : 0;
		goto out;
	}
	if (rte_lcore_count() == 0) {
		rc = eal_start();
		if (rc)
			goto fail;
		eal_ours = true;
	}
	RTE_ETH_FOREACH_DEV(pid) {
		if (nb_devices >= TALLY_VERBS_MAX_PORTS)
			break;
		if (rte_pmd_tally_ccnt_num(pid) < 0)	/* not a Tally port */
			continue;
		rc = port_attach(pid, eal_ours);
		if (rc)
			goto fail;
	}
	env_state = 1;
	goto out;
fail:
	env_state = rc < 0 ? rc : -EIO;
out:
	pthread_mutex_unlock(&tally_verbs_lock);
	return rc;
}

unsigned int
tally_verbs_nb_devices(void)
{
	return nb_devices;
}

struct tally_verbs_device *
tally_verbs_device(unsigned int i)
{
	return i < nb_devices ? &devices[i] : NULL;
}

struct tally_verbs_device *
tally_verbs_device_of(const struct ibv_device *d)
{
	unsigned int i, n = __atomic_load_n(&nb_devices, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (d == &devices[i].ibdev)
			return &devices[i];
	return NULL;
}

/* With tally_verbs_lock held. */
int
tally_verbs_queue_get(struct tally_verbs_port *p, uint16_t *q)
{
	uint16_t i;

	for (i = p->first_q; i < p->nb_q; i++)
		if (!p->q_used[i]) {
			p->q_used[i] = true;
			*q = i;
			return 0;
		}
	return -ENOMEM;
}

void
tally_verbs_queue_put(struct tally_verbs_port *p, uint16_t q)
{
	if (q < TALLY_VERBS_MAX_Q)
		p->q_used[q] = false;
}
