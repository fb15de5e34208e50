/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports and the switch (spec 2.3) on a device of three ports (loop wires,
 * promiscuous, one Rx queue each). Switch tables are written by hand into
 * port 0's arena (tally_steer_fmt.h): every rule is a matcher of its own
 * (match all, or misc.source_port == a port) with a one-entry hash array,
 * in list order per table, so a rule may hold what lib/steer would refuse
 * (MARK, a port outside the device, an action set without VALID).
 *
 * The cases check exact statistics, counter bank values, faults and output
 * bytes; one compares the switch with a reference written here on random
 * rules and frames entering random ports.
 *
 * Size: a table of named cases over one hand-written table builder; split,
 * each part would carry its own copy of the builder.
 */
#include <time.h>

#include <tally/tally_cnt_bank.h>
#include <tally/tally_steer_fmt.h>

#include "tally_mt.h"
#include "tally_test.h"

#define NP		3
#define SW_MAX_RULES	24
#define SW_MAX_TABLES	4
#define SW_MAX_SWACT	8
#define SW_ANY		(-1)	/* rule matches frames from every port */
/* misc.source_port: key word 17 (misc bytes 4..7), bytes 6..7 */
#define SW_SRC_WORD	((TALLY_MS_OFF(TALLY_MS_MISC) + TALLY_MISC_SOURCE_PORT - 2) / 4)
#define SW_SRC_MASK	0xffff0000u

struct sw_rule {
	uint32_t table;
	int src;		/* SW_ANY or a port */
	uint32_t act, mark, fate;
};

struct sw_set {
	uint32_t ntables;
	uint32_t nrules;
	struct sw_rule r[SW_MAX_RULES];
	uint32_t nswact;
	struct tally_steer_swact swact[SW_MAX_SWACT];
};

struct sw_dev {
	struct mt_dev d[NP];
	struct mt_rxq q[NP];
};

static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x99 };

static uint32_t
sw_src_word(uint32_t port)
{
	/* bytes 6, 7 of the misc section, big-endian, in a little-endian word */
	return (port >> 8 & 0xff) << 16 | (port & 0xff) << 24;
}

static void *
sw_put(struct mt_dev *d, const void *src, size_t len, uint64_t *iova)
{
	uint8_t *p = mt_alloc(d, len);

	if (p != NULL) {
		memcpy(p, src, len);
		*iova = (uint64_t)(uintptr_t)p;
	}
	return p;
}

/* One rule's matcher (and its hash array of one entry). */
static int
sw_matcher(struct mt_dev *d, const struct sw_rule *r, uint64_t *iova)
{
	uint8_t buf[128];
	uint32_t nw = r->src == SW_ANY ? 0 : 1, key = sw_src_word((uint32_t)r->src);
	struct tally_steer_htab h = {
		.magic = TALLY_STEER_HTAB_MAGIC, .log2_size = 0, .nwords = nw,
		.stride = (uint32_t)TALLY_STEER_ENTRY_SIZE(nw), .seed = 7,
	};
	struct tally_steer_entry e = {
		.ctrl = TALLY_STEER_S_VALID | 4, .act = r->act, .mark = r->mark,
		.fate = r->fate,
	};
	struct tally_steer_matcher_desc md = {
		.magic = TALLY_STEER_MATCHER_MAGIC, .nwords = nw,
	};
	struct tally_steer_mword w = { .idx = SW_SRC_WORD, .mask = SW_SRC_MASK };
	uint64_t hiova;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &e, sizeof(e));
	memcpy(buf + sizeof(h) + sizeof(e), &key, 4);
	if (sw_put(d, buf, sizeof(h) + TALLY_STEER_ENTRY_SIZE(nw), &hiova) == NULL)
		return -ENOMEM;
	md.htab = hiova;
	memcpy(buf, &md, sizeof(md));
	memcpy(buf + sizeof(md), &w, sizeof(w));
	return sw_put(d, buf, TALLY_STEER_MATCHER_SIZE(nw), iova) != NULL ? 0 : -ENOMEM;
}

static struct tally_steer_root *sw_last_root;	/* the last sw_build_at() wrote */

/* The tables of s in d's arena, published at root_lo (SW_ROOT_LO or a
 * port's STEER_ROOT_LO) and enabled by writing en to ctrl. */
static int
sw_build_at(struct mt_dev *d0, const struct sw_set *s, uint32_t root_lo, uint32_t ctrl,
	    uint32_t en)
{
	struct tally_steer_root root = {
		.magic = TALLY_STEER_ROOT_MAGIC,
		.version = TALLY_FIELD_PREP(TALLY_STEER_ROOT_VER_MAJOR_M, TALLY_STEER_FMT_MAJOR),
		.num_tables = s->ntables, .num_rss = s->nswact,
	};
	struct tally_steer_tbl tbl[SW_MAX_TABLES];
	uint8_t ml[TALLY_STEER_MLIST_SIZE(SW_MAX_RULES)];
	struct tally_steer_mlist mh = { .magic = TALLY_STEER_MLIST_MAGIC };
	uint64_t mt[SW_MAX_RULES], iova;
	uint32_t t, i, n;

	for (i = 0; i < s->nrules; i++)
		if (sw_matcher(d0, &s->r[i], &mt[i]) != 0)
			return -ENOMEM;
	for (t = 0; t < s->ntables; t++) {
		for (i = 0, n = 0; i < s->nrules; i++)
			if (s->r[i].table == t)
				memcpy(ml + sizeof(mh) + 8 * n++, &mt[i], 8);
		mh.num = n;
		memcpy(ml, &mh, sizeof(mh));
		tbl[t].mlist = 0;
		if (n != 0 && sw_put(d0, ml, TALLY_STEER_MLIST_SIZE(n), &tbl[t].mlist) == NULL)
			return -ENOMEM;
	}
	if (sw_put(d0, tbl, sizeof(tbl[0]) * (s->ntables ? s->ntables : 1),
		   &root.tables_iova) == NULL ||
	    sw_put(d0, s->swact, sizeof(s->swact), &root.rss_iova) == NULL ||
	    (sw_last_root = sw_put(d0, &root, sizeof(root), &iova)) == NULL)
		return -ENOMEM;
	mt_wr(d0, root_lo, (uint32_t)iova);
	mt_wr(d0, root_lo + 4, (uint32_t)(iova >> 32));
	mt_wr(d0, ctrl, en);
	return 0;
}

/* The switch tables of s in port 0's arena, published and enabled. */
static int
sw_build(struct mt_dev *d0, const struct sw_set *s)
{
	return sw_build_at(d0, s, TALLY_REG_SW_ROOT_LO, TALLY_REG_SW_CTRL, TALLY_SW_CTRL_EN);
}

static void
sw_config(struct tally_model_config *cfg)
{
	unsigned int i;

	for (i = 0; i < NP; i++) {
		mt_config(&cfg[i]);
		cfg[i].mac[5] = (uint8_t)i;
		cfg[i].rx_queues = 1;
		cfg[i].tx_queues = 1;
		cfg[i].max_frame = 1500;
	}
}

static int
sw_open_cfg(struct sw_dev *s, const struct tally_model_config *cfg)
{
	unsigned int i;
	int rc = mt_open_ports(s->d, cfg, NP);

	if (rc < 0)
		return rc;
	for (i = 0; i < NP; i++) {
		rc = mt_rxq_start(&s->d[i], &s->q[i], 0, 6, 2048, false);
		if (rc < 0)
			return rc;
		mt_port(&s->d[i], TALLY_CTRL_PROMISC);
	}
	return 0;
}

static int
sw_open(struct sw_dev *s)
{
	struct tally_model_config cfg[NP];

	sw_config(cfg);
	return sw_open_cfg(s, cfg);
}

static void
sw_close(struct sw_dev *s)
{
	unsigned int i;

	for (i = NP; i-- > 0;)	/* port 0 first would work too */
		mt_close(&s->d[i]);
}

static uint64_t
sw_cnt(struct sw_dev *s, uint32_t idx, bool bytes)
{
	uint32_t off = mt_rd(&s->d[0], TALLY_REG_CNT_OFF) +
		       idx * (uint32_t)sizeof(struct tally_cnt_entry);

	return mt_rd64(&s->d[0], off + (bytes ? 8 : 0));
}

static void
sw_frame(uint8_t *f, uint32_t len, uint32_t seed)
{
	mt_udp_frame(f, len, dmac, 0x0a000001, 0x0a000002, (uint16_t)(1000 + seed), 2000,
		     seed);
}

/* A tagged frame: the UDP frame with a tag (tpid, tci) after the MACs. */
static uint32_t
sw_tagged(uint8_t *f, uint32_t len, uint16_t tpid, uint16_t tci, uint32_t seed)
{
	uint8_t t[MT_FRAME_MAX];

	sw_frame(t, len, seed);
	memcpy(f, t, 12);
	f[12] = (uint8_t)(tpid >> 8);
	f[13] = (uint8_t)tpid;
	f[14] = (uint8_t)(tci >> 8);
	f[15] = (uint8_t)tci;
	memcpy(f + 16, t + 12, len - 12);
	return len + 4;
}

static uint32_t
sw_stat(struct sw_dev *s, uint32_t port, enum tally_port_stat st)
{
	return (uint32_t)mt_stat(&s->d[port], st);
}

/* ---- cases ---------------------------------------------------------------- */

static int
test_identity(void)
{
	struct sw_dev s;
	uint32_t i, stride, caps;
	size_t want_stride, total;
	struct tally_model_config cfg[NP];

	sw_config(cfg);
	cfg[2].counters = 100000;	/* the largest window sets the stride */
	TEST_ASSERT_EQ(sw_open_cfg(&s, cfg), 0, "");
	total = tally_model_ports_bar_size(cfg, NP, &want_stride);
	TEST_ASSERT(want_stride >= tally_model_bar_size(&cfg[2]) &&
		    (want_stride & (want_stride - 1)) == 0, "stride %zu", want_stride);
	TEST_ASSERT_U64_EQ(total, want_stride * NP, "");
	for (i = 0; i < NP; i++) {
		TEST_ASSERT_EQ(mt_rd(&s.d[i], TALLY_REG_PORT), i | NP << 8, "port %u", i);
		stride = mt_rd(&s.d[i], TALLY_REG_PORT_STRIDE);
		TEST_ASSERT_U64_EQ(stride, want_stride, "port %u", i);
		caps = mt_rd(&s.d[i], TALLY_REG_CAPS);
		TEST_ASSERT_EQ(!!(caps & TALLY_CAP_SWITCH), i == 0, "CAPS.SWITCH port %u", i);
		TEST_ASSERT_U64_EQ(mt_rd(&s.d[i], TALLY_REG_BAR_SIZE),
				   tally_model_bar_size(&cfg[i]), "window size %u", i);
		TEST_ASSERT(s.d[i].io.bar == s.d[0].io.bar + (size_t)i * stride,
			    "window %u at i * stride", i);
		TEST_ASSERT_EQ(mt_rd(&s.d[i], TALLY_REG_CNT_OFF), TALLY_CNT_BANK_OFF,
			       "relative to the window");
	}
	/* SW_* only in port 0's window */
	mt_wr(&s.d[1], TALLY_REG_SW_CTRL, TALLY_SW_CTRL_EN);
	TEST_ASSERT_EQ(mt_rd(&s.d[1], TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_REG, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[1], TALLY_REG_SW_CTRL), 0, "");
	mt_wr(&s.d[0], TALLY_REG_SW_CTRL, TALLY_SW_CTRL_EN);
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_SW_CTRL), TALLY_SW_CTRL_EN, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* Frames from port 1 to port 2's wire, counted; back on port 2 (loop). */
static int
test_to_wire(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, 1, TALLY_STEER_ACT_PORT | TALLY_STEER_ACT_COUNT | 3, 0, 2 } } };
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;
	uint32_t i;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	for (i = 0; i < 3; i++) {
		sw_frame(f, 100 + i, i);
		TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, f, 100 + i), 0, "");
	}
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_RX_WIRE_PKTS), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_WIRE), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_HOST), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_RX_PKTS), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_PKTS), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_BYTES), 303, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_RX_WIRE_PKTS), 0, "not yet");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 3, false), 3, "port 0's bank");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 3, true), 303, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 0, "");
	/* port 2's wire loops them back: a frame from port 2 misses the rule */
	mt_service(&s.d[2]);
	for (i = 0; i < 3; i++) {
		sw_frame(f, 100 + i, i);
		TEST_ASSERT_EQ(mt_rxq_recv(&s.q[2], out, sizeof(out), &info), 100 + (int)i, "");
		TEST_ASSERT(memcmp(out, f, 100 + i) == 0, "bytes of frame %u", i);
	}
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_RX_WIRE_PKTS), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_RX_PKTS), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_TO_WIRE), 0, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 3, false), 3, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* To another port's receive pipeline, to a wire that drops (none), drop,
 * and a frame from a port no rule names. */
static int
test_host_drop_miss(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 3, .r = {
		{ 0, 1, TALLY_STEER_ACT_PORT, 0, 0 | TALLY_STEER_PORT_HOST },
		{ 0, 2, TALLY_STEER_ACT_DROP | TALLY_STEER_ACT_COUNT | 9, 0, 0 },
		{ 0, 0, TALLY_STEER_ACT_PORT, 0, 1 } } };
	struct tally_model_config cfg[NP];
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;

	sw_config(cfg);
	cfg[1].wire = TALLY_WIRE_NONE;
	TEST_ASSERT_EQ(sw_open_cfg(&s, cfg), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	sw_frame(f, 80, 1);
	TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, f, 80), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[0], out, sizeof(out), &info), 80, "on port 0");
	TEST_ASSERT(memcmp(out, f, 80) == 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_HOST), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_RX_WIRE_PKTS), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_RX_PKTS), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_RX_WIRE_PKTS), 0, "not from its wire");
	/* port 2: dropped and counted */
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 80), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_DROP), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_RX_WIRE_PKTS), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_RX_PKTS), 0, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 9, false), 1, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 9, true), 80, "");
	/* port 0 to port 1's wire (none: counted, gone) */
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 80), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_SW_TO_WIRE), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 1, "");
	/* switch off: every frame to its own pipeline */
	mt_wr(&s.d[0], TALLY_REG_SW_CTRL, 0);
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 80), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[2], out, sizeof(out), &info), 80, "own pipeline");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_DROP), 1, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* A rule for port 1 leaves port 2's frames alone (miss: own pipeline). */
static int
test_source_port(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, 1, TALLY_STEER_ACT_DROP, 0, 0 } } };
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;
	uint32_t p;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	sw_frame(f, 90, 3);
	for (p = 0; p < NP; p++) {
		TEST_ASSERT_EQ(tally_model_inject(s.d[p].m, f, 90), 0, "");
		TEST_ASSERT_EQ(mt_rxq_recv(&s.q[p], out, sizeof(out), &info), p == 1 ? 0 : 90,
			       "port %u", p);
		TEST_ASSERT_EQ(sw_stat(&s, p, TALLY_STAT_SW_DROP), p == 1, "port %u", p);
		TEST_ASSERT_EQ(sw_stat(&s, p, TALLY_STAT_RX_PKTS), p != 1, "port %u", p);
	}
	sw_close(&s);
	return TEST_SUCCESS;
}

/* A port's own steering sees misc.source_port too: its own index for
 * frames from its wire, the source port's for frames the switch hands it. */
static int
test_nic_source_port(void)
{
	struct sw_set sw = { .ntables = 1, .nrules = 1, .r = {
		{ 0, 2, TALLY_STEER_ACT_PORT, 0, 1 | TALLY_STEER_PORT_HOST } } };
	struct sw_set nic = { .ntables = 1, .nrules = 1, .r = {
		{ 0, 2, TALLY_STEER_ACT_QUEUE, 0, 1 } } };
	struct tally_model_config cfg[NP];
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct mt_rxq q1;
	struct sw_dev s;

	sw_config(cfg);
	cfg[1].rx_queues = 2;
	TEST_ASSERT_EQ(sw_open_cfg(&s, cfg), 0, "");
	TEST_ASSERT_EQ(mt_rxq_start(&s.d[1], &q1, 1, 6, 2048, false), 0, "");
	mt_port(&s.d[1], TALLY_CTRL_PROMISC | TALLY_CTRL_STEER);
	TEST_ASSERT_EQ(sw_build(&s.d[0], &sw), 0, "");
	TEST_ASSERT_EQ(sw_build_at(&s.d[1], &nic, TALLY_REG_STEER_ROOT_LO, TALLY_REG_STEER_CTRL,
				   TALLY_STEER_CTRL_EN), 0, "");
	sw_frame(f, 64, 1);
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&q1, out, sizeof(out), &info), 64, "source port 2");
	TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 64, "source port 1");
	/* the same with the switch off: port 1's own frames carry 1 */
	nic.r[0].src = 1;
	mt_wr(&s.d[0], TALLY_REG_SW_CTRL, 0);
	TEST_ASSERT_EQ(sw_build_at(&s.d[1], &nic, TALLY_REG_STEER_ROOT_LO, TALLY_REG_STEER_CTRL,
				   TALLY_STEER_CTRL_EN), 0, "");
	TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&q1, out, sizeof(out), &info), 64, "own wire: 1");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 0, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[1], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* The edits: a frame from port 1 through action set 0 to port 0's host. */
struct edit_case {
	const char *name;
	uint16_t tpid, tci;	/* the input's tag, tpid 0: untagged */
	struct tally_steer_swact a;
	uint16_t out_tpid, out_tci;	/* expected outer tag, 0: untagged */
	bool inner;		/* expected: the input's tag kept after it */
};

static const struct edit_case edits[] = {
	{ "pop c-tag", 0x8100, 0x2005, { .flags = TALLY_SWACT_POP_VLAN }, 0, 0, false },
	{ "pop s-tag", 0x88a8, 0x0007, { .flags = TALLY_SWACT_POP_VLAN }, 0, 0, false },
	{ "pop untagged", 0, 0, { .flags = TALLY_SWACT_POP_VLAN }, 0, 0, false },
	{ "push", 0, 0, { .flags = TALLY_SWACT_PUSH_VLAN, .vlan_tpid = 0x88a8,
			  .vlan_tci = 0x6123 }, 0x88a8, 0x6123, false },
	{ "push on tagged", 0x8100, 0x0010, { .flags = TALLY_SWACT_PUSH_VLAN,
			  .vlan_tpid = 0x88a8, .vlan_tci = 0x0020 }, 0x88a8, 0x0020, true },
	{ "set vid", 0x8100, 0xa005, { .flags = TALLY_SWACT_SET_VID, .vlan_tci = 0xfabc },
	  0x8100, 0xaabc, false },
	{ "set pcp", 0x8100, 0xa005, { .flags = TALLY_SWACT_SET_PCP, .vlan_tci = 0x4fff },
	  0x8100, 0x4005, false },
	{ "set vid untagged", 0, 0, { .flags = TALLY_SWACT_SET_VID, .vlan_tci = 5 },
	  0, 0, false },
	{ "pop push set vid+pcp", 0x8100, 0x1001, { .flags = TALLY_SWACT_POP_VLAN |
			  TALLY_SWACT_PUSH_VLAN | TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP,
			  .vlan_tpid = 0x8100, .vlan_tci = 0xe00f }, 0x8100, 0xe00f, false },
};

static int
edit_run(const struct edit_case *c, bool macs)
{
	static const uint8_t sm[6] = { 0x0a, 1, 2, 3, 4, 5 }, dm[6] = { 0x0c, 6, 7, 8, 9, 10 };
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, 1, TALLY_STEER_ACT_SWACT, 0, 0 } }, .nswact = 1 };
	uint8_t in[256], want[256], out[2048], plain[256];
	struct mt_rx_info info;
	uint32_t len, wlen;
	struct sw_dev s;

	set.swact[0] = c->a;
	set.swact[0].flags |= TALLY_SWACT_VALID | TALLY_SWACT_FWD;
	set.swact[0].port = 0 | TALLY_STEER_PORT_HOST;
	if (macs) {
		set.swact[0].flags |= TALLY_SWACT_SET_SMAC | TALLY_SWACT_SET_DMAC;
		memcpy(set.swact[0].smac, sm, 6);
		memcpy(set.swact[0].dmac, dm, 6);
	}
	sw_frame(plain, 100, 5);
	len = c->tpid ? sw_tagged(in, 100, c->tpid, c->tci, 5) : 100;
	if (!c->tpid)
		memcpy(in, plain, 100);
	/* expected: plain frame with the expected outer tag (and inner one) */
	memcpy(want, plain, 12);
	wlen = 12;
	if (c->out_tpid) {
		want[wlen++] = (uint8_t)(c->out_tpid >> 8);
		want[wlen++] = (uint8_t)c->out_tpid;
		want[wlen++] = (uint8_t)(c->out_tci >> 8);
		want[wlen++] = (uint8_t)c->out_tci;
	}
	if (c->inner) {
		want[wlen++] = (uint8_t)(c->tpid >> 8);
		want[wlen++] = (uint8_t)c->tpid;
		want[wlen++] = (uint8_t)(c->tci >> 8);
		want[wlen++] = (uint8_t)c->tci;
	}
	memcpy(want + wlen, plain + 12, 88);
	wlen += 88;
	if (macs) {
		memcpy(want, dm, 6);
		memcpy(want + 6, sm, 6);
	}
	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, in, len), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[0], out, sizeof(out), &info), (int)wlen, "%s", c->name);
	TEST_ASSERT(memcmp(out, want, wlen) == 0, "%s: output bytes", c->name);
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_HOST), 1, "%s", c->name);
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "%s", c->name);
	sw_close(&s);
	return TEST_SUCCESS;
}

static int
test_edits(void)
{
	unsigned int i;

	for (i = 0; i < TALLY_ARRAY_SIZE(edits); i++) {
		if (edit_run(&edits[i], false) != TEST_SUCCESS)
			return TEST_FAILED;
		if (edit_run(&edits[i], true) != TEST_SUCCESS)
			return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

/* An action set without FWD: edited, into the own port's pipeline; a push
 * that makes the frame longer than MAX_FRAME drops it. */
static int
test_edit_own_and_too_long(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, 2, TALLY_STEER_ACT_SWACT, 0, 0 } }, .nswact = 1, .swact = {
		{ .flags = TALLY_SWACT_VALID | TALLY_SWACT_PUSH_VLAN, .vlan_tpid = 0x8100,
		  .vlan_tci = 7 } } };
	static uint8_t f[2048], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	mt_wr(&s.d[2], TALLY_REG_MTU, 1500);	/* frames up to max_frame 1500 */
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	sw_frame(f, 1496, 1);
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 1496), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[2], out, sizeof(out), &info), 1500, "pushed, fits");
	TEST_ASSERT(out[12] == 0x81 && out[13] == 0 && out[14] == 0 && out[15] == 7, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_TO_HOST), 1, "own pipeline after an edit");
	sw_frame(f, 1497, 1);
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 1497), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[2], out, sizeof(out), &info), 0, "too long");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_DROP), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_RX_WIRE_PKTS), 2, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* JUMP to a table whose rule names port 1; passthru goes on in the table. */
static int
test_jump_passthru(void)
{
	struct sw_set set = { .ntables = 2, .nrules = 4, .r = {
		{ 0, SW_ANY, TALLY_STEER_ACT_COUNT | 1 | TALLY_STEER_ACT_CONTINUE, 0, 0 },
		{ 0, SW_ANY, TALLY_STEER_ACT_JUMP, 0, 1 },
		{ 1, 1, TALLY_STEER_ACT_PORT | TALLY_STEER_ACT_COUNT | 2, 0,
		  2 | TALLY_STEER_PORT_HOST },
		{ 1, SW_ANY, TALLY_STEER_ACT_MISS, 0, 0 } } };
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	sw_frame(f, 70, 2);
	TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, f, 70), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[2], out, sizeof(out), &info), 70, "port 2's host");
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 70), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[0], out, sizeof(out), &info), 70, "miss: own");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 1, false), 2, "passthru counted both");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 2, false), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_SW_TO_HOST) +
		       sw_stat(&s, 0, TALLY_STAT_SW_DROP), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* Each malformed entry: one BAD_STEER fault in port 0's window, the frame
 * dropped (SW_DROP of the port it came from). */
struct fault_case {
	const char *name;
	uint32_t act, mark, fate;
	struct tally_steer_swact a;
	uint64_t counted;	/* COUNT runs before the fate's checks */
};

static const struct fault_case faults[] = {
	{ "mark", TALLY_STEER_ACT_MARK | TALLY_STEER_ACT_PORT | TALLY_STEER_ACT_COUNT, 5, 0,
	  { 0 }, 0 },
	{ "flag", TALLY_STEER_ACT_FLAG | TALLY_STEER_ACT_COUNT, 0, 0, { 0 }, 0 },
	{ "port outside", TALLY_STEER_ACT_PORT | TALLY_STEER_ACT_COUNT, 0, NP, { 0 }, 1 },
	{ "port word bit", TALLY_STEER_ACT_PORT | TALLY_STEER_ACT_COUNT, 0, 1u << 9, { 0 }, 1 },
	{ "swact not valid", TALLY_STEER_ACT_SWACT | TALLY_STEER_ACT_COUNT, 0, 0,
	  { .flags = TALLY_SWACT_POP_VLAN }, 1 },
	{ "swact unknown flag", TALLY_STEER_ACT_SWACT | TALLY_STEER_ACT_COUNT, 0, 0,
	  { .flags = TALLY_SWACT_VALID | TALLY_BIT(12) }, 1 },
	{ "swact bad port", TALLY_STEER_ACT_SWACT | TALLY_STEER_ACT_COUNT, 0, 0,
	  { .flags = TALLY_SWACT_VALID | TALLY_SWACT_FWD, .port = 7 }, 1 },
	{ "swact index", TALLY_STEER_ACT_SWACT | TALLY_STEER_ACT_COUNT, 0, 1,
	  { .flags = TALLY_SWACT_VALID }, 1 },
	{ "two fates", TALLY_STEER_ACT_SWACT | TALLY_STEER_ACT_DROP, 0, 0,
	  { .flags = TALLY_SWACT_VALID }, 0 },
};

static int
test_faults(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .nswact = 1 };
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;
	unsigned int i;

	for (i = 0; i < TALLY_ARRAY_SIZE(faults); i++) {
		const struct fault_case *c = &faults[i];

		set.r[0] = (struct sw_rule){ 0, 2, c->act | (c->act & TALLY_STEER_ACT_COUNT ? 4 : 0),
					     c->mark, c->fate };
		set.swact[0] = c->a;
		TEST_ASSERT_EQ(sw_open(&s), 0, "");
		TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
		sw_frame(f, 64, i);
		TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 64), 0, "");
		TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 1, "%s", c->name);
		TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_STEER,
			       "%s", c->name);
		TEST_ASSERT_EQ(mt_rd(&s.d[2], TALLY_REG_FAULT_CNT), 0, "%s: port 0's", c->name);
		TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_DROP), 1, "%s", c->name);
		TEST_ASSERT_EQ(mt_rxq_recv(&s.q[2], out, sizeof(out), &info), 0, "%s", c->name);
		TEST_ASSERT_U64_EQ(sw_cnt(&s, 4, false), c->counted, "%s", c->name);
		sw_close(&s);
	}
	return TEST_SUCCESS;
}

/* Port 0's reset clears SW_*: frames go to their own pipeline; port 1's
 * reset leaves the switch and port 0 alone. */
static int
test_reset(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, SW_ANY, TALLY_STEER_ACT_PORT, 0, 0 | TALLY_STEER_PORT_HOST } } };
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	sw_frame(f, 64, 1);
	mt_wr(&s.d[1], TALLY_REG_RESET, TALLY_RESET_MAGIC);
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_SW_CTRL), TALLY_SW_CTRL_EN, "");
	TEST_ASSERT(mt_rd(&s.d[0], TALLY_REG_SW_ROOT_LO) != 0, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[1], TALLY_REG_PORT), 1 | NP << 8, "identity kept");
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[0], out, sizeof(out), &info), 64,
		       "switch and port 0's queue untouched");
	TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, f, 64), -ENETDOWN, "port 1 is reset");
	mt_wr(&s.d[0], TALLY_REG_RESET, TALLY_RESET_MAGIC);
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_SW_CTRL), 0, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_SW_ROOT_LO), 0, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_SW_ROOT_HI), 0, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_CAPS) & TALLY_CAP_SWITCH, TALLY_CAP_SWITCH, "");
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[2], out, sizeof(out), &info), 64, "own pipeline");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_TO_HOST), 1, "the first one only");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* A destination whose link is down, or not enabled: SW_DROP. */
static int
test_link_down(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 2, .r = {
		{ 0, 0, TALLY_STEER_ACT_PORT, 0, 1 },
		{ 0, 2, TALLY_STEER_ACT_PORT, 0, 1 | TALLY_STEER_PORT_HOST } } };
	uint8_t f[256];
	struct sw_dev s;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	sw_frame(f, 64, 1);
	mt_port(&s.d[1], TALLY_CTRL_PROMISC | TALLY_CTRL_LINK_DOWN);
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 64), 0, "");
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 64), 0, "");
	mt_wr(&s.d[1], TALLY_REG_CTRL, 0);
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 64), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_SW_DROP), 2, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_DROP), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* A destination that takes shorter frames than the source: SW_DROP. */
static int
test_shorter_destination(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 2, .r = {
		{ 0, 0, TALLY_STEER_ACT_PORT, 0, 1 | TALLY_STEER_PORT_HOST },
		{ 0, 2, TALLY_STEER_ACT_PORT, 0, 1 } } };
	struct tally_model_config cfg[NP];
	uint8_t f[512], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;

	sw_config(cfg);
	cfg[1].max_frame = 200;
	TEST_ASSERT_EQ(sw_open_cfg(&s, cfg), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	sw_frame(f, 300, 1);
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 300), 0, "");
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 300), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_SW_DROP), 1, "to its host");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_DROP), 1, "to its wire");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 0, "");
	sw_frame(f, 200, 1);
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 200), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 200, "fits");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* A one-port device has the switch: hairpin back to its own wire. */
static int
test_one_port(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, 0, TALLY_STEER_ACT_PORT | TALLY_STEER_ACT_COUNT | 1, 0, 0 } } };
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct mt_rxq q;
	struct mt_dev d;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &q, 0, 6, 2048, false), 0, "");
	mt_port(&d, TALLY_CTRL_PROMISC);
	TEST_ASSERT_EQ(sw_build(&d, &set), 0, "");
	sw_frame(f, 64, 1);
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_stat(&d, TALLY_STAT_SW_TO_WIRE), 1, "");
	TEST_ASSERT_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 1, "");
	mt_wr(&d, TALLY_REG_SW_CTRL, 0);
	mt_service(&d);
	TEST_ASSERT_EQ(mt_rxq_recv(&q, out, sizeof(out), &info), 64, "back from the wire");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, mt_rd(&d, TALLY_REG_CNT_OFF) + 16), 1, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* Frames the host sends on the loop wire by reference (defer_tx) meet the
 * switch in the same step, which sends them back to that wire: the frames
 * by reference are settled first, nothing is lost, reordered or torn. */
static int
test_hairpin_tx_ref(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, 0, TALLY_STEER_ACT_PORT | TALLY_STEER_ACT_COUNT | 2, 0, 0 } } };
	struct tally_model_config cfg;
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct mt_rxq q;
	struct mt_txq tq;
	struct mt_dev d;
	uint32_t i, err = 0;

	mt_config(&cfg);
	cfg.defer_tx = 1;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &q, 0, 6, 2048, false), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 6), 0, "");
	mt_port(&d, TALLY_CTRL_PROMISC);
	TEST_ASSERT_EQ(sw_build(&d, &set), 0, "");
	for (i = 0; i < 5; i++) {
		sw_frame(f, 80 + i, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 80 + i, 1), 0, "");
	}
	mt_service(&d);		/* Tx, then the switch sends them back */
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, &err), 5, "completions");
	TEST_ASSERT_EQ(err, 0, "");
	TEST_ASSERT_EQ(mt_stat(&d, TALLY_STAT_SW_TO_WIRE), 5, "");
	TEST_ASSERT_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 10, "host's and switch's");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, mt_rd(&d, TALLY_REG_CNT_OFF) + 2 * 16), 5, "");
	mt_wr(&d, TALLY_REG_SW_CTRL, 0);
	mt_service(&d);
	for (i = 0; i < 5; i++) {
		sw_frame(f, 80 + i, i);
		TEST_ASSERT_EQ(mt_rxq_recv(&q, out, sizeof(out), &info), 80 + (int)i, "%u", i);
		TEST_ASSERT(memcmp(out, f, 80 + i) == 0, "frame %u", i);
	}
	TEST_ASSERT_EQ(mt_rxq_recv(&q, out, sizeof(out), &info), 0, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* The switch's cache of its root: a root changed in place (action sets
 * moved) is seen after a FENCE on port 0, not after one on port 1. */
static int
test_fence(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, SW_ANY, TALLY_STEER_ACT_SWACT, 0, 0 } }, .nswact = 1, .swact = {
		{ .flags = TALLY_SWACT_VALID | TALLY_SWACT_FWD, .port = 1 | TALLY_STEER_PORT_HOST } } };
	struct tally_steer_swact moved = {
		.flags = TALLY_SWACT_VALID | TALLY_SWACT_FWD, .port = 2 | TALLY_STEER_PORT_HOST };
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;
	uint64_t iova;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	TEST_ASSERT(sw_put(&s.d[0], &moved, sizeof(moved), &iova) != NULL, "");
	sw_frame(f, 64, 1);
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 64, "set 0 as built");
	memcpy(&sw_last_root->rss_iova, &iova, sizeof(iova));	/* in place */
	mt_wr(&s.d[1], TALLY_REG_FENCE, 7);
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 64,
		       "port 1's fence: the cached root");
	mt_wr(&s.d[0], TALLY_REG_FENCE, 8);
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FENCE_DONE), 8, "");
	TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 64), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[2], out, sizeof(out), &info), 64,
		       "port 0's fence: the root read again");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* ---- random rules and frames against a reference -------------------------- */

enum ref_dest { REF_OWN, REF_DROP, REF_WIRE, REF_HOST };

struct ref_out {
	enum ref_dest dest;
	uint32_t port;		/* REF_WIRE, REF_HOST */
	uint32_t faults;
	uint32_t len;
	uint8_t frame[256];
};

static bool
ref_tagged(const uint8_t *f, uint32_t len)
{
	uint16_t t = (uint16_t)(f[12] << 8 | f[13]);

	return len >= 18 && (t == 0x8100 || t == 0x88a8);
}

/* The edits of a, written the simple way. */
static uint32_t
ref_edit(uint8_t *f, uint32_t len, const struct tally_steer_swact *a, uint32_t max)
{
	uint8_t t[300];
	uint16_t tci;

	if ((a->flags & TALLY_SWACT_POP_VLAN) && ref_tagged(f, len)) {
		memcpy(t, f, 12);
		memcpy(t + 12, f + 16, len - 16);
		len -= 4;
		memcpy(f, t, len);
	}
	if (a->flags & TALLY_SWACT_PUSH_VLAN) {
		if (len + 4 > max)
			return 0;
		memcpy(t, f, 12);
		t[12] = (uint8_t)(a->vlan_tpid >> 8);
		t[13] = (uint8_t)a->vlan_tpid;
		t[14] = (uint8_t)(a->vlan_tci >> 8);
		t[15] = (uint8_t)a->vlan_tci;
		memcpy(t + 16, f + 12, len - 12);
		len += 4;
		memcpy(f, t, len);
	}
	if ((a->flags & (TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP)) && ref_tagged(f, len)) {
		tci = (uint16_t)(f[14] << 8 | f[15]);
		if (a->flags & TALLY_SWACT_SET_VID)
			tci = (uint16_t)((tci & 0xf000) | (a->vlan_tci & 0x0fff));
		if (a->flags & TALLY_SWACT_SET_PCP)
			tci = (uint16_t)((tci & 0x1fff) | (a->vlan_tci & 0xe000));
		f[14] = (uint8_t)(tci >> 8);
		f[15] = (uint8_t)tci;
	}
	if (a->flags & TALLY_SWACT_SET_SMAC)
		memcpy(f + 6, a->smac, 6);
	if (a->flags & TALLY_SWACT_SET_DMAC)
		memcpy(f, a->dmac, 6);
	return len;
}

/* The reference switch: rules in table order, first hit per table. */
static void
ref_switch(const struct sw_set *s, uint32_t src, const uint8_t *f, uint32_t len,
	   uint32_t max_frame, uint64_t *cnt, struct ref_out *o)
{
	const struct tally_steer_swact *a = NULL;
	uint32_t t = 0, i = 0, fate, word;

	o->dest = REF_OWN;
	o->faults = 0;
	o->len = len;
	memcpy(o->frame, f, len);
	for (;;) {
		const struct sw_rule *r = NULL;

		for (; i < s->nrules; i++)
			if (s->r[i].table == t && (s->r[i].src == SW_ANY || s->r[i].src == (int)src)) {
				r = &s->r[i];
				break;
			}
		if (r == NULL)
			return;		/* miss */
		if (r->act & TALLY_STEER_ACT_MARK) {
			o->faults++;
			o->dest = REF_DROP;
			return;
		}
		if (r->act & TALLY_STEER_ACT_COUNT)
			cnt[r->act & TALLY_STEER_ACT_CNT_M] += 1;
		fate = r->act & TALLY_STEER_ACT_FATE_M;
		if (fate == 0 && (r->act & TALLY_STEER_ACT_CONTINUE)) {
			i++;	/* later rules of the same table */
			continue;
		}
		switch (fate) {
		case TALLY_STEER_ACT_DROP:
			o->dest = REF_DROP;
			return;
		case TALLY_STEER_ACT_JUMP:
			t = r->fate;
			i = 0;
			continue;
		case TALLY_STEER_ACT_PORT:
			word = r->fate;
			break;
		case TALLY_STEER_ACT_SWACT:
			a = &s->swact[r->fate];
			if (!(a->flags & TALLY_SWACT_VALID)) {
				o->faults++;
				o->dest = REF_DROP;
				return;
			}
			word = (a->flags & TALLY_SWACT_FWD) ? a->port :
			       src | TALLY_STEER_PORT_HOST;
			break;
		default:
			return;		/* MISS */
		}
		if ((word & 0xff) >= NP) {
			o->faults++;
			o->dest = REF_DROP;
			return;
		}
		o->port = word & 0xff;
		o->dest = (word & TALLY_STEER_PORT_HOST) ? REF_HOST : REF_WIRE;
		if (a != NULL) {
			o->len = ref_edit(o->frame, len, a, max_frame);
			if (o->len == 0)
				o->dest = REF_DROP;
		}
		return;
	}
}

static void
rand_swact(uint32_t *rs, struct tally_steer_swact *a)
{
	uint32_t k;

	memset(a, 0, sizeof(*a));
	a->flags = tally_test_rand(rs) & (TALLY_SWACT_POP_VLAN | TALLY_SWACT_PUSH_VLAN |
					  TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP |
					  TALLY_SWACT_SET_SMAC | TALLY_SWACT_SET_DMAC |
					  TALLY_SWACT_FWD);
	a->flags |= tally_test_rand(rs) % 8 != 0 ? TALLY_SWACT_VALID : 0;
	a->port = tally_test_rand(rs) % (NP + 1);	/* NP: outside */
	a->port |= tally_test_rand(rs) % 2 ? TALLY_STEER_PORT_HOST : 0;
	a->vlan_tpid = tally_test_rand(rs) % 2 ? 0x8100 : 0x88a8;
	a->vlan_tci = (uint16_t)tally_test_rand(rs);
	for (k = 0; k < 6; k++) {
		a->smac[k] = (uint8_t)tally_test_rand(rs);
		a->dmac[k] = (uint8_t)tally_test_rand(rs);
	}
}

static void
rand_rule(uint32_t *rs, const struct sw_set *s, struct sw_rule *r)
{
	uint32_t k = tally_test_rand(rs) % 10;

	r->table = tally_test_rand(rs) % s->ntables;
	r->src = (int)(tally_test_rand(rs) % (NP + 1)) - 1;	/* SW_ANY or a port */
	r->mark = 0;
	r->fate = 0;
	r->act = tally_test_rand(rs) % 2 ? TALLY_STEER_ACT_COUNT | tally_test_rand(rs) % 8 : 0;
	switch (k) {
	case 0:
	case 1:
		r->act |= TALLY_STEER_ACT_PORT;
		r->fate = (tally_test_rand(rs) % (NP + (k == 1))) |
			  (tally_test_rand(rs) % 2 ? TALLY_STEER_PORT_HOST : 0);
		break;
	case 2:
	case 3:
		r->act |= TALLY_STEER_ACT_SWACT;
		r->fate = tally_test_rand(rs) % s->nswact;
		break;
	case 4:
		r->act |= TALLY_STEER_ACT_DROP;
		break;
	case 5:
		if (r->table + 1 < s->ntables) {	/* forward only: no loops */
			r->act |= TALLY_STEER_ACT_JUMP;
			r->fate = r->table + 1 + tally_test_rand(rs) % (s->ntables - r->table - 1);
		}
		break;
	case 6:
		r->act |= TALLY_STEER_ACT_MISS;
		break;
	case 7:
		r->act |= TALLY_STEER_ACT_CONTINUE;
		break;
	case 8:
		if (tally_test_rand(rs) % 4 == 0)
			r->act |= TALLY_STEER_ACT_MARK;
		break;
	default:
		break;	/* no fate */
	}
}

static uint32_t
rand_frame(uint32_t *rs, uint8_t *f)
{
	uint32_t len = 60 + tally_test_rand(rs) % 136, k;	/* tagged: < 200 */

	sw_frame(f, len, tally_test_rand(rs));
	f[0] = (uint8_t)(tally_test_rand(rs) & 0xfe);	/* promiscuous ports */
	switch (tally_test_rand(rs) % 3) {
	case 0:
		break;
	default: {
		uint8_t t[256];

		memcpy(t, f, len);
		k = tally_test_rand(rs) % 2 ? 0x8100 : 0x88a8;
		len = sw_tagged(f, len, (uint16_t)k, (uint16_t)tally_test_rand(rs), 0);
		memcpy(f, t, 12);
		memcpy(f + 16, t + 12, len - 16);
		break;
	}
	}
	return len;
}

/* One device, many rounds: random tables, then random frames each entering
 * a random port; where the frame ends up, its bytes, the counters, faults
 * and statistics are compared with ref_switch(). */
static int
test_random_vs_reference(void)
{
	uint32_t seed = tally_test_random_seed(), rs = seed, round, k, p, j, max = 200;
	uint64_t cnt[8], st0[NP][TALLY_STAT_NUM], st1[NP][TALLY_STAT_NUM];
	uint8_t f[256], out[2048];
	struct tally_model_config cfg[NP];
	struct mt_rx_info info;
	struct ref_out o;
	struct sw_set set;
	struct sw_dev s;
	uint32_t len, faults = 0, got, c;
	int n;

	sw_config(cfg);
	for (p = 0; p < NP; p++)
		cfg[p].max_frame = max;
	TEST_ASSERT_EQ(sw_open_cfg(&s, cfg), 0, "");
	for (p = 0; p < NP; p++)
		mt_wr(&s.d[p], TALLY_REG_MTU, max);
	memset(cnt, 0, sizeof(cnt));
	for (round = 0; round < 40; round++) {
		memset(&set, 0, sizeof(set));
		set.ntables = 1 + tally_test_rand(&rs) % SW_MAX_TABLES;
		set.nswact = 1 + tally_test_rand(&rs) % SW_MAX_SWACT;
		for (k = 0; k < set.nswact; k++)
			rand_swact(&rs, &set.swact[k]);
		set.nrules = tally_test_rand(&rs) % 12;
		for (k = 0; k < set.nrules; k++)
			rand_rule(&rs, &set, &set.r[k]);
		TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "seed %u", seed);
		for (k = 0; k < 20; k++) {
			p = tally_test_rand(&rs) % NP;
			len = rand_frame(&rs, f);
			ref_switch(&set, p, f, len, max, cnt, &o);
			faults += o.faults;
			for (j = 0; j < NP; j++)
				mt_stats(&s.d[j], st0[j]);
			mt_wr(&s.d[0], TALLY_REG_SW_CTRL, TALLY_SW_CTRL_EN);
			TEST_ASSERT_EQ(tally_model_inject(s.d[p].m, f, len), 0, "");
			/* what went to a wire comes back there, past the switch */
			mt_wr(&s.d[0], TALLY_REG_SW_CTRL, 0);
			for (j = 0; j < NP; j++)
				mt_service(&s.d[j]);
			for (j = 0; j < NP; j++)
				mt_stats(&s.d[j], st1[j]);
			got = NP;
			for (j = 0; j < NP; j++) {
				n = mt_rxq_recv(&s.q[j], out, sizeof(out), &info);
				if (n == 0)
					continue;
				TEST_ASSERT(got == NP, "seed %u round %u frame %u: twice", seed,
					    round, k);
				got = j;
				TEST_ASSERT_EQ(n, (int)o.len, "seed %u round %u frame %u", seed,
					       round, k);
				TEST_ASSERT(memcmp(out, o.frame, o.len) == 0,
					    "seed %u round %u frame %u: bytes", seed, round, k);
				TEST_ASSERT(mt_rxq_recv(&s.q[j], out, sizeof(out), &info) == 0, "");
			}
#define DELTA(port, stat)	(st1[port][stat] - st0[port][stat])
			TEST_ASSERT_U64_EQ(DELTA(p, TALLY_STAT_RX_WIRE_PKTS) -
					   (o.dest == REF_WIRE && o.port == p), 1,
					   "seed %u round %u frame %u", seed, round, k);
			switch (o.dest) {
			case REF_OWN:
				TEST_ASSERT_EQ(got, p, "seed %u round %u frame %u: own", seed,
					       round, k);
				break;
			case REF_DROP:
				TEST_ASSERT_EQ(got, NP, "seed %u round %u frame %u: drop", seed,
					       round, k);
				TEST_ASSERT_U64_EQ(DELTA(p, TALLY_STAT_SW_DROP), 1, "seed %u", seed);
				break;
			case REF_HOST:
				TEST_ASSERT_EQ(got, o.port, "seed %u round %u frame %u: host",
					       seed, round, k);
				TEST_ASSERT_U64_EQ(DELTA(p, TALLY_STAT_SW_TO_HOST), 1, "seed %u",
						   seed);
				TEST_ASSERT_U64_EQ(DELTA(o.port, TALLY_STAT_RX_WIRE_PKTS),
						   o.port == p, "seed %u", seed);
				break;
			case REF_WIRE:
				TEST_ASSERT_EQ(got, o.port, "seed %u round %u frame %u: wire",
					       seed, round, k);
				TEST_ASSERT_U64_EQ(DELTA(p, TALLY_STAT_SW_TO_WIRE), 1, "seed %u",
						   seed);
				TEST_ASSERT_U64_EQ(DELTA(o.port, TALLY_STAT_TX_PKTS), 1, "");
				TEST_ASSERT_U64_EQ(DELTA(o.port, TALLY_STAT_TX_BYTES), o.len, "");
				break;
			}
#undef DELTA
			TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), faults,
				       "seed %u round %u frame %u", seed, round, k);
			for (c = 0; c < 8; c++)
				TEST_ASSERT_U64_EQ(sw_cnt(&s, c, false), cnt[c],
						   "seed %u round %u frame %u counter %u", seed,
						   round, k, c);
		}
	}
	sw_close(&s);
	return TEST_SUCCESS;
}

/* ---- tally_model_ports_args ------------------------------------------------ */

static int
test_ports_args(void)
{
	struct tally_model_ports_args a;
	char err[256];

	tally_model_ports_args_init(&a);
	TEST_ASSERT_EQ(a.n, 1, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p1_wire", "none", err, sizeof(err)), 0,
		       "%s", err);
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "wire", "gen", err, sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "ports", "3", err, sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "mac", "02:aa:bb:cc:dd:10", err,
						  sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p2_mac", "06:00:00:00:00:01", err,
						  sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p2_rxq", "2", err, sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "rxq", "4", err, sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p0_iface", "eth7", err, sizeof(err)), 0,
		       "");
	TEST_ASSERT_EQ(tally_model_ports_args_done(&a, err, sizeof(err)), 0, "%s", err);
	TEST_ASSERT_EQ(a.n, 3, "");
	TEST_ASSERT_EQ(a.port[0].cfg.wire, TALLY_WIRE_GEN, "");
	TEST_ASSERT_EQ(a.port[1].cfg.wire, TALLY_WIRE_NONE, "p1_wire wins, given first");
	TEST_ASSERT_EQ(a.port[2].cfg.wire, TALLY_WIRE_GEN, "");
	TEST_ASSERT_EQ(a.port[0].cfg.rx_queues, 4, "");
	TEST_ASSERT_EQ(a.port[2].cfg.rx_queues, 2, "");
	TEST_ASSERT_EQ(a.port[0].cfg.mac[5], 0x10, "");
	TEST_ASSERT_EQ(a.port[1].cfg.mac[5], 0x11, "derived");
	TEST_ASSERT_EQ(a.port[1].cfg.mac[0], 0x02, "");
	TEST_ASSERT_EQ(a.port[2].cfg.mac[0], 0x06, "its own");
	TEST_ASSERT_EQ(a.port[2].cfg.mac[5], 0x01, "");
	TEST_ASSERT(a.port[0].cfg.iface == a.port[0].iface &&
		    strcmp(a.port[0].cfg.iface, "eth7") == 0, "own copy");
	TEST_ASSERT(a.port[1].cfg.iface == NULL, "");
	TEST_ASSERT_EQ(a.own_mac, 1u << 2, "");
	TEST_ASSERT_EQ(a.named, 1u << 0 | 1u << 1 | 1u << 2, "");

	/* errors */
	tally_model_ports_args_init(&a);
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "ports", "9", err, sizeof(err)), -ERANGE,
		       "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "ports", "0", err, sizeof(err)), -ERANGE,
		       "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p8_wire", "loop", err, sizeof(err)),
		       -EINVAL, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p1_bogus", "1", err, sizeof(err)),
		       -EINVAL, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p1_wire", "cable", err, sizeof(err)),
		       -EINVAL, "");
	TEST_ASSERT(strstr(err, "p1_wire") != NULL, "names the key: %s", err);
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p1_rxq", "2", err, sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_done(&a, err, sizeof(err)), -EINVAL,
		       "p1_ on a device of 1 port");
	TEST_ASSERT(strstr(err, "p1") != NULL, "%s", err);
	tally_model_ports_args_init(&a);
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "p1_rxq", "2", err, sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_set(&a, "ports", "2", err, sizeof(err)), 0, "");
	TEST_ASSERT_EQ(tally_model_ports_args_done(&a, err, sizeof(err)), 0, "any order");
	TEST_ASSERT_EQ(a.port[1].cfg.mac[5], 1, "default MAC + 1");
	return TEST_SUCCESS;
}

/* ---- frames a port's host transmits (source_port = i | HOST) ------------- */

#define SW_HOST(p)	((int)((p) | TALLY_SOURCE_PORT_HOST))

/* n frames (100 + k bytes, seed k, nseg segments each) posted on tq, the
 * port stepped; every descriptor completes OK, each frame's last with its
 * length. */
static int
sw_host_send(struct mt_txq *tq, uint32_t n, uint32_t nseg)
{
	struct tally_tx_cqe c;
	uint8_t f[256];
	uint32_t k, i;

	for (k = 0; k < n; k++) {
		sw_frame(f, 100 + k, k);
		TEST_ASSERT_EQ(mt_tx_send(tq, f, 100 + k, nseg), 0, "frame %u", k);
	}
	mt_service(tq->d);
	for (k = 0; k < n; k++)
		for (i = 0; i < nseg; i++) {
			TEST_ASSERT_EQ(mt_tx_reap(tq, &c), 1, "frame %u seg %u", k, i);
			TEST_ASSERT_EQ(c.status, TALLY_TXC_OK, "frame %u seg %u", k, i);
			TEST_ASSERT_EQ(c.len, i + 1 == nseg ? 100 + k : 0, "frame %u", k);
		}
	TEST_ASSERT_EQ(mt_tx_reap(tq, &c), 0, "");
	return TEST_SUCCESS;
}

/* Frames 100 + k bytes (seed k), k < n, received in order on q. */
static int
sw_host_recv(struct mt_rxq *q, uint32_t n)
{
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	uint32_t k;

	for (k = 0; k < n; k++) {
		sw_frame(f, 100 + k, k);
		TEST_ASSERT_EQ(mt_rxq_recv(q, out, sizeof(out), &info), 100 + (int)k, "%u", k);
		TEST_ASSERT(memcmp(out, f, 100 + k) == 0, "bytes of frame %u", k);
	}
	TEST_ASSERT_EQ(mt_rxq_recv(q, out, sizeof(out), &info), 0, "no more");
	return TEST_SUCCESS;
}

/* A rule for port 1's host drops its frames (completed OK, SW_DROP, not
 * TX_PKTS, counted with their length); port 1's wire frames miss it. */
static int
test_host_tx_drop(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, SW_HOST(1), TALLY_STEER_ACT_DROP | TALLY_STEER_ACT_COUNT | 5, 0, 0 } } };
	uint8_t f[256];
	struct mt_txq tq;
	struct sw_dev s;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[1], &tq, 0, 6), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	TEST_ASSERT_EQ(sw_host_send(&tq, 3, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_host_send(&tq, 2, 3), TEST_SUCCESS, "chains");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_DROP), 5, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_BYTES), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_ERRORS), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_WIRE_DROP), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_RX_WIRE_PKTS), 0, "nothing on the wire");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 5, false), 5, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 5, true), 303 + 201, "");
	TEST_ASSERT_EQ(sw_host_recv(&s.q[1], 0), TEST_SUCCESS, "");
	/* the same frame from port 1's wire: source_port 1, a miss */
	sw_frame(f, 100, 0);
	TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, f, 100), 0, "");
	TEST_ASSERT_EQ(sw_host_recv(&s.q[1], 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_DROP), 5, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 5, false), 5, "");
	/* port 2's host: not port 1's */
	TEST_ASSERT_EQ(mt_txq_start(&s.d[2], &tq, 0, 6), 0, "");
	TEST_ASSERT_EQ(sw_host_send(&tq, 2, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_host_recv(&s.q[2], 2), TEST_SUCCESS, "own wire, looped");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_PKTS), 2, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_BYTES), 201, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_DROP), 0, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* Host frames of port 1 to port 2's wire (counted there), and a rule for
 * port 1's wire that host frames miss; a rule without source_port hits
 * both. */
static int
test_host_tx_to_wire(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 2, .r = {
		{ 0, SW_HOST(1), TALLY_STEER_ACT_PORT | TALLY_STEER_ACT_COUNT | 3, 0, 2 },
		{ 0, 1, TALLY_STEER_ACT_DROP | TALLY_STEER_ACT_COUNT | 4, 0, 0 } } };
	struct sw_set any = { .ntables = 1, .nrules = 1, .r = {
		{ 0, SW_ANY, TALLY_STEER_ACT_DROP | TALLY_STEER_ACT_COUNT | 7, 0, 0 } } };
	uint8_t f[256];
	struct mt_txq tq;
	struct sw_dev s;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[1], &tq, 0, 6), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	TEST_ASSERT_EQ(sw_host_send(&tq, 3, 2), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_WIRE), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_RX_WIRE_PKTS), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_DROP), 0, "rule 1 not hit");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_PKTS), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_BYTES), 303, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 3, false), 3, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 3, true), 303, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 4, false), 0, "");
	/* port 2's loop gives them back: source_port 2, a miss */
	mt_service(&s.d[2]);
	TEST_ASSERT_EQ(sw_host_recv(&s.q[2], 3), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_host_recv(&s.q[1], 0), TEST_SUCCESS, "");
	/* port 1's wire: rule 1 only */
	sw_frame(f, 100, 0);
	TEST_ASSERT_EQ(tally_model_inject(s.d[1].m, f, 100), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_DROP), 1, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 4, false), 1, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 3, false), 3, "");
	/* no source_port: port 1's host and port 2's wire alike */
	TEST_ASSERT_EQ(sw_build(&s.d[0], &any), 0, "");
	TEST_ASSERT_EQ(sw_host_send(&tq, 2, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 100), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_DROP), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_DROP), 1, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 7, false), 3, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 7, true), 301, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_PKTS), 3, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* Host frames to a port's receive pipeline: another port's, and port 2's
 * own (received once: what the switch sends does not meet it again); the
 * receiving port's steering sees source_port = index | HOST. */
static int
test_host_tx_to_host(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 2, .r = {
		{ 0, SW_HOST(1), TALLY_STEER_ACT_PORT, 0, 0 | TALLY_STEER_PORT_HOST },
		{ 0, SW_HOST(2), TALLY_STEER_ACT_PORT, 0, 2 | TALLY_STEER_PORT_HOST } } };
	struct sw_set nic = { .ntables = 1, .nrules = 1, .r = {
		{ 0, SW_HOST(1), TALLY_STEER_ACT_QUEUE, 0, 1 } } };
	struct tally_model_config cfg[NP];
	struct mt_txq tq1, tq2;
	struct mt_rxq q01;
	struct sw_dev s;

	sw_config(cfg);
	cfg[0].rx_queues = 2;
	TEST_ASSERT_EQ(sw_open_cfg(&s, cfg), 0, "");
	TEST_ASSERT_EQ(mt_rxq_start(&s.d[0], &q01, 1, 6, 2048, false), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[1], &tq1, 0, 6), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[2], &tq2, 0, 6), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	TEST_ASSERT_EQ(sw_host_send(&tq1, 2, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_host_recv(&s.q[0], 2), TEST_SUCCESS, "on port 0");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_HOST), 2, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_RX_PKTS), 2, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_RX_WIRE_PKTS), 0, "");
	/* port 2's host to its own pipeline: once */
	TEST_ASSERT_EQ(sw_host_send(&tq2, 3, 1), TEST_SUCCESS, "");
	mt_service(&s.d[2]);
	TEST_ASSERT_EQ(sw_host_recv(&s.q[2], 3), TEST_SUCCESS, "own pipeline");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_TO_HOST), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_RX_PKTS), 3, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_PKTS), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_RX_WIRE_PKTS), 0, "");
	/* port 0's steering: a rule for source_port 1 | HOST, queue 1 */
	mt_port(&s.d[0], TALLY_CTRL_PROMISC | TALLY_CTRL_STEER);
	TEST_ASSERT_EQ(sw_build_at(&s.d[0], &nic, TALLY_REG_STEER_ROOT_LO, TALLY_REG_STEER_CTRL,
				   TALLY_STEER_CTRL_EN), 0, "");
	TEST_ASSERT_EQ(sw_host_send(&tq1, 1, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_host_recv(&q01, 1), TEST_SUCCESS, "source_port 1 | HOST");
	TEST_ASSERT_EQ(sw_host_recv(&s.q[0], 0), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* Edits on host frames: an action set without a destination sends the
 * edited frame to the own port's wire (its TX_PKTS, SW_TO_WIRE); one with
 * a destination to port 0's pipeline. */
static int
test_host_tx_edit(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 2, .r = {
		{ 0, SW_HOST(1), TALLY_STEER_ACT_SWACT, 0, 0 },
		{ 0, SW_HOST(2), TALLY_STEER_ACT_SWACT, 0, 1 } }, .nswact = 2 };
	uint8_t f[256], want[256], out[2048];
	struct mt_rx_info info;
	struct mt_txq tq1, tq2;
	struct sw_dev s;

	set.swact[0].flags = TALLY_SWACT_VALID | TALLY_SWACT_PUSH_VLAN;
	set.swact[0].vlan_tpid = 0x8100;
	set.swact[0].vlan_tci = 0x2007;
	set.swact[1].flags = TALLY_SWACT_VALID | TALLY_SWACT_FWD | TALLY_SWACT_SET_DMAC;
	set.swact[1].port = 0 | TALLY_STEER_PORT_HOST;
	memcpy(set.swact[1].dmac, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 0x42 }, 6);
	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[1], &tq1, 0, 6), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[2], &tq2, 0, 6), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	/* port 1: pushed, on its own wire, looped back (source_port 1: a miss) */
	TEST_ASSERT_EQ(sw_host_send(&tq1, 1, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_tagged(want, 100, 0x8100, 0x2007, 0), 104, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[1], out, sizeof(out), &info), 104, "");
	TEST_ASSERT(memcmp(out, want, 104) == 0, "pushed");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_WIRE), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_BYTES), 104, "");
	/* port 2: new destination MAC, to port 0's pipeline */
	TEST_ASSERT_EQ(sw_host_send(&tq2, 1, 1), TEST_SUCCESS, "");
	sw_frame(f, 100, 0);
	f[5] = 0x42;
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[0], out, sizeof(out), &info), 100, "");
	TEST_ASSERT(memcmp(out, f, 100) == 0, "edited");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_TO_HOST), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_PKTS), 0, "");
	TEST_ASSERT_EQ(mt_rd(&s.d[0], TALLY_REG_FAULT_CNT), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* Switch off: host frames go to their wire as before, whatever the tables
 * say; a descriptor fault with the switch on completes as ever, unseen by
 * the switch. */
static int
test_host_tx_off_and_faults(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 1, .r = {
		{ 0, SW_ANY, TALLY_STEER_ACT_DROP | TALLY_STEER_ACT_COUNT | 2, 0, 0 } } };
	struct tally_tx_desc bad = { .addr = 0x10, .len = 64, .flags = TALLY_TXD_F_EOP };
	struct tally_tx_cqe c;
	struct mt_txq tq;
	struct sw_dev s;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[1], &tq, 0, 6), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	mt_wr(&s.d[0], TALLY_REG_SW_CTRL, 0);
	TEST_ASSERT_EQ(sw_host_send(&tq, 3, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_host_recv(&s.q[1], 3), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_host_send(&tq, 2, 2), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_host_recv(&s.q[1], 2), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 5, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_BYTES), 303 + 201, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_DROP), 0, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 2, false), 0, "");
	/* on: an unmapped buffer is a DMA error, not a switch drop */
	mt_wr(&s.d[0], TALLY_REG_SW_CTRL, TALLY_SW_CTRL_EN);
	TEST_ASSERT_EQ(mt_tx_post(&tq, &bad, 1), 0, "");
	mt_service(&s.d[1]);
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_ERRORS), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_DROP), 0, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 2, false), 0, "");
	TEST_ASSERT_EQ(sw_host_send(&tq, 1, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_DROP), 1, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 2, false), 1, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* A host frame the switch leaves to a busy own wire stays posted and is
 * sent later, counted by the switch once; with its own link down a frame
 * the switch takes is still switched. */
static int
test_host_tx_busy_link_down(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 3, .r = {
		{ 0, 0, TALLY_STEER_ACT_PORT, 0, 1 },
		{ 0, SW_HOST(1), TALLY_STEER_ACT_COUNT | 6, 0, 0 },
		{ 0, SW_HOST(2), TALLY_STEER_ACT_PORT, 0, 0 | TALLY_STEER_PORT_HOST } } };
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct tally_tx_cqe c;
	struct mt_txq tq, tq2;
	struct sw_dev s;
	uint32_t i, steps;

	TEST_ASSERT_EQ(sw_open(&s), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[1], &tq, 0, 6), 0, "");
	TEST_ASSERT_EQ(mt_txq_start(&s.d[2], &tq2, 0, 6), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	/* port 0's frames fill port 1's loop until it refuses them */
	sw_frame(f, 64, 9);
	for (i = 0; sw_stat(&s, 0, TALLY_STAT_SW_DROP) == 0 && i < 100000; i++)
		TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 64), 0, "");
	TEST_ASSERT(sw_stat(&s, 0, TALLY_STAT_SW_DROP) == 1, "port 1's wire full");
	sw_frame(f, 100, 0);
	TEST_ASSERT_EQ(mt_tx_send(&tq, f, 100, 1), 0, "");
	mt_service(&s.d[1]);	/* busy; its Rx makes room */
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 0, "still posted");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 6, false), 1, "");
	for (steps = 0; mt_tx_reap(&tq, &c) == 0 && steps < 1000; steps++)
		mt_service(&s.d[1]);
	TEST_ASSERT_EQ(c.status, TALLY_TXC_OK, "");
	TEST_ASSERT_EQ(c.len, 100, "");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 6, false), 1, "counted once");
	TEST_ASSERT_U64_EQ(sw_cnt(&s, 6, true), 100, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_TX_PKTS), 1 + sw_stat(&s, 0, TALLY_STAT_SW_TO_WIRE),
		       "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_WIRE), 0, "no fate: own wire");
	/* port 2 with its link down: its host's frame still reaches port 0 */
	mt_port(&s.d[2], TALLY_CTRL_PROMISC | TALLY_CTRL_LINK_DOWN);
	TEST_ASSERT_EQ(sw_host_send(&tq2, 1, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&s.q[0], out, sizeof(out), &info), 100, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_SW_TO_HOST), 1, "");
	TEST_ASSERT_EQ(sw_stat(&s, 2, TALLY_STAT_TX_WIRE_DROP), 0, "");
	sw_close(&s);
	return TEST_SUCCESS;
}

/* tally_model_create_ports() arguments, and ports destroyed one by one
 * (the device's memory goes with the last). */
static int
test_create_destroy(void)
{
	struct tally_model_config cfg[NP];
	struct tally_model *m[NP];
	uint8_t f[128];
	char err[256];

	sw_config(cfg);
	TEST_ASSERT_EQ(tally_model_create_ports(cfg, 0, m, err, sizeof(err)), -EINVAL, "");
	TEST_ASSERT_EQ(tally_model_create_ports(cfg, TALLY_MAX_PORTS + 1, m, err, sizeof(err)),
		       -EINVAL, "");
	cfg[2].max_frame = 1;
	TEST_ASSERT(tally_model_create_ports(cfg, NP, m, err, sizeof(err)) < 0, "");
	TEST_ASSERT(strncmp(err, "port 2: ", 8) == 0, "names the port: %s", err);
	sw_config(cfg);
	TEST_ASSERT_EQ(tally_model_create_ports(cfg, NP, m, err, sizeof(err)), 0, "%s", err);
	tally_model_destroy(m[0]);
	sw_frame(f, 64, 0);
	tally_model_destroy(m[2]);
	tally_model_destroy(m[1]);
	return TEST_SUCCESS;
}

/* Thread mode: every port's thread steps it under the one lock; frames
 * forwarded between ports while the threads run, ports destroyed in any
 * order with the others' threads still running. */
static int
test_threads(void)
{
	struct sw_set set = { .ntables = 1, .nrules = 2, .r = {
		{ 0, 0, TALLY_STEER_ACT_PORT, 0, 1 },
		{ 0, 1, TALLY_STEER_ACT_PORT, 0, 2 | TALLY_STEER_PORT_HOST } } };
	struct tally_model_config cfg[NP];
	uint8_t f[256], out[2048];
	struct mt_rx_info info;
	struct sw_dev s;
	uint32_t i, got = 0;
	uint64_t t0;

	sw_config(cfg);
	for (i = 0; i < NP; i++)
		cfg[i].mode = TALLY_MODEL_THREAD;
	TEST_ASSERT_EQ(sw_open_cfg(&s, cfg), 0, "");
	TEST_ASSERT_EQ(sw_build(&s.d[0], &set), 0, "");
	sw_frame(f, 64, 1);
	/* port 0 -> port 1's wire (loop) -> port 1's thread -> port 2's host */
	for (i = 0; i < 40; i++)
		TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 64), 0, "");
	t0 = tally_time_ns();
	while (got < 40 && tally_time_ns() - t0 < 5000000000ull) {
		if (mt_rxq_recv(&s.q[2], out, sizeof(out), &info) == 64)
			got++;
		else
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	TEST_ASSERT_EQ(got, 40, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_SW_TO_WIRE), 40, "");
	TEST_ASSERT_EQ(sw_stat(&s, 1, TALLY_STAT_SW_TO_HOST), 40, "");
	mt_close(&s.d[1]);
	for (i = 0; i < 10; i++)	/* to a destroyed port: dropped */
		TEST_ASSERT_EQ(tally_model_inject(s.d[0].m, f, 64), 0, "");
	TEST_ASSERT_EQ(sw_stat(&s, 0, TALLY_STAT_SW_DROP), 10, "");
	mt_close(&s.d[0]);
	TEST_ASSERT_EQ(tally_model_inject(s.d[2].m, f, 64), 0, "");
	mt_close(&s.d[2]);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_identity),
	TEST_CASE(test_to_wire),
	TEST_CASE(test_host_drop_miss),
	TEST_CASE(test_source_port),
	TEST_CASE(test_nic_source_port),
	TEST_CASE(test_edits),
	TEST_CASE(test_edit_own_and_too_long),
	TEST_CASE(test_jump_passthru),
	TEST_CASE(test_faults),
	TEST_CASE(test_reset),
	TEST_CASE(test_fence),
	TEST_CASE(test_link_down),
	TEST_CASE(test_shorter_destination),
	TEST_CASE(test_one_port),
	TEST_CASE(test_hairpin_tx_ref),
	TEST_CASE(test_random_vs_reference),
	TEST_CASE(test_host_tx_drop),
	TEST_CASE(test_host_tx_to_wire),
	TEST_CASE(test_host_tx_to_host),
	TEST_CASE(test_host_tx_edit),
	TEST_CASE(test_host_tx_off_and_faults),
	TEST_CASE(test_host_tx_busy_link_down),
	TEST_CASE(test_ports_args),
	TEST_CASE(test_create_destroy),
	TEST_CASE(test_threads),
};

TEST_MAIN("model-switch", cases)
