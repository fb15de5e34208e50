/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handles: the memory every verbs object of the library lives in, and the
 * check that a pointer the application passes is a live object of the
 * expected type.
 *
 * Why addresses are never reused
 * ==============================
 * The application holds raw pointers. If a destroyed object's memory were
 * handed out again (as malloc does), a stale pointer and the new object's
 * pointer would be the same value, and no check could tell them apart:
 * destroy counter a, create b at a's address, increment through a, and b
 * changes. So an address, once used for an object, never names another:
 *  - objects are carved in 64-byte slots from 256 KiB chunks of a reserved
 *    address range, always moving forward; each object is preceded by one
 *    header slot;
 *  - a chunk whose objects are all gone goes back to the kernel
 *    (MADV_DONTNEED, then PROT_NONE) but its addresses stay reserved;
 *  - a side table per chunk holds a tag for each slot that starts an
 *    object: the chunk's serial number and the object's type. A pointer is
 *    a live handle of type T iff it is slot-aligned inside a chunk that has
 *    a table and its slot's tag is (that chunk's serial, T). The serial
 *    keeps the check exact when a released chunk's table has been recycled
 *    for a newer chunk while a reader still holds it.
 * Address space is cheap: 1 GiB regions, up to 1 TiB over the life of the
 * process (some 4 million objects per region).
 *
 * Lifetime: tally_verbs_handle_new() reserves zeroed memory (not yet a
 * handle); _publish() makes it one; _kill() makes it stop being one (a
 * destroy); _put() drops a reference and releases the memory at zero. An
 * object created with a parent holds a reference on it, so a context that
 * was closed stays in memory while objects created on it are alive.
 *
 * Threads: new/publish/kill/put take a leaf lock; tally_verbs_handle_ok()
 * takes none (its acquire loads pair with the release stores of publish,
 * kill, put and chunk set-up). Tables are recycled, never freed. As in
 * rdma-core, destroying an object while another thread still uses it is
 * the application's race.
 *
 * Under AddressSanitizer released objects are poisoned, and regions are
 * LeakSanitizer root regions (objects hold pointers to malloc'd memory).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tally_verbs_priv.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TV_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TV_ASAN)
#define TV_ASAN 1
#endif

#ifdef TV_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#define HS_POISON(p, n)		ASAN_POISON_MEMORY_REGION((p), (n))
#define HS_UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION((p), (n))
#define HS_ROOT(p, n)		__lsan_register_root_region((p), (n))
#else
#define HS_POISON(p, n)		((void)(p), (void)(n))
#define HS_UNPOISON(p, n)	((void)(p), (void)(n))
#define HS_ROOT(p, n)		((void)(p), (void)(n))
#endif

#define HS_SLOT			64u
#define HS_CHUNK_SLOTS		4096u
#define HS_CHUNK		((uintptr_t)HS_SLOT * HS_CHUNK_SLOTS)	/* 256 KiB */
#define HS_REGION_CHUNKS	4096u
#define HS_REGION		(HS_CHUNK * HS_REGION_CHUNKS)		/* 1 GiB */
#define HS_MAX_REGIONS		1024u

/* Tag of a live object: chunk serial (< 2^22) and type. 0 = no object. */
#define HS_TAG(region, chunk, type) \
	((((uint32_t)(region) * HS_REGION_CHUNKS + (chunk)) << 8) | (uint32_t)(type))

struct hs_table {
	uint32_t tag[HS_CHUNK_SLOTS];
	struct hs_table *next_free;
};

struct hs_region {
	uintptr_t base;
	struct hs_table *table[HS_REGION_CHUNKS];	/* NULL: no objects there */
	uint32_t live[HS_REGION_CHUNKS];		/* objects in the chunk */
};

/* The slot before every object. */
struct hs_hdr {
	void *parent;
	uint32_t nslots;		/* header included */
	uint32_t refs;
};

_Static_assert(sizeof(struct hs_hdr) <= HS_SLOT, "header fits its slot");

static pthread_mutex_t hs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hs_region *regions[HS_MAX_REGIONS];
static uint32_t nb_regions;
/* where the next object goes (under hs_lock) */
static bool cur_valid;
static uint32_t cur_region, cur_chunk, cur_slot;
static struct hs_table *free_tables;

/* Locate a slot-aligned address: false when outside every region. */
static bool
hs_locate(uintptr_t a, uint32_t *ri, uint32_t *ci, uint32_t *si)
{
	uint32_t n = __atomic_load_n(&nb_regions, __ATOMIC_ACQUIRE), i;

	for (i = n; i-- > 0;) {
		/* pairs with the release store of nb_regions in hs_region_new() */
		const struct hs_region *r = __atomic_load_n(&regions[i], __ATOMIC_RELAXED);
		uintptr_t off = a - r->base;

		if (a >= r->base && off < HS_REGION) {
			*ri = i;
			*ci = (uint32_t)(off / HS_CHUNK);
			*si = (uint32_t)((off % HS_CHUNK) / HS_SLOT);
			return true;
		}
	}
	return false;
}

bool
tally_verbs_handle_ok(const void *obj, enum tally_verbs_type type)
{
	uintptr_t a = (uintptr_t)obj;
	const struct hs_table *t;
	uint32_t ri, ci, si;

	if (a == 0 || a % HS_SLOT != 0 || !hs_locate(a, &ri, &ci, &si))
		return false;
	/* pairs with the release stores in hs_chunk_next() / hs_chunk_release() */
	t = __atomic_load_n(&regions[ri]->table[ci], __ATOMIC_ACQUIRE);
	/* pairs with the release stores in publish / kill / put */
	return t != NULL &&
	       __atomic_load_n(&t->tag[si], __ATOMIC_ACQUIRE) == HS_TAG(ri, ci, type);
}

static int
hs_region_new(void)
{
	struct hs_region *r;
	void *p;

	if (nb_regions >= HS_MAX_REGIONS)
		return -ENOMEM;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	p = mmap(NULL, HS_REGION, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		free(r);
		return -ENOMEM;
	}
	HS_ROOT(p, HS_REGION);
	r->base = (uintptr_t)p;
	__atomic_store_n(&regions[nb_regions], r, __ATOMIC_RELAXED);
	__atomic_store_n(&nb_regions, nb_regions + 1, __ATOMIC_RELEASE);
	cur_region = nb_regions - 1;
	cur_chunk = 0;
	return 0;
}

/* Give a chunk without objects back to the kernel; its addresses stay ours. */
static void
hs_chunk_release(uint32_t ri, uint32_t ci)
{
	struct hs_region *r = regions[ri];
	struct hs_table *t = r->table[ci];
	void *p = (void *)(r->base + ci * HS_CHUNK);

	__atomic_store_n(&r->table[ci], NULL, __ATOMIC_RELEASE);
	t->next_free = free_tables;	/* every tag is 0 again */
	free_tables = t;
	HS_UNPOISON(p, HS_CHUNK);
	madvise(p, HS_CHUNK, MADV_DONTNEED);
	mprotect(p, HS_CHUNK, PROT_NONE);
}

/* Move to a fresh chunk (the current one is full or there is none). */
static int
hs_chunk_next(void)
{
	struct hs_table *t;
	void *p;
	int rc;

	if (cur_valid) {
		cur_valid = false;
		if (regions[cur_region]->live[cur_chunk] == 0)
			hs_chunk_release(cur_region, cur_chunk);
		cur_chunk++;
	}
	if (nb_regions == 0 || cur_chunk >= HS_REGION_CHUNKS) {
		rc = hs_region_new();
		if (rc)
			return rc;
	}
	t = free_tables;
	if (t != NULL)
		free_tables = t->next_free;
	else
		t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	p = (void *)(regions[cur_region]->base + cur_chunk * HS_CHUNK);
	if (mprotect(p, HS_CHUNK, PROT_READ | PROT_WRITE) != 0) {
		t->next_free = free_tables;
		free_tables = t;
		cur_chunk++;	/* skip it: its addresses are never used */
		return -ENOMEM;
	}
	__atomic_store_n(&regions[cur_region]->table[cur_chunk], t, __ATOMIC_RELEASE);
	cur_slot = 0;
	cur_valid = true;
	return 0;
}

static struct hs_hdr *
hs_hdr(const void *obj)
{
	return (struct hs_hdr *)((uintptr_t)obj - HS_SLOT);
}

void *
tally_verbs_handle_new(size_t size, void *parent)
{
	uint32_t n = 1 + (uint32_t)((size + HS_SLOT - 1) / HS_SLOT);
	struct hs_hdr *h;
	void *obj;

	if (size == 0 || size > HS_CHUNK - HS_SLOT) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&hs_lock);
	if ((!cur_valid || cur_slot + n > HS_CHUNK_SLOTS) && hs_chunk_next() != 0) {
		pthread_mutex_unlock(&hs_lock);
		errno = ENOMEM;
		return NULL;
	}
	h = (struct hs_hdr *)(regions[cur_region]->base + cur_chunk * HS_CHUNK +
			      (uintptr_t)cur_slot * HS_SLOT);
	cur_slot += n;
	regions[cur_region]->live[cur_chunk]++;
	/* fresh pages: already zero, never used before */
	h->parent = parent;
	h->nslots = n;
	h->refs = 1;
	if (parent != NULL)
		hs_hdr(parent)->refs++;
	obj = (char *)h + HS_SLOT;
	pthread_mutex_unlock(&hs_lock);
	return obj;
}

/* Set the tag of obj's slot (obj is an object of ours). */
static void
hs_tag_store(const void *obj, uint32_t tag_or_type, bool is_type)
{
	uint32_t ri = 0, ci = 0, si = 0;
	bool found = hs_locate((uintptr_t)obj, &ri, &ci, &si);

	if (!found)
		return;
	__atomic_store_n(&regions[ri]->table[ci]->tag[si],
			 is_type ? HS_TAG(ri, ci, tag_or_type) : tag_or_type,
			 __ATOMIC_RELEASE);
}

void
tally_verbs_handle_publish(void *obj, enum tally_verbs_type type)
{
	pthread_mutex_lock(&hs_lock);
	hs_tag_store(obj, type, true);
	pthread_mutex_unlock(&hs_lock);
}

bool
tally_verbs_handle_kill(const void *obj, enum tally_verbs_type type)
{
	bool live;

	pthread_mutex_lock(&hs_lock);
	live = tally_verbs_handle_ok(obj, type);
	if (live)
		hs_tag_store(obj, 0, false);
	pthread_mutex_unlock(&hs_lock);
	return live;
}

void
tally_verbs_handle_put(void *obj)
{
	pthread_mutex_lock(&hs_lock);
	while (obj != NULL) {
		struct hs_hdr *h = hs_hdr(obj);
		uint32_t ri, ci, si;
		void *parent;

		if (--h->refs > 0)
			break;
		parent = h->parent;
		if (!hs_locate((uintptr_t)obj, &ri, &ci, &si))
			break;		/* not ours: cannot happen */
		__atomic_store_n(&regions[ri]->table[ci]->tag[si], 0, __ATOMIC_RELEASE);
		HS_POISON(h, (size_t)h->nslots * HS_SLOT);
		if (--regions[ri]->live[ci] == 0 &&
		    !(cur_valid && ri == cur_region && ci == cur_chunk))
			hs_chunk_release(ri, ci);
		obj = parent;
	}
	pthread_mutex_unlock(&hs_lock);
}
