/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Template/async insertion benchmark on a net_tally port (not a test).
 *
 * rte_flow_configure with Q flow queues and N counters, one pattern template
 * (eth / ipv4 src exact / udp), one actions template (count / queue, queue
 * index per rule), one template table for N rules. Then Q threads (one per
 * queue, one lcore each) each enqueue N/Q rte_flow_async_create operations,
 * pushing and pulling every BATCH operations, and afterwards the same with
 * rte_flow_async_destroy. Prints rules/s for insert and destroy, and the
 * rate of every 1M-rule segment (all queues together), so a rate that drops
 * as the table fills shows, and the CPU time of the worker threads. On
 * Tally, last, how often the batches took the engine lock and how many of
 * those found it held by the other queue (the port's rte_flow_dev_dump).
 *
 * With ASYNC_BENCH_FLOOR=<path of librte_net_flowfloor.so> in the
 * environment the same runs on the floor PMD (test/perf/flowfloor_pmd.c:
 * the synchronous floor's work at enqueue, a result posted), the peer
 * devtools/bench-flow-async.sh measures next to Tally; with
 * ASYNC_BENCH_FLOOR_SLOTS=<N> as well, the floor has slots=N (one random
 * hash slot per rule, "floor+slot").
 *
 * With ASYNC_BENCH_PORTS=2 and 2 queues, each worker has a port of its own
 * (a second vdev, net_tally1 or net_flowfloor1, made after EAL init) with
 * one flow queue and a table of `rules` rules, and inserts `rules` rules
 * there: two copies of the one-queue run side by side that share no lock
 * and no line of the PMD's, so their rate over one queue's is what the two
 * CPUs of this machine allow any two-queue figure (the engine lock's line
 * is then not reported).
 *
 * With ASYNC_BENCH_TABLES=2 and 2 queues, one port: each worker has a
 * template table of its own (groups 0 and 1, rules/2 rules each, so each
 * array is as full as the shared one), hence a matcher and a hash array of
 * its own, while the port, its engine lock and its counts stay shared.
 *
 * usage: async_bench [rules [queues [eal_mem_mb [batch]]]]
 *        (default 1000000 1 2048 64); queues 1 or 2 (lcores 0..queues-1)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "perf_port.h"

#define SEG		1000000u
#define MAX_Q		2
#define MAX_SEGS	64

struct worker {
	uint16_t port;
	uint32_t queue;
	uint32_t first, n;		/* rules [first, first + n) */
	uint32_t batch;
	uint32_t nq;			/* queues in all: a segment is SEG / nq of ours */
	bool destroy;
	struct rte_flow_template_table *tbl;
	struct rte_flow **flows;	/* shared, indexed by rule */
	double seg_end[MAX_SEGS];	/* time this worker finished its share of a segment */
	double cpu;			/* CPU time of this worker's thread in the phase */
	uint32_t failed;
};

/* Pull until `want` results arrived; count the failed ones. */
static int
drain(struct worker *w, uint32_t want)
{
	struct rte_flow_op_result res[256];
	struct rte_flow_error err;
	uint32_t got = 0;

	while (got < want) {
		int n = rte_flow_pull(w->port, w->queue, res, RTE_DIM(res), &err), i;

		if (n < 0) {
			fprintf(stderr, "pull: %s\n", err.message ? err.message : "?");
			return n;
		}
		for (i = 0; i < n; i++)
			if (res[i].status != RTE_FLOW_OP_SUCCESS)
				w->failed++;
		got += (uint32_t)n;
	}
	return 0;
}

static int worker_loop(struct worker *w);

/* One worker's phase, and the CPU time its thread spent in it. */
static int
worker_run(void *arg)
{
	struct worker *w = arg;
	double c0 = perf_cpu_s();
	int rc = worker_loop(w);

	w->cpu = perf_cpu_s() - c0;
	return rc;
}

static int
worker_loop(struct worker *w)
{
	const struct rte_flow_op_attr oa = { .postpone = 1 };
	struct rte_flow_item_ipv4 ip;
	struct rte_flow_action_queue q = { .index = 0 };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;
	uint32_t i, pending = 0, seg_share = SEG / w->nq;

	memset(&ip, 0, sizeof(ip));
	for (i = 0; i < w->n; i++) {
		uint32_t r = w->first + i;

		if (!w->destroy) {
			ip.hdr.src_addr = rte_cpu_to_be_32(r);
			w->flows[r] = rte_flow_async_create(w->port, w->queue, &oa, w->tbl,
							    pattern, 0, actions, 0, NULL, &err);
			if (w->flows[r] == NULL) {
				fprintf(stderr, "async_create %u: %s\n", r,
					err.message ? err.message : "?");
				return -1;
			}
		} else if (rte_flow_async_destroy(w->port, w->queue, &oa, w->flows[r],
						  NULL, &err) != 0) {
			fprintf(stderr, "async_destroy %u: %s\n", r,
				err.message ? err.message : "?");
			return -1;
		}
		if (++pending == w->batch) {
			rte_flow_push(w->port, w->queue, &err);
			if (drain(w, pending) != 0)
				return -1;
			pending = 0;
		}
		if ((i + 1) % seg_share == 0 && (i + 1) / seg_share - 1 < MAX_SEGS)
			w->seg_end[(i + 1) / seg_share - 1] = perf_now_s();
	}
	rte_flow_push(w->port, w->queue, &err);
	return drain(w, pending);
}

static int
setup(uint16_t port, uint32_t nrules, uint32_t nq, uint32_t qsize, uint32_t ntbl,
      struct rte_flow_template_table **tbl, struct rte_flow_pattern_template **ptp,
      struct rte_flow_actions_template **atp)
{
	const struct rte_flow_item_ipv4 ip_mask = { .hdr.src_addr = RTE_BE32(0xffffffff) };
	const struct rte_flow_item pt_items[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .mask = &ip_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action at_acts[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_pattern_template_attr pta = { .ingress = 1 };
	const struct rte_flow_actions_template_attr ata = { .ingress = 1 };
	struct rte_flow_template_table_attr ta = {
		.flow_attr = { .ingress = 1 },
		.nb_flows = nrules / ntbl,
	};
	struct rte_flow_port_attr pa = { .nb_counters = nrules };
	struct rte_flow_queue_attr qa = { .size = qsize };
	const struct rte_flow_queue_attr *qap[MAX_Q] = { &qa, &qa };
	struct rte_flow_pattern_template *pt;
	struct rte_flow_actions_template *at;
	struct rte_flow_error err;
	char pool[32];
	uint32_t i;
	int rc;

	snprintf(pool, sizeof(pool), "ab_pool%u", port);
	rc = perf_port_queues(port, pool);
	if (rc == 0)
		rc = rte_flow_configure(port, &pa, (uint16_t)nq, qap, &err);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc != 0)
		return rc;
	pt = rte_flow_pattern_template_create(port, &pta, pt_items, &err);
	at = rte_flow_actions_template_create(port, &ata, at_acts, at_acts, &err);
	if (pt == NULL || at == NULL) {
		fprintf(stderr, "templates: %s\n", err.message ? err.message : "?");
		return -EINVAL;
	}
	*ptp = pt;
	*atp = at;
	for (i = 0; i < ntbl; i++) {
		ta.flow_attr.group = i;
		tbl[i] = rte_flow_template_table_create(port, &ta, &pt, 1, &at, 1, &err);
		if (tbl[i] == NULL) {
			fprintf(stderr, "table: %s\n", err.message ? err.message : "?");
			return -EINVAL;
		}
	}
	return 0;
}

/* Run the workers (worker 0 here, worker 1 on the next lcore). */
static double
run_phase(struct worker *w, uint32_t nq, bool destroy, double *t0_out)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);
	double t0, t1;
	int rc = 0;
	uint32_t i;

	for (i = 0; i < nq; i++) {
		w[i].destroy = destroy;
		memset(w[i].seg_end, 0, sizeof(w[i].seg_end));
	}
	t0 = perf_now_s();
	if (nq > 1 && rte_eal_remote_launch(worker_run, &w[1], lcore) != 0)
		return -1;
	if (worker_run(&w[0]) != 0)
		rc = -1;
	if (nq > 1 && rte_eal_wait_lcore(lcore) != 0)
		rc = -1;
	t1 = perf_now_s();
	*t0_out = t0;
	return rc == 0 ? t1 - t0 : -1;
}

static void
report(const char *what, struct worker *w, uint32_t nq, uint32_t nrules, double t0,
       double dt)
{
	uint32_t s, nseg = nrules / SEG, fails = 0, i;
	double prev = t0, cpu = 0;

	for (i = 0; i < nq; i++) {
		fails += w[i].failed;
		cpu += w[i].cpu;
	}
	printf("%s: %u rules, %u queue(s): %.3f s, %.2f M rules/s, %u failed\n",
	       what, nrules, nq, dt, nrules / dt / 1e6, fails);
	/* steadier than the wall clock on a shared machine: time the threads
	 * were descheduled does not count (time spent waiting for a lock does) */
	printf("  %s cpu: %.3f s in the worker threads, %.2f M rules per cpu-second\n",
	       what, cpu, nrules / cpu / 1e6);
	for (s = 0; s < nseg && s < MAX_SEGS; s++) {
		double end = 0;

		for (i = 0; i < nq; i++)
			if (w[i].seg_end[s] > end)
				end = w[i].seg_end[s];
		if (end == 0)
			break;
		printf("  %s segment %u (rules %uM..%uM): %.2f M rules/s\n", what, s,
		       s, s + 1, SEG / (end - prev) / 1e6);
		prev = end;
	}
}

/* The engine lock's counts from the port's dump, where the PMD has them
 * (Tally: "engine lock taken N times, M after a wait"). */
static void
report_lock(uint16_t port)
{
	unsigned long long taken, waited;
	struct rte_flow_error err;
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return;
	if (rte_flow_dev_dump(port, NULL, f, &err) != 0) {
		fclose(f);
		free(buf);
		return;
	}
	fclose(f);
	p = strstr(buf, "engine lock taken ");
	if (p != NULL && sscanf(p, "engine lock taken %llu times, %llu after a wait",
				&taken, &waited) == 2)
		printf("engine lock: taken %llu times, %llu (%.1f %%) after a wait\n",
		       taken, waited, taken ? 100.0 * (double)waited / (double)taken : 0.0);
	free(buf);
}

/* An environment count of 1 (unset, empty or "1") or 2; -1 for anything
 * else. */
static int
env_one_or_two(const char *name)
{
	const char *v = getenv(name);

	if (v == NULL || *v == '\0' || strcmp(v, "1") == 0)
		return 1;
	return strcmp(v, "2") == 0 ? 2 : -1;
}

int
main(int argc, char **argv)
{
	uint32_t nrules = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1000000;
	uint32_t nq = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 1;
	unsigned long mem = argc > 3 ? strtoul(argv[3], NULL, 0) : 2048;
	uint32_t batch = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 0) : 64;
	char vdev[64];
	struct rte_flow_template_table *tbl[MAX_Q] = { NULL };
	struct rte_flow_pattern_template *pt[MAX_Q] = { NULL };
	struct rte_flow_actions_template *at[MAX_Q] = { NULL };
	struct rte_flow_error err;
	struct worker w[MAX_Q];
	struct rte_flow **flows;
	double dt, t0;
	uint32_t i, cnt = 1, total;
	uint16_t port;
	const char *floor_so = perf_floor_so("ASYNC_BENCH_FLOOR");
	const char *slots = getenv("ASYNC_BENCH_FLOOR_SLOTS");	/* "": none */
	int nports = env_one_or_two("ASYNC_BENCH_PORTS");
	int ntbl = env_one_or_two("ASYNC_BENCH_TABLES");

	if (nq < 1 || nq > MAX_Q || nrules == 0 || nrules % nq != 0 || batch == 0 ||
	    batch > 4096) {
		fprintf(stderr, "usage: %s [rules [queues(1|2) [eal_mem_mb [batch]]]]\n",
			argv[0]);
		return 2;
	}
	if (nports < 0 || (nports == 2 && nq != 2)) {
		fprintf(stderr, "ASYNC_BENCH_PORTS=2 goes with 2 queues\n");
		return 2;
	}
	if (ntbl < 0 || (ntbl == 2 && (nq != 2 || nports != 1))) {
		fprintf(stderr, "ASYNC_BENCH_TABLES=2 goes with 2 queues on one port\n");
		return 2;
	}
	total = nports == 2 ? 2 * nrules : nrules;
	while (cnt < nrules)
		cnt <<= 1;
	if (slots != NULL && *slots == '\0')
		slots = NULL;
	if (slots != NULL && floor_so == NULL) {
		/* not silently Tally's port */
		fprintf(stderr, "ASYNC_BENCH_FLOOR_SLOTS needs ASYNC_BENCH_FLOOR\n");
		return 2;
	}
	snprintf(vdev, sizeof(vdev), "%s,counters=%u%s%s", perf_vdev_name(floor_so), cnt,
		 slots != NULL ? ",slots=" : "", slots != NULL ? slots : "");
	if (perf_eal_init_plugin(argv[0], nq > 1 ? "0-1" : "0", mem, "async-bench", vdev,
				 floor_so) != 0)
		return 1;
	if (nports == 2) {
		/* the second worker's port: the same device, made now */
		char name[32];

		snprintf(name, sizeof(name), "%.*s1", (int)strlen(perf_vdev_name(floor_so)) - 1,
			 perf_vdev_name(floor_so));
		if (rte_vdev_init(name, strchr(vdev, ',') + 1) != 0 ||
		    rte_eth_dev_count_avail() != 2) {
			fprintf(stderr, "second port %s: %s\n", name, rte_strerror(rte_errno));
			return 1;
		}
	}
	for (port = 0; port < nports; port++) {
		if (setup(port, nrules, nports == 2 ? 1 : nq, 2 * batch, ntbl, &tbl[port],
			  &pt[port], &at[port]) != 0) {
			fprintf(stderr, "port/template set-up failed\n");
			return 1;
		}
	}
	flows = calloc(total, sizeof(*flows));
	if (flows == NULL)
		return 1;
	for (i = 0; i < nq; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].port = nports == 2 ? (uint16_t)i : 0;
		w[i].queue = nports == 2 ? 0 : i;
		w[i].n = total / nq;
		w[i].first = i * w[i].n;
		w[i].batch = batch;
		w[i].nq = nq;
		w[i].tbl = tbl[ntbl == 2 ? i : w[i].port];
		w[i].flows = flows;
	}
	printf("async_bench: vdev %s, batch %u%s%s\n", vdev, batch,
	       nports == 2 ? ", 2 ports (one queue and one table each)" : "",
	       ntbl == 2 ? ", 2 tables (one per queue)" : "");
	dt = run_phase(w, nq, false, &t0);
	if (dt < 0)
		return 1;
	report("insert", w, nq, total, t0, dt);
	dt = run_phase(w, nq, true, &t0);
	if (dt < 0)
		return 1;
	report("destroy", w, nq, total, t0, dt);
	if (nports == 1)
		report_lock(0);
	free(flows);
	/* what it created, before the ports go (all rules are gone) */
	for (port = 0; port < nports; port++) {
		if ((ntbl == 2 && rte_flow_template_table_destroy(port, tbl[1], &err) != 0) ||
		    rte_flow_template_table_destroy(port, tbl[port], &err) != 0 ||
		    rte_flow_actions_template_destroy(port, at[port], &err) != 0 ||
		    rte_flow_pattern_template_destroy(port, pt[port], &err) != 0)
			fprintf(stderr, "async_bench: tear-down: %s\n",
				err.message ? err.message : "?");
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
	rte_eal_cleanup();
	return 0;
}
