/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_flowfloor: a BENCHMARK-ONLY reference PMD, not a product driver.
 *
 * It is the "floor" that devtools/bench-flow-perf.sh measures the Tally PMD
 * against: the least work any PMD can do per rte_flow_create/destroy. A rule
 * is a malloc'ed object on a doubly linked list (for flush) holding the IPv4
 * source of the pattern, the queue index and a counter index; counters are
 * an array of {packets, bytes} handed out from a free stack. There is no
 * device, no classification and no traffic (Rx returns 0 packets, Tx drops).
 *
 * flow ops: validate, create, destroy, query (COUNT), flush, and the least
 * template/async support (configure, templates, tables, async create and
 * destroy, push, pull: the synchronous work without its malloc done at
 * enqueue, a result posted), the peer of test/perf/async_bench. Indirect
 * actions return ENOTSUP (22.11's rte_flow_async_* call them without a NULL
 * check).
 *
 * devargs: counters=N (counter array entries, default 1048576); slots=N (a
 * power of two, default none): one random hash slot per rule as well, see
 * floor_slot_add().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_flow_driver.h>
#include <rte_hash_crc.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "tally_compat.h"
#include "tally_hmem.h"

#define FLOOR_COUNTERS_DEFAULT	(1u << 20)

struct floor_cnt {
	uint64_t pkts;
	uint64_t bytes;
};

struct rte_flow {
	struct rte_flow *prev, *next;
	struct rte_flow_template_table *tbl;	/* from its slab, or NULL (malloc) */
	uint32_t src;		/* IPv4 source of the pattern (or 0) */
	uint32_t counter;	/* UINT32_MAX: none */
	uint16_t queue;
};

/* A template table: rule objects for nb_flows rules, allocated and touched
 * at creation (as a PMD that sizes its tables then would), on a free stack. */
struct rte_flow_template_table {
	uint32_t nb_flows;
	uint32_t nfree;
	struct rte_flow *objs;		/* [nb_flows] */
	struct rte_flow **free;		/* [nb_flows] */
};

struct floor_priv {
	struct rte_flow head;	/* list sentinel */
	struct floor_cnt *cnt;
	uint32_t *free_cnt;
	uint32_t nfree;
	uint32_t ncnt;
	struct floor_async *async;	/* rte_flow_configure's queues */
	/* slots=N: the hash slots, and the slot of each rule by creation
	 * order (seq_slot, nseq entries, wrapping) */
	struct floor_slot *slots;
	bool slots_hmem;		/* tally_hmem_alloc()'s, else rte_zmalloc()'s */
	uint32_t smask;
	uint32_t *seq_slot;
	uint32_t nseq;
	uint32_t seq;			/* rules created */
	uint32_t dseq;			/* rules destroyed */
};

/* A hash slot: the size of a Tally entry with a 3-word key. */
struct floor_slot {
	uint32_t ctrl;
	uint32_t act;
	uint32_t key[6];
};

/*
 * With slots=N, a rule also costs what any PMD whose device finds rules in a
 * hash table must pay in memory, and nothing else: its slot (CRC32-C of the
 * IPv4 source) is written at create and read and written at destroy, at
 * random in an array of N slots. The accesses are Tally's, made the
 * cheapest way it knows: slots prefetched FLOOR_PF at a time, a create's
 * slot written FLOOR_DEPTH creates later (no probe: the slot is taken as
 * free), and at every FLOOR_DEL_PF-th destroy the slots of the
 * FLOOR_DEL_PF rules created FLOOR_DEL_AHEAD places after the one it destroys
 * if destroys come in creation order (what flow-perf does). The rule
 * object is the same as without slots (a rule's slot is its source's
 * hash). The yardstick for how much of a gap to the floor one random slot
 * per rule explains on a given machine.
 */
/* The slots in the best memory there is: DPDK's on hugepages; without
 * them, host memory asked for transparent huge pages (what Tally takes for
 * its steering memory then, drivers/net/tally/tally_flow_mem.c). Zeroed
 * and touched before the first rule. */
static void
floor_slots_alloc(struct floor_priv *p, uint32_t n)
{
	size_t len = (size_t)n * sizeof(p->slots[0]);

	p->slots_hmem = !rte_eal_has_hugepages();
	if (!p->slots_hmem) {
		p->slots = rte_zmalloc("flowfloor_slots", len, RTE_CACHE_LINE_SIZE);
		return;
	}
	p->slots = tally_hmem_alloc(len, true);
	if (p->slots != NULL)
		tally_hmem_populate(p->slots, len);
}

static void
floor_slots_free(struct floor_priv *p)
{
	if (p->slots_hmem)
		tally_hmem_free(p->slots, (size_t)(p->smask + 1) * sizeof(p->slots[0]));
	else
		rte_free(p->slots);
	p->slots = NULL;
}

/* A rule's slot: the hash of its IPv4 source. */
static inline struct floor_slot *
floor_slot_of(const struct floor_priv *p, const struct rte_flow *f)
{
	return &p->slots[rte_hash_crc_4byte(f->src, 0) & p->smask];
}

#define FLOOR_PF	16
#define FLOOR_DEPTH	24
#define FLOOR_DEL_PF	8
#define FLOOR_DEL_AHEAD	32

static void
floor_slot_add(struct floor_priv *p, struct rte_flow *f)
{
	uint32_t seq = p->seq++, k;

	p->seq_slot[seq & (p->nseq - 1)] = (uint32_t)(floor_slot_of(p, f) - p->slots);
	if (seq % FLOOR_PF == FLOOR_PF - 1)
		for (k = 0; k < FLOOR_PF; k++)
			rte_prefetch0(&p->slots[p->seq_slot[(seq - k) & (p->nseq - 1)]]);
	if (seq >= FLOOR_DEPTH) {
		struct floor_slot *e = &p->slots[p->seq_slot[(seq - FLOOR_DEPTH) &
							     (p->nseq - 1)]];

		/* what the words hold does not matter here */
		e->key[0] = seq - FLOOR_DEPTH;
		e->act = f->counter;
		__atomic_store_n(&e->ctrl, 1, __ATOMIC_RELEASE);
	}
}

static void
floor_slot_del(struct floor_priv *p, struct rte_flow *f)
{
	struct floor_slot *e = floor_slot_of(p, f);
	uint32_t k, next, d = p->dseq++;

	if (d % FLOOR_DEL_PF == 0)
		for (k = 0; k < FLOOR_DEL_PF; k++) {
			next = d + FLOOR_DEL_AHEAD + k;
			if (next < p->seq)	/* created */
				rte_prefetch0(&p->slots[p->seq_slot[next & (p->nseq - 1)]]);
		}
	if (__atomic_load_n(&e->ctrl, __ATOMIC_RELAXED) != 0)
		__atomic_store_n(&e->ctrl, 2, __ATOMIC_RELEASE);	/* tombstone */
}

static int
floor_notsup(struct rte_flow_error *err)
{
	return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				  NULL, "net_flowfloor: not supported");
}

/* ---- rte_flow ------------------------------------------------------------- */

static int
floor_parse(const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	    uint32_t *src, uint16_t *queue, int *count, struct rte_flow_error *err)
{
	const struct rte_flow_item *it;
	const struct rte_flow_action *a;

	*src = 0;
	*queue = 0;
	*count = 0;
	for (it = pattern; it->type != RTE_FLOW_ITEM_TYPE_END; it++)
		if (it->type == RTE_FLOW_ITEM_TYPE_IPV4 && it->spec != NULL)
			*src = ((const struct rte_flow_item_ipv4 *)it->spec)->hdr.src_addr;
	for (a = actions; a->type != RTE_FLOW_ACTION_TYPE_END; a++) {
		switch (a->type) {
		case RTE_FLOW_ACTION_TYPE_COUNT:
			*count = 1;
			break;
		case RTE_FLOW_ACTION_TYPE_QUEUE:
			if (a->conf == NULL)
				return rte_flow_error_set(err, EINVAL,
					RTE_FLOW_ERROR_TYPE_ACTION_CONF, a, "queue without conf");
			*queue = ((const struct rte_flow_action_queue *)a->conf)->index;
			break;
		default:
			break;
		}
	}
	return 0;
}

static int
floor_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	       const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	       struct rte_flow_error *err)
{
	uint32_t src;
	uint16_t q;
	int c;

	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	return floor_parse(pattern, actions, &src, &q, &c, err);
}

static void floor_fill(struct floor_priv *p, struct rte_flow *f, uint32_t src, uint16_t q,
		       int c);

static struct rte_flow *
floor_create(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	     const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	     struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;
	struct rte_flow *f;
	uint32_t src;
	uint16_t q;
	int c;

	RTE_SET_USED(attr);
	if (floor_parse(pattern, actions, &src, &q, &c, err) != 0)
		return NULL;
	if (c && p->nfree == 0) {
		rte_flow_error_set(err, ENOSPC, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
				   "counters exhausted");
		return NULL;
	}
	f = malloc(sizeof(*f));
	if (f == NULL) {
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_HANDLE, NULL, "no memory");
		return NULL;
	}
	f->tbl = NULL;
	floor_fill(p, f, src, q, c);
	return f;
}

/* A rule object's fields, its counter, and its place on the list. */
static void
floor_fill(struct floor_priv *p, struct rte_flow *f, uint32_t src, uint16_t q, int c)
{
	f->src = src;
	f->queue = q;
	f->counter = UINT32_MAX;
	if (c) {
		f->counter = p->free_cnt[--p->nfree];
		p->cnt[f->counter].pkts = 0;
		p->cnt[f->counter].bytes = 0;
	}
	f->next = p->head.next;
	f->prev = &p->head;
	p->head.next->prev = f;
	p->head.next = f;
	if (p->slots != NULL)
		floor_slot_add(p, f);
}

static void
floor_free(struct floor_priv *p, struct rte_flow *f)
{
	if (p->slots != NULL)
		floor_slot_del(p, f);
	f->prev->next = f->next;
	f->next->prev = f->prev;
	if (f->counter != UINT32_MAX)
		p->free_cnt[p->nfree++] = f->counter;
	if (f->tbl != NULL)
		f->tbl->free[f->tbl->nfree++] = f;
	else
		free(f);
}

static int
floor_destroy(struct rte_eth_dev *dev, struct rte_flow *f, struct rte_flow_error *err)
{
	RTE_SET_USED(err);
	floor_free(dev->data->dev_private, f);
	return 0;
}

static int
floor_flush(struct rte_eth_dev *dev, struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;

	RTE_SET_USED(err);
	while (p->head.next != &p->head)
		floor_free(p, p->head.next);
	return 0;
}

static int
floor_query(struct rte_eth_dev *dev, struct rte_flow *f, const struct rte_flow_action *a,
	    void *data, struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;
	struct rte_flow_query_count *q = data;

	if (a->type != RTE_FLOW_ACTION_TYPE_COUNT || f->counter == UINT32_MAX)
		return floor_notsup(err);
	q->hits_set = 1;
	q->bytes_set = 1;
	q->hits = p->cnt[f->counter].pkts;
	q->bytes = p->cnt[f->counter].bytes;
	if (q->reset) {
		p->cnt[f->counter].pkts = 0;
		p->cnt[f->counter].bytes = 0;
	}
	return 0;
}

/* ---- template / async ------------------------------------------------------
 *
 * The least an async PMD can do: templates are empty objects, a table
 * holds its rules' objects (allocated and touched at creation), a queued
 * create is the synchronous create without its malloc (floor_parse() of
 * the rule's items and actions, an object from the table, a counter) done
 * at enqueue, its result posted in the queue's ring; push does nothing,
 * pull copies results out. Rules and counters are shared by the queues:
 * with more than one queue configured they are taken under one spinlock
 * (as any PMD's shared state would be), with one there is no other thread.
 */

struct floor_q {
	struct rte_flow_op_result *res;
	uint32_t size;			/* ring entries (a power of two) */
	uint32_t head, tail;		/* pull at head, post at tail */
};

struct floor_async {
	rte_spinlock_t lock;
	uint16_t nq;
	struct floor_q q[];
};

struct rte_flow_pattern_template { int unused; };
struct rte_flow_actions_template { int unused; };

#define FLOOR_MAX_QUEUES	8
#define FLOOR_MAX_QUEUE_SIZE	(1u << 16)

/* The rules and counters, for a flow queue's operation (see above). */
static void
floor_lock(struct floor_async *a)
{
	if (a->nq > 1)
		rte_spinlock_lock(&a->lock);
}

static void
floor_unlock(struct floor_async *a)
{
	if (a->nq > 1)
		rte_spinlock_unlock(&a->lock);
}

static int
floor_info_get(struct rte_eth_dev *dev, struct rte_flow_port_info *pi,
	       struct rte_flow_queue_info *qi, struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;

	RTE_SET_USED(err);
	memset(pi, 0, sizeof(*pi));
	memset(qi, 0, sizeof(*qi));
	pi->max_nb_queues = FLOOR_MAX_QUEUES;
	pi->max_nb_counters = p->ncnt;
	qi->max_size = FLOOR_MAX_QUEUE_SIZE;
	return 0;
}

static void
floor_async_free(struct floor_priv *p)
{
	uint16_t i;

	if (p->async == NULL)
		return;
	for (i = 0; i < p->async->nq; i++)
		free(p->async->q[i].res);
	free(p->async);
	p->async = NULL;
}

static int
floor_configure(struct rte_eth_dev *dev, const struct rte_flow_port_attr *pa,
		uint16_t nq, const struct rte_flow_queue_attr *qa[], struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;
	struct floor_async *a;
	uint16_t i;

	RTE_SET_USED(pa);
	if (nq == 0 || nq > FLOOR_MAX_QUEUES || qa == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "1 to 8 queues");
	a = calloc(1, sizeof(*a) + nq * sizeof(a->q[0]));
	if (a == NULL)
		return rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "no memory");
	rte_spinlock_init(&a->lock);
	a->nq = nq;
	floor_async_free(p);
	p->async = a;
	for (i = 0; i < nq; i++) {
		uint32_t size = qa[i] == NULL || qa[i]->size == 0 ? 1 : qa[i]->size;

		if (size > FLOOR_MAX_QUEUE_SIZE) {
			floor_async_free(p);
			return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
						  NULL, "queue too large");
		}
		a->q[i].size = rte_align32pow2(size);
		a->q[i].res = calloc(a->q[i].size, sizeof(a->q[i].res[0]));
		if (a->q[i].res == NULL) {
			floor_async_free(p);
			return rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
						  NULL, "no memory");
		}
	}
	return 0;
}

static struct rte_flow_pattern_template *
floor_pt_create(struct rte_eth_dev *dev, const struct rte_flow_pattern_template_attr *attr,
		const struct rte_flow_item pattern[], struct rte_flow_error *err)
{
	struct rte_flow_pattern_template *t = calloc(1, sizeof(*t));

	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	RTE_SET_USED(pattern);
	if (t == NULL)
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory");
	return t;
}

static int
floor_pt_destroy(struct rte_eth_dev *dev, struct rte_flow_pattern_template *t,
		 struct rte_flow_error *err)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(err);
	free(t);
	return 0;
}

static struct rte_flow_actions_template *
floor_at_create(struct rte_eth_dev *dev, const struct rte_flow_actions_template_attr *attr,
		const struct rte_flow_action actions[], const struct rte_flow_action masks[],
		struct rte_flow_error *err)
{
	struct rte_flow_actions_template *t = calloc(1, sizeof(*t));

	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	RTE_SET_USED(actions);
	RTE_SET_USED(masks);
	if (t == NULL)
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory");
	return t;
}

static int
floor_at_destroy(struct rte_eth_dev *dev, struct rte_flow_actions_template *t,
		 struct rte_flow_error *err)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(err);
	free(t);
	return 0;
}

static struct rte_flow_template_table *
floor_tbl_create(struct rte_eth_dev *dev, const struct rte_flow_template_table_attr *attr,
		 struct rte_flow_pattern_template *pt[], uint8_t npt,
		 struct rte_flow_actions_template *at[], uint8_t nat,
		 struct rte_flow_error *err)
{
	struct rte_flow_template_table *t = calloc(1, sizeof(*t));
	size_t n;

	RTE_SET_USED(dev);
	RTE_SET_USED(pt);
	RTE_SET_USED(npt);
	RTE_SET_USED(at);
	RTE_SET_USED(nat);
	if (t == NULL) {
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory");
		return NULL;
	}
	t->nb_flows = attr->nb_flows;
	n = t->nb_flows ? t->nb_flows : 1;	/* malloc(0) may be NULL */
	t->objs = malloc(n * sizeof(t->objs[0]));
	t->free = malloc(n * sizeof(t->free[0]));
	if (t->objs == NULL || t->free == NULL) {
		free(t->objs);
		free(t->free);
		free(t);
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory");
		return NULL;
	}
	memset(t->objs, 0, (size_t)t->nb_flows * sizeof(t->objs[0]));
	for (t->nfree = 0; t->nfree < t->nb_flows; t->nfree++)
		t->free[t->nfree] = &t->objs[t->nb_flows - 1 - t->nfree];
	return t;
}

static int
floor_tbl_destroy(struct rte_eth_dev *dev, struct rte_flow_template_table *t,
		  struct rte_flow_error *err)
{
	RTE_SET_USED(dev);
	if (t->nfree != t->nb_flows)
		return rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "table has rules");
	free(t->objs);
	free(t->free);
	free(t);
	return 0;
}

/* The queue, with room for one more result; NULL (err set) otherwise. */
static struct floor_q *
floor_q_of(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;
	struct floor_q *q;

	if (p->async == NULL || queue >= p->async->nq) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no such flow queue");
		return NULL;
	}
	q = &p->async->q[queue];
	if (q->tail - q->head == q->size) {
		rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "result ring full: pull first");
		return NULL;
	}
	return q;
}

static void
floor_post(struct floor_q *q, void *ud)
{
	struct rte_flow_op_result *r = &q->res[q->tail++ & (q->size - 1)];

	r->status = RTE_FLOW_OP_SUCCESS;
	r->user_data = ud;
}

static struct rte_flow *
floor_async_create(struct rte_eth_dev *dev, uint32_t queue,
		   const struct rte_flow_op_attr *op, struct rte_flow_template_table *t,
		   const struct rte_flow_item pattern[], uint8_t pti,
		   const struct rte_flow_action actions[], uint8_t ati, void *ud,
		   struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;
	struct floor_q *q = floor_q_of(dev, queue, err);
	struct rte_flow *f = NULL;
	uint32_t src;
	uint16_t qi;
	int c;

	RTE_SET_USED(op);
	RTE_SET_USED(pti);
	RTE_SET_USED(ati);
	if (q == NULL || floor_parse(pattern, actions, &src, &qi, &c, err) != 0)
		return NULL;
	floor_lock(p->async);
	if (t->nfree > 0 && (!c || p->nfree > 0)) {
		f = t->free[--t->nfree];
		f->tbl = t;
		floor_fill(p, f, src, qi, c);
	}
	floor_unlock(p->async);
	if (f == NULL) {
		rte_flow_error_set(err, ENOSPC, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "table or counters full");
		return NULL;
	}
	floor_post(q, ud);
	return f;
}

static int
floor_async_destroy(struct rte_eth_dev *dev, uint32_t queue,
		    const struct rte_flow_op_attr *op, struct rte_flow *f, void *ud,
		    struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;
	struct floor_q *q = floor_q_of(dev, queue, err);

	RTE_SET_USED(op);
	if (q == NULL)
		return -rte_errno;
	floor_lock(p->async);
	floor_free(p, f);
	floor_unlock(p->async);
	floor_post(q, ud);
	return 0;
}

static int
floor_push(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;

	if (p->async == NULL || queue >= p->async->nq)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "no such flow queue");
	return 0;
}

static int
floor_pull(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_op_result res[],
	   uint16_t n, struct rte_flow_error *err)
{
	struct floor_priv *p = dev->data->dev_private;
	struct floor_q *q;
	uint16_t i;

	if (p->async == NULL || queue >= p->async->nq)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "no such flow queue");
	q = &p->async->q[queue];
	for (i = 0; i < n && q->head != q->tail; i++)
		res[i] = q->res[q->head++ & (q->size - 1)];
	return i;
}

static struct rte_flow_action_handle *
floor_async_h_create(struct rte_eth_dev *dev, uint32_t queue,
		     const struct rte_flow_op_attr *op,
		     const struct rte_flow_indir_action_conf *conf,
		     const struct rte_flow_action *a, void *ud, struct rte_flow_error *err)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(queue);
	RTE_SET_USED(op);
	RTE_SET_USED(conf);
	RTE_SET_USED(a);
	RTE_SET_USED(ud);
	floor_notsup(err);
	return NULL;
}

static int
floor_async_h_destroy(struct rte_eth_dev *dev, uint32_t queue,
		      const struct rte_flow_op_attr *op, struct rte_flow_action_handle *h,
		      void *ud, struct rte_flow_error *err)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(queue);
	RTE_SET_USED(op);
	RTE_SET_USED(h);
	RTE_SET_USED(ud);
	return floor_notsup(err);
}

static int
floor_async_h_update(struct rte_eth_dev *dev, uint32_t queue,
		     const struct rte_flow_op_attr *op, struct rte_flow_action_handle *h,
		     const void *upd, void *ud, struct rte_flow_error *err)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(queue);
	RTE_SET_USED(op);
	RTE_SET_USED(h);
	RTE_SET_USED(upd);
	RTE_SET_USED(ud);
	return floor_notsup(err);
}

static int
floor_async_h_query(struct rte_eth_dev *dev, uint32_t queue,
		    const struct rte_flow_op_attr *op, const struct rte_flow_action_handle *h,
		    void *data, void *ud, struct rte_flow_error *err)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(queue);
	RTE_SET_USED(op);
	RTE_SET_USED(h);
	RTE_SET_USED(data);
	RTE_SET_USED(ud);
	return floor_notsup(err);
}

/* The async fast path: in rte_flow_ops on 22.11, its own table on 24.x
 * (drivers/net/tally/tally_compat.h), attached to each port at probe. */
#define FLOOR_FP_OPS							\
	.async_create = floor_async_create,				\
	.async_destroy = floor_async_destroy,				\
	.push = floor_push,						\
	.pull = floor_pull,						\
	.async_action_handle_create = floor_async_h_create,		\
	.async_action_handle_destroy = floor_async_h_destroy,		\
	.async_action_handle_update = floor_async_h_update,		\
	.async_action_handle_query = floor_async_h_query

static const struct rte_flow_ops floor_flow_ops = {
	.validate = floor_validate,
	.create = floor_create,
	.destroy = floor_destroy,
	.flush = floor_flush,
	.query = floor_query,
	.info_get = floor_info_get,
	.configure = floor_configure,
	.pattern_template_create = floor_pt_create,
	.pattern_template_destroy = floor_pt_destroy,
	.actions_template_create = floor_at_create,
	.actions_template_destroy = floor_at_destroy,
	.template_table_create = floor_tbl_create,
	.template_table_destroy = floor_tbl_destroy,
#if !TALLY_FLOW_FP_OWN_TABLE
	FLOOR_FP_OPS,
#endif
};

#if TALLY_FLOW_FP_OWN_TABLE
static const struct rte_flow_fp_ops floor_fp_ops = {
	FLOOR_FP_OPS,
	TALLY_COMPAT_FLOW_FP_REFUSED,
};
#endif

/* ---- ethdev ---------------------------------------------------------------- */

static uint16_t
floor_rx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(q);
	RTE_SET_USED(pkts);
	RTE_SET_USED(n);
	return 0;
}

static uint16_t
floor_tx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	RTE_SET_USED(q);
	for (i = 0; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
	return n;
}

static int
floor_configure_dev(struct rte_eth_dev *dev)
{
	RTE_SET_USED(dev);
	return 0;
}

static int
floor_start(struct rte_eth_dev *dev)
{
	dev->data->dev_link.link_status = RTE_ETH_LINK_UP;
	return 0;
}

static int
floor_stop(struct rte_eth_dev *dev)
{
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	return 0;
}

static int
floor_close(struct rte_eth_dev *dev)
{
	struct floor_priv *p = dev->data->dev_private;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY || p == NULL)
		return 0;
	floor_flush(dev, NULL);
	floor_async_free(p);
	free(p->cnt);
	free(p->free_cnt);
	floor_slots_free(p);
	free(p->seq_slot);
	p->cnt = NULL;
	p->free_cnt = NULL;
	p->seq_slot = NULL;
	return 0;
}

static int
floor_info(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	RTE_SET_USED(dev);
	info->max_rx_queues = 8;
	info->max_tx_queues = 8;
	info->max_rx_pktlen = 9018;
	info->max_mac_addrs = 1;
	info->min_rx_bufsize = 64;
	info->flow_type_rss_offloads = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;
	info->reta_size = 64;
	info->hash_key_size = 40;
	return 0;
}

static int
floor_link(struct rte_eth_dev *dev, int wait)
{
	RTE_SET_USED(wait);
	dev->data->dev_link.link_speed = RTE_ETH_SPEED_NUM_10G;
	dev->data->dev_link.link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
	return 0;
}

static int
floor_rxq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb, unsigned int sock,
		const struct rte_eth_rxconf *conf, struct rte_mempool *mp)
{
	RTE_SET_USED(nb);
	RTE_SET_USED(sock);
	RTE_SET_USED(conf);
	RTE_SET_USED(mp);
	dev->data->rx_queues[qid] = dev;
	return 0;
}

static int
floor_txq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb, unsigned int sock,
		const struct rte_eth_txconf *conf)
{
	RTE_SET_USED(nb);
	RTE_SET_USED(sock);
	RTE_SET_USED(conf);
	dev->data->tx_queues[qid] = dev;
	return 0;
}

static void
floor_q_release(struct rte_eth_dev *dev, uint16_t qid)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(qid);
}

static int
floor_stats(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	RTE_SET_USED(dev);
	memset(st, 0, sizeof(*st));
	return 0;
}

static int
floor_nop(struct rte_eth_dev *dev)
{
	RTE_SET_USED(dev);
	return 0;
}

static int
floor_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops)
{
	RTE_SET_USED(dev);
	*ops = &floor_flow_ops;
	return 0;
}

static const struct eth_dev_ops floor_dev_ops = {
	.dev_configure = floor_configure_dev,
	.dev_start = floor_start,
	.dev_stop = floor_stop,
	.dev_close = floor_close,
	.dev_infos_get = floor_info,
	.link_update = floor_link,
	.rx_queue_setup = floor_rxq_setup,
	.tx_queue_setup = floor_txq_setup,
	.rx_queue_release = floor_q_release,
	.tx_queue_release = floor_q_release,
	.stats_get = floor_stats,
	.stats_reset = floor_nop,
	.promiscuous_enable = floor_nop,
	.promiscuous_disable = floor_nop,
	.allmulticast_enable = floor_nop,
	.allmulticast_disable = floor_nop,
	.flow_ops_get = floor_flow_ops_get,
};

/* ---- vdev ------------------------------------------------------------------ */

static int
floor_counters_arg(const char *key, const char *value, void *opaque)
{
	char *end;
	unsigned long v;

	RTE_SET_USED(key);
	errno = 0;
	v = strtoul(value, &end, 0);
	if (errno != 0 || *end != '\0' || v == 0 || v > (1ul << 26))
		return -EINVAL;
	*(uint32_t *)opaque = (uint32_t)v;
	return 0;
}

static int
floor_slots_arg(const char *key, const char *value, void *opaque)
{
	int rc = floor_counters_arg(key, value, opaque);

	if (rc == 0 && (*(uint32_t *)opaque & (*(uint32_t *)opaque - 1)) != 0)
		return -EINVAL;	/* a power of two */
	return rc;
}

static int
floor_probe(struct rte_vdev_device *vdev)
{
	static const char *const keys[] = { "counters", "slots", NULL };
	const char *args = rte_vdev_device_args(vdev);
	uint32_t ncnt = FLOOR_COUNTERS_DEFAULT, nslots = 0, i;
	struct rte_eth_dev *dev;
	struct floor_priv *p;

	if (args != NULL && *args != '\0') {
		struct rte_kvargs *kv = rte_kvargs_parse(args, keys);
		int rc;

		if (kv == NULL)
			return -EINVAL;
		rc = rte_kvargs_process(kv, "counters", floor_counters_arg, &ncnt);
		if (rc == 0)
			rc = rte_kvargs_process(kv, "slots", floor_slots_arg, &nslots);
		rte_kvargs_free(kv);
		if (rc != 0)
			return -EINVAL;
	}
	dev = rte_eth_vdev_allocate(vdev, sizeof(*p));
	if (dev == NULL)
		return -ENOMEM;
	p = dev->data->dev_private;
	p->head.next = p->head.prev = &p->head;
	p->ncnt = ncnt;
	p->cnt = malloc((size_t)ncnt * sizeof(p->cnt[0]));
	p->free_cnt = malloc((size_t)ncnt * sizeof(uint32_t));
	dev->data->mac_addrs = rte_zmalloc("flowfloor_mac", sizeof(struct rte_ether_addr), 0);
	if (nslots != 0) {
		p->smask = nslots - 1;	/* before the array: its free uses it */
		floor_slots_alloc(p, nslots);
		p->nseq = 1;
		while (p->nseq < ncnt)
			p->nseq <<= 1;
		p->seq_slot = calloc(p->nseq, sizeof(p->seq_slot[0]));
	}
	if (p->cnt == NULL || p->free_cnt == NULL || dev->data->mac_addrs == NULL ||
	    (nslots != 0 && (p->slots == NULL || p->seq_slot == NULL))) {
		free(p->cnt);
		free(p->free_cnt);
		floor_slots_free(p);
		free(p->seq_slot);
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	/* the array is touched now, as a device's counter bank is there
	 * before the first rule (calloc's pages would fault in one by one) */
	memset(p->cnt, 0, (size_t)ncnt * sizeof(p->cnt[0]));
	for (i = 0; i < ncnt; i++)
		p->free_cnt[i] = ncnt - 1 - i;
	p->nfree = ncnt;
	dev->data->mac_addrs->addr_bytes[0] = 0x02;
	dev->data->mac_addrs->addr_bytes[5] = 0x01;
	dev->dev_ops = &floor_dev_ops;
#if TALLY_FLOW_FP_OWN_TABLE
	dev->flow_fp_ops = &floor_fp_ops;
#endif
	dev->rx_pkt_burst = floor_rx;
	dev->tx_pkt_burst = floor_tx;
	/* not FLOW_OPS_THREAD_SAFE: ethdev serialises flow ops with its lock */
	rte_eth_dev_probing_finish(dev);
	return 0;
}

static int
floor_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	if (dev == NULL)
		return 0;
	floor_close(dev);
	return rte_eth_dev_release_port(dev);
}

static struct rte_vdev_driver floor_drv = {
	.probe = floor_probe,
	.remove = floor_remove,
};

RTE_PMD_REGISTER_VDEV(net_flowfloor, floor_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_flowfloor, "counters=<int> slots=<power of two>");
