/* SPDX-License-Identifier: BSD-3-Clause */
/* Queue registers: enable/disable sampling, doorbells, completion counters. */
#include <string.h>

#include "tally_model_priv.h"

void
tally_model_queue_reset(struct tally_model *m)
{
	unsigned int i;

	for (i = 0; i < TALLY_MAX_QUEUES; i++) {
		memset(&m->rxq[i], 0, sizeof(m->rxq[i]));
		memset(&m->txq[i], 0, sizeof(m->txq[i]));
		m->rxq[i].id = i;
		m->txq[i].id = i;
		m->txq[i].is_tx = true;
	}
	m->db_en = 0;
}

/* The queue's bit in db_en: its line of the doorbell page. */
static uint32_t
tally_model_db_bit(const struct tally_model_queue *q)
{
	return 1u << (q->id + (q->is_tx ? TALLY_MAX_QUEUES : 0));
}

static uint64_t
tally_model_q_addr(struct tally_model *m, struct tally_model_queue *q, uint32_t lo)
{
	return (uint64_t)tally_model_bar_rd(m, tally_model_q_reg(q, lo)) |
	       (uint64_t)tally_model_bar_rd(m, tally_model_q_reg(q, lo + 4)) << 32;
}

/* Sample the ring configuration; 0 or -EINVAL after a BAD_QUEUE fault. */
static int
tally_model_queue_enable(struct tally_model *m, struct tally_model_queue *q)
{
	uint32_t log2 = tally_model_bar_rd(m, tally_model_q_reg(q, TALLY_Q_SIZE));
	uint64_t ring = tally_model_q_addr(m, q, TALLY_Q_RING_LO);
	uint64_t cq = tally_model_q_addr(m, q, TALLY_Q_CQ_LO);
	size_t cqe = q->is_tx ? sizeof(struct tally_tx_cqe) : sizeof(struct tally_rx_cqe);
	size_t n;

	if (log2 < TALLY_MODEL_RING_MIN_LOG2 || log2 > TALLY_MODEL_RING_MAX_LOG2) {
		tally_model_fault(m, TALLY_FAULT_BAD_QUEUE, log2);
		return -EINVAL;
	}
	n = (size_t)1 << log2;
	if ((ring & 15) != 0 || (cq & (cqe - 1)) != 0) {
		tally_model_fault(m, TALLY_FAULT_BAD_QUEUE, (ring & 15) ? ring : cq);
		return -EINVAL;
	}
	/* the host pointers too: a translation must keep the alignment */
	q->ring = tally_model_dma_lookup(m, ring, n * 16);
	if (q->ring == NULL || ((uintptr_t)q->ring & 15) != 0) {
		tally_model_fault(m, TALLY_FAULT_BAD_QUEUE, ring);
		return -EINVAL;
	}
	q->cq = tally_model_dma_lookup(m, cq, n * cqe);
	if (q->cq == NULL || ((uintptr_t)q->cq & (cqe - 1)) != 0) {
		tally_model_fault(m, TALLY_FAULT_BAD_QUEUE, cq);
		return -EINVAL;
	}
	q->ring_iova = ring;
	q->cq_iova = cq;
	q->log2 = log2;
	q->mask = (uint32_t)n - 1;
	q->head = 0;
	q->prod = 0;
	q->tx_skip = false;
	q->tx_sw_own = false;
	tally_model_bar_wr(m, tally_model_q_reg(q, TALLY_Q_HEAD), 0);
	q->en = true;
	return 0;
}

static void
tally_model_queue_ctrl(struct tally_model *m, struct tally_model_queue *q,
		       uint32_t val)
{
	if (!(val & TALLY_Q_CTRL_EN)) {
		q->en = false;
		m->db_en &= ~tally_model_db_bit(q);
		return;
	}
	if (q->en)
		return;		/* other bits changed while running */
	if (tally_model_queue_enable(m, q) < 0) {
		tally_model_bar_wr(m, tally_model_q_reg(q, TALLY_Q_CTRL),
				   val & ~TALLY_Q_CTRL_EN);
		return;
	}
	/* the doorbell page: 0 is the value last taken */
	q->db_seen = 0;
	if (m->cfg.posted)
		m->db_en |= tally_model_db_bit(q);
}

void
tally_model_queue_doorbell(struct tally_model *m, struct tally_model_queue *q,
			   uint32_t val, bool now)
{
	if (q->en && val - q->head > q->mask + 1) {
		/* more than a ring ahead of the device: ignored */
		tally_model_fault(m, TALLY_FAULT_BAD_QUEUE, val);
		return;
	}
	q->prod = val;
	if (!q->is_tx)
		return;
	m->tx_pending |= 1u << q->id;	/* for the next step */
	if (now)
		tally_model_tx_queue(m, q);
}

void
tally_model_queue_write(struct tally_model *m, struct tally_model_queue *q,
			uint32_t r, uint32_t val)
{
	switch (r) {
	case TALLY_Q_CTRL:
		tally_model_queue_ctrl(m, q, val);
		break;
	case TALLY_Q_DOORBELL:
		tally_model_queue_doorbell(m, q, val,
					   m->cfg.mode == TALLY_MODEL_INLINE && !m->cfg.defer_tx);
		break;
	case TALLY_Q_CCNT:
		if ((val & TALLY_Q_CCNT_EN) &&
		    TALLY_FIELD_GET(val, TALLY_Q_CCNT_IDX_M) >= m->cfg.comp_counters)
			tally_model_fault(m, TALLY_FAULT_BAD_QUEUE,
					  TALLY_FIELD_GET(val, TALLY_Q_CCNT_IDX_M));
		break;
	default:
		break;	/* RING/CQ/SIZE take effect at enable */
	}
}
