/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault recording: what every stage of the device does with a bad address,
 * descriptor, register access or steering structure. The bottom of
 * lib/model's files (see tally_model_priv.h): calls none of them.
 */
#include "tally_model_priv.h"

void
tally_model_fault(struct tally_model *m, enum tally_fault cause, uint64_t addr)
{
	tally_model_bar_wr(m, TALLY_REG_FAULT_CNT,
			   tally_model_bar_rd(m, TALLY_REG_FAULT_CNT) + 1);
	tally_model_bar_wr(m, TALLY_REG_FAULT_CAUSE, (uint32_t)cause);
	tally_model_bar_wr(m, TALLY_REG_FAULT_ADDR_LO, (uint32_t)addr);
	tally_model_bar_wr(m, TALLY_REG_FAULT_ADDR_HI, (uint32_t)(addr >> 32));
	tally_model_bar_wr(m, TALLY_REG_STATUS,
			   tally_model_bar_rd(m, TALLY_REG_STATUS) | TALLY_STATUS_FAULT);
	if (cause == TALLY_FAULT_DMA)
		tally_model_stat_add(m, TALLY_STAT_DMA_FAULTS, 1);
	else if (cause == TALLY_FAULT_BAD_DESC)
		tally_model_stat_add(m, TALLY_STAT_DESC_FAULTS, 1);
	TALLY_LOG(NOTICE, "fault cause %d addr 0x%llx", (int)cause,
		  (unsigned long long)addr);
}
