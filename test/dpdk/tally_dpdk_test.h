/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the EAL tests of the Tally PMD: EAL start-up, port
 * creation on the vdev bus, port configuration, frame building, and a
 * send/receive loop over the loopback wire.
 *
 * Every test program initialises EAL once, in the memory mode of
 * TALLY_TEST_MEM (test/tally_eal_mem.h: hugepages with IOVA as PA by
 * default, or VA, or --no-huge; exit 77 where the mode cannot run) and with
 * a unique file prefix, then each case creates its own net_tally<N> port
 * with tdt_port_create() and destroys it with tdt_port_destroy().
 *
 * With TALLY_TEST_NIC=<path of tally-nic> in the environment every port's
 * device runs as its own tally-nic process on the host transport: the
 * devargs go to tally-nic (but mode=inline, which means "the device runs in
 * the burst calls" and cannot hold for another process: there the device
 * always runs on its own thread) and the port is probed with dev=<its
 * socket>; when
 * tally-nic refuses them, its message goes to the EAL log as a probe error
 * would.
 */
#ifndef TALLY_DPDK_TEST_H
#define TALLY_DPDK_TEST_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rte_pmd_tally.h"
#include "tally_eal_mem.h"
#include "tally_test.h"

#define TDT_NB_MBUF	16384
#define TDT_NB_DESC	256
#define TDT_MAX_Q	8

static struct rte_mempool *tdt_pool;
static unsigned int tdt_port_seq = 1;

/* ---- device processes (TALLY_TEST_NIC) ---------------------------------- */
#define TDT_MAX_NICS	64

struct tdt_nic {
	pid_t pid;
	char name[32];
	char sock[108];
};
static struct tdt_nic tdt_nics[TDT_MAX_NICS];

static inline const char *
tdt_nic_path(void)
{
	const char *p = getenv("TALLY_TEST_NIC");

	return p != NULL && *p != '\0' ? p : NULL;
}

static inline void
tdt_nic_stop(const char *name)
{
	unsigned int i;

	for (i = 0; i < TDT_MAX_NICS; i++) {
		if (tdt_nics[i].pid <= 0 || strcmp(tdt_nics[i].name, name) != 0)
			continue;
		kill(tdt_nics[i].pid, SIGTERM);
		waitpid(tdt_nics[i].pid, NULL, 0);
		unlink(tdt_nics[i].sock);
		tdt_nics[i].pid = 0;
	}
}

static inline void
tdt_nic_stop_all(void)
{
	unsigned int i;

	for (i = 0; i < TDT_MAX_NICS; i++)
		if (tdt_nics[i].pid > 0)
			tdt_nic_stop(tdt_nics[i].name);
}

/*
 * Start tally-nic for port name with the device settings of devargs; write
 * "dev=<socket>" to out. -EINVAL when tally-nic refused the settings.
 */
static inline int
tdt_nic_start(const char *name, const char *devargs, char *out, size_t len)
{
	char errpath[128], msg[512], args[512] = "", tmp[512], *save = NULL, *kv;
	struct tdt_nic *n = NULL;
	struct stat st;
	unsigned int i;
	int status, fd;
	FILE *f;

	for (i = 0; i < TDT_MAX_NICS && n == NULL; i++)
		if (tdt_nics[i].pid <= 0)
			n = &tdt_nics[i];
	if (n == NULL)
		return -ENOSPC;
	snprintf(tmp, sizeof(tmp), "%s", devargs);
	for (kv = strtok_r(tmp, ",", &save); kv != NULL; kv = strtok_r(NULL, ",", &save))
		if (strcmp(kv, "mode=inline") != 0)
			snprintf(args + strlen(args), sizeof(args) - strlen(args),
				 "%s%s", args[0] ? "," : "", kv);
	devargs = args;
	snprintf(errpath, sizeof(errpath), "/tmp/tally-tdt-%d-%s.err",
		 (int)getpid(), name);
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->sock, sizeof(n->sock), "/tmp/tally-tdt-%d-%s.sock",
		 (int)getpid(), name);
	unlink(n->sock);
	n->pid = fork();
	if (n->pid == 0) {
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0)
			dup2(fd, 2);
		if (devargs[0] != '\0')
			execl(tdt_nic_path(), "tally-nic", "--socket", n->sock,
			      "--log-level", "2", devargs, (char *)NULL);
		else
			execl(tdt_nic_path(), "tally-nic", "--socket", n->sock,
			      "--log-level", "2", (char *)NULL);
		_exit(127);
	}
	if (n->pid < 0)
		return -errno;
	for (i = 0; i < 500; i++) {
		if (waitpid(n->pid, &status, WNOHANG) == n->pid) {
			/* tally-nic refused the settings: its words, as a
			 * probe error */
			n->pid = 0;
			f = fopen(errpath, "r");
			while (f != NULL && fgets(msg, sizeof(msg), f) != NULL)
				RTE_LOG(ERR, EAL, "%s: %s", name, msg);
			if (f != NULL)
				fclose(f);
			unlink(errpath);
			return -EINVAL;
		}
		if (stat(n->sock, &st) == 0 && S_ISSOCK(st.st_mode)) {
			snprintf(out, len, "dev=%s", n->sock);
			return 0;
		}
		usleep(10000);
	}
	tdt_nic_stop(name);
	return -ETIMEDOUT;
}

/* EAL leaves its runtime directory behind (with --no-shconf or --in-memory
 * it holds only the telemetry socket, which telemetry's own exit handler,
 * registered before this one and so run after it, would unlink): remove
 * both at exit. */
static char tdt_run_dir[PATH_MAX];

static inline void
tdt_run_dir_remove(void)
{
	char sock[PATH_MAX + 32];

	if (tdt_run_dir[0] == '\0')
		return;
	snprintf(sock, sizeof(sock), "%s/dpdk_telemetry.v2", tdt_run_dir);
	unlink(sock);
	rmdir(tdt_run_dir);
}

/* EAL in the memory mode of TALLY_TEST_MEM (512 MB with --no-huge) and one
 * default port net_tally0. Exits on failure, 77 where the mode cannot run. */
static inline void
tdt_eal_init(const char *prefix)
{
	char fp[64], vdev[160] = "net_tally0", dev[140];
	char *argv[16] = {
		(char *)"tally-test", (char *)"-l", (char *)"0",
		(char *)"--no-pci", fp,
		(char *)"--vdev", vdev,
		(char *)"--log-level=pmd.net.tally*:notice",
	};
	int argc = 8;

	/* a reference into the PMD keeps it linked (its constructors register
	 * the vdev driver before EAL parses --vdev) */
	if (rte_pmd_tally_model_step(RTE_MAX_ETHPORTS) != -ENODEV)
		exit(1);
	argc += tally_eal_mem_args(argv + argc, 512);
	snprintf(fp, sizeof(fp), "--file-prefix=%s-%d", prefix, (int)getpid());
	if (tdt_nic_path() != NULL) {
		atexit(tdt_nic_stop_all);
		if (tdt_nic_start("net_tally0", "", dev, sizeof(dev)) != 0) {
			fprintf(stderr, "cannot start %s\n", tdt_nic_path());
			exit(1);
		}
		snprintf(vdev, sizeof(vdev), "net_tally0,%s", dev);
	}
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
	snprintf(tdt_run_dir, sizeof(tdt_run_dir), "%s", rte_eal_get_runtime_dir());
	atexit(tdt_run_dir_remove);
	tdt_pool = rte_pktmbuf_pool_create("tdt_pool", TDT_NB_MBUF, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE,
					   rte_socket_id());
	if (tdt_pool == NULL) {
		fprintf(stderr, "mempool: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
}

/* Find the port of a device name; -1 if none. */
static inline int
tdt_port_by_name(const char *name)
{
	uint16_t port;

	if (rte_eth_dev_get_port_by_name(name, &port) != 0)
		return -1;
	return port;
}

/*
 * Create a net_tally vdev port with devargs (may be ""). Returns the port id
 * or a negative errno; name receives the device name.
 */
static inline int
tdt_port_create(const char *devargs, char *name, size_t len)
{
	char spec[512], dev[140];
	int rc;

	snprintf(name, len, "net_tally%u", tdt_port_seq++);
	if (tdt_nic_path() != NULL) {
		rc = tdt_nic_start(name, devargs, dev, sizeof(dev));
		if (rc != 0)
			return rc;
		devargs = dev;
	}
	snprintf(spec, sizeof(spec), "%s%s%s", name, *devargs ? "," : "",
		 devargs);
	rc = rte_dev_probe(spec);
	if (rc < 0) {
		tdt_nic_stop(name);
		return rc;
	}
	rc = tdt_port_by_name(name);
	return rc < 0 ? -ENODEV : rc;
}

static inline void
tdt_port_destroy(uint16_t port, const char *name)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port, &info) == 0) {
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
	rte_eal_hotplug_remove("vdev", name);
	tdt_nic_stop(name);
}

struct tdt_port_conf {
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint16_t nb_desc;	/* 0 = TDT_NB_DESC */
	uint16_t mtu;		/* 0 = default */
	bool scatter;
	bool rss;
	bool promisc;
	bool fast_free;		/* RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE */
	struct rte_mempool *mp;	/* NULL = tdt_pool */
};

static inline int
tdt_port_setup(uint16_t port, const struct tdt_port_conf *pc)
{
	struct rte_eth_conf conf;
	uint16_t q, nd = pc->nb_desc ? pc->nb_desc : TDT_NB_DESC;
	int rc;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = pc->mtu;
	if (pc->scatter)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (pc->fast_free)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	if (pc->rss) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP |
						   RTE_ETH_RSS_UDP |
						   RTE_ETH_RSS_TCP;
	}
	rc = rte_eth_dev_configure(port, pc->nb_rxq, pc->nb_txq, &conf);
	if (rc != 0)
		return rc;
	for (q = 0; q < pc->nb_rxq; q++) {
		rc = rte_eth_rx_queue_setup(port, q, nd, rte_socket_id(), NULL,
					    pc->mp ? pc->mp : tdt_pool);
		if (rc != 0)
			return rc;
	}
	for (q = 0; q < pc->nb_txq; q++) {
		rc = rte_eth_tx_queue_setup(port, q, nd, rte_socket_id(), NULL);
		if (rc != 0)
			return rc;
	}
	rc = rte_eth_dev_start(port);
	if (rc != 0)
		return rc;
	if (pc->promisc)
		rc = rte_eth_promiscuous_enable(port);
	return rc;
}

/* Deterministic frame i of length len: broadcast, IPv4/UDP, patterned. */
static inline void
tdt_frame_fill(uint8_t *f, uint32_t len, uint32_t i)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint32_t off, hl = sizeof(*eh) + sizeof(*ip) + sizeof(*udp);

	memset(eh->dst_addr.addr_bytes, 0xff, RTE_ETHER_ADDR_LEN);
	memcpy(eh->src_addr.addr_bytes, "\x02\x00\x00\x00\x00\x99", 6);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eh)));
	ip->src_addr = rte_cpu_to_be_32(0x0a000000 | (i & 0xffff));
	ip->dst_addr = rte_cpu_to_be_32(0x0a010001 + (i % 7));
	udp->src_port = rte_cpu_to_be_16((uint16_t)(1024 + i));
	udp->dst_port = rte_cpu_to_be_16(4789 + 1);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eh) - sizeof(*ip)));
	udp->dgram_cksum = 0;
	for (off = hl; off < len; off++)
		f[off] = (uint8_t)(i * 31 + off);
}

/*
 * Build frame i of length len as an mbuf chain of nseg segments (nseg >= 1).
 * Returns NULL on allocation failure.
 */
static inline struct rte_mbuf *
tdt_mbuf_build(uint32_t len, uint32_t i, unsigned int nseg)
{
	static uint8_t buf[16384];
	struct rte_mbuf *head = NULL, *m;
	uint32_t off = 0, s;

	tdt_frame_fill(buf, len, i);
	for (s = 0; s < nseg; s++) {
		uint32_t chunk = (s == nseg - 1) ? len - off : len / nseg;
		char *p;

		m = rte_pktmbuf_alloc(tdt_pool);
		if (m == NULL)
			goto fail;
		p = rte_pktmbuf_append(m, (uint16_t)chunk);
		if (p == NULL) {
			rte_pktmbuf_free(m);
			goto fail;
		}
		memcpy(p, buf + off, chunk);
		off += chunk;
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			goto fail;
		}
	}
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

/* 0 when mbuf m carries exactly frame i of length len. */
static inline int
tdt_mbuf_check(const struct rte_mbuf *m, uint32_t len, uint32_t i)
{
	static uint8_t want[16384], got[16384];
	const void *p;

	if (m->pkt_len != len)
		return -1;
	tdt_frame_fill(want, len, i);
	p = rte_pktmbuf_read(m, 0, len, got);
	if (p == NULL)
		return -1;
	return memcmp(p, want, len) == 0 ? 0 : -1;
}

/* Poll every Rx queue until `want` frames arrived or nothing arrived for
 * 200 ms (the device may run in its own thread). Frames are stored (up to
 * max) in out[] with their queue in qout[]. */
static inline unsigned int
tdt_rx_all(uint16_t port, uint16_t nb_rxq, struct rte_mbuf **out,
	   uint16_t *qout, unsigned int max, unsigned int want)
{
	uint64_t hz = rte_get_timer_hz(), last = rte_get_timer_cycles();
	unsigned int got = 0;

	while (got < want && rte_get_timer_cycles() - last < hz / 5) {
		uint16_t q;

		for (q = 0; q < nb_rxq; q++) {
			struct rte_mbuf *b[32];
			uint16_t n = rte_eth_rx_burst(port, q, b, 32), k;

			if (n > 0)
				last = rte_get_timer_cycles();
			for (k = 0; k < n; k++) {
				if (got < max) {
					out[got] = b[k];
					if (qout != NULL)
						qout[got] = q;
				} else {
					rte_pktmbuf_free(b[k]);
				}
				got++;
			}
		}
	}
	return got;
}

static inline void
tdt_free_all(struct rte_mbuf **m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_pktmbuf_free(m[i]);
}

/* Receive and free whatever is still in flight. */
static inline void
tdt_drain(uint16_t port, uint16_t nb_rxq)
{
	struct rte_mbuf *tmp[64];
	unsigned int n;

	do {
		n = tdt_rx_all(port, nb_rxq, tmp, NULL, RTE_DIM(tmp), RTE_DIM(tmp));
		tdt_free_all(tmp, RTE_MIN(n, (unsigned int)RTE_DIM(tmp)));
	} while (n > 0);
}

/* Send all pkts on txq 0 (retrying while polling the device). */
static inline unsigned int
tdt_tx_all(uint16_t port, uint16_t txq, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int sent = 0, tries = 0;

	while (sent < n && tries++ < 10000) {
		uint16_t k = rte_eth_tx_burst(port, txq, pkts + sent,
					      (uint16_t)RTE_MIN(n - sent, 32u));

		sent += k;
		if (k == 0)
			rte_pmd_tally_model_step(port);
	}
	return sent;
}

/* The pid of port name's tally-nic (TALLY_TEST_NIC), or -1. */
static inline pid_t
tdt_nic_pid(const char *name)
{
	unsigned int i;

	for (i = 0; i < TDT_MAX_NICS; i++)
		if (tdt_nics[i].pid > 0 && strcmp(tdt_nics[i].name, name) == 0)
			return tdt_nics[i].pid;
	return -1;
}

/* Loop n (at most 64) frames of 64 bytes through the port's wire on queue
 * 0; returns how many came back. */
static inline unsigned int
tdt_loop_frames(uint16_t port, unsigned int n)
{
	struct rte_mbuf *tx[64], *rx[64];
	unsigned int i, got;

	for (i = 0; i < n; i++)
		tx[i] = tdt_mbuf_build(64, i, 1);
	if (tdt_tx_all(port, 0, tx, n) != n)
		return 0;
	got = tdt_rx_all(port, 1, rx, NULL, RTE_DIM(rx), n);
	tdt_free_all(rx, got);
	return got;
}

/* Value of the xstat called name, or UINT64_MAX if absent. */
static inline uint64_t
tdt_xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0)
		return UINT64_MAX;
	if (rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

/* Bytes currently allocated from rte_malloc heaps (leak checks). */
static inline size_t
tdt_heap_used(void)
{
	struct rte_malloc_socket_stats st;
	size_t total = 0;
	int s;

	for (s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			total += st.heap_allocsz_bytes;
	return total;
}

#endif /* TALLY_DPDK_TEST_H */
