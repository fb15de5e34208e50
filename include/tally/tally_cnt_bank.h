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

/*
 * The read protocol of a bank entry, for any reader of the BAR: load the
 * first word, the second, then the first again (acquire), until both loads
 * of the first word agree. Because the device adds the first word before the
 * second, the pair is then consistent: the second never counts a frame or a
 * completion the first does not. Each load is a single-copy-atomic aligned
 * 64-bit load; no lock, no register access.
 */
static inline void
tally_cnt_bank_read(const volatile void *entry, uint64_t *first, uint64_t *second)
{
	const volatile uint64_t *w = (const volatile uint64_t *)entry;
	uint64_t a0, a1, b;

	a1 = __atomic_load_n(&w[0], __ATOMIC_ACQUIRE);
	do {
		a0 = a1;
		b = __atomic_load_n(&w[1], __ATOMIC_ACQUIRE);
		a1 = __atomic_load_n(&w[0], __ATOMIC_ACQUIRE);
	} while (a0 != a1);
	*first = a0;
	*second = b;
}

#endif /* TALLY_CNT_BANK_H */
