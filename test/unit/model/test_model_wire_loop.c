/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loop wire's byte ring, through its ops table: frames on 64-byte
 * boundaries, the wrap to offset 0, full by frame count and by bytes (busy,
 * never a loss or an overwrite), the largest frames, the copying tx/rx ops
 * agreeing with tx_slot/tx_burst/rx_peek/rx_peek_burst, frames by reference
 * (tx_ref_room/tx_ref_put/tx_settle: kept in place only while the ring is empty, at
 * most a burst of them, settled by every copying op so FIFO order holds),
 * and a random mix checked against a plain FIFO of the frames' contents.
 */
#include <stdlib.h>
#include <string.h>

#include "tally_model_priv.h"
#include "tally_test.h"

#define LOOP_DEPTH	1024		/* frames (tally_model_wire_loop.c) */
#define LOOP_BYTES	(1024 * 128)	/* ring bytes */

static const struct tally_wire_ops *const ops = &tally_wire_loop_ops;

static struct tally_model *
loop_open(uint32_t max_frame)
{
	struct tally_model *m = tally_zmalloc(sizeof(*m));
	char err[128];

	if (m == NULL)
		return NULL;
	m->cfg.max_frame = max_frame;
	if (ops->open(m, err, sizeof(err)) != 0) {
		tally_free(m);
		return NULL;
	}
	return m;
}

static void
loop_close(struct tally_model *m)
{
	ops->close(m);
	tally_free(m);
}

static void
fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static bool
check(const uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed * 31 + i * 7 + (i >> 8)))
			return false;
	return true;
}

/* Put a frame of len bytes with pattern seed through tx_slot/tx_put; the
 * slot's address in *at. 0, or -EAGAIN when the wire is busy. */
static int
put(struct tally_model *m, uint32_t len, uint32_t seed, uint8_t **at)
{
	uint8_t *p = ops->tx_slot(m, len);

	if (p == NULL)
		return -EAGAIN;
	fill(p, len, seed);
	ops->tx_put(m, len);
	if (at != NULL)
		*at = p;
	return 0;
}

/* The idx-th waiting frame has len bytes of pattern seed. */
static bool
peek_is(struct tally_model *m, uint32_t idx, uint32_t len, uint32_t seed)
{
	const uint8_t *f;
	uint32_t caplen, wlen;

	if (ops->rx_peek(m, idx, &f, &caplen, &wlen) != 1)
		return false;
	return caplen == len && wlen == len && check(f, len, seed);
}

/* rx_peek_burst gives the first min(64, count) frames, as rx_peek does. */
static bool
burst_is(struct tally_model *m, uint32_t head, uint32_t count, const uint32_t *flen,
	 const uint32_t *fseed)
{
	struct tally_model_rx_in in[64];
	uint32_t n = ops->rx_peek_burst(m, in, 64), k, i;

	if (n != TALLY_MIN(count, 64u))
		return false;
	for (k = 0; k < n; k++) {
		i = (head + k) % LOOP_DEPTH;
		if (in[k].len != flen[i] || in[k].caplen != flen[i] ||
		    !check(in[k].frame, flen[i], fseed[i]) || !peek_is(m, k, flen[i], fseed[i]))
			return false;
	}
	return true;
}

static int
test_aligned_and_reset(void)
{
	struct tally_model *m = loop_open(9216);
	uint8_t *a, *b, *c, *base;
	const uint8_t *f;
	uint32_t cl, l;

	TEST_ASSERT(m != NULL, "open");
	TEST_ASSERT_EQ(ops->rx_peek(m, 0, &f, &cl, &l), 0, "empty");
	TEST_ASSERT_EQ(put(m, 60, 1, &a), 0, "");
	TEST_ASSERT_EQ(put(m, 65, 2, &b), 0, "");
	TEST_ASSERT_EQ(put(m, 128, 3, &c), 0, "");
	base = a;
	TEST_ASSERT_EQ(((uintptr_t)a & 63), 0, "frames start on a line");
	TEST_ASSERT_EQ(b - a, 64, "60 bytes take one line");
	TEST_ASSERT_EQ(c - b, 128, "65 bytes take two lines");
	TEST_ASSERT(peek_is(m, 0, 60, 1) && peek_is(m, 1, 65, 2) && peek_is(m, 2, 128, 3),
		    "FIFO order, contents intact");
	TEST_ASSERT_EQ(ops->rx_peek(m, 3, &f, &cl, &l), 0, "three waiting");
	ops->rx_next(m, 1);
	TEST_ASSERT(peek_is(m, 0, 65, 2), "");
	TEST_ASSERT_EQ(put(m, 64, 4, &a), 0, "");
	TEST_ASSERT_EQ(a - c, 128, "not empty: appended");
	ops->rx_next(m, 3);
	TEST_ASSERT_EQ(ops->rx_peek(m, 0, &f, &cl, &l), 0, "drained");
	TEST_ASSERT_EQ(put(m, 100, 5, &a), 0, "");
	TEST_ASSERT(a == base, "an empty ring starts over at offset 0");
	TEST_ASSERT(peek_is(m, 0, 100, 5), "");
	TEST_ASSERT(ops->tx_slot(m, 0) == NULL, "no empty frames");
	TEST_ASSERT(ops->tx_slot(m, 9217) == NULL, "nothing over max_frame");
	loop_close(m);
	return TEST_SUCCESS;
}

/* 1024 frames wait at most, however small; the next one is busy until a
 * frame was delivered. */
static int
test_full_by_count(void)
{
	struct tally_model *m = loop_open(9216);
	uint32_t i;

	TEST_ASSERT(m != NULL, "open");
	for (i = 0; i < LOOP_DEPTH; i++)
		TEST_ASSERT_EQ(put(m, 64, i, NULL), 0, "frame %u", i);
	TEST_ASSERT_EQ(put(m, 64, 9999, NULL), -EAGAIN, "1025th: busy");
	TEST_ASSERT_EQ(ops->tx(m, (const uint8_t *)"0123456789abcdef", 16), -EAGAIN,
		       "the copying tx agrees");
	for (i = 0; i < LOOP_DEPTH; i++)
		TEST_ASSERT(peek_is(m, i, 64, i), "frame %u intact", i);
	ops->rx_next(m, 1);
	TEST_ASSERT_EQ(put(m, 64, LOOP_DEPTH, NULL), 0, "room for one");
	TEST_ASSERT_EQ(put(m, 64, 0, NULL), -EAGAIN, "and only one");
	for (i = 0; i < LOOP_DEPTH; i++)
		TEST_ASSERT(peek_is(m, i, 64, i + 1), "frame %u after the wrap", i + 1);
	loop_close(m);
	return TEST_SUCCESS;
}

/* Large frames fill the bytes first. A frame that does not fit before the
 * end goes to offset 0 when the oldest frame left room there; a ring that
 * wrapped exactly onto its oldest frame takes nothing more, not even 1 byte. */
static int
test_full_by_bytes_and_wrap(void)
{
	struct tally_model *m = loop_open(9216);
	uint32_t i, fit = LOOP_BYTES / 9216;
	uint8_t *first, *p;

	TEST_ASSERT(m != NULL, "open");
	TEST_ASSERT_EQ(put(m, 9216, 0, &first), 0, "");
	for (i = 1; i < fit; i++)
		TEST_ASSERT_EQ(put(m, 9216, i, NULL), 0, "frame %u", i);
	TEST_ASSERT_EQ(put(m, 9216, 99, NULL), -EAGAIN, "bytes exhausted");
	/* the tail left (LOOP_BYTES % 9216) takes small frames */
	TEST_ASSERT_EQ(put(m, 1000, 100, &p), 0, "tail room");
	TEST_ASSERT(p == first + (size_t)fit * 9216, "right after the last frame");
	TEST_ASSERT_EQ(put(m, 9216, 99, NULL), -EAGAIN, "");
	ops->rx_next(m, 1);		/* frees [0, 9216) */
	TEST_ASSERT_EQ(put(m, 9216, 200, &p), 0, "wraps into the freed start");
	TEST_ASSERT(p == first, "at offset 0");
	TEST_ASSERT_EQ(put(m, 1, 201, NULL), -EAGAIN, "exactly full");
	TEST_ASSERT_EQ(ops->tx(m, (const uint8_t *)"x", 1), -EAGAIN, "");
	for (i = 1; i < fit; i++)
		TEST_ASSERT(peek_is(m, i - 1, 9216, i), "frame %u intact", i);
	TEST_ASSERT(peek_is(m, fit - 1, 1000, 100), "");
	TEST_ASSERT(peek_is(m, fit, 9216, 200), "wrapped frame intact");
	ops->rx_next(m, 1);
	TEST_ASSERT_EQ(put(m, 9216, 202, &p), 0, "");
	TEST_ASSERT(p == first + 9216, "after the wrapped frame");
	loop_close(m);
	return TEST_SUCCESS;
}

/* The largest max_frame: frames of 16383 bytes go round the ring intact;
 * over max_frame is refused outright (not busy). */
static int
test_big_frames(void)
{
	static uint8_t f[16384], r[16384];
	struct tally_model *m = loop_open(16383);
	uint32_t i, got = 0, sent = 0, caplen, len;

	TEST_ASSERT(m != NULL, "open");
	TEST_ASSERT_EQ(ops->tx(m, f, 16384), -EMSGSIZE, "over max_frame");
	for (i = 0; i < 40; i++) {
		fill(f, 16383, i);
		while (ops->tx(m, f, 16383) == -EAGAIN) {
			TEST_ASSERT(sent - got >= LOOP_BYTES / 16384, "busy only when full");
			TEST_ASSERT_EQ(ops->rx(m, r, sizeof(r), &caplen, &len), 1, "");
			TEST_ASSERT(len == 16383 && caplen == 16383 && check(r, len, got),
				    "frame %u intact", got);
			got++;
		}
		sent++;
	}
	/* a short buffer gets the start of the frame and its full length */
	TEST_ASSERT_EQ(ops->rx(m, r, 100, &caplen, &len), 1, "");
	TEST_ASSERT(caplen == 100 && len == 16383 && check(r, 100, got), "truncated copy");
	got++;
	while (ops->rx(m, r, sizeof(r), &caplen, &len) == 1) {
		TEST_ASSERT(len == 16383 && check(r, len, got), "frame %u intact", got);
		got++;
	}
	TEST_ASSERT_EQ(got, 40, "every frame came back");
	loop_close(m);
	return TEST_SUCCESS;
}

/* Frames of f[] by reference as far as the wire has room for them (as the
 * step's Tx does), the rest through tx_burst; how many were taken. */
static unsigned int
ref_burst(struct tally_model *m, const struct tally_model_rx_in *f, unsigned int n)
{
	struct tally_model_rx_in *r;
	unsigned int room, k = 0;
	uint32_t max_len;

	r = ops->tx_ref_room(m, &room, &max_len);
	if (r != NULL) {
		for (; k < n && k < room && f[k].len - 1 < max_len; k++)
			r[k] = f[k];
		ops->tx_ref_put(m, k);
	}
	return k < n ? k + ops->tx_burst(m, f + k, n - k) : n;
}

static void
set_in(struct tally_model_rx_in *in, const uint8_t *f, uint32_t len)
{
	in->frame = f;
	in->len = in->caplen = len;
}

/* References: in place while the ring is empty; a copying op settles them
 * first (order kept); settled frames survive their buffers; a ring with
 * frames, a long frame and the 65th frame of a step go the copying way. */
static int
test_refs(void)
{
	static uint8_t src[70][2100];
	struct tally_model_rx_in f[70], in[64];
	struct tally_model *m = loop_open(9216);
	unsigned int i;
	uint32_t len;
	uint8_t *p;

	TEST_ASSERT(m != NULL, "open");
	for (i = 0; i < 70; i++) {
		fill(src[i], 100 + i, i);
		set_in(&f[i], src[i], 100 + i);
	}
	/* empty ring: kept in place; a burst of at most 2 KiB each */
	TEST_ASSERT(ops->tx_ref_room(m, &i, &len) != NULL && i == 64 && len == 2048, "");
	TEST_ASSERT_EQ(ref_burst(m, f, 3), 3, "");
	TEST_ASSERT_EQ(ops->rx_peek_burst(m, in, 64), 3, "");
	for (i = 0; i < 3; i++)
		TEST_ASSERT(in[i].frame == src[i] && in[i].len == 100 + i, "frame %u by reference", i);
	TEST_ASSERT(peek_is(m, 2, 102, 2), "");
	ops->rx_next(m, 1);			/* delivered: released */
	TEST_ASSERT(peek_is(m, 0, 101, 1), "");
	/* a copying op: the references go into the ring first */
	TEST_ASSERT_EQ(put(m, 60, 50, &p), 0, "");
	fill(src[1], 101, 99);
	fill(src[2], 102, 99);
	TEST_ASSERT(peek_is(m, 0, 101, 1) && peek_is(m, 1, 102, 2) && peek_is(m, 2, 60, 50),
		    "settled before the copy, in order, independent of their buffers");
	TEST_ASSERT_EQ(ops->rx_peek_burst(m, in, 64), 3, "");
	TEST_ASSERT(in[0].frame != src[1], "in the ring now");
	/* ring not empty: no room by reference, tx_burst copies */
	TEST_ASSERT(ops->tx_ref_room(m, &i, &len) == NULL, "");
	fill(src[3], 103, 3);
	TEST_ASSERT_EQ(ref_burst(m, &f[3], 1), 1, "");
	fill(src[3], 103, 98);
	TEST_ASSERT(peek_is(m, 3, 103, 3), "copied");
	ops->rx_next(m, 4);
	/* 70 in one go: 64 references, then all settled, the rest copied */
	for (i = 0; i < 70; i++)
		fill(src[i], 100 + i, i);
	TEST_ASSERT_EQ(ref_burst(m, f, 70), 70, "");
	TEST_ASSERT_EQ(ops->rx_peek_burst(m, in, 64), 64, "");
	TEST_ASSERT(in[0].frame != src[0], "the 65th frame settled them");
	for (i = 0; i < 70; i++)
		fill(src[i], 100 + i, 97);
	for (i = 0; i < 70; i++)
		TEST_ASSERT(peek_is(m, i, 100 + i, i), "frame %u", i);
	ops->rx_next(m, 70);
	/* a frame longer than a reference takes (2048 bytes) settles the rest */
	for (i = 0; i < 3; i++)
		fill(src[i], 100 + i, i);
	set_in(&f[1], src[1], 2049);
	fill(src[1], 2049, 1);
	TEST_ASSERT_EQ(ref_burst(m, f, 3), 3, "");
	TEST_ASSERT_EQ(ops->rx_peek_burst(m, in, 64), 3, "");
	TEST_ASSERT(in[0].frame != src[0] && in[2].frame != src[2], "all copied");
	TEST_ASSERT(peek_is(m, 0, 100, 0) && peek_is(m, 1, 2049, 1) && peek_is(m, 2, 102, 2), "");
	ops->rx_next(m, 3);
	/* settle on an empty wire, and on references all delivered */
	ops->tx_settle(m);
	TEST_ASSERT_EQ(ref_burst(m, f, 1), 1, "");
	ops->rx_next(m, 1);
	ops->tx_settle(m);
	TEST_ASSERT_EQ(ops->rx_peek_burst(m, in, 64), 0, "empty");
	loop_close(m);
	return TEST_SUCCESS;
}

/* tx_burst of 1 to 8 frames of random lengths: the frames taken join the
 * FIFO (head, *count, flen, fseed); when fewer are taken, the wire is busy
 * for the first one left (the burst stopped exactly where tx() would). */
static int
burst_put(struct tally_model *m, uint32_t x, uint32_t *seed, uint32_t *count,
	  uint32_t head, uint32_t *flen, uint32_t *fseed, uint32_t *busy, bool ref)
{
	static uint8_t bf[8][2048];
	struct tally_model_rx_in bp[8];
	uint32_t blen[8], nb = 1 + (x >> 20) % 8, b, k, i;

	for (b = 0; b < nb; b++) {
		x = x * 1103515245u + 12345u;
		blen[b] = 1 + (x >> 8) % 2048;
		fill(bf[b], blen[b], *seed + b);
		bp[b].frame = bf[b];
		bp[b].len = bp[b].caplen = blen[b];
	}
	k = ref ? ref_burst(m, bp, nb) : ops->tx_burst(m, bp, nb);
	TEST_ASSERT(k <= nb, "took %u of %u", k, nb);
	for (b = 0; b < k; b++) {
		TEST_ASSERT(*count < LOOP_DEPTH, "more than 1024 waiting");
		i = (head + *count) % LOOP_DEPTH;
		flen[i] = blen[b];
		fseed[i] = (*seed)++;
		(*count)++;
	}
	if (k < nb) {
		TEST_ASSERT(*count > 0, "busy while empty");
		TEST_ASSERT_EQ(ops->tx(m, bf[k], blen[k]), -EAGAIN,
			       "the burst stopped before a frame that fits");
		(*busy)++;
	}
	if (ref) {
		/* the next burst reuses bf[]: what waits in place moves first;
		 * until then, every waiting frame reads as it should */
		for (b = 0; b < *count; b++)
			TEST_ASSERT(peek_is(m, b, flen[(head + b) % LOOP_DEPTH],
					    fseed[(head + b) % LOOP_DEPTH]),
				    "frame %u", fseed[(head + b) % LOOP_DEPTH]);
		ops->tx_settle(m);
		for (b = 0; b < nb; b++)
			memset(bf[b], 0xee, blen[b]);
	}
	return TEST_SUCCESS;
}

/* Random lengths, random interleaving of the slot, burst and copying ops
 * against a plain FIFO of (length, seed): nothing lost, reordered or
 * overwritten, and busy never while the ring is empty. */
static int
test_random_mix(void)
{
	static uint8_t f[2048], r[2048];
	static uint32_t flen[LOOP_DEPTH], fseed[LOOP_DEPTH];
	struct tally_model *m = loop_open(2048);
	uint32_t head = 0, count = 0, seed = 1, i, len, caplen, wl, busy = 0, k;
	uint32_t x = 0x9e3779b9u;

	TEST_ASSERT(m != NULL, "open");
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		/* phases of 3000 steps that mostly fill, then mostly drain */
		if (((x & 7) != 0) == ((i / 3000) % 2 == 0)) {
			len = 1 + (x >> 8) % 2048;
			if ((x & 0x30) == 0x30 || (x & 0x70) == 0x20) {
				if (burst_put(m, x, &seed, &count, head, flen, fseed,
					      &busy, (x & 0x30) == 0x20) != TEST_SUCCESS)
					return TEST_FAILED;
				continue;
			}
			if (x & 8) {
				fill(f, len, seed);
				k = (uint32_t)ops->tx(m, f, len);
			} else {
				k = (uint32_t)put(m, len, seed, NULL);
			}
			if (k == (uint32_t)-EAGAIN) {
				TEST_ASSERT(count > 0, "busy while empty");
				busy++;
				continue;
			}
			TEST_ASSERT_EQ(k, 0, "");
			TEST_ASSERT(count < LOOP_DEPTH, "more than 1024 waiting");
			flen[(head + count) % LOOP_DEPTH] = len;
			fseed[(head + count) % LOOP_DEPTH] = seed++;
			count++;
		} else if (count > 0) {
			if (x & 8) {
				TEST_ASSERT_EQ(ops->rx(m, r, sizeof(r), &caplen, &wl), 1, "");
				TEST_ASSERT(wl == flen[head] && caplen == wl &&
					    check(r, wl, fseed[head]), "frame %u", fseed[head]);
				k = 1;
			} else {
				TEST_ASSERT(burst_is(m, head, count, flen, fseed),
					    "rx_peek_burst at frame %u", fseed[head]);
				k = 1 + (x >> 8) % TALLY_MIN(count, 16u);
				for (wl = 0; wl < k; wl++)
					TEST_ASSERT(peek_is(m, wl, flen[(head + wl) % LOOP_DEPTH],
							    fseed[(head + wl) % LOOP_DEPTH]),
						    "frame %u", fseed[(head + wl) % LOOP_DEPTH]);
				ops->rx_next(m, k);
			}
			head = (head + k) % LOOP_DEPTH;
			count -= k;
		}
	}
	TEST_ASSERT(busy > 0, "the mix filled the ring at times");
	loop_close(m);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_aligned_and_reset),
	TEST_CASE(test_full_by_count),
	TEST_CASE(test_full_by_bytes_and_wrap),
	TEST_CASE(test_big_frames),
	TEST_CASE(test_refs),
	TEST_CASE(test_random_mix),
};

TEST_MAIN("model-wire_loop", cases)
