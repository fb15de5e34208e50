/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Classification benchmark data: ClassBench-like IPv4 rule sets and a packet
 * trace, generated from a fixed seed, plus a trivially correct reference
 * classifier that gives the expected rule of every packet.
 *
 * Rules are in priority order: rules[0] wins over every later rule (first
 * match wins), and every classifier is given that order (dpdk-test-acl takes
 * the line order of its rule file the same way). Rules come in bands, in
 * this order:
 *   exact    proto + src/32 + dst/32 + sport + dport        (70 %)
 *   service  proto + dst/32 + dport                         (12 %)
 *   subnet   src/24 + dst/24, src/16 + dst/16, dst/24       (8 %)
 *   range    proto + dst/32 + dport range, or sport range   (7 %)
 *   wide     dst/16, proto + dport, proto + src/16          (3 %)
 * Within a band, rules are grouped by shape (which fields, which prefix
 * lengths), so that an exact-match classifier with one table per mask and
 * band, probed in band order, returns the first match: the range band's
 * rules never overlap each other (each has its own destination host).
 *
 * A port range is expressed for exact/masked matchers as hardware does:
 * expanded into prefix-aligned (value, mask) pairs, the cross product of
 * both ports (cls_expand()); all entries of one rule share its counter.
 *
 * The trace: a fraction `hit_pct` of the packets is drawn to hit a rule (a
 * skewed choice of rule and a working set of recent flows: locality), the
 * rest miss every rule (checked against the reference). Protocols are TCP
 * and UDP only. Every field is in host byte order.
 */
#ifndef CLS_GEN_H
#define CLS_GEN_H

#include <stdint.h>
#include <stdio.h>

enum cls_band {
	CLS_EXACT = 0,
	CLS_SERVICE,
	CLS_SUBNET,
	CLS_RANGE,
	CLS_WIDE,
	CLS_BANDS,
};

#define CLS_PROTO_TCP	6
#define CLS_PROTO_UDP	17
#define CLS_FRAME_LEN	60	/* bytes of every trace frame (no FCS) */

struct cls_rule {
	uint32_t sip, dip;		/* already masked to the prefix */
	uint8_t sip_len, dip_len;	/* prefix lengths 0..32 */
	uint8_t proto, proto_mask;	/* proto_mask 0 (any) or 0xff */
	uint16_t sp_lo, sp_hi;		/* inclusive ranges */
	uint16_t dp_lo, dp_hi;
	uint8_t band;			/* enum cls_band */
	uint8_t shape;			/* shape within the band */
};

struct cls_pkt {
	uint32_t sip, dip;
	uint16_t sp, dp;
	uint8_t proto;
};

struct cls_set {
	uint32_t nrules, npkts;
	struct cls_rule *rules;		/* priority order */
	struct cls_pkt *pkts;
	int32_t *expect;		/* first matching rule, -1 = miss */
	uint32_t *expect_cnt;		/* packets per rule */
	uint32_t hits;			/* packets with expect >= 0 */
	uint32_t per_band[CLS_BANDS];
};

struct cls_params {
	uint32_t rules;
	uint32_t packets;
	uint32_t seed;
	uint32_t hit_pct;		/* default 80 */
};

/* Generate; 0 or -ENOMEM / -EINVAL. */
int cls_set_gen(const struct cls_params *p, struct cls_set *s);
void cls_set_free(struct cls_set *s);

/* True when pkt matches rule r. */
int cls_rule_match(const struct cls_rule *r, const struct cls_pkt *p);

/* ---- a set of 64-bit fingerprints (open addressing; 0 and 1 are one) ---- */
struct cls_fp_set {
	uint64_t *v;
	uint32_t mask;
};

/* Room for n fingerprints; 0 or -ENOMEM. */
int cls_fp_init(struct cls_fp_set *s, uint32_t n);
void cls_fp_free(struct cls_fp_set *s);
/* Add fp; returns 0 if it was new, 1 if already present. */
int cls_fp_add(struct cls_fp_set *s, uint64_t fp);
/* 1 if fp is in the set, else 0. */
int cls_fp_has(const struct cls_fp_set *s, uint64_t fp);

/* ---- reference classifier (linear in priority order, bucketed by dst) ---- */
struct cls_ref;
int cls_ref_build(const struct cls_set *s, struct cls_ref **out);
int32_t cls_ref_classify(const struct cls_ref *ref, const struct cls_pkt *p);
void cls_ref_free(struct cls_ref *ref);
/* The expected results against a scan of every rule (slow: small sets). */
int cls_ref_selfcheck(const struct cls_set *s);
/* Packets whose rule in got[] differs from the expected one; the first 5
 * are printed to stderr after `what`. */
uint32_t cls_ref_mismatches(const struct cls_set *s, const int32_t *got, const char *what);

/* ---- masked exact-match entries and their tuples (one per band + mask) ---- */
struct cls_entry {
	uint32_t rule;
	uint32_t sip, dip;		/* masked values */
	uint16_t sp, dp;
	uint8_t proto;
};

struct cls_tuple {
	uint8_t band;
	uint8_t proto_m;
	uint16_t sp_m, dp_m;
	uint32_t sip_m, dip_m;
	uint32_t first, n;		/* entries[first .. first + n) */
};

struct cls_tuples {
	struct cls_entry *ent;		/* grouped by tuple, tuples in probe order */
	uint32_t nent;
	struct cls_tuple *tup;
	uint32_t ntup;
};

/* Expand every rule into masked entries and group them by (band, mask) in
 * probe order. 0 or -ENOMEM. */
int cls_expand(const struct cls_set *s, struct cls_tuples *t);
void cls_tuples_free(struct cls_tuples *t);

/* Prefix-aligned (value, mask) cover of [lo, hi]; returns the count (<= 32). */
uint32_t cls_range_prefixes(uint16_t lo, uint16_t hi, uint16_t *val, uint16_t *mask);

/* An IPv4 frame of CLS_FRAME_LEN bytes carrying p (TCP or UDP). */
void cls_frame(const struct cls_pkt *p, uint8_t *f);

/* Summary of the set (bands, hits, tuples, entries) on f. */
void cls_set_print(const struct cls_set *s, const struct cls_tuples *t, FILE *f);

/* Common options: --rules N --packets N --seed N --hit-pct N; returns 1 if
 * argv[*i] was one of them (and consumed its value), 0 if not, -1 on a bad
 * value. */
int cls_parse_opt(struct cls_params *p, int argc, char **argv, int *i);
void cls_params_init(struct cls_params *p);

#endif /* CLS_GEN_H */
