/* SPDX-License-Identifier: BSD-3-Clause */
/* DMA translation: bad Rx/Tx addresses and accesses past a translation are
 * counted faults, error completions, and the queue keeps working; the
 * translation table's commands against a page-by-page reference. */
#include <stdlib.h>
#include <sys/mman.h>

#include "tally_model_dev.h"
#include "tally_mt.h"
#include "tally_test.h"

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0 };

static int
test_bad_rx_buffer(void)
{
	static uint8_t outside[4096], f[256], r[2048];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	uint32_t slot;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	/* descriptor 0 points outside every region, descriptor 1 at address 0 */
	rq.ring[0].addr = (uint64_t)(uintptr_t)outside;
	rq.ring[1].addr = 0;
	mt_udp_frame(f, sizeof(f), own_mac, 1, 2, 3, 4, 5);
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, sizeof(f)), 0, "");
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, sizeof(f)), 0, "");
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, sizeof(f)), 0, "");
	TEST_ASSERT_EQ(outside[0], 0, "nothing written outside");
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT(info.flags & TALLY_RXC_F_ERR, "");
	TEST_ASSERT_EQ(info.err, TALLY_RXC_ERR_DMA, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), (int)sizeof(f), "continues");
	TEST_ASSERT(memcmp(r, f, sizeof(f)) == 0, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 2, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_DMA, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_LO), 0, "last address");
	TEST_ASSERT(mt_rd(&d, TALLY_REG_STATUS) & TALLY_STATUS_FAULT, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 2, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_RXQ_REG(0, TALLY_Q_STAT_ERRORS)), 2, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 1, "");
	/* zero buf_len is a descriptor error */
	slot = rq.cons & (rq.size - 1);
	rq.ring[slot].buf_len = 0;
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT_EQ(info.err, TALLY_RXC_ERR_DESC, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DESC_FAULTS), 1, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_bad_tx_address(void)
{
	static uint8_t outside[256], f[256], r[2048];
	struct tally_tx_desc dv[2];
	struct tally_tx_cqe c;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint8_t *in;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 4), 0, "txq");
	mt_port(&d, 0);
	in = mt_alloc(&d, 256);
	memset(dv, 0, sizeof(dv));
	dv[0].addr = (uint64_t)(uintptr_t)in;
	dv[0].len = 100;
	dv[1].addr = (uint64_t)(uintptr_t)outside;
	dv[1].len = 100;
	dv[1].flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, dv, 2), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "status on every segment");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "");
	dv[0].addr = ~0ull - 10;	/* wraps the address space */
	dv[0].flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, dv, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 2, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 0, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(0, TALLY_Q_STAT_ERRORS)), 2, "");
	/* the queue continues */
	mt_udp_frame(f, sizeof(f), own_mac, 1, 2, 3, 4, 5);
	TEST_ASSERT_EQ(mt_tx_send(&tq, f, sizeof(f), 2), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, NULL), 2, "");
	mt_service(&d);
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), (int)sizeof(f), "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_region_straddle(void)
{
	static uint8_t f[512], r[2048];
	struct tally_tx_desc dv;
	struct tally_tx_cqe c;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint64_t end, start;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 4), 0, "txq");
	mt_port(&d, 0);
	end = (uint64_t)(uintptr_t)d.arena + MT_ARENA_LEN;
	/* Tx segment whose last 10 bytes lie past the region */
	memset(&dv, 0, sizeof(dv));
	dv.addr = end - 90;
	dv.len = 100;
	dv.flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, &dv, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_LO), (uint32_t)(end - 90), "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_HI), (uint32_t)((end - 90) >> 32), "");
	/* exactly up to the end is fine */
	dv.addr = end - 100;
	mt_udp_frame(d.arena + MT_ARENA_LEN - 100, 100, own_mac, 1, 2, 3, 4, 5);
	TEST_ASSERT_EQ(mt_tx_post(&tq, &dv, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_OK, "");
	/* Rx buffer straddling the end: 512-byte frame into [end-256, end+256) */
	mt_service(&d);
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), 100, "");
	rq.ring[rq.cons & (rq.size - 1)].addr = end - 256;
	mt_udp_frame(f, sizeof(f), own_mac, 1, 2, 3, 4, 5);
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT_EQ(info.err, TALLY_RXC_ERR_DMA, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 2, "");
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), (int)sizeof(f), "continues");
	/* and the start: a segment and a buffer that begin below the region,
	 * with the region the last translation used */
	start = (uint64_t)(uintptr_t)d.arena;
	dv.addr = start - 10;
	TEST_ASSERT_EQ(mt_tx_post(&tq, &dv, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_LO), (uint32_t)(start - 10), "");
	rq.ring[rq.cons & (rq.size - 1)].addr = start - 256;
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT_EQ(info.err, TALLY_RXC_ERR_DMA, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_LO), (uint32_t)(start - 256), "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 4, "");
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), (int)sizeof(f), "continues");
	mt_close(&d);
	return TEST_SUCCESS;
}

#define PG	TALLY_XLT_PAGE

static int
test_xlt_commands(void)
{
	struct mt_dev d;
	uint8_t *b;
	uint64_t base, far = 0x7100000000ull;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	b = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TEST_ASSERT(b != MAP_FAILED, "");
	base = (uint64_t)(uintptr_t)b;
	TEST_ASSERT(tally_model_dma(d.m, base, 16) == NULL, "not mapped");
	/* malformed commands change nothing */
	TEST_ASSERT_EQ(mt_map(&d, base + 1, base, PG), TALLY_XLT_EINVAL, "unaligned iova");
	TEST_ASSERT_EQ(mt_map(&d, base, base + 8, PG), TALLY_XLT_EINVAL, "unaligned bus");
	TEST_ASSERT_EQ(mt_map(&d, base, base, PG + 1), TALLY_XLT_EINVAL, "partial page");
	TEST_ASSERT_EQ(mt_map(&d, base, base, 0), TALLY_XLT_EINVAL, "empty");
	TEST_ASSERT_EQ(mt_map(&d, ~0ull - PG + 1, base, 2 * PG), TALLY_XLT_EINVAL, "wraps");
	TEST_ASSERT_EQ(mt_xlt(&d, 7, base, base, PG), TALLY_XLT_EINVAL, "bad command");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), 1, "the arena only");
	/* pages 0 and 2, then 1: the three join into one translation */
	TEST_ASSERT_EQ(mt_map(&d, base, base, PG), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(mt_map(&d, base + 2 * PG, base + 2 * PG, PG), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), 3, "");
	TEST_ASSERT(tally_model_dma(d.m, base + PG - 8, 16) == NULL, "a hole between");
	TEST_ASSERT_EQ(mt_map(&d, base + PG, base + PG, PG), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), 2, "joined");
	TEST_ASSERT(tally_model_dma(d.m, base, 3 * PG) == b, "three pages, one pointer");
	TEST_ASSERT(tally_model_dma(d.m, base + 3 * PG - 1, 2) == NULL, "one past");
	TEST_ASSERT_EQ(mt_map(&d, base + PG, base, PG), TALLY_XLT_EEXIST, "overlap");
	TEST_ASSERT_EQ(mt_map(&d, base - PG, base, 2 * PG), TALLY_XLT_EEXIST,
		       "overlap at the end");
	/* another IOVA for the same memory: the device's address is the driver's
	 * choice */
	TEST_ASSERT_EQ(mt_map(&d, far, base + 3 * PG, PG), TALLY_XLT_OK, "");
	b[3 * PG + 5] = 0x5a;
	TEST_ASSERT(tally_model_dma(d.m, far + 5, 1) == b + 3 * PG + 5, "");
	/* unmap the middle page: split in two, its accesses fault */
	TEST_ASSERT_EQ(mt_unmap(&d, base + PG, PG), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), 4, "split");
	TEST_ASSERT(tally_model_dma(d.m, base + PG, 1) == NULL, "gone");
	TEST_ASSERT(tally_model_dma(d.m, base, PG) == b, "stays");
	TEST_ASSERT(tally_model_dma(d.m, base + 2 * PG, PG) == b + 2 * PG, "stays");
	TEST_ASSERT_EQ(mt_unmap(&d, base + PG, PG), TALLY_XLT_ENOENT, "twice");
	/* one unmap over several translations and holes */
	TEST_ASSERT_EQ(mt_unmap(&d, base, 3 * PG), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), 2, "");
	TEST_ASSERT_EQ(mt_xlt(&d, TALLY_XLT_CMD_CLEAR, 0, 0, 0), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), 0, "");
	TEST_ASSERT(tally_model_dma(d.m, far, 1) == NULL, "cleared");
	TEST_ASSERT(tally_model_dma(d.m, (uintptr_t)d.arena, 1) == NULL, "cleared");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_DMA, "");
	munmap(b, 4 * PG);
	mt_close(&d);
	return TEST_SUCCESS;
}

/* Memory unmapped under a running queue and under posted buffers: the queue
 * stops (BAD_QUEUE fault), a buffer there is a DMA fault, nothing is
 * written there. */
static int
test_xlt_unmap_in_use(void)
{
	static uint8_t f[128], r[2048];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	uint8_t *buf;
	uint64_t arena;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	arena = (uint64_t)(uintptr_t)d.arena;
	mt_udp_frame(f, sizeof(f), own_mac, 1, 2, 3, 4, 5);
	/* a buffer in a page that goes away: the memory EAL freed */
	buf = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TEST_ASSERT(buf != MAP_FAILED, "");
	TEST_ASSERT_EQ(mt_map(&d, (uintptr_t)buf, (uintptr_t)buf, PG), TALLY_XLT_OK, "");
	rq.ring[rq.cons & (rq.size - 1)].addr = (uintptr_t)buf;
	TEST_ASSERT_EQ(mt_unmap(&d, (uintptr_t)buf, PG), TALLY_XLT_OK, "");
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT_EQ(info.err, TALLY_RXC_ERR_DMA, "");
	TEST_ASSERT_EQ(buf[0], 0, "nothing written there");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 1, "");
	munmap(buf, PG);
	/* the rings' memory goes: the queue stops, frames are missed */
	TEST_ASSERT_EQ(mt_unmap(&d, arena, MT_ARENA_LEN), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_RXQ_REG(0, TALLY_Q_CTRL)) & TALLY_Q_CTRL_EN, 0,
		       "queue disabled");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_QUEUE, "");
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 1, "");
	/* mapped again, the queue can be enabled again */
	TEST_ASSERT_EQ(mt_map(&d, arena, arena, MT_ARENA_LEN), TALLY_XLT_OK, "");
	mt_wr(&d, TALLY_RXQ_REG(0, TALLY_Q_CTRL), TALLY_Q_CTRL_EN);
	TEST_ASSERT(mt_rd(&d, TALLY_RXQ_REG(0, TALLY_Q_CTRL)) & TALLY_Q_CTRL_EN, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* A bus that is not this process's address space: bus addresses are offsets
 * into one buffer; the hook sees every map and every unmapped piece. */
struct bus_rec {
	uint8_t *mem;
	uint64_t len;
	uint64_t mapped;	/* bytes handed out, minus those given back */
	unsigned int maps, unmaps;
};

static void *
bus_map_off(void *arg, uint64_t iova, uint64_t bus, uint64_t len)
{
	struct bus_rec *b = arg;

	(void)iova;
	if (bus >= b->len || len > b->len - bus)
		return NULL;
	b->maps++;
	b->mapped += len;
	return b->mem + bus;
}

static void
bus_unmap_off(void *arg, void *host, uint64_t len)
{
	struct bus_rec *b = arg;

	if ((uint8_t *)host < b->mem || (uint8_t *)host + len > b->mem + b->len)
		abort();	/* never a range it did not hand out */
	b->unmaps++;
	b->mapped -= len;
}

static int
test_xlt_bus_hook(void)
{
	struct tally_model_config cfg;
	struct bus_rec b = { .len = 64 * PG };
	struct mt_dev d;
	uint64_t io = 0x10000000ull;

	b.mem = mmap(NULL, b.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TEST_ASSERT(b.mem != MAP_FAILED, "");
	mt_config(&cfg);
	cfg.bus_map = bus_map_off;
	cfg.bus_unmap = bus_unmap_off;
	cfg.bus_arg = &b;
	/* mt_open maps its arena at bus = its VA: not on this bus */
	TEST_ASSERT_EQ(mt_open(&d, &cfg), -EIO, "EBUS for the arena");
	TEST_ASSERT_EQ(tally_model_create(&cfg, &d.m, NULL, 0), 0, "");
	tally_model_io(d.m, &d.io);
	TEST_ASSERT_EQ(mt_map(&d, io, 60 * PG, 8 * PG), TALLY_XLT_EBUS, "past the bus");
	TEST_ASSERT_EQ(mt_map(&d, io, 8 * PG, 8 * PG), TALLY_XLT_OK, "");
	TEST_ASSERT(tally_model_dma(d.m, io + 3, 5) == b.mem + 8 * PG + 3, "");
	TEST_ASSERT_EQ(mt_unmap(&d, io + 2 * PG, 2 * PG), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(b.unmaps, 1, "the middle given back");
	TEST_ASSERT_U64_EQ(b.mapped, 6 * PG, "");
	TEST_ASSERT(tally_model_dma(d.m, io + 4 * PG, PG) == b.mem + 12 * PG, "");
	mt_wr(&d, TALLY_REG_RESET, TALLY_RESET_MAGIC);
	TEST_ASSERT_U64_EQ(b.mapped, 0, "reset gives everything back");
	TEST_ASSERT_EQ(mt_map(&d, io, 0, 4 * PG), TALLY_XLT_OK, "");
	tally_model_destroy(d.m);
	TEST_ASSERT_U64_EQ(b.mapped, 0, "destroy too");
	munmap(b.mem, b.len);
	return TEST_SUCCESS;
}

/* A full table: XLT_MAX translations that cannot join. One more insert is
 * ENOSPC, a MAP that joins two of them still works, an UNMAP that would
 * split one is ENOSPC and changes nothing, one that takes a translation
 * whole works. Never an access past the table (ASan runs this). */
static int
test_xlt_full(void)
{
	struct mt_dev d;
	uint32_t max, i;
	const uint64_t io = 0x100000000000ull;	/* pages at io + 2 i PG */

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	max = mt_rd(&d, TALLY_REG_XLT_MAX);
	TEST_ASSERT_EQ(mt_xlt(&d, TALLY_XLT_CMD_CLEAR, 0, 0, 0), TALLY_XLT_OK, "");
	for (i = 0; i < max; i++)
		if (mt_map(&d, io + 2ull * i * PG, io + 2ull * i * PG, PG) != TALLY_XLT_OK)
			break;
	TEST_ASSERT_EQ(i, max, "the table holds XLT_MAX");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), max, "");
	TEST_ASSERT_EQ(mt_map(&d, io + 2ull * max * PG + PG, io, PG), TALLY_XLT_ENOSPC,
		       "one more");
	/* the gap between translations 0 and 1, continuing both: they join */
	TEST_ASSERT_EQ(mt_map(&d, io + PG, io + PG, PG), TALLY_XLT_OK, "a join takes no room");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), max - 1, "");
	TEST_ASSERT_EQ(mt_map(&d, io + 2ull * max * PG + PG, io, PG), TALLY_XLT_OK,
		       "room again");
	TEST_ASSERT_EQ(mt_unmap(&d, io + PG, PG), TALLY_XLT_ENOSPC, "a split needs room");
	TEST_ASSERT(tally_model_dma(d.m, io, 3 * PG) != NULL, "unchanged");
	TEST_ASSERT_EQ(mt_unmap(&d, io, 3 * PG), TALLY_XLT_OK, "whole");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), max - 1, "");
	TEST_ASSERT_EQ(mt_unmap(&d, io + 2ull * 5 * PG, PG), TALLY_XLT_OK, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), max - 2, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* Random MAP / UNMAP / CLEAR against a page-by-page reference: every page's
 * translation and every access within a joined run agree. */
#define RND_PAGES	256

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int
test_xlt_random(void)
{
	static int64_t ref[RND_PAGES];	/* bus page of each IOVA page, -1 none */
	const uint64_t io = 0x40000000ull;
	struct mt_dev d;
	uint8_t *mem;
	unsigned int step, i, n, p;
	uint64_t bus;
	uint32_t st;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	mem = mmap(NULL, RND_PAGES * PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TEST_ASSERT(mem != MAP_FAILED, "");
	for (i = 0; i < RND_PAGES; i++)
		ref[i] = -1;
	for (step = 0; step < 4000; step++) {
		p = (unsigned int)(rnd() % RND_PAGES);
		n = 1 + (unsigned int)(rnd() % 8);
		if (p + n > RND_PAGES)
			n = RND_PAGES - p;
		switch (rnd() % 16) {
		case 0:
			TEST_ASSERT_EQ(mt_xlt(&d, TALLY_XLT_CMD_CLEAR, 0, 0, 0), TALLY_XLT_OK, "");
			for (i = 0; i < RND_PAGES; i++)
				ref[i] = -1;
			break;
		case 1: case 2: case 3: case 4: case 5: {
			unsigned int any = 0;

			st = mt_unmap(&d, io + (uint64_t)p * PG, (uint64_t)n * PG);
			for (i = p; i < p + n; i++) {
				any |= ref[i] >= 0;
				ref[i] = -1;
			}
			TEST_ASSERT_EQ(st, any ? TALLY_XLT_OK : TALLY_XLT_ENOENT, "step %u", step);
			break;
		}
		default: {
			unsigned int taken = 0;
			/* bus: the same pages (joinable) or scattered ones */
			uint64_t bp = rnd() % 2 ? p : rnd() % (RND_PAGES - n + 1);

			bus = (uint64_t)(uintptr_t)mem + bp * PG;
			for (i = p; i < p + n; i++)
				taken |= ref[i] >= 0;
			st = mt_map(&d, io + (uint64_t)p * PG, bus, (uint64_t)n * PG);
			TEST_ASSERT_EQ(st, taken ? TALLY_XLT_EEXIST : TALLY_XLT_OK, "step %u", step);
			if (!taken)
				for (i = 0; i < n; i++)
					ref[p + i] = (int64_t)(bp + i);
			break;
		}
		}
		/* every page, and the longest access each page starts */
		for (i = 0; i < RND_PAGES; i++) {
			uint8_t *h = tally_model_dma(d.m, io + (uint64_t)i * PG + 7, 9);
			unsigned int k = i + 1;

			if (ref[i] < 0) {
				TEST_ASSERT(h == NULL, "step %u page %u: mapped", step, i);
				continue;
			}
			TEST_ASSERT(h == mem + ref[i] * PG + 7, "step %u page %u", step, i);
			while (k < RND_PAGES && ref[k] == ref[k - 1] + 1)
				k++;
			TEST_ASSERT(tally_model_dma(d.m, io + (uint64_t)i * PG,
							   (size_t)(k - i) * PG) ==
				    mem + ref[i] * PG, "step %u run %u..%u", step, i, k);
			TEST_ASSERT(k == RND_PAGES ||
				    tally_model_dma(d.m, io + (uint64_t)i * PG,
							   (size_t)(k - i) * PG + 1) == NULL,
				    "step %u: past the run", step);
		}
	}
	munmap(mem, RND_PAGES * PG);
	mt_close(&d);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_bad_rx_buffer),
	TEST_CASE(test_bad_tx_address),
	TEST_CASE(test_region_straddle),
	TEST_CASE(test_xlt_commands),
	TEST_CASE(test_xlt_unmap_in_use),
	TEST_CASE(test_xlt_bus_hook),
	TEST_CASE(test_xlt_full),
	TEST_CASE(test_xlt_random),
};

TEST_MAIN("model-dma", cases)
