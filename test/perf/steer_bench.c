/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering insert/delete benchmark (not a test): N rules with an IPv4/UDP
 * 5-tuple mask into one matcher, then delete them all; prints rules/s and
 * memory per rule (device-visible + host-only). Device memory comes from
 * plain aligned allocations with IOVA = VA; the "device" is a register file
 * whose fence completes at once.
 *
 * Rates are given by wall time and by the thread's CPU time ("cpu"), which
 * a loaded machine distorts less (time waiting for a CPU is not counted).
 *
 * usage: steer_bench [rules...]   (default: 1000000 4000000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tally/tally_regs.h>
#include "tally_plat.h"
#include "tally_steer.h"

struct bench_dev {
	struct tally_io io;
	uint8_t regs[0x20000];
};

static uint32_t
bench_rd(void *ctx, uint32_t off)
{
	struct bench_dev *d = ctx;
	uint32_t v;

	memcpy(&v, d->regs + off, 4);
	return v;
}

static void
bench_wr(void *ctx, uint32_t off, uint32_t val)
{
	struct bench_dev *d = ctx;

	memcpy(d->regs + off, &val, 4);
	if (off == TALLY_REG_FENCE)
		memcpy(d->regs + TALLY_REG_FENCE_DONE, &val, 4);
}

static const struct tally_io_ops bench_ops = {
	.name = "bench", .read32 = bench_rd, .write32 = bench_wr,
};

static void *
bench_alloc(void *arg, size_t size, size_t align, uint64_t *iova)
{
	void *p = tally_zmalloc_aligned(size, align);

	(void)arg;
	*iova = (uint64_t)(uintptr_t)p;
	return p;
}

static void
bench_free(void *arg, void *p, size_t size)
{
	(void)arg;
	(void)size;
	tally_free(p);
}

static void
put_be(struct tally_match_key *k, uint32_t off, uint32_t v, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		k->b[off + i] = (uint8_t)(v >> (8 * (len - 1 - i)));
}

static void
key_5tuple(struct tally_match_key *k, uint32_t i, bool mask)
{
	put_be(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_ETHERTYPE), mask ? 0xffff : 0x0800, 2);
	put_be(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL), mask ? 0xff : 17, 1);
	put_be(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4),
	       mask ? 0xffffffff : 0x0a000000 + (i & 0xfffff), 4);
	put_be(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4),
	       mask ? 0xffffffff : 0xc0a80000 + (i >> 20), 4);
	put_be(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_SPORT), mask ? 0xffff : 1024 + (i % 7), 2);
	put_be(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), mask ? 0xffff : 4789, 2);
}

static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
bench(uint32_t n)
{
	static struct bench_dev dev;
	struct tally_fence fence;
	struct tally_steer_config cfg = { 0 };
	struct tally_steer_ctx *ctx;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule **r;
	struct tally_steer_action a = { .flags = TALLY_STEER_A_MARK,
					.fate = TALLY_STEER_FATE_QUEUE, .arg = 1 };
	struct tally_steer_mem_stats st;
	struct tally_match_key k;
	uint64_t t0, t1, t2, c0, c1, c2;
	uint32_t i, lg;
	int rc;

	dev.io.ops = &bench_ops;
	dev.io.ctx = &dev;
	dev.io.bar = dev.regs;
	dev.io.bar_len = sizeof(dev.regs);
	tally_fence_init(&fence, &dev.io);
	cfg.io = &dev.io;
	cfg.fence = &fence;
	cfg.mem.alloc = bench_alloc;
	cfg.mem.free = bench_free;
	r = malloc((size_t)n * sizeof(*r));
	if (r == NULL || tally_steer_ctx_create(&cfg, &ctx) != 0 ||
	    tally_steer_table_create(ctx, 0, &t) != 0)
		return 1;
	memset(&k, 0, sizeof(k));
	key_5tuple(&k, 0, true);
	if (tally_steer_matcher_create(t, 0, &k, &m) != 0)
		return 1;
	memset(&k, 0, sizeof(k));
	c0 = cpu_ns();
	t0 = tally_time_ns();
	for (i = 0; i < n; i++) {
		key_5tuple(&k, i, false);
		a.mark = i;
		rc = tally_steer_rule_insert(m, &k, &a, &r[i]);
		if (rc != 0) {
			fprintf(stderr, "insert %u: %d\n", i, rc);
			return 1;
		}
	}
	t1 = tally_time_ns();
	c1 = cpu_ns();
	tally_steer_ctx_sync(ctx, 1000000);
	tally_steer_ctx_mem(ctx, &st);
	lg = tally_steer_matcher_log2(m);
	for (i = 0; i < n; i++)
		tally_steer_rule_delete(r[i]);
	t2 = tally_time_ns();
	c2 = cpu_ns();
	printf("rules %9u  insert %6.2f Mrules/s  delete %6.2f Mrules/s  "
	       "bytes/rule %5.1f (device %5.1f + host %4.1f)  hash 2^%u\n", n,
	       n / ((t1 - t0) / 1e3), n / ((t2 - t1) / 1e3),
	       (double)(st.dev_bytes + st.host_bytes) / n, (double)st.dev_bytes / n,
	       (double)st.host_bytes / n, lg);
	printf("rules %9u  cpu insert %6.2f Mrules/s  cpu delete %6.2f Mrules/s\n", n,
	       n / ((c1 - c0) / 1e3), n / ((c2 - c1) / 1e3));
	tally_steer_matcher_destroy(m);
	tally_steer_table_destroy(t);
	tally_steer_ctx_destroy(ctx);
	tally_fence_fini(&fence);
	free(r);
	return 0;
}

int
main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		rc |= bench(1000000);
		rc |= bench(4000000);
		return rc;
	}
	for (i = 1; i < argc; i++)
		rc |= bench((uint32_t)strtoul(argv[i], NULL, 0));
	return rc;
}
