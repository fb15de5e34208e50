/* SPDX-License-Identifier: BSD-3-Clause */
/* Robustness: random register writes, descriptors, doorbells and frames
 * never crash the model, and it keeps its identity. Translation registers
 * are left alone: translations are the driver's trusted statement of its
 * memory. */
#include "tally_mt.h"
#include "tally_test.h"

static uint64_t fz_state = 0x9e3779b97f4a7c15ull;

static uint64_t
fz_next(void)
{
	fz_state ^= fz_state << 13;
	fz_state ^= fz_state >> 7;
	fz_state ^= fz_state << 17;
	return fz_state;
}

static uint64_t
fz_addr(struct mt_dev *d)
{
	uint64_t base = (uint64_t)(uintptr_t)d->arena;

	switch (fz_next() % 4) {
	case 0:
		return fz_next();
	case 1:
		return base + MT_ARENA_LEN - fz_next() % 4096;
	default:
		return base + fz_next() % MT_ARENA_LEN;
	}
}

static uint32_t
fz_off(void)
{
	uint32_t off;

	do {
		off = (uint32_t)(fz_next() % 0x2400) & ~3u;
	} while ((off >= TALLY_REG_XLT_IOVA_LO && off < TALLY_REG_RSS_KEY(0)) ||
		 off == TALLY_REG_RESET);
	return off;
}

static void
fz_step(struct mt_dev *d, struct mt_rxq *rq, struct mt_txq *tq, uint8_t *f)
{
	uint32_t i, len;

	switch (fz_next() % 6) {
	case 0:
		mt_wr(d, fz_off(), (uint32_t)fz_next());
		break;
	case 1:
		i = (uint32_t)fz_next() % rq->size;
		rq->ring[i].addr = fz_addr(d);
		rq->ring[i].buf_len = (uint16_t)fz_next();
		break;
	case 2:
		i = (uint32_t)fz_next() % tq->size;
		tq->ring[i].addr = fz_addr(d);
		tq->ring[i].len = (uint16_t)(fz_next() % 3000);
		tq->ring[i].flags = (uint16_t)fz_next();
		break;
	case 3:
		mt_wr(d, (fz_next() & 1) ? TALLY_RXQ_REG(fz_next() % 8, TALLY_Q_DOORBELL) :
		      TALLY_TXQ_REG(fz_next() % 8, TALLY_Q_DOORBELL),
		      (uint32_t)fz_next() % 64);
		break;
	case 4:
		len = (uint32_t)(fz_next() % 17000);
		for (i = 0; i < len; i += 8)
			*(uint64_t *)(void *)(f + i) = fz_next();
		if (fz_next() & 1)
			memset(f, 0xff, 6);
		tally_model_inject(d->m, f, len);
		break;
	default:
		mt_service(d);
		break;
	}
}

static int
test_fuzz(void)
{
	static uint8_t f[17024];
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint32_t i;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 5, 512, true), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 5), 0, "txq");
	mt_port(&d, TALLY_CTRL_PROMISC);
	for (i = 0; i < 200000; i++)
		fz_step(&d, &rq, &tq, f);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_SIG), TALLY_SIGNATURE, "");
	TEST_ASSERT(mt_rd(&d, TALLY_REG_FAULT_CNT) > 0, "faults were counted");
	mt_close(&d);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_fuzz),
};

TEST_MAIN("model-fuzz", cases)
