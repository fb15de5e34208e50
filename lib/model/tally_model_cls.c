/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Classification engine: the validated cache of steering structures
 * (tally_model_cls.h) and the per-matcher burst hash.
 *
 * The hash is tally_steer_hash() (CRC32-C). lib/model is built for the
 * baseline CPU, so the faster paths are functions built for SSE4.2 (the
 * CRC32-C instruction) and for AVX-512F (the gather as one permutation),
 * one per key size; a matcher's is chosen when its descriptor is validated
 * (cls_hash_pick(), at most tally_model_cls_isa()). All give the values of
 * the table path.
 */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CLS_HAVE_X86	1
#else
#define CLS_HAVE_X86	0
#endif
/* the AVX-512 path: 64-bit x86, little-endian (key words are loaded as
 * they lie in memory) */
#if CLS_HAVE_X86 && defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CLS_HAVE_AVX512	1
#else
#define CLS_HAVE_AVX512	0
#endif

#include "tally_model_cls.h"
#include "tally_model_priv.h"
#include "tally_plat.h"

static int
cls_bad(struct tally_model *m, uint64_t addr)
{
	tally_model_fault(m, TALLY_FAULT_BAD_STEER, addr);
	return -1;
}

static void
cls_mt_free(struct tally_cls_mt *mt)
{
	tally_free(mt->gidx);
	tally_free(mt->gmask);
	mt->gidx = NULL;
	mt->gmask = NULL;
	mt->d = NULL;
	mt->h_ok = false;
}

static void
cls_tbl_free(struct tally_cls_tbl *t)
{
	uint32_t i;

	for (i = 0; i < t->nm; i++)
		cls_mt_free(&t->mt[i]);
	tally_free(t->mt);
	t->mt = NULL;
	t->nm = 0;
	t->ml_ok = false;
}

static void
cls_flush(struct tally_model_cls *c)
{
	uint32_t i;

	if (c->tbl != NULL) {
		for (i = 0; i < c->root.num_tables; i++)
			cls_tbl_free(&c->tbl[i]);
		tally_free(c->tbl);
		c->tbl = NULL;
	}
	c->root_ok = false;
}

enum tally_model_cls_isa
tally_model_cls_isa(const struct tally_model *m)
{
	enum tally_model_cls_isa best = TALLY_CLS_ISA_GENERIC;

#if CLS_HAVE_X86
	if (__builtin_cpu_supports("sse4.2"))
		best = TALLY_CLS_ISA_CRC32C;
#endif
#if CLS_HAVE_AVX512
	if (best == TALLY_CLS_ISA_CRC32C && __builtin_cpu_supports("avx512f"))
		best = TALLY_CLS_ISA_AVX512;
#endif
	if (m->cfg.cls_isa == TALLY_CLS_ISA_AUTO || m->cfg.cls_isa > best)
		return best;
	return m->cfg.cls_isa;
}

/* The cache in *slot, invalidated through *gen, of the root at root_lo. */
static struct tally_model_cls *
cls_get(struct tally_model *m, struct tally_model_cls **slot, uint32_t *gen,
	uint32_t root_lo)
{
	struct tally_model_cls *c = *slot;

	if (c == NULL) {
		c = tally_zmalloc(sizeof(*c));
		if (c == NULL)
			return NULL;
		c->gen = __atomic_load_n(gen, __ATOMIC_ACQUIRE);
		c->root_lo = root_lo;
		*slot = c;
	}
	if (c->gen != __atomic_load_n(gen, __ATOMIC_ACQUIRE)) {
		cls_flush(c);
		c->gen = __atomic_load_n(gen, __ATOMIC_ACQUIRE);
	}
	return c;
}

struct tally_model_cls *
tally_model_cls_get(struct tally_model *m)
{
	return cls_get(m, &m->cls, &m->cls_gen, TALLY_REG_STEER_ROOT_LO);
}

struct tally_model_cls *
tally_model_cls_get_sw(struct tally_model *m)
{
	return cls_get(m, &m->sw->cls, &m->sw->cls_gen, TALLY_REG_SW_ROOT_LO);
}

static void
cls_free(struct tally_model_cls **slot)
{
	if (*slot == NULL)
		return;
	cls_flush(*slot);
	tally_free(*slot);
	*slot = NULL;
}

void
tally_model_cls_free(struct tally_model *m)
{
	cls_free(&m->cls);
}

void
tally_model_cls_free_sw(struct tally_model_sw *sw)
{
	cls_free(&sw->cls);
}

const struct tally_steer_root *
tally_model_cls_root(struct tally_model *m, struct tally_model_cls *c)
{
	const struct tally_steer_root *root;
	/* RW registers: the BAR holds what the driver wrote */
	uint64_t iova = (uint64_t)tally_model_bar_rd(m, c->root_lo) |
			(uint64_t)tally_model_bar_rd(m, c->root_lo + 4) << 32;

	if (c->root_ok && c->root_iova == iova)
		return &c->root;
	cls_flush(c);
	root = STEER_DMA(m, iova, sizeof(*root), *root);
	if (root == NULL)
		return NULL;
	if (root->magic != TALLY_STEER_ROOT_MAGIC ||
	    TALLY_FIELD_GET(root->version, TALLY_STEER_ROOT_VER_MAJOR_M) != TALLY_STEER_FMT_MAJOR ||
	    root->num_tables > TALLY_STEER_MAX_TABLES || root->num_rss > TALLY_STEER_MAX_RSS) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, iova);
		return NULL;
	}
	c->root = *root;
	/* the copy is what was validated, whatever the memory says later */
	if (c->root.num_tables > TALLY_STEER_MAX_TABLES || c->root.num_rss > TALLY_STEER_MAX_RSS) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, iova);
		return NULL;
	}
	if (c->root.num_tables > 0) {
		c->tbl = tally_zmalloc((size_t)c->root.num_tables * sizeof(*c->tbl));
		if (c->tbl == NULL)
			return NULL;
	}
	c->root_iova = iova;
	c->root_ok = true;
	return &c->root;
}

static int
cls_mlist(struct tally_model *m, struct tally_cls_tbl *t, uint64_t mliova)
{
	const struct tally_steer_mlist *ml;
	struct tally_cls_mt *mt = NULL;
	uint32_t n, i;

	ml = STEER_DMA(m, mliova, sizeof(*ml), *ml);
	if (ml == NULL)
		return -1;
	n = ml->num;
	if (ml->magic != TALLY_STEER_MLIST_MAGIC || n > TALLY_STEER_MAX_MATCHERS)
		return cls_bad(m, mliova);
	ml = STEER_DMA(m, mliova, TALLY_STEER_MLIST_SIZE(n), *ml);
	if (ml == NULL)
		return -1;
	if (n > 0) {
		mt = tally_zmalloc((size_t)n * sizeof(*mt));
		if (mt == NULL)
			return -1;
	}
	for (i = 0; i < n; i++)
		mt[i].miova = ml->matcher[i];
	cls_tbl_free(t);
	t->mt = mt;
	t->nm = n;
	t->mliova = mliova;
	t->ml_ok = true;
	return 0;
}

int
tally_model_cls_table(struct tally_model *m, struct tally_model_cls *c,
		      uint32_t table, struct tally_cls_tbl **out)
{
	struct tally_cls_tbl *t;
	uint64_t mliova;

	*out = NULL;
	if (table >= c->root.num_tables)
		return cls_bad(m, c->root.tables_iova);
	t = &c->tbl[table];
	if (t->hw == NULL) {
		t->hw = STEER_DMA(m, c->root.tables_iova + (uint64_t)table * sizeof(*t->hw),
				  sizeof(*t->hw), *t->hw);
		if (t->hw == NULL)
			return -1;
	}
	/* pairs with the driver's release store of the matcher list */
	mliova = __atomic_load_n(&t->hw->mlist, __ATOMIC_ACQUIRE);
	if (mliova == 0)
		return 0;
	if (!t->ml_ok || t->mliova != mliova) {
		if (cls_mlist(m, t, mliova) != 0)
			return -1;
	}
	*out = t;
	return 0;
}

static tally_cls_hash_fn cls_hash_pick(const struct tally_cls_mt *mt,
				       enum tally_model_cls_isa isa);

static int
cls_desc(struct tally_model *m, struct tally_cls_mt *mt)
{
	const struct tally_steer_matcher_desc *d;
	uint64_t miova = mt->miova;
	uint32_t n, i;

	d = STEER_DMA(m, miova, sizeof(*d), *d);
	if (d == NULL)
		return -1;
	n = d->nwords;
	if (d->magic != TALLY_STEER_MATCHER_MAGIC || n > TALLY_STEER_KEY_WORDS)
		return cls_bad(m, miova);
	d = STEER_DMA(m, miova, TALLY_STEER_MATCHER_SIZE(n), *d);
	if (d == NULL)
		return -1;
	if (n > 0) {
		mt->gidx = tally_zmalloc((size_t)n * sizeof(uint32_t));
		mt->gmask = tally_zmalloc((size_t)n * sizeof(uint32_t));
		if (mt->gidx == NULL || mt->gmask == NULL) {
			cls_mt_free(mt);
			return -1;
		}
	}
	for (i = 0; i < n; i++) {
		mt->gidx[i] = d->words[i].idx;
		mt->gmask[i] = d->words[i].mask;
		if (mt->gidx[i] >= TALLY_STEER_KEY_WORDS) {
			cls_mt_free(mt);
			return cls_bad(m, miova);
		}
	}
	/* one permutation when every word is in the first section */
	mt->vec = n > 0 && n <= TALLY_CLS_VEC_WORDS;
	for (i = 0; i < TALLY_CLS_VEC_WORDS; i++) {
		mt->vidx[i] = i < n ? mt->gidx[i] : 0;
		mt->vmask[i] = i < n ? mt->gmask[i] : 0;
		mt->vec = mt->vec && mt->vidx[i] < TALLY_CLS_VEC_WORDS;
	}
	mt->nw = n;
	mt->hash = cls_hash_pick(mt, tally_model_cls_isa(m));
	mt->probe = NULL;
	mt->d = d;
	return 0;
}

int
tally_model_cls_matcher_slow(struct tally_model *m, struct tally_cls_mt *mt)
{
	const struct tally_steer_htab *h;
	uint32_t log2, n, stride, seed, magic, flags;
	size_t size;
	uint64_t hiova;

	if (mt->d == NULL && cls_desc(m, mt) != 0)
		return -1;
	/* pairs with the driver's release store when it publishes/grows */
	hiova = __atomic_load_n(&mt->d->htab, __ATOMIC_ACQUIRE);
	if (mt->h_ok && mt->hiova == hiova)
		return 0;
	mt->h_ok = false;
	n = mt->nw;
	h = STEER_DMA(m, hiova, sizeof(*h), *h);
	if (h == NULL)
		return -1;
	magic = h->magic;
	log2 = h->log2_size;
	stride = h->stride;
	seed = h->seed;
	flags = h->flags;
	if (magic != TALLY_STEER_HTAB_MAGIC || log2 > TALLY_STEER_HTAB_MAX_LOG2 ||
	    h->nwords != n ||
	    (flags & ~(TALLY_STEER_HTAB_F_FILTER | TALLY_STEER_HTAB_F_DRIVER)) != 0 ||
	    stride != TALLY_STEER_ENTRY_STRIDE(n, flags))
		return cls_bad(m, hiova);
	size = (flags & TALLY_STEER_HTAB_F_FILTER) ? TALLY_STEER_HTAB_FSIZE(log2, stride) :
						     TALLY_STEER_HTAB_SIZE(log2, stride);
	h = STEER_DMA(m, hiova, size, *h);
	if (h == NULL)
		return -1;
	mt->ent = (const uint8_t *)h + sizeof(*h);
	mt->filter = (flags & TALLY_STEER_HTAB_F_FILTER) ?
		     tally_steer_filter(mt->ent, log2, stride) : NULL;
	mt->smask = (1u << log2) - 1;
	mt->log2 = log2;
	mt->seed = seed;
	mt->stride = stride;
	mt->hiova = hiova;
	mt->h_ok = true;
	return 0;
}

/* What the filter step reads of a matcher, copied into locals: the
 * burst's stores (words, hashes) cannot alias them. */
struct cls_fl {
	const uint8_t *ent;
	const uint8_t *filter;
	size_t stride;
	uint32_t smask;
	uint32_t log2;
};

static inline __attribute__((always_inline)) struct cls_fl
cls_fl_of(const struct tally_cls_mt *mt)
{
	struct cls_fl f = {
		.ent = mt->ent, .filter = mt->filter, .stride = mt->stride,
		.smask = mt->smask, .log2 = mt->log2,
	};

	return f;
}

/*
 * Frame j of hash h: without a filter, or with its bit set, it goes on the
 * live list and its home slot is fetched. The filter byte is tested without
 * a branch (its bit is as likely set as not in a matcher that hits often),
 * and a frame that misses prefetches that byte's line, already loaded.
 */
static inline __attribute__((always_inline)) uint32_t
cls_filter(const struct cls_fl *f, uint32_t h, uint32_t j, uint8_t *live, uint32_t nl)
{
	const uint8_t *slot = f->ent + (size_t)(h & f->smask) * f->stride;
	const uint8_t *fb;
	uint32_t b, bit;

	live[nl] = (uint8_t)j;
	if (f->filter == NULL) {
		__builtin_prefetch(slot);
		return nl + 1;
	}
	b = tally_steer_filter_bit(h, f->log2);
	fb = f->filter + (b >> 3);
	bit = (__atomic_load_n(fb, __ATOMIC_RELAXED) >> (b & 7)) & 1;
	__builtin_prefetch(bit ? slot : fb);
	return nl + bit;
}

static uint32_t
cls_hash_sw(const struct tally_cls_mt *mt, const uint8_t *const *keys, uint32_t n,
	    uint32_t *slot, uint32_t *w, uint8_t *live)
{
	const struct cls_fl f = cls_fl_of(mt);
	uint32_t j, i, h, nw = mt->nw, nl = 0;

	for (j = 0; j < n; j++, w += nw) {
		h = mt->seed;
		for (i = 0; i < nw; i++) {
			w[i] = tally_cls_word(keys[j], mt, i);
			h = tally_crc32c_sw_u32(h, w[i]);
		}
		slot[j] = h;
		nl = cls_filter(&f, h, j, live, nl);
	}
	return nl;
}

/*
 * A family of hash functions built on cls_hash_<fam>_n() for the
 * instructions tgt: one per common key size (1 to 8 words, the size a
 * constant), one for any size, and their table, indexed by the size (0:
 * any), for cls_hash_pick().
 */
#define CLS_HASH_SIZED(fam, tgt, N) \
__attribute__((target(tgt))) static uint32_t \
cls_hash_##fam##_##N(const struct tally_cls_mt *mt, const uint8_t *const *keys, uint32_t n, \
		     uint32_t *slot, uint32_t *w, uint8_t *live) \
{ \
	return cls_hash_##fam##_n(mt, keys, n, slot, w, live, N); \
}
#define CLS_HASH_FAMILY(fam, tgt) \
CLS_HASH_SIZED(fam, tgt, 1) \
CLS_HASH_SIZED(fam, tgt, 2) \
CLS_HASH_SIZED(fam, tgt, 3) \
CLS_HASH_SIZED(fam, tgt, 4) \
CLS_HASH_SIZED(fam, tgt, 5) \
CLS_HASH_SIZED(fam, tgt, 6) \
CLS_HASH_SIZED(fam, tgt, 7) \
CLS_HASH_SIZED(fam, tgt, 8) \
__attribute__((target(tgt))) static uint32_t \
cls_hash_##fam##_any(const struct tally_cls_mt *mt, const uint8_t *const *keys, uint32_t n, \
		     uint32_t *slot, uint32_t *w, uint8_t *live) \
{ \
	return cls_hash_##fam##_n(mt, keys, n, slot, w, live, mt->nw); \
} \
static const tally_cls_hash_fn cls_hash_##fam##_fn[CLS_HASH_SIZES] = { \
	cls_hash_##fam##_any, cls_hash_##fam##_1, cls_hash_##fam##_2, cls_hash_##fam##_3, \
	cls_hash_##fam##_4, cls_hash_##fam##_5, cls_hash_##fam##_6, cls_hash_##fam##_7, \
	cls_hash_##fam##_8, \
};
#define CLS_HASH_SIZES	9

#if CLS_HAVE_X86 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The same CRC32-C with the instruction, two key words per step (the byte
 * stream of two little-endian words is that of one 64-bit word). Inlined
 * with a constant nw for the common sizes, so the gather list stays in
 * registers and the word loop unrolls. */
__attribute__((target("sse4.2"), always_inline))
static inline uint32_t
cls_hash_hw_n(const struct tally_cls_mt *mt, const uint8_t *const *keys, uint32_t n,
	      uint32_t *slot, uint32_t *restrict w, uint8_t *restrict live, const uint32_t nw)
{
	const uint32_t *restrict gidx = mt->gidx, *restrict gmask = mt->gmask;
	const struct cls_fl f = cls_fl_of(mt);
	uint32_t j, i, seed = mt->seed, nl = 0;
	uint64_t h, v;
	uint32_t *wj;

	for (j = 0; j < n; j++) {
		const uint8_t *k = keys[j];

		wj = w + j * nw;
		h = seed;
		for (i = 0; i + 2 <= nw; i += 2) {
			uint32_t a, b;

			__builtin_memcpy(&a, k + gidx[i] * 4, 4);
			__builtin_memcpy(&b, k + gidx[i + 1] * 4, 4);
			wj[i] = a & gmask[i];
			wj[i + 1] = b & gmask[i + 1];
			v = (uint64_t)wj[i] | (uint64_t)wj[i + 1] << 32;
			h = _mm_crc32_u64(h, v);
		}
		if (i < nw) {
			uint32_t a;

			__builtin_memcpy(&a, k + gidx[i] * 4, 4);
			wj[i] = a & gmask[i];
			h = _mm_crc32_u32((uint32_t)h, wj[i]);
		}
		slot[j] = (uint32_t)h;
		nl = cls_filter(&f, (uint32_t)h, j, live, nl);
	}
	return nl;
}

CLS_HASH_FAMILY(hw, "sse4.2")
#endif

#if CLS_HAVE_AVX512
/*
 * AVX-512F, for a matcher whose words all lie in the key's first 64 bytes
 * (mt->vec): the gather and the mask are one permutation of those bytes
 * and one AND, and the CRC32-C runs over the vector's 64-bit lanes. The
 * masked words are stored as a whole vector at the frame's place in w
 * (c->w has room for one past the last frame's words); the next frame's
 * store overwrites the lanes past nw.
 */
__attribute__((target("avx512f,sse4.2"), always_inline))
static inline uint32_t
cls_hash_v_n(const struct tally_cls_mt *mt, const uint8_t *const *keys, uint32_t n,
	     uint32_t *slot, uint32_t *restrict w, uint8_t *restrict live, const uint32_t nw)
{
	const __m512i vidx = _mm512_loadu_si512(mt->vidx);
	const __m512i vmask = _mm512_loadu_si512(mt->vmask);
	const struct cls_fl f = cls_fl_of(mt);
	uint32_t j, i, seed = mt->seed, nl = 0;
	union {
		__m512i v;
		uint64_t q[TALLY_CLS_VEC_WORDS / 2];
		uint32_t d[TALLY_CLS_VEC_WORDS];
	} u;
	uint64_t h;

	for (j = 0; j < n; j++) {
		u.v = _mm512_and_si512(_mm512_permutexvar_epi32(vidx,
								_mm512_loadu_si512(keys[j])),
				       vmask);
		_mm512_storeu_si512(w + j * nw, u.v);
		h = seed;
		for (i = 0; i + 2 <= nw; i += 2)
			h = _mm_crc32_u64(h, u.q[i / 2]);
		if (i < nw)
			h = _mm_crc32_u32((uint32_t)h, u.d[i]);
		slot[j] = (uint32_t)h;
		nl = cls_filter(&f, (uint32_t)h, j, live, nl);
	}
	return nl;
}

CLS_HASH_FAMILY(v, "avx512f,sse4.2")
#endif

/* The hash function for mt (nw and vec set) under isa. */
static tally_cls_hash_fn
cls_hash_pick(const struct tally_cls_mt *mt, enum tally_model_cls_isa isa)
{
	uint32_t k = mt->nw < CLS_HASH_SIZES ? mt->nw : 0;	/* 0: any size */

#if CLS_HAVE_AVX512
	if (isa >= TALLY_CLS_ISA_AVX512 && mt->vec)
		return cls_hash_v_fn[k];
#endif
#if CLS_HAVE_X86 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (isa >= TALLY_CLS_ISA_CRC32C)
		return cls_hash_hw_fn[k];
#endif
	(void)k;
	(void)isa;
	return cls_hash_sw;
}
