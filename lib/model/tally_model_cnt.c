/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter banks. Every update is an atomic 64-bit add or store on the BAR, so
 * the driver's plain aligned loads never see a torn value; a flow counter
 * adds packets first, then bytes.
 */
#include "tally_model_priv.h"

void
tally_model_cnt_add(struct tally_model *m, uint32_t idx, uint32_t bytes)
{
	uint32_t off;

	if (idx >= m->cfg.counters) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, idx);
		return;
	}
	off = m->cnt_off + idx * (uint32_t)sizeof(struct tally_cnt_entry);
	tally_model_bar_add64(m, off + offsetof(struct tally_cnt_entry, packets), 1);
	tally_model_bar_add64(m, off + offsetof(struct tally_cnt_entry, bytes), bytes);
}

static uint64_t *
tally_model_ccnt_field(struct tally_model *m, uint32_t idx, bool error)
{
	uint32_t off = m->ccnt_off + idx * (uint32_t)sizeof(struct tally_ccnt_entry);

	off += error ? offsetof(struct tally_ccnt_entry, errors) :
		       offsetof(struct tally_ccnt_entry, completions);
	return (uint64_t *)(void *)(m->bar + off);
}

void
tally_model_ccnt_cmd(struct tally_model *m, uint32_t cmd)
{
	uint32_t idx = tally_model_bar_rd(m, TALLY_REG_CCNT_IDX);
	uint64_t val = (uint64_t)tally_model_bar_rd(m, TALLY_REG_CCNT_VAL_LO) |
		       (uint64_t)tally_model_bar_rd(m, TALLY_REG_CCNT_VAL_HI) << 32;

	if (idx >= m->cfg.comp_counters) {
		tally_model_fault(m, TALLY_FAULT_BAD_REG, idx);
		return;
	}
	switch (cmd) {
	case TALLY_CCNT_CMD_SET_COMP:
	case TALLY_CCNT_CMD_SET_ERR:
		__atomic_store_n(tally_model_ccnt_field(m, idx,
				 cmd == TALLY_CCNT_CMD_SET_ERR), val, __ATOMIC_RELAXED);
		break;
	case TALLY_CCNT_CMD_ADD_COMP:
	case TALLY_CCNT_CMD_ADD_ERR:
		__atomic_fetch_add(tally_model_ccnt_field(m, idx,
				   cmd == TALLY_CCNT_CMD_ADD_ERR), val, __ATOMIC_RELAXED);
		break;
	default:
		tally_model_fault(m, TALLY_FAULT_BAD_REG, TALLY_REG_CCNT_CMD);
		break;
	}
}

void
tally_model_ccnt_begin(struct tally_model *m, const struct tally_model_queue *q,
		       struct tally_model_ccnt_acc *a)
{
	uint32_t v = tally_model_bar_rd(m, tally_model_q_reg(q, TALLY_Q_CCNT));
	uint32_t idx = TALLY_FIELD_GET(v, TALLY_Q_CCNT_IDX_M);

	a->ncomp = a->nerr = 0;
	a->comp = a->err = NULL;
	if (!(v & TALLY_Q_CCNT_EN) || idx >= m->cfg.comp_counters)
		return;
	a->comp = tally_model_ccnt_field(m, idx, false);
	a->err = tally_model_ccnt_field(m, idx, true);
}
