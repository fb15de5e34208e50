/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Register decoder: access type of every offset (RO/RW/WO/W1C), identity
 * values, reset, and the write side effects of the global registers.
 * Queue registers are handed to tally_model_queue.c.
 */
#include <string.h>

#include "tally_model_priv.h"

enum tally_model_acc {
	TALLY_MODEL_ACC_NONE,	/* unknown offset */
	TALLY_MODEL_ACC_RO,
	TALLY_MODEL_ACC_RW,
	TALLY_MODEL_ACC_WO,
	TALLY_MODEL_ACC_W1C,
};

static enum tally_model_acc
tally_model_queue_acc(uint32_t r)
{
	switch (r) {
	case TALLY_Q_RING_LO:
	case TALLY_Q_RING_HI:
	case TALLY_Q_CQ_LO:
	case TALLY_Q_CQ_HI:
	case TALLY_Q_SIZE:
	case TALLY_Q_CTRL:
	case TALLY_Q_CCNT:
		return TALLY_MODEL_ACC_RW;
	case TALLY_Q_DOORBELL:
		return TALLY_MODEL_ACC_WO;
	case TALLY_Q_HEAD:
		return TALLY_MODEL_ACC_RO;
	default:
		if (r >= TALLY_Q_STAT_PKTS && r < TALLY_Q_STAT_ERRORS + 8)
			return TALLY_MODEL_ACC_RO;
		return TALLY_MODEL_ACC_NONE;
	}
}

static enum tally_model_acc
tally_model_global_acc(uint32_t off)
{
	switch (off) {
	case TALLY_REG_RESET:
	case TALLY_REG_CTRL:
	case TALLY_REG_MTU:
	case TALLY_REG_RSS_HF:
	case TALLY_REG_STEER_ROOT_LO:
	case TALLY_REG_STEER_ROOT_HI:
	case TALLY_REG_STEER_CTRL:
	case TALLY_REG_STEER_MISS_QUEUE:
	case TALLY_REG_CNT_MIRROR_LO:
	case TALLY_REG_CNT_MIRROR_HI:
	case TALLY_REG_CNT_MIRROR_CTRL:
	case TALLY_REG_CCNT_IDX:
	case TALLY_REG_CCNT_VAL_LO:
	case TALLY_REG_CCNT_VAL_HI:
	case TALLY_REG_XLT_IOVA_LO:
	case TALLY_REG_XLT_IOVA_HI:
	case TALLY_REG_XLT_BUS_LO:
	case TALLY_REG_XLT_BUS_HI:
	case TALLY_REG_XLT_LEN_LO:
	case TALLY_REG_XLT_LEN_HI:
		return TALLY_MODEL_ACC_RW;
	case TALLY_REG_STATUS:
	case TALLY_REG_FAULT_CNT:
	case TALLY_REG_FAULT_ADDR_LO:
	case TALLY_REG_FAULT_ADDR_HI:
	case TALLY_REG_FENCE_DONE:
	case TALLY_REG_XLT_STATUS:
	case TALLY_REG_XLT_COUNT:
		return TALLY_MODEL_ACC_RO;
	case TALLY_REG_FAULT_CAUSE:
		return TALLY_MODEL_ACC_W1C;
	case TALLY_REG_FENCE:
	case TALLY_REG_CCNT_CMD:
	case TALLY_REG_XLT_CMD:
		return TALLY_MODEL_ACC_WO;
	default:
		break;
	}
	if (off <= TALLY_REG_PORT_STRIDE)
		return TALLY_MODEL_ACC_RO;
	if (off >= TALLY_REG_MAC_FILTER_LO(0) &&
	    off < TALLY_REG_MAC_FILTER_LO(TALLY_MAC_FILTERS))
		return TALLY_MODEL_ACC_RW;
	if (off >= TALLY_REG_MC_FILTER_LO(0) &&
	    off < TALLY_REG_MC_FILTER_LO(TALLY_MC_FILTERS))
		return TALLY_MODEL_ACC_RW;
	if (off >= TALLY_REG_RSS_KEY(0) &&
	    off < TALLY_REG_RSS_KEY(TALLY_RSS_KEY_LEN / 4))
		return TALLY_MODEL_ACC_RW;
	if (off >= TALLY_REG_RSS_RETA(0) &&
	    off < TALLY_REG_RSS_RETA(TALLY_RSS_RETA_SIZE / 4))
		return TALLY_MODEL_ACC_RW;
	if (off >= TALLY_STATS_OFF && off < TALLY_REG_STAT(TALLY_STAT_NUM))
		return TALLY_MODEL_ACC_RO;
	return TALLY_MODEL_ACC_NONE;
}

static struct tally_model_queue *
tally_model_queue_of(struct tally_model *m, uint32_t off, uint32_t *r)
{
	uint32_t qi;

	if (off >= TALLY_RXQ_BASE && off < TALLY_TXQ_BASE) {
		qi = (off - TALLY_RXQ_BASE) / TALLY_Q_STRIDE;
		*r = (off - TALLY_RXQ_BASE) % TALLY_Q_STRIDE;
		return qi < m->cfg.rx_queues ? &m->rxq[qi] : NULL;
	}
	if (off >= TALLY_TXQ_BASE && off < TALLY_MODEL_REGFILE_LEN) {
		qi = (off - TALLY_TXQ_BASE) / TALLY_Q_STRIDE;
		*r = (off - TALLY_TXQ_BASE) % TALLY_Q_STRIDE;
		return qi < m->cfg.tx_queues ? &m->txq[qi] : NULL;
	}
	return NULL;
}

static enum tally_model_acc
tally_model_acc(struct tally_model *m, uint32_t off)
{
	uint32_t r;

	if ((off & 3) != 0 || off >= m->bar_len)
		return TALLY_MODEL_ACC_NONE;
	if (off >= TALLY_MODEL_REGFILE_LEN)
		return TALLY_MODEL_ACC_RO;	/* counter banks */
	if (off >= TALLY_REG_SW_ROOT_LO && off <= TALLY_REG_SW_CTRL)	/* CAPS.SWITCH */
		return m->port == 0 ? TALLY_MODEL_ACC_RW : TALLY_MODEL_ACC_NONE;
	if (off >= TALLY_RXQ_BASE) {
		if (tally_model_queue_of(m, off, &r) == NULL)
			return TALLY_MODEL_ACC_NONE;
		return tally_model_queue_acc(r);
	}
	return tally_model_global_acc(off);
}

void
tally_model_regs_init(struct tally_model *m)
{
	const uint8_t *mac = m->cfg.mac;

	tally_model_bar_wr(m, TALLY_REG_SIG, TALLY_SIGNATURE);
	tally_model_bar_wr(m, TALLY_REG_VERSION,
			   TALLY_FIELD_PREP(TALLY_VERSION_MAJOR_M, TALLY_SPEC_MAJOR) |
			   TALLY_FIELD_PREP(TALLY_VERSION_MINOR_M, TALLY_SPEC_MINOR));
	tally_model_bar_wr(m, TALLY_REG_CAPS, TALLY_MODEL_CAPS |
			   (m->cfg.posted ? TALLY_CAP_POSTED | TALLY_CAP_DB_PAGE : 0) |
			   (m->port == 0 ? TALLY_CAP_SWITCH : 0));
	/* a port's window: what its register file, mailbox and banks use */
	tally_model_bar_wr(m, TALLY_REG_BAR_SIZE, (uint32_t)m->bar_len);
	tally_model_bar_wr(m, TALLY_REG_PORT,
			   TALLY_FIELD_PREP(TALLY_PORT_INDEX_M, m->port) |
			   TALLY_FIELD_PREP(TALLY_PORT_COUNT_M, m->sw->n));
	tally_model_bar_wr(m, TALLY_REG_PORT_STRIDE, (uint32_t)m->sw->stride);
	tally_model_bar_wr(m, TALLY_REG_QUEUES,
			   TALLY_FIELD_PREP(TALLY_QUEUES_RX_M, m->cfg.rx_queues) |
			   TALLY_FIELD_PREP(TALLY_QUEUES_TX_M, m->cfg.tx_queues));
	tally_model_bar_wr(m, TALLY_REG_RING_LIMITS,
			   TALLY_FIELD_PREP(TALLY_RING_MIN_LOG2_M, TALLY_MODEL_RING_MIN_LOG2) |
			   TALLY_FIELD_PREP(TALLY_RING_MAX_LOG2_M, TALLY_MODEL_RING_MAX_LOG2));
	tally_model_bar_wr(m, TALLY_REG_CNT_NUM, m->cfg.counters);
	tally_model_bar_wr(m, TALLY_REG_CNT_OFF, m->cnt_off);
	tally_model_bar_wr(m, TALLY_REG_CCNT_NUM, m->cfg.comp_counters);
	tally_model_bar_wr(m, TALLY_REG_CCNT_OFF, m->ccnt_off);
	tally_model_bar_wr(m, TALLY_REG_MAX_FRAME, m->cfg.max_frame);
	tally_model_bar_wr(m, TALLY_REG_XLT_MAX, TALLY_MODEL_XLT_MAX);
	tally_model_bar_wr(m, TALLY_REG_MAC_LO, (uint32_t)mac[0] | (uint32_t)mac[1] << 8 |
			   (uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24);
	tally_model_bar_wr(m, TALLY_REG_MAC_HI, (uint32_t)mac[4] | (uint32_t)mac[5] << 8);
	tally_model_reset(m);
}

/* The address of the entry whose LO register is at lo_off (HI follows). */
static void
tally_model_mac_entry(const struct tally_model *m, uint32_t lo_off, uint8_t mac[6])
{
	uint32_t lo = tally_model_bar_rd(m, lo_off);
	uint32_t hi = tally_model_bar_rd(m, lo_off + 4);

	mac[0] = (uint8_t)lo;
	mac[1] = (uint8_t)(lo >> 8);
	mac[2] = (uint8_t)(lo >> 16);
	mac[3] = (uint8_t)(lo >> 24);
	mac[4] = (uint8_t)hi;
	mac[5] = (uint8_t)(hi >> 8);
}

/* Rebuild the Rx filter's copy of the unicast and multicast filter tables.
 * Lock held. */
static void
tally_model_mac_sync(struct tally_model *m)
{
	unsigned int i;

	m->mac_prim_valid = (tally_model_bar_rd(m, TALLY_REG_MAC_FILTER_HI(0)) &
			     TALLY_MAC_FILTER_VALID) != 0;
	tally_model_mac_entry(m, TALLY_REG_MAC_FILTER_LO(0), m->mac_prim);
	m->mac_nextra = 0;
	for (i = 1; i < TALLY_MAC_FILTERS; i++)
		if (tally_model_bar_rd(m, TALLY_REG_MAC_FILTER_HI(i)) & TALLY_MAC_FILTER_VALID)
			tally_model_mac_entry(m, TALLY_REG_MAC_FILTER_LO(i),
					      m->mac_extra[m->mac_nextra++]);
	for (i = 0; i < TALLY_MC_FILTERS; i++)
		if (tally_model_bar_rd(m, TALLY_REG_MC_FILTER_HI(i)) & TALLY_MAC_FILTER_VALID)
			tally_model_mac_entry(m, TALLY_REG_MC_FILTER_LO(i),
					      m->mac_extra[m->mac_nextra++]);
}

void
tally_model_link_sync(struct tally_model *m)
{
	uint32_t st = tally_model_bar_rd(m, TALLY_REG_STATUS);

	if ((tally_model_bar_rd(m, TALLY_REG_CTRL) & TALLY_CTRL_LINK_DOWN) || !m->carrier)
		st &= ~TALLY_STATUS_LINK_UP;
	else
		st |= TALLY_STATUS_LINK_UP;
	tally_model_bar_wr(m, TALLY_REG_STATUS, st);
}

void
tally_model_carrier_poll(struct tally_model *m, bool force)
{
	uint64_t now;
	bool c;

	if (m->wire == NULL || m->wire->carrier == NULL)
		return;
	now = tally_time_ns();
	if (!force && now - m->carrier_ns < TALLY_MODEL_CARRIER_NS)
		return;
	m->carrier_ns = now;
	c = m->wire->carrier(m);
	if (c == m->carrier)
		return;
	m->carrier = c;
	tally_model_link_sync(m);
}

/* Entry 0 <- the factory MAC, valid; the others are already zero. */
static void
tally_model_mac_reset(struct tally_model *m)
{
	uint32_t lo = tally_model_bar_rd(m, TALLY_REG_MAC_LO);
	uint32_t hi = (tally_model_bar_rd(m, TALLY_REG_MAC_HI) & TALLY_MAC_FILTER_BYTES_M) |
		      TALLY_MAC_FILTER_VALID;

	tally_model_bar_wr(m, TALLY_REG_MAC_FILTER_LO(0), lo);
	tally_model_bar_wr(m, TALLY_REG_MAC_FILTER_HI(0), hi);
	m->wr[TALLY_REG_MAC_FILTER_LO(0) / 4] = lo;
	m->wr[TALLY_REG_MAC_FILTER_HI(0) / 4] = hi;
	tally_model_mac_sync(m);
}

/* Everything but the identity block and the mailbox returns to its default
 * (port 0's SW_ROOT and SW_CTRL too, and the switch's cache with its own:
 * tally_model_cls_invalidate()). Other ports are not touched. Lock held. */
void
tally_model_reset(struct tally_model *m)
{
	memset(m->bar + TALLY_REG_RESET, 0, TALLY_MBOX_OFF - TALLY_REG_RESET);
	memset(m->bar + TALLY_MBOX_OFF + TALLY_MBOX_LEN, 0,
	       m->bar_len - TALLY_MBOX_OFF - TALLY_MBOX_LEN);
	memset(&m->wr[TALLY_REG_RESET / 4], 0,
	       sizeof(m->wr) - TALLY_REG_RESET / 4 * sizeof(m->wr[0]));
	tally_model_queue_reset(m);
	tally_model_xlt_clear(m);	/* empties the TLB and the classification cache */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	tally_model_bar_wr(m, TALLY_REG_MTU, TALLY_MODEL_MTU_DEFAULT);
	m->wr[TALLY_REG_MTU / 4] = TALLY_MODEL_MTU_DEFAULT;
	tally_model_mac_reset(m);
	tally_model_bar_wr(m, TALLY_REG_STATUS, TALLY_STATUS_READY);
	tally_model_link_sync(m);
}

static void
tally_model_global_write(struct tally_model *m, uint32_t off, uint32_t val)
{
	if (off == TALLY_REG_RESET) {
		tally_model_bar_wr(m, off, 0);
		if (val == TALLY_RESET_MAGIC)
			tally_model_reset(m);
		return;
	}
	if (off == TALLY_REG_FENCE) {
		/* Every step runs under the lock we hold: none is in flight.
		 * Nothing cached before the fence may be trusted after it. */
		tally_model_cls_invalidate(m);
		tally_model_bar_wr(m, TALLY_REG_FENCE_DONE, val);
		return;
	}
	if (off == TALLY_REG_STEER_ROOT_LO || off == TALLY_REG_STEER_ROOT_HI ||
	    off == TALLY_REG_STEER_CTRL || off == TALLY_REG_SW_ROOT_LO ||
	    off == TALLY_REG_SW_ROOT_HI || off == TALLY_REG_SW_CTRL) {
		tally_model_cls_invalidate(m);	/* (re)published root */
		return;
	}
	if ((off >= TALLY_REG_MAC_FILTER_LO(0) &&
	     off < TALLY_REG_MAC_FILTER_LO(TALLY_MAC_FILTERS)) ||
	    (off >= TALLY_REG_MC_FILTER_LO(0) &&
	     off < TALLY_REG_MC_FILTER_LO(TALLY_MC_FILTERS))) {
		tally_model_mac_sync(m);
		return;
	}
	if (off == TALLY_REG_CTRL) {
		tally_model_carrier_poll(m, true);	/* the link of now */
		tally_model_link_sync(m);
		return;
	}
	if (off == TALLY_REG_CCNT_CMD) {
		tally_model_ccnt_cmd(m, val);
		return;
	}
	if (off == TALLY_REG_XLT_CMD)
		tally_model_xlt_cmd(m, val);
}

static void
tally_model_w1c(struct tally_model *m, uint32_t off, uint32_t val)
{
	uint32_t now = tally_model_bar_rd(m, off) & ~val;

	tally_model_bar_wr(m, off, now);
	if (off == TALLY_REG_FAULT_CAUSE && now == 0)
		tally_model_bar_wr(m, TALLY_REG_STATUS,
				   tally_model_bar_rd(m, TALLY_REG_STATUS) &
				   ~TALLY_STATUS_FAULT);
}

void
tally_model_write32(void *ctx, uint32_t off, uint32_t val)
{
	struct tally_model *m = ctx;

	tally_model_lock(m);
	tally_model_write32_locked(m, off, val);
	tally_model_unlock(m);
}

void
tally_model_write32_locked(struct tally_model *m, uint32_t off, uint32_t val)
{
	struct tally_model_queue *q;
	enum tally_model_acc acc;
	uint32_t r;

	/* doorbells first: a queue's write-only register, once a burst */
	q = tally_model_queue_of(m, off, &r);
	if (TALLY_LIKELY(q != NULL && r == TALLY_Q_DOORBELL)) {
		m->wr[off / 4] = val;
		tally_model_queue_write(m, q, r, val);
		return;
	}
	acc = tally_model_acc(m, off);
	switch (acc) {
	case TALLY_MODEL_ACC_NONE:
	case TALLY_MODEL_ACC_RO:
		tally_model_fault(m, TALLY_FAULT_BAD_REG, off);
		break;
	case TALLY_MODEL_ACC_W1C:
		tally_model_w1c(m, off, val);
		break;
	case TALLY_MODEL_ACC_RW:
	case TALLY_MODEL_ACC_WO:
		m->wr[off / 4] = val;
		if (acc == TALLY_MODEL_ACC_RW)
			tally_model_bar_wr(m, off, val);
		if (q != NULL)	/* the queue found above */
			tally_model_queue_write(m, q, r, val);
		else
			tally_model_global_write(m, off, val);
		break;
	}
}

uint32_t
tally_model_read32(void *ctx, uint32_t off)
{
	struct tally_model *m = ctx;

	if ((off & 3) != 0 || off >= m->bar_len)
		return 0;
	/* a read of the link sees the carrier of now, stepped or not */
	if (off == TALLY_REG_STATUS && m->wire != NULL && m->wire->carrier != NULL) {
		tally_model_lock(m);
		tally_model_carrier_poll(m, true);
		tally_model_unlock(m);
	}
	/* Write-only registers are never stored in the BAR: they read 0. */
	return tally_model_bar_rd(m, off);
}

uint32_t
tally_model_reg(const struct tally_model *m, uint32_t off)
{
	if ((off & 3) != 0 || off >= m->bar_len)
		return 0;
	if (off < TALLY_MODEL_REGFILE_LEN &&
	    tally_model_acc((struct tally_model *)(uintptr_t)m, off) == TALLY_MODEL_ACC_WO)
		return m->wr[off / 4];
	return tally_model_bar_rd(m, off);
}
