/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Operator views of Tally ports: the driver's telemetry endpoints and
 * eth_dev_priv_dump (/ethdev/dump_priv, rte_eth_dev_priv_dump()).
 *
 *   /tally/ports              ids of the Tally ports
 *   /tally/flows,<port>       rte_flow rules, indirect counters, matchers
 *   /tally/counters,<port>    the flow counter pool: size, in use, free,
 *                             pending reuse (freed, waiting for the fence)
 *   /tally/faults,<port>      device faults: total, by cause, the last one;
 *                             Rx completions the driver refused
 *   /tally/top,<port>[,<n>]   the n (default 10, at most 64) counting rules
 *                             with the most hits (ties: older rule first),
 *                             as columns: index (creation order), group,
 *                             priority, counter, shared, hits, bytes (since
 *                             the rule was created: query resets do not
 *                             move them)
 *   /tally/transfer,<port>[,<n>]  the same for the transfer rules of the
 *                             port's device (spec 2.3, its switch), with a
 *                             column `created_on`: the ethdev each was created
 *                             through; "rules" counts them all
 *
 * Callbacks run on the telemetry thread. They read counters lock-free (the
 * driver's one counter read) and take the flow engine lock only to walk the
 * rules; /tally/top visits every rule of the port, so its cost grows with
 * the rule count (a walk of a million rules takes tens of milliseconds,
 * during which rule creation on that port waits).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "tally_cnt.h"
#include "tally_compat.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_hal_io.h"
#include "rte_pmd_tally.h"

#define TALLY_TEL_TOP_DEFAULT	10
#define TALLY_TEL_TOP_MAX	64

/* "<port>[,<n>]" -> the adapter (and n); NULL on a bad or non-Tally port. */
static struct tally_adapter *
tally_tel_port(const char *params, unsigned long *n)
{
	struct tally_adapter *ad;
	unsigned long port;
	char *end;

	if (params == NULL || *params < '0' || *params > '9')
		return NULL;
	port = strtoul(params, &end, 10);
	if (port >= RTE_MAX_ETHPORTS)
		return NULL;
	if (n != NULL && *end == ',') {
		if (end[1] < '0' || end[1] > '9')
			return NULL;
		*n = strtoul(end + 1, &end, 10);
		if (*n == 0 || *n > TALLY_TEL_TOP_MAX)
			return NULL;
	}
	if (*end != '\0')
		return NULL;
	ad = tally_adapter_from_port((uint16_t)port);
	return ad != NULL && !ad->closed && ad->flow != NULL ? ad : NULL;
}

static int
tally_tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint16_t port;

	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	/* owned ports too: a fail-safe or bonding port's Tally sub-devices */
	for (port = rte_eth_find_next(0); port < RTE_MAX_ETHPORTS;
	     port = rte_eth_find_next(port + 1)) {
		struct tally_adapter *ad = tally_adapter_from_port(port);

		if (ad != NULL && !ad->closed)
			rte_tel_data_add_array_int(d, port);
	}
	return 0;
}

static int
tally_tel_flows(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tally_adapter *ad = tally_tel_port(params, NULL);
	struct tally_flow_sum sum;

	if (ad == NULL)
		return -EINVAL;
	tally_flow_summary(ad, &sum);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", ad->eth_dev->data->port_id);
	tally_tel_dict_u64(d, "flows", sum.flows);
	tally_tel_dict_u64(d, "indirect_counters", sum.indirect_counters);
	tally_tel_dict_u64(d, "matchers", sum.matchers);
	tally_tel_dict_u64(d, "idle_matchers", sum.idle_matchers);
	rte_tel_data_add_dict_int(d, "isolated", sum.isolated);
	return 0;
}

static int
tally_tel_counters(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tally_adapter *ad = tally_tel_port(params, NULL);
	struct tally_cnt_pool *pool;
	uint32_t in_use, free_now, pending;

	if (ad == NULL || (pool = tally_flow_cnt_pool(ad)) == NULL)
		return -EINVAL;
	tally_cnt_pool_stats(pool, &in_use, &free_now, &pending);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", ad->eth_dev->data->port_id);
	tally_tel_dict_u64(d, "size", pool->num);
	tally_tel_dict_u64(d, "in_use", in_use);
	tally_tel_dict_u64(d, "free", free_now);
	tally_tel_dict_u64(d, "pending_reuse", pending);
	return 0;
}

static int
tally_tel_faults(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tally_adapter *ad = tally_tel_port(params, NULL);
	uint64_t st[TALLY_STAT_NUM], other, bad_len, bad_chain;
	struct tally_hal_fault f;
	char addr[24];

	if (ad == NULL)
		return -EINVAL;
	tally_hal_fault_read(&ad->hal, &f, false);
	tally_hal_port_stats(&ad->hal, st);
	/* the device counts DMA and descriptor faults by cause; the rest
	 * (register, queue set-up, steering entry) only in the total */
	other = f.count - RTE_MIN((uint64_t)f.count,
				  st[TALLY_STAT_DMA_FAULTS] + st[TALLY_STAT_DESC_FAULTS]);
	snprintf(addr, sizeof(addr), "0x%" PRIx64, f.addr);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", ad->eth_dev->data->port_id);
	tally_tel_dict_u64(d, "total", f.count);
	tally_tel_dict_u64(d, "dma", st[TALLY_STAT_DMA_FAULTS]);
	tally_tel_dict_u64(d, "descriptor", st[TALLY_STAT_DESC_FAULTS]);
	tally_tel_dict_u64(d, "other", other);
	rte_tel_data_add_dict_string(d, "last_cause", tally_hal_fault_str(f.cause));
	rte_tel_data_add_dict_string(d, "last_addr", addr);
	/* what the driver found wrong in what the device wrote */
	tally_stats_rx_refused(ad->eth_dev, &bad_len, &bad_chain);
	tally_tel_dict_u64(d, "rx_cqe_bad_len", bad_len);
	tally_tel_dict_u64(d, "rx_cqe_bad_chain", bad_chain);
	return 0;
}

struct tally_tel_rule {
	struct tally_flow_info fi;
	uint64_t hits;
	uint64_t bytes;
};

struct tally_tel_top {
	struct tally_cnt_pool *pool;
	struct tally_tel_rule r[TALLY_TEL_TOP_MAX];
	unsigned int n;			/* kept so far */
	unsigned int max;
};

/* Keep the max rules with the most hits, sorted (insertion: max <= 64). */
static int
tally_tel_top_cb(const struct tally_flow_info *fi, void *arg)
{
	struct tally_tel_top *t = arg;
	struct tally_tel_rule r = { .fi = *fi };
	unsigned int i;

	if (!fi->counted ||
	    tally_cnt_read_life(t->pool, fi->counter, &r.hits, &r.bytes) != 0)
		return 0;
	if (t->n == t->max && r.hits <= t->r[t->n - 1].hits)
		return 0;
	i = t->n < t->max ? t->n++ : t->n - 1;
	while (i > 0 && t->r[i - 1].hits < r.hits) {
		t->r[i] = t->r[i - 1];
		i--;
	}
	t->r[i] = r;
	return 0;
}

/* One array per column, rule i in element i of each: telemetry arrays
 * cannot hold dictionaries, and columns keep the reply small. */
static const char *const tally_tel_top_cols[] = {
	"index", "group", "priority", "counter", "shared", "hits", "bytes", "created_on",
};
#define TALLY_TEL_TOP_COLS	7	/* /tally/top's; /tally/transfer adds `port` */

static uint64_t
tally_tel_top_val(const struct tally_tel_rule *r, unsigned int col)
{
	switch (col) {
	case 0: return r->fi.index;
	case 1: return r->fi.group;
	case 2: return r->fi.priority;
	case 3: return r->fi.counter;
	case 4: return r->fi.shared;
	case 5: return r->hits;
	case 6: return r->bytes;
	default: return r->fi.port_id;
	}
}

static int
tally_tel_top_fill(struct rte_tel_data *d, uint16_t port, uint64_t rules,
		   const struct tally_tel_top *t, unsigned int ncols)
{
	unsigned int c, i;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", port);
	tally_tel_dict_u64(d, "rules", rules);
	for (c = 0; c < ncols; c++) {
		struct rte_tel_data *a = rte_tel_data_alloc();

		if (a == NULL)
			return -ENOMEM;
		rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
		for (i = 0; i < t->n; i++)
			tally_tel_array_u64(a, tally_tel_top_val(&t->r[i], c));
		rte_tel_data_add_dict_container(d, tally_tel_top_cols[c], a, 0);
	}
	return 0;
}

static int
tally_tel_top(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned long n = TALLY_TEL_TOP_DEFAULT;
	struct tally_adapter *ad = tally_tel_port(params, &n);
	struct tally_tel_top *t;
	int ret;

	if (ad == NULL || tally_flow_cnt_pool(ad) == NULL)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->pool = tally_flow_cnt_pool(ad);
	t->max = (unsigned int)n;
	ret = tally_flow_walk(ad, tally_tel_top_cb, t);
	if (ret == 0)
		ret = tally_tel_top_fill(d, ad->eth_dev->data->port_id, t->n, t,
					 TALLY_TEL_TOP_COLS);
	free(t);
	return ret;
}

static int
tally_tel_transfer(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned long n = TALLY_TEL_TOP_DEFAULT;
	struct tally_adapter *ad = tally_tel_port(params, &n), *px = NULL;
	struct tally_tel_top *t;
	int ret;

	if (ad == NULL || ad->sw == NULL)
		return -EINVAL;
	rte_spinlock_lock(&ad->sw->lock);
	px = ad->sw->proxy;
	rte_spinlock_unlock(&ad->sw->lock);
	if (px == NULL || tally_flow_cnt_pool(px) == NULL)
		return -EINVAL;	/* no switch, or port 0 closed */
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->pool = tally_flow_cnt_pool(px);
	t->max = (unsigned int)n;
	ret = tally_flow_xfer_walk(px, tally_tel_top_cb, t);
	if (ret == 0)
		ret = tally_tel_top_fill(d, px->eth_dev->data->port_id,
					 tally_flow_xfer_count(px), t,
					 RTE_DIM(tally_tel_top_cols));
	free(t);
	return ret;
}

/* eth_dev_ops.eth_dev_priv_dump: the device dump plus the flow engine. */
int
tally_dev_priv_dump(struct rte_eth_dev *dev, FILE *f)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_cnt_pool *pool = tally_flow_cnt_pool(ad);
	uint32_t in_use = 0, free_now = 0, pending = 0;
	struct tally_flow_sum sum;
	int ret;

	ret = rte_pmd_tally_dump(dev->data->port_id, f);
	if (ret != 0)
		return ret;
	tally_flow_summary(ad, &sum);
	if (pool != NULL)
		tally_cnt_pool_stats(pool, &in_use, &free_now, &pending);
	fprintf(f, "  flows %u indirect counters %u matchers %u (idle %u)%s\n", sum.flows,
		sum.indirect_counters, sum.matchers, sum.idle_matchers,
		sum.isolated ? " isolated" : "");
	fprintf(f, "  counter pool %u: in use %u free %u pending reuse %u\n",
		pool != NULL ? pool->num : 0, in_use, free_now, pending);
	return 0;
}

RTE_INIT(tally_telemetry_init)
{
	rte_telemetry_register_cmd("/tally/ports", tally_tel_ports,
		"Returns the Tally port ids. Takes no parameters");
	rte_telemetry_register_cmd("/tally/flows", tally_tel_flows,
		"Returns rte_flow rule, indirect counter and matcher counts. Parameters: int port_id");
	rte_telemetry_register_cmd("/tally/counters", tally_tel_counters,
		"Returns the flow counter pool: size, in_use, free, pending_reuse. Parameters: int port_id");
	rte_telemetry_register_cmd("/tally/faults", tally_tel_faults,
		"Returns device faults by cause and the last one. Parameters: int port_id");
	rte_telemetry_register_cmd("/tally/top", tally_tel_top,
		"Returns the counting rules with the most hits. Parameters: int port_id[,int n (1-64, default 10)]");
	rte_telemetry_register_cmd("/tally/transfer", tally_tel_transfer,
		"Returns the counting transfer rules of the port's device with the most hits. Parameters: int port_id[,int n (1-64, default 10)]");
}
