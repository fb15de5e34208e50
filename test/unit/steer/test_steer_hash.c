/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tally_steer_hash(): CRC32-C known vectors (RFC 3720 B.4 and the "123456789"
 * check value), and the instruction path equal to the table path. Built
 * twice: once as lib/steer and lib/model are built, once for SSE4.2 (the
 * instruction), so both ways of computing it are checked against the same
 * vectors.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "tally_test.h"
#include <tally/tally_steer_fmt.h>

/* The instruction build cannot run on a CPU without it. */
static bool
no_cpu(void)
{
#if TALLY_STEER_HASH_HW == 1
	return !__builtin_cpu_supports("sse4.2");
#else
	return false;
#endif
}

static uint32_t
std_crc32c(const void *buf, size_t len)
{
	return ~tally_crc32c_sw(~0u, buf, len);
}

static void
words_le(const uint8_t *b, uint32_t *w, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		w[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
		       (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
}

static int
test_hash_vectors(void)
{
	static const struct { uint8_t fill; int step; uint32_t crc; } v[] = {
		{ 0x00, 0, 0x8a9136aau },	/* 32 bytes of zeros */
		{ 0xff, 0, 0x62a8ab43u },	/* 32 bytes of ones */
		{ 0x00, 1, 0x46dd794eu },	/* 00 01 .. 1f */
		{ 0x1f, -1, 0x113fdb5cu },	/* 1f 1e .. 00 */
	};
	uint8_t b[32];
	uint32_t w[8], i, j;

	if (no_cpu())
		return TEST_SKIPPED;

	TEST_ASSERT_EQ(std_crc32c("123456789", 9), 0xe3069283u, "check value");
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		for (j = 0; j < 32; j++)
			b[j] = (uint8_t)(v[i].fill + v[i].step * (int)j);
		words_le(b, w, 8);
		TEST_ASSERT_EQ(std_crc32c(b, 32), v[i].crc, "vector %u bytes", i);
		TEST_ASSERT_EQ(~tally_steer_hash_sw(w, 8, ~0u), v[i].crc, "vector %u sw", i);
		TEST_ASSERT_EQ(~tally_steer_hash(w, 8, ~0u), v[i].crc, "vector %u hash (hw %d)",
			       i, TALLY_STEER_HASH_HW);
	}
	/* odd word counts take the 32-bit tail of the instruction path */
	TEST_ASSERT_EQ(~tally_steer_hash(w, 7, ~0u), std_crc32c(b, 28), "7 words");
	TEST_ASSERT_EQ(tally_steer_hash(w, 0, 0x1234u), 0x1234u, "no words: the seed");
	return TEST_SUCCESS;
}

static int
test_hash_random(void)
{
	unsigned int seed = 12345;
	uint32_t w[TALLY_STEER_KEY_WORDS], n, i, s, r;

	if (no_cpu())
		return TEST_SKIPPED;

	for (r = 0; r < 20000; r++) {
		n = (uint32_t)rand_r(&seed) % (TALLY_STEER_KEY_WORDS + 1);
		for (i = 0; i < n; i++)
			w[i] = (uint32_t)rand_r(&seed) * 2654435761u ^ (uint32_t)rand_r(&seed);
		s = (uint32_t)rand_r(&seed);
		TEST_ASSERT_EQ(tally_steer_hash(w, n, s), tally_steer_hash_sw(w, n, s),
			       "round %u n %u", r, n);
		TEST_ASSERT_EQ(tally_steer_hash_sw(w, n, s),
			       tally_crc32c_sw(s, w, (size_t)n * 4), "round %u bytes", r);
	}
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_hash_vectors),
	TEST_CASE(test_hash_random),
};

TEST_MAIN("steer-hash", cases)
