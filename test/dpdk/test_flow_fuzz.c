/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow robustness: random patterns (supported and unsupported items,
 * random spec/mask/last bytes), random action lists and attributes go through
 * validate and create on a port carrying traffic, and are destroyed at
 * random. Checked: nothing crashes; create succeeds exactly when validate
 * did, except for what only create can see (a duplicate rule, a jump loop);
 * the device records no fault (steering memory stays well formed); the
 * engine ends empty after a flush. Fixed seed plus one random seed, printed.
 */
#include "tally_dpdk_test.h"

#define FZ_ROUNDS	20000
#define FZ_LIVE		256
#define FZ_RXQ		4

static uint32_t fz_seed;

static uint32_t
rnd(void)
{
	return tally_test_rand(&fz_seed);
}

static const enum rte_flow_item_type item_types[] = {
	RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_VLAN, RTE_FLOW_ITEM_TYPE_IPV4,
	RTE_FLOW_ITEM_TYPE_IPV6, RTE_FLOW_ITEM_TYPE_TCP, RTE_FLOW_ITEM_TYPE_UDP,
	RTE_FLOW_ITEM_TYPE_ICMP, RTE_FLOW_ITEM_TYPE_ICMP6, RTE_FLOW_ITEM_TYPE_VXLAN,
	RTE_FLOW_ITEM_TYPE_VOID, RTE_FLOW_ITEM_TYPE_GRE, RTE_FLOW_ITEM_TYPE_ANY,
	RTE_FLOW_ITEM_TYPE_IPV6_FRAG_EXT, RTE_FLOW_ITEM_TYPE_PORT_ID,
	RTE_FLOW_ITEM_TYPE_REPRESENTED_PORT, RTE_FLOW_ITEM_TYPE_PORT_REPRESENTOR,
};

struct fz_rule {
	struct rte_flow_attr attr;
	struct rte_flow_item item[8];
	uint8_t spec[8][64], mask[8][64], last[8][64];
	struct rte_flow_action act[6];
	struct rte_flow_action_queue queue;
	struct rte_flow_action_mark mark;
	struct rte_flow_action_jump jump;
	struct rte_flow_action_rss rss;
	uint16_t rss_q[4];
	uint8_t junk[16];
	/* transfer rules: a source of this port, destinations, edits */
	struct rte_flow_item_ethdev self;
	struct rte_flow_action_port_id pid;
	struct rte_flow_action_ethdev eth;
	struct rte_flow_action_of_push_vlan push;
	struct rte_flow_action_of_set_vlan_vid vid;
	struct rte_flow_action_of_set_vlan_pcp pcp;
};

/* Random bytes, biased towards the sparse masks real rules use. */
static void
fill(uint8_t *b, size_t n, bool sparse)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = sparse && (rnd() & 3) ? 0 : (rnd() & 1 ? 0xff : (uint8_t)rnd());
}

static void
fz_build(struct fz_rule *r, struct rte_flow_action_handle *ind, uint16_t port)
{
	unsigned int n = rnd() % 6, i, na = rnd() % 4;
	static const uint16_t tpids[] = { 0x8100, 0x88a8, 0x0800, 0x9100 };

	memset(r, 0, sizeof(*r));
	r->attr.ingress = (rnd() % 16) != 0;
	r->attr.egress = (rnd() % 32) == 0;
	/* a quarter are transfer rules, most of them without ingress */
	r->attr.transfer = (rnd() % 4) == 0;
	if (r->attr.transfer && rnd() % 4)
		r->attr.ingress = r->attr.egress = 0;
	r->self.port_id = rnd() % 4 ? port : (uint16_t)rnd();
	r->pid.original = rnd() % 4 == 0;
	r->pid.id = rnd() % 4 ? port : rnd();
	r->eth.port_id = rnd() % 4 ? port : (uint16_t)rnd();
	r->push.ethertype = rte_cpu_to_be_16(tpids[rnd() % RTE_DIM(tpids)]);
	r->vid.vlan_vid = rte_cpu_to_be_16((uint16_t)(rnd() % 0x1100));
	r->pcp.vlan_pcp = (uint8_t)(rnd() % 10);
	r->attr.group = rnd() % 4;
	r->attr.priority = rnd() % 4;
	if (rnd() & 1) {	/* half the patterns follow the header order */
		static const enum rte_flow_item_type l3[] = {
			RTE_FLOW_ITEM_TYPE_IPV4, RTE_FLOW_ITEM_TYPE_IPV6 };
		static const enum rte_flow_item_type l4[] = {
			RTE_FLOW_ITEM_TYPE_TCP, RTE_FLOW_ITEM_TYPE_UDP,
			RTE_FLOW_ITEM_TYPE_ICMP, RTE_FLOW_ITEM_TYPE_ICMP6 };

		n = 0;
		r->item[n++].type = RTE_FLOW_ITEM_TYPE_ETH;
		if (rnd() % 4 == 0)
			r->item[n++].type = RTE_FLOW_ITEM_TYPE_VLAN;
		r->item[n++].type = l3[rnd() % 2];
		if (r->item[n - 1].type == RTE_FLOW_ITEM_TYPE_IPV6 && rnd() % 4 == 0)
			r->item[n++].type = RTE_FLOW_ITEM_TYPE_IPV6_FRAG_EXT;
		r->item[n++].type = l4[rnd() % 4];
		if (rnd() % 4 == 0) {
			r->item[n++].type = RTE_FLOW_ITEM_TYPE_VXLAN;
			r->item[n++].type = RTE_FLOW_ITEM_TYPE_ETH;
		}
	} else {
		for (i = 0; i < n; i++)
			r->item[i].type = item_types[rnd() % RTE_DIM(item_types)];
	}
	for (i = 0; i < n; i++) {
		if (rnd() % 4) {
			fill(r->spec[i], sizeof(r->spec[i]), false);
			r->item[i].spec = r->spec[i];
			if (rnd() % 2) {	/* else the item's default mask */
				fill(r->mask[i], sizeof(r->mask[i]), true);
				r->item[i].mask = r->mask[i];
			}
			if (rnd() % 16 == 0) {
				memcpy(r->last[i], r->spec[i], sizeof(r->last[i]));
				if (rnd() & 1)
					r->last[i][rnd() % 8] ^= 1;
				r->item[i].last = r->last[i];
			}
		}
	}
	if (r->attr.transfer && n < RTE_DIM(r->item) - 1 && rnd() % 3 == 0) {
		/* a traffic source first: this port's wire or host, mostly */
		memmove(&r->item[1], &r->item[0], n * sizeof(r->item[0]));
		memset(&r->item[0], 0, sizeof(r->item[0]));
		r->item[0].type = rnd() & 1 ? RTE_FLOW_ITEM_TYPE_REPRESENTED_PORT :
					      RTE_FLOW_ITEM_TYPE_PORT_REPRESENTOR;
		r->item[0].spec = &r->self;
		n++;
	}
	r->item[n].type = RTE_FLOW_ITEM_TYPE_END;
	r->queue.index = rnd() % (FZ_RXQ + 1);
	r->mark.id = rnd();
	r->jump.group = rnd() % 5;
	r->rss_q[0] = rnd() % FZ_RXQ;
	r->rss_q[1] = rnd() % (FZ_RXQ + 1);
	r->rss.queue = r->rss_q;
	r->rss.queue_num = 1 + rnd() % 2;
	r->rss.types = rnd() & 1 ? RTE_ETH_RSS_IP : RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	for (i = 0; i < na; i++) {
		struct rte_flow_action *a = &r->act[i];

		switch (rnd() % (i == 0 ? 9 : 19)) {
		case 0: a->type = RTE_FLOW_ACTION_TYPE_COUNT; break;
		case 1: a->type = RTE_FLOW_ACTION_TYPE_QUEUE; a->conf = &r->queue; break;
		case 2: a->type = RTE_FLOW_ACTION_TYPE_RSS; a->conf = &r->rss; break;
		case 3: a->type = RTE_FLOW_ACTION_TYPE_DROP; break;
		case 4: a->type = RTE_FLOW_ACTION_TYPE_MARK; a->conf = &r->mark; break;
		case 5: a->type = RTE_FLOW_ACTION_TYPE_FLAG; break;
		case 6: a->type = RTE_FLOW_ACTION_TYPE_JUMP; a->conf = &r->jump; break;
		case 7: a->type = RTE_FLOW_ACTION_TYPE_PASSTHRU; break;
		case 8: a->type = RTE_FLOW_ACTION_TYPE_VOID; break;
		case 9:
			a->type = RTE_FLOW_ACTION_TYPE_INDIRECT;
			a->conf = rnd() & 1 ? (const void *)ind : (const void *)r->junk;
			break;
		case 10: a->type = RTE_FLOW_ACTION_TYPE_SET_MAC_SRC; a->conf = r->junk; break;
		case 11: a->type = RTE_FLOW_ACTION_TYPE_PORT_ID; a->conf = &r->pid; break;
		case 12: a->type = RTE_FLOW_ACTION_TYPE_REPRESENTED_PORT; a->conf = &r->eth; break;
		case 13: a->type = RTE_FLOW_ACTION_TYPE_PORT_REPRESENTOR; a->conf = &r->eth; break;
		case 14: a->type = RTE_FLOW_ACTION_TYPE_OF_POP_VLAN; break;
		case 15: a->type = RTE_FLOW_ACTION_TYPE_OF_PUSH_VLAN; a->conf = &r->push; break;
		case 16: a->type = RTE_FLOW_ACTION_TYPE_OF_SET_VLAN_VID; a->conf = &r->vid; break;
		case 17: a->type = RTE_FLOW_ACTION_TYPE_OF_SET_VLAN_PCP; a->conf = &r->pcp; break;
		default: a->type = RTE_FLOW_ACTION_TYPE_QUEUE; a->conf = NULL; break;
		}
	}
	r->act[na].type = RTE_FLOW_ACTION_TYPE_END;
}

static void
traffic(uint16_t port, uint32_t seq)
{
	struct rte_mbuf *tx[16], *rx[64];
	uint16_t q[64];
	unsigned int k, r;

	for (k = 0; k < RTE_DIM(tx); k++) {
		tx[k] = tdt_mbuf_build(64 + (seq + k) % 200, seq + k, 1);
		if (tx[k] == NULL) {
			tdt_free_all(tx, k);
			return;
		}
	}
	tdt_tx_all(port, 0, tx, RTE_DIM(tx));
	r = tdt_rx_all(port, FZ_RXQ, rx, q, RTE_DIM(rx), 0);
	tdt_free_all(rx, r);
}

static int
fz_run(uint32_t seed)
{
	struct tdt_port_conf pc = { .nb_rxq = FZ_RXQ, .nb_txq = 1 };
	static struct rte_flow *live[FZ_LIVE];
	struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	struct rte_flow_action_handle *ind;
	struct rte_flow_error e;
	struct fz_rule r;
	unsigned int i, created = 0, refused = 0;
	char name[32];
	int port, v;

	fz_seed = seed ? seed : 1;
	printf("  seed %u\n", seed);
	port = tdt_port_create("counters=512", name, sizeof(name));
	TEST_ASSERT(port >= 0, "port");
	TEST_ASSERT_EQ(tdt_port_setup((uint16_t)port, &pc), 0, "");
	ind = rte_flow_action_handle_create((uint16_t)port, &ic, &count, &e);
	TEST_ASSERT(ind != NULL, "");
	memset(live, 0, sizeof(live));
	for (i = 0; i < FZ_ROUNDS; i++) {
		struct rte_flow *f;
		unsigned int slot = rnd() % FZ_LIVE;

		fz_build(&r, ind, (uint16_t)port);
		v = rte_flow_validate((uint16_t)port, &r.attr, r.item, r.act, &e);
		f = rte_flow_create((uint16_t)port, &r.attr, r.item, r.act, &e);
		if (f == NULL) {
			refused++;
			if (getenv("FZ_WHY"))
				printf("WHY %s\n", e.message ? e.message : "?");
			TEST_ASSERT(v != 0 || rte_errno == EEXIST || rte_errno == ELOOP ||
				    rte_errno == ENOSPC,
				    "seed %u round %u: validated but create failed: %s (%d)",
				    seed, i, e.message ? e.message : "?", rte_errno);
		} else {
			created++;
			TEST_ASSERT_EQ(v, 0, "seed %u round %u: created what validate refused",
				       seed, i);
			if (live[slot] != NULL)
				TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)port, live[slot], &e),
					       0, "");
			live[slot] = f;
		}
		if (i % 64 == 0)
			traffic((uint16_t)port, i);
	}
	printf("  %u created, %u refused\n", created, refused);
	TEST_ASSERT(created > 100 && refused > 100, "both paths exercised");
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)port, "dev_faults"), 0, "device faults");
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)port, "dma_faults"), 0, "");
	TEST_ASSERT_EQ(rte_flow_flush((uint16_t)port, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_action_handle_destroy((uint16_t)port, ind, &e), 0, "");
	tdt_port_destroy((uint16_t)port, name);
	return TEST_SUCCESS;
}

static int
test_fuzz_fixed_seed(void)
{
	return fz_run(20261122);
}

static int
test_fuzz_random_seed(void)
{
	return fz_run(tally_test_random_seed());
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_fuzz_fixed_seed),
	TEST_CASE(test_fuzz_random_seed),
};

int
main(void)
{
	int rc;

	tdt_eal_init("flow-fuzz");
	rc = tally_test_run("dpdk-flow-fuzz", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
