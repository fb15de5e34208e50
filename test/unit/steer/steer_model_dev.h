/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The set-up the steering tests and the classification benchmarks share: a
 * software device (no wire) with an arena as its DMA window, a fence, a
 * counter pool on its bank and a steering context allocating from the
 * arena. Tables, matchers and rules are the caller's.
 */
#ifndef STEER_MODEL_DEV_H
#define STEER_MODEL_DEV_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steer_test_util.h"
#include "tally_cnt.h"
#include "tally_fence.h"
#include "tally_model.h"
#include "tally_model_dev.h"
#include "tally_plat.h"

struct steer_dev {
	struct tally_model *m;
	struct tally_io io;
	struct arena arena;
	struct tally_fence fence;
	struct tally_cnt_pool *pool;
	struct tally_steer_ctx *ctx;
};

/* The names of the classification engine's instruction levels. */
static const char *const steer_dev_isa_names[] = {
	[TALLY_CLS_ISA_AUTO] = "?",
	[TALLY_CLS_ISA_GENERIC] = "generic",
	[TALLY_CLS_ISA_CRC32C] = "crc32c",
	[TALLY_CLS_ISA_AVX512] = "avx512",
};

/*
 * The classification engine's instructions for the tests' devices:
 * TALLY_TEST_CLS_ISA=generic|crc32c|avx512 caps them (the best the CPU has
 * without it); -EINVAL for another value.
 */
static inline int
steer_dev_cls_isa(enum tally_model_cls_isa *isa)
{
	const char *v = getenv("TALLY_TEST_CLS_ISA");
	unsigned int i;

	*isa = TALLY_CLS_ISA_AUTO;
	if (v == NULL || *v == '\0')
		return 0;
	for (i = TALLY_CLS_ISA_GENERIC; i < TALLY_ARRAY_SIZE(steer_dev_isa_names); i++)
		if (strcmp(v, steer_dev_isa_names[i]) == 0) {
			*isa = (enum tally_model_cls_isa)i;
			return 0;
		}
	return -EINVAL;
}

/* The name of what the engine of m uses. */
static inline const char *
steer_dev_cls_isa_name(const struct tally_model *m)
{
	unsigned int i = (unsigned int)tally_model_cls_isa(m);

	return i < TALLY_ARRAY_SIZE(steer_dev_isa_names) ? steer_dev_isa_names[i] : "?";
}

/*
 * counters: the device's bank; sc: the caller's steering settings (io,
 * fence, cnt and mem are filled in here). 0, or -errno with err set; what
 * was made is released by steer_dev_fini() either way.
 */
static inline int
steer_dev_init(struct steer_dev *d, size_t arena_len, uint32_t counters,
	       struct tally_steer_config *sc, char *err, size_t errlen)
{
	struct tally_model_config mc;
	struct tally_cnt_pool_config pc = { 0 };
	int rc;

	memset(d, 0, sizeof(*d));
	tally_model_config_init(&mc);
	mc.counters = counters;
	mc.wire = TALLY_WIRE_NONE;
	if (steer_dev_cls_isa(&mc.cls_isa) != 0) {
		snprintf(err, errlen, "TALLY_TEST_CLS_ISA=%s: expected generic, crc32c or avx512",
			 getenv("TALLY_TEST_CLS_ISA"));
		return -EINVAL;
	}
	rc = tally_model_create(&mc, &d->m, err, errlen);
	if (rc != 0)
		return rc;
	tally_model_io(d->m, &d->io);
	tally_fence_init(&d->fence, &d->io);
	if (arena_init(&d->arena, arena_len) != 0) {
		d->arena.base = NULL;
		snprintf(err, errlen, "arena: no memory");
		return -ENOMEM;
	}
	arena_map_steer(&d->arena, &d->io);
	pc.io = &d->io;
	pc.fence = &d->fence;
	rc = tally_cnt_pool_create(&pc, &d->pool);
	if (rc != 0) {
		snprintf(err, errlen, "counter pool: %s", strerror(-rc));
		return rc;
	}
	sc->io = &d->io;
	sc->fence = &d->fence;
	sc->cnt = d->pool;
	sc->mem = arena_ops(&d->arena);
	rc = tally_steer_ctx_create(sc, &d->ctx);
	if (rc != 0)
		snprintf(err, errlen, "steering context: %s", strerror(-rc));
	return rc;
}

/* Releases what steer_dev_init() made (the context's tables and rules
 * with it). */
static inline void
steer_dev_fini(struct steer_dev *d)
{
	if (d->ctx != NULL)
		tally_steer_ctx_destroy(d->ctx);
	if (d->pool != NULL)
		tally_cnt_pool_destroy(d->pool);
	if (d->m != NULL) {
		tally_fence_fini(&d->fence);
		tally_model_destroy(d->m);
	}
	if (d->arena.base != NULL)
		arena_fini(&d->arena);
	memset(d, 0, sizeof(*d));
}

#endif /* STEER_MODEL_DEV_H */
