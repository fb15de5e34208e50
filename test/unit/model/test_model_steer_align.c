/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering pointers the device follows must be aligned for the structure
 * they name (tally_steer_fmt.h). A steering set-up is written by hand into
 * the DMA arena: root -> table 0 -> matcher list -> matcher (match all) ->
 * one-entry hash array, the rule counting into counter 5 and steering to
 * queue 1 (or to RSS set 0 = {queue 1}). Each case misplaces one structure
 * (or none): a misaligned pointer is one BAD_STEER fault naming that
 * pointer, and the frame is dropped as RX_STEER_DROP. Every structure is
 * written with memcpy, so the test itself never makes a misaligned access
 * (the ASan/UBSan build checks the model does not either).
 */
#include <tally/tally_cnt_bank.h>
#include <tally/tally_steer_fmt.h>

#include "tally_mt.h"
#include "tally_test.h"

#define SA_CNT		5
#define SA_QUEUE	1

enum sa_obj {
	SA_NONE,
	SA_ROOT,
	SA_TABLES,
	SA_MLIST,
	SA_MATCHER,
	SA_HTAB,
	SA_RSS,
};

struct sa_case {
	enum sa_obj bad;	/* structure placed off its alignment */
	size_t off;		/* by this many bytes */
	bool rss;		/* fate RSS set 0 instead of QUEUE */
};

struct sa_iova {
	uint64_t root, tables, mlist, matcher, htab, rss;
};

/* len bytes in the arena at `off` past a 64-byte boundary. */
static uint8_t *
sa_place(struct mt_dev *d, const void *src, size_t len, size_t off, uint64_t *iova)
{
	uint8_t *p = mt_alloc(d, len + 64);

	if (p == NULL)
		return NULL;
	memcpy(p + off, src, len);
	*iova = (uint64_t)(uintptr_t)(p + off);
	return p + off;
}

static int
sa_build(struct mt_dev *d, const struct sa_case *c, struct sa_iova *io)
{
	uint8_t buf[128];
	struct tally_steer_rss rss = { .hf = 0, .nq = 1, .queues = { SA_QUEUE } };
	struct tally_steer_htab h = {
		.magic = TALLY_STEER_HTAB_MAGIC, .log2_size = 0, .nwords = 0,
		.stride = (uint32_t)TALLY_STEER_ENTRY_SIZE(0), .seed = 7,
	};
	struct tally_steer_entry e = {
		.ctrl = TALLY_STEER_S_VALID | 4,
		.act = TALLY_STEER_ACT_COUNT | SA_CNT |
		       (c->rss ? TALLY_STEER_ACT_RSS : TALLY_STEER_ACT_QUEUE),
		.fate = c->rss ? 0 : SA_QUEUE,
	};
	struct tally_steer_matcher_desc md = {
		.magic = TALLY_STEER_MATCHER_MAGIC, .nwords = 0,
	};
	struct tally_steer_mlist ml = { .magic = TALLY_STEER_MLIST_MAGIC, .num = 1 };
	struct tally_steer_tbl t;
	struct tally_steer_root r = {
		.magic = TALLY_STEER_ROOT_MAGIC,
		.version = TALLY_FIELD_PREP(TALLY_STEER_ROOT_VER_MAJOR_M, TALLY_STEER_FMT_MAJOR),
		.num_tables = 1, .num_rss = 1,
	};

#define SA_OFF(o)	(c->bad == (o) ? c->off : 0)
	if (sa_place(d, &rss, sizeof(rss), SA_OFF(SA_RSS), &io->rss) == NULL)
		return -ENOMEM;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &e, sizeof(e));
	if (sa_place(d, buf, sizeof(h) + sizeof(e), SA_OFF(SA_HTAB), &io->htab) == NULL)
		return -ENOMEM;
	md.htab = io->htab;
	if (sa_place(d, &md, sizeof(md), SA_OFF(SA_MATCHER), &io->matcher) == NULL)
		return -ENOMEM;
	memcpy(buf, &ml, sizeof(ml));
	memcpy(buf + sizeof(ml), &io->matcher, 8);
	if (sa_place(d, buf, TALLY_STEER_MLIST_SIZE(1), SA_OFF(SA_MLIST), &io->mlist) == NULL)
		return -ENOMEM;
	t.mlist = io->mlist;
	if (sa_place(d, &t, sizeof(t), SA_OFF(SA_TABLES), &io->tables) == NULL)
		return -ENOMEM;
	r.tables_iova = io->tables;
	r.rss_iova = io->rss;
	if (sa_place(d, &r, sizeof(r), SA_OFF(SA_ROOT), &io->root) == NULL)
		return -ENOMEM;
#undef SA_OFF
	mt_wr(d, TALLY_REG_STEER_ROOT_LO, (uint32_t)io->root);
	mt_wr(d, TALLY_REG_STEER_ROOT_HI, (uint32_t)(io->root >> 32));
	mt_wr(d, TALLY_REG_STEER_CTRL, TALLY_STEER_CTRL_EN);
	return 0;
}

static uint64_t
sa_bad_iova(const struct sa_case *c, const struct sa_iova *io)
{
	switch (c->bad) {
	case SA_ROOT: return io->root;
	case SA_TABLES: return io->tables;
	case SA_MLIST: return io->mlist;
	case SA_MATCHER: return io->matcher;
	case SA_HTAB: return io->htab;
	case SA_RSS: return io->rss;
	default: return 0;
	}
}

static int
sa_run(const struct sa_case *c)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0 };
	uint8_t frame[128], out[256];
	struct mt_rxq q0, q1;
	struct mt_rx_info info;
	struct sa_iova io;
	struct mt_dev d;
	uint64_t cnt, fault_addr;
	uint32_t cnt_off;
	/* COUNT runs before the fate, so only an RSS set fault comes after it */
	uint64_t counted = c->bad == SA_NONE || c->bad == SA_RSS;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &q0, 0, 4, 2048, false), 0, "");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &q1, SA_QUEUE, 4, 2048, false), 0, "");
	TEST_ASSERT_EQ(sa_build(&d, c, &io), 0, "");
	mt_port(&d, TALLY_CTRL_STEER);
	mt_udp_frame(frame, 64, dst, 0x0a000001, 0x0a000002, 1000, 2000, 1);
	TEST_ASSERT_EQ(tally_model_inject(d.m, frame, 64), 0, "");

	cnt_off = mt_rd(&d, TALLY_REG_CNT_OFF);
	cnt = mt_rd64(&d, cnt_off + SA_CNT * (uint32_t)sizeof(struct tally_cnt_entry));
	TEST_ASSERT_U64_EQ(cnt, counted, "counter packets");
	TEST_ASSERT_EQ(mt_rxq_recv(&q0, out, sizeof(out), &info), 0, "nothing on queue 0");
	if (c->bad == SA_NONE) {
		TEST_ASSERT_EQ(mt_rxq_recv(&q1, out, sizeof(out), &info), 64, "");
		TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "");
		TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 1, "");
		TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_STEER_DROP), 0, "");
		mt_close(&d);
		return TEST_SUCCESS;
	}
	TEST_ASSERT_EQ(mt_rxq_recv(&q1, out, sizeof(out), &info), 0, "dropped");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 1, "one fault");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_STEER, "");
	fault_addr = (uint64_t)mt_rd(&d, TALLY_REG_FAULT_ADDR_LO) |
		     (uint64_t)mt_rd(&d, TALLY_REG_FAULT_ADDR_HI) << 32;
	TEST_ASSERT_U64_EQ(fault_addr, sa_bad_iova(c, &io), "the misaligned pointer");
	TEST_ASSERT(fault_addr % 8 != 0, "really misaligned");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_STEER_DROP), 1, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 0, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 0, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 0, "not a DMA fault");
	mt_close(&d);
	return TEST_SUCCESS;
}

#define SA_TEST(name, ...)						\
static int								\
name(void)								\
{									\
	static const struct sa_case c = { __VA_ARGS__ };		\
									\
	return sa_run(&c);						\
}

SA_TEST(test_aligned_queue, .bad = SA_NONE)
SA_TEST(test_aligned_rss, .bad = SA_NONE, .rss = true)
SA_TEST(test_root_off4, .bad = SA_ROOT, .off = 4)
SA_TEST(test_root_off1, .bad = SA_ROOT, .off = 1)
SA_TEST(test_tables_off4, .bad = SA_TABLES, .off = 4)
SA_TEST(test_mlist_off4, .bad = SA_MLIST, .off = 4)
SA_TEST(test_matcher_off4, .bad = SA_MATCHER, .off = 4)
SA_TEST(test_htab_off2, .bad = SA_HTAB, .off = 2)
SA_TEST(test_rss_off4, .bad = SA_RSS, .off = 4, .rss = true)

static const struct tally_test_case cases[] = {
	TEST_CASE(test_aligned_queue),
	TEST_CASE(test_aligned_rss),
	TEST_CASE(test_root_off4),
	TEST_CASE(test_root_off1),
	TEST_CASE(test_tables_off4),
	TEST_CASE(test_mlist_off4),
	TEST_CASE(test_matcher_off4),
	TEST_CASE(test_htab_off2),
	TEST_CASE(test_rss_off4),
};

TEST_MAIN("model-steer-align", cases)
