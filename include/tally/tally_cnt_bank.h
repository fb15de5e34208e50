/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter banks inside the BAR.
 *
 * Flow counter bank: TALLY_REG_CNT_NUM entries at TALLY_REG_CNT_OFF. Entry i
 * counts packets and bytes of every frame whose steering actions name counter
 * i. Bytes are the L2 frame length without FCS, as it was received on the wire.
 * Both fields only increase (wrapping at 2^64) and are updated with atomic
 * 64-bit adds by the device: packets first, then bytes. Reset zeroes them.
 *
 * Completion counter bank: TALLY_REG_CCNT_NUM entries at TALLY_REG_CCNT_OFF.
 * Entry i counts completions (and completions in error) of every queue whose
 * Q_CCNT register names it; the driver sets/adds through the CCNT_* command
 * registers. The same atomicity rules hold.
 */
#ifndef TALLY_CNT_BANK_H
#define TALLY_CNT_BANK_H

#include <stdint.h>
#include "tally_bits.h"

struct tally_cnt_entry {
	uint64_t packets;
	uint64_t bytes;
} __attribute__((aligned(16)));
TALLY_STATIC_SIZE(struct tally_cnt_entry, 16);

struct tally_ccnt_entry {
	uint64_t completions;
	uint64_t errors;
} __attribute__((aligned(16)));
TALLY_STATIC_SIZE(struct tally_ccnt_entry, 16);

#endif /* TALLY_CNT_BANK_H */
