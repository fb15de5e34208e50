/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Services the model core gives its pipeline stages (parser, steering
 * executor). Internal to lib/model.
 *
 * Pipeline for a frame from the wire:
 *   validate length -> MAC filter -> tally_model_parse() ->
 *   if CTRL.STEER: tally_model_steer_classify() (counts, may drop/mark/steer)
 *   -> default path (RSS over RETA, or queue 0 / STEER_MISS_QUEUE) unless the
 *   verdict chose queues -> write into the Rx ring.
 * All stages run under the model lock.
 */
#ifndef TALLY_MODEL_DEV_H
#define TALLY_MODEL_DEV_H

#include <stdint.h>

#include <tally/tally_match.h>
#include <tally/tally_regs.h>
#include <tally/tally_steer_fmt.h>
#include "tally_model.h"

/* What parsing found, beyond the match key. */
struct tally_model_pkt {
	const uint8_t *frame;
	uint32_t len;
	uint8_t ptype;			/* TALLY_PTYPE_* of the outer headers */
	uint8_t has_vlan;
	/* RSS input of the outer headers (host order ports, raw addresses) */
	uint8_t l3;			/* TALLY_PTYPE_L3_* */
	uint8_t l4;			/* TALLY_PTYPE_L4_* */
	uint8_t src[16], dst[16];	/* IPv4 uses the first 4 bytes */
	uint16_t sport, dport;
	struct tally_match_key key;
};

/* Parse a frame into pkt (never fails; unknown headers just stop parsing). */
void tally_model_parse(const uint8_t *frame, uint32_t len,
		       struct tally_model_pkt *pkt);

#define TALLY_VERDICT_DROP	(1u << 0)
#define TALLY_VERDICT_QUEUE	(1u << 1)	/* deliver to `queue` */
#define TALLY_VERDICT_RSS	(1u << 2)	/* hash over rss_queues[] */
#define TALLY_VERDICT_MARK	(1u << 3)
#define TALLY_VERDICT_FLAG	(1u << 4)
#define TALLY_VERDICT_PORT	(1u << 5)	/* switch: send to `port` (a
						 * TALLY_STEER_PORT_* word) */
#define TALLY_VERDICT_SWACT	(1u << 6)	/* switch: edit per `swact` */
#define TALLY_VERDICT_MAX_RSS	16

struct tally_model_verdict {
	uint32_t flags;			/* none of DROP/QUEUE/RSS => default path */
	uint32_t mark;
	uint16_t queue;
	uint16_t rss_nq;
	uint32_t rss_hf;		/* enum tally_rss_hf; 0 = port RSS_HF */
	uint16_t rss_queues[TALLY_VERDICT_MAX_RSS];
	/* the switch's (valid only under their flags; not cleared) */
	uint32_t port;			/* TALLY_VERDICT_PORT */
	struct tally_steer_swact swact;	/* TALLY_VERDICT_SWACT: a validated copy */
};

/* Walk the steering root for pkt; update counters; fill the verdict (all
 * but `port` and `swact`, which only the switch's walk fills).
 * Called only when CTRL.STEER is set. */
void tally_model_steer_classify(struct tally_model *m,
				const struct tally_model_pkt *pkt,
				struct tally_model_verdict *v);

/* The same for n frames at once (any n): verdicts v[0..n), the same counter
 * updates and number of faults as n calls of tally_model_steer_classify()
 * in order. */
void tally_model_steer_classify_burst(struct tally_model *m,
				      const struct tally_model_pkt *const *pkts,
				      uint32_t n, struct tally_model_verdict *v);

/* What the classification engine of m uses: cfg.cls_isa, at most what the
 * CPU has (AUTO: the best it has). */
enum tally_model_cls_isa tally_model_cls_isa(const struct tally_model *m);

/* The switch's walk (spec 2.3) over the tables at port 0's SW_ROOT, for n
 * frames at once: m is port 0 (translation, counters, faults). A verdict
 * says DROP, PORT (and/or SWACT), or none of them: the frame goes on to its
 * own port's receive pipeline. Called only when SW_CTRL.EN is set. */
void tally_model_switch_classify_burst(struct tally_model *m,
				       const struct tally_model_pkt *const *pkts,
				       uint32_t n, struct tally_model_verdict *v);

/* Host pointer for [iova, iova+len) if it lies inside one translation of
 * the translation table; else NULL, and a DMA fault is recorded. */
void *tally_model_dma(struct tally_model *m, uint64_t iova, size_t len);

/* Like tally_model_dma() for a structure the device dereferences: iova and
 * its host pointer must also be aligned to align (a power of two, the
 * structure's _Alignof); a misaligned address is a `cause` fault and NULL. */
void *tally_model_dma_obj(struct tally_model *m, uint64_t iova, size_t len,
			  size_t align, enum tally_fault cause);

/* Record a fault (FAULT_CNT, FAULT_CAUSE, FAULT_ADDR, STATUS.FAULT, stats);
 * tally_model_fault.c. */
void tally_model_fault(struct tally_model *m, enum tally_fault cause,
		       uint64_t addr);

/* Count one frame of `bytes` bytes into flow counter idx (atomic; an index
 * outside the bank is a TALLY_FAULT_BAD_STEER fault). */
void tally_model_cnt_add(struct tally_model *m, uint32_t idx, uint32_t bytes);

/* Register value as the driver last wrote it (no side effects). */
uint32_t tally_model_reg(const struct tally_model *m, uint32_t off);

#endif /* TALLY_MODEL_DEV_H */
