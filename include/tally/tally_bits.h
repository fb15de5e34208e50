/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bit and field helpers shared by the device specification, the driver
 * layers and the software model.
 *
 * Fields are described by a mask (NAME_M) whose lowest set bit gives the
 * shift; TALLY_FIELD_GET/SET never need a separate shift constant.
 */
#ifndef TALLY_BITS_H
#define TALLY_BITS_H

#include <stdint.h>

#define TALLY_BIT(n)		(1u << (n))
#define TALLY_BIT64(n)		(1ull << (n))
/* Mask of bits h..l inclusive (h >= l), 32-bit. */
#define TALLY_GENMASK(h, l)	((~0u >> (31 - (h))) & (~0u << (l)))

#define TALLY_MASK_SHIFT(m)	((unsigned int)__builtin_ctz(m))
#define TALLY_FIELD_GET(v, m)	(((v) & (m)) >> TALLY_MASK_SHIFT(m))
#define TALLY_FIELD_PREP(m, x)	(((uint32_t)(x) << TALLY_MASK_SHIFT(m)) & (m))
#define TALLY_FIELD_SET(v, m, x) ((v) = ((v) & ~(m)) | TALLY_FIELD_PREP(m, x))

#define TALLY_STATIC_SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), #type " must be " #size " bytes")

#define TALLY_ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define TALLY_IS_POW2(x)	((x) != 0 && ((x) & ((x) - 1)) == 0)

#endif /* TALLY_BITS_H */
