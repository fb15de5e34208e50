/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device reaches driver memory the way DPDK has it: hugepage memory
 * EAL allocates after the port was probed, external memory an application
 * brings (rte_dev_dma_map()), and not memory EAL has freed. With --segments
 * EAL starts with more than 1,000 2 MiB pages reserved at once (as IOVA as
 * PA hands them out, discontiguous), and a port starts and carries traffic
 * over all of them.
 *
 *   test_memory [--segments] [--iova-mode=pa|va]
 *
 * With TALLY_TEST_NIC=<tally-nic> every port's device is a tally-nic
 * process (tally_dpdk_test.h). Exits 77 when the machine has no huge pages
 * free for it.
 */
#include <sys/mman.h>

#include <rte_memory.h>

#include "tally_mem_test.h"

#define NB_FRAMES	2048
#define FRAME_LEN	256
#define TRAFFIC_CHUNK	64
#define LATE_MBUFS	32768	/* about 70 MiB: new pages for EAL */
#define EXT_LEN		(32u << 20)
#define FREED_LEN	(64u << 20)

static bool segments_mode;
static struct rte_mempool *def_pool;	/* tdt_pool between cases */

/* ---- memory events seen by the test itself ------------------------------- */

static uint64_t ev_alloc_bytes;
static uintptr_t ev_free_lo = UINTPTR_MAX, ev_free_hi;

static void
test_mem_event(enum rte_mem_event type, const void *addr, size_t len, void *arg)
{
	RTE_SET_USED(arg);
	if (type == RTE_MEM_EVENT_ALLOC) {
		ev_alloc_bytes += len;
		return;
	}
	if ((uintptr_t)addr < ev_free_lo)
		ev_free_lo = (uintptr_t)addr;
	if ((uintptr_t)addr + len > ev_free_hi)
		ev_free_hi = (uintptr_t)addr + len;
}

/* The "dma:" line of rte_pmd_tally_dump(): translations and MiB mapped. */
static int
dma_line(uint16_t port, unsigned int *xlt, unsigned long *mib)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = -1;

	if (f == NULL)
		return -1;
	if (rte_pmd_tally_dump(port, f) == 0) {
		fflush(f);
		p = strstr(buf, "dma: ");
		if (p != NULL && sscanf(p, "dma: %u/%*u translations, %lu MiB", xlt, mib) == 2)
			rc = 0;
	}
	fclose(f);
	free(buf);
	return rc;
}

/* Frames out of mp and back into mp: every one received exactly. */
static int
traffic(uint16_t port, struct rte_mempool *mp, unsigned int n)
{
	struct rte_mbuf *tx[TRAFFIC_CHUNK], *rx[TRAFFIC_CHUNK];
	unsigned int i, k, c, got;

	tdt_pool = mp;
	/* in chunks the Rx ring holds (the loop wire brings them back) */
	for (i = 0; i < n; i += c) {
		c = RTE_MIN(n - i, (unsigned int)TRAFFIC_CHUNK);
		for (k = 0; k < c; k++) {
			tx[k] = tdt_mbuf_build(FRAME_LEN, i + k, 1);
			TEST_ASSERT(tx[k] != NULL, "frame %u", i + k);
		}
		TEST_ASSERT_EQ(tdt_tx_all(port, 0, tx, c), c, "");
		got = tdt_rx_all(port, 1, rx, NULL, TRAFFIC_CHUNK, c);
		TEST_ASSERT_EQ(got, c, "received of frames %u..", i);
		for (k = 0; k < got; k++) {
			TEST_ASSERT(rte_mempool_from_obj(rx[k]) == mp, "into the pool given");
			TEST_ASSERT_EQ(tdt_mbuf_check(rx[k], FRAME_LEN, i + k), 0, "frame %u", i + k);
		}
		tdt_free_all(rx, got);
	}
	tdt_pool = def_pool;
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "dma_faults"), 0, "");
	return TEST_SUCCESS;
}

static int
port_up(struct rte_mempool *mp, char *name, size_t len)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mp = mp };
	int port = tdt_port_create("", name, len);

	if (port < 0)
		return port;
	return tdt_port_setup((uint16_t)port, &pc) == 0 ? port : -EIO;
}

/* ---- cases ----------------------------------------------------------------- */

/* A pool EAL makes after the probe: its pages appear then, and the device
 * reaches them before the pool hands a buffer out. */
static int
test_pool_after_probe(void)
{
	struct rte_mempool *late;
	unsigned long mib0, mib1;
	unsigned int x0, x1;
	char name[32];
	int port, rc;

	if (segments_mode)
		return TEST_SKIPPED;	/* all memory is reserved at start */
	port = tdt_port_create("", name, sizeof(name));
	TEST_ASSERT(port >= 0, "%d", port);
	TEST_ASSERT_EQ(dma_line((uint16_t)port, &x0, &mib0), 0, "");
	ev_alloc_bytes = 0;
	late = rte_pktmbuf_pool_create("late_pool", LATE_MBUFS, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	TEST_ASSERT(late != NULL, "%s", rte_strerror(rte_errno));
	TEST_ASSERT(ev_alloc_bytes >= (64u << 20), "EAL allocated %" PRIu64 " bytes for it",
		    ev_alloc_bytes);
	TEST_ASSERT_EQ(dma_line((uint16_t)port, &x1, &mib1), 0, "");
	TEST_ASSERT(mib1 >= mib0 + 64, "the device reaches %lu MiB, %lu before", mib1, mib0);
	printf("  pool after probe: EAL grew by %" PRIu64 " MiB; device: %u -> %u translations, %lu -> %lu MiB\n",
	       ev_alloc_bytes >> 20, x0, x1, mib0, mib1);
	{
		struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mp = late };

		TEST_ASSERT_EQ(tdt_port_setup((uint16_t)port, &pc), 0, "");
	}
	rc = traffic((uint16_t)port, late, NB_FRAMES);
	tdt_port_destroy((uint16_t)port, name);
	rte_mempool_free(late);
	return rc;
}

/* A heap on memory the application mapped itself (shared file memory, so
 * a device process can reach it too), given to the device with
 * rte_dev_dma_map(); taken back with rte_dev_dma_unmap(). */
static int
test_external_memory(void)
{
	struct rte_eth_dev_info info;
	struct rte_mempool *mp;
	struct rte_mbuf *rx[64];
	uint64_t faults;
	char name[32];
	int fd, sock, port, rc;
	void *va;

	fd = memfd_create("tally-ext", MFD_CLOEXEC);
	TEST_ASSERT(fd >= 0 && ftruncate(fd, EXT_LEN) == 0, "");
	va = mmap(NULL, EXT_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	TEST_ASSERT(va != MAP_FAILED, "");
	close(fd);
	TEST_ASSERT_EQ(rte_malloc_heap_create("tally_ext"), 0, "");
	TEST_ASSERT_EQ(rte_malloc_heap_memory_add("tally_ext", va, EXT_LEN, NULL,
						  EXT_LEN / 4096, 4096), 0,
		       "%s", rte_strerror(rte_errno));
	sock = rte_malloc_heap_get_socket("tally_ext");
	TEST_ASSERT(sock >= 0, "");
	mp = rte_pktmbuf_pool_create("ext_pool", 4096, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, sock);
	TEST_ASSERT(mp != NULL, "%s", rte_strerror(rte_errno));
	port = tdt_port_create("", name, sizeof(name));
	TEST_ASSERT(port >= 0, "%d", port);
	TEST_ASSERT_EQ(rte_eth_dev_info_get((uint16_t)port, &info), 0, "");
	TEST_ASSERT_EQ(rte_dev_dma_map(info.device, va, (uintptr_t)va, EXT_LEN), 0,
		       "%s", rte_strerror(rte_errno));
	{
		struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mp = mp };

		TEST_ASSERT_EQ(tdt_port_setup((uint16_t)port, &pc), 0, "");
	}
	rc = traffic((uint16_t)port, mp, 1024);
	if (rc != TEST_SUCCESS)
		return rc;
	/* taken back: the Rx buffers posted there are out of reach now */
	TEST_ASSERT_EQ(rte_dev_dma_unmap(info.device, va, (uintptr_t)va, EXT_LEN), 0, "");
	TEST_ASSERT(rte_dev_dma_unmap(info.device, va, (uintptr_t)va, EXT_LEN) != 0, "twice");
	faults = tdt_xstat((uint16_t)port, "dma_faults");
	tdt_pool = mp;
	{
		struct rte_mbuf *m = tdt_mbuf_build(FRAME_LEN, 1, 1);

		TEST_ASSERT(m != NULL, "");
		tdt_pool = def_pool;
		/* sent from the unmapped heap too: a Tx fault as well */
		TEST_ASSERT_EQ(tdt_tx_all((uint16_t)port, 0, &m, 1), 1, "");
	}
	TEST_ASSERT_EQ(tdt_rx_all((uint16_t)port, 1, rx, NULL, 64, 1), 0, "nothing arrives");
	TEST_ASSERT(tdt_xstat((uint16_t)port, "dma_faults") > faults, "counted");
	tdt_port_destroy((uint16_t)port, name);
	rte_mempool_free(mp);
	TEST_ASSERT_EQ(rte_malloc_heap_memory_remove("tally_ext", va, EXT_LEN), 0,
		       "%s", rte_strerror(rte_errno));
	TEST_ASSERT_EQ(rte_malloc_heap_destroy("tally_ext"), 0, "");
	munmap(va, EXT_LEN);
	return TEST_SUCCESS;
}

static void
ext_free_nop(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

/* Memory EAL gave back is out of the device's reach: a frame whose buffer
 * lies there is a counted DMA fault, not a read of whatever comes next. */
static int
test_freed_memory_faults(void)
{
	struct rte_mbuf_ext_shared_info shinfo;
	uint64_t faults, errs;
	struct rte_mbuf *m;
	char name[32];
	uint8_t *p;
	int port, i;

	if (segments_mode)
		return TEST_SKIPPED;	/* memory reserved at start is never freed */
	port = port_up(def_pool, name, sizeof(name));
	TEST_ASSERT(port >= 0, "%d", port);
	p = rte_malloc("tally_freed", FREED_LEN, 2u << 20);
	TEST_ASSERT(p != NULL, "");
	memset(p, 0xa5, FREED_LEN);
	ev_free_lo = UINTPTR_MAX;
	ev_free_hi = 0;
	rte_free(p);
	TEST_ASSERT((uintptr_t)p >= ev_free_lo && (uintptr_t)p + 4096 <= ev_free_hi,
		    "EAL freed the pages at %p", (void *)p);
	faults = tdt_xstat((uint16_t)port, "dma_faults");
	errs = tdt_xstat((uint16_t)port, "tx_desc_errors");
	m = rte_pktmbuf_alloc(tdt_pool);
	TEST_ASSERT(m != NULL, "");
	memset(&shinfo, 0, sizeof(shinfo));
	shinfo.free_cb = ext_free_nop;
	rte_mbuf_ext_refcnt_set(&shinfo, 1);
	rte_pktmbuf_attach_extbuf(m, p + 4096, RTE_BAD_IOVA, 2048, &shinfo);
	m->data_len = FRAME_LEN;
	m->pkt_len = FRAME_LEN;
	TEST_ASSERT_EQ(tdt_tx_all((uint16_t)port, 0, &m, 1), 1, "");
	for (i = 0; i < 1000 && tdt_xstat((uint16_t)port, "dma_faults") == faults; i++) {
		rte_pmd_tally_model_step((uint16_t)port);
		rte_delay_us_sleep(1000);
	}
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)port, "dma_faults"), faults + 1, "");
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)port, "tx_desc_errors"), errs + 1, "");
	tdt_port_destroy((uint16_t)port, name);
	return TEST_SUCCESS;
}

/* More than 1,000 pages reserved at start (--segments): a port starts and
 * carries traffic over a pool that spans them. */
static int
test_many_segments(void)
{
	struct rte_mempool *big;
	unsigned long mib;
	unsigned int xlt;
	char name[32];
	int port, rc;

	if (!segments_mode)
		return TEST_SKIPPED;
	big = rte_pktmbuf_pool_create("big_pool", 512 * 1024, 256, 0,
				      RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	TEST_ASSERT(big != NULL, "%s", rte_strerror(rte_errno));
	port = port_up(big, name, sizeof(name));
	TEST_ASSERT(port >= 0, "%d", port);
	TEST_ASSERT_EQ(dma_line((uint16_t)port, &xlt, &mib), 0, "");
	TEST_ASSERT(mib >= 2000, "the device reaches %lu MiB", mib);
	printf("  device: %u translations over %lu MiB\n", xlt, mib);
	rc = traffic((uint16_t)port, big, NB_FRAMES);
	tdt_port_destroy((uint16_t)port, name);
	rte_mempool_free(big);
	return rc;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_pool_after_probe),
	TEST_CASE(test_external_memory),
	TEST_CASE(test_freed_memory_faults),
	TEST_CASE(test_many_segments),
};

/* The memory EAL has: segments, and runs contiguous in IOVA. */
static int
seg_cb(const struct rte_memseg_list *msl, const struct rte_memseg *ms, void *arg)
{
	unsigned long *c = arg;

	RTE_SET_USED(msl);
	if (c[0] != 0 && ms->iova != c[2])
		c[1]++;
	c[0]++;
	c[2] = ms->iova + ms->len;
	return 0;
}

int
main(int argc, char **argv)
{
	char iova[32] = "--iova-mode=pa", fp[64];
	char *eal[16] = { argv[0], (char *)"-l", (char *)"0", (char *)"--in-memory",
			  (char *)"--no-pci", fp, iova,
			  (char *)"--log-level=pmd.net.tally*:notice" };
	unsigned long c[3] = { 0, 0, 0 };
	int n = 8, i, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--segments") == 0)
			segments_mode = true;
		else if (strncmp(argv[i], "--iova-mode=", 12) == 0)
			snprintf(iova, sizeof(iova), "%s", argv[i]);
	}
	tmt_need_huge(segments_mode ? 2400 : 512);
	if (segments_mode) {
		eal[n++] = (char *)"-m";
		eal[n++] = (char *)"2200";	/* reserved at start: 1,100 pages */
	}
	snprintf(fp, sizeof(fp), "--file-prefix=tally-mem-%d", (int)getpid());
	if (rte_pmd_tally_model_step(RTE_MAX_ETHPORTS) != -ENODEV)
		return 1;	/* keeps the PMD linked */
	if (tdt_nic_path() != NULL)
		atexit(tdt_nic_stop_all);
	if (rte_eal_init(n, eal) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	snprintf(tdt_run_dir, sizeof(tdt_run_dir), "%s", rte_eal_get_runtime_dir());
	atexit(tdt_run_dir_remove);
	rte_mem_event_callback_register("tally_test_mem", test_mem_event, NULL);
	rte_memseg_walk(seg_cb, c);
	printf("EAL: %s, %lu segments in %lu IOVA-contiguous runs\n", iova, c[0], c[1] + 1);
	if (segments_mode && c[0] <= 1000) {
		fprintf(stderr, "only %lu segments\n", c[0]);
		return 1;
	}
	def_pool = rte_pktmbuf_pool_create("tdt_pool", TDT_NB_MBUF, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (def_pool == NULL)
		return 1;
	tdt_pool = def_pool;
	rc = tally_test_run("memory", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
