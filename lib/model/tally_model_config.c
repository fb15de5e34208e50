/* SPDX-License-Identifier: BSD-3-Clause */
/* Model configuration: defaults and validation (every setting, one message). */
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tally_model_priv.h"

void
tally_model_errf(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errbuf == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

void
tally_model_config_init(struct tally_model_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = TALLY_MODEL_INLINE;
	cfg->rx_queues = 8;
	cfg->tx_queues = 8;
	cfg->counters = 1u << 22;
	cfg->comp_counters = 1u << 16;
	cfg->max_frame = 9216;
	cfg->mac[0] = 0x02;
	cfg->wire = TALLY_WIRE_LOOP;
	cfg->gen_flows = 1;
	cfg->gen_len = 64;
	cfg->bad_rx_every = 1;
}

static int
tally_model_check_range(const char *name, uint64_t val, uint64_t lo, uint64_t hi,
			char *errbuf, size_t errlen)
{
	if (val >= lo && val <= hi)
		return 0;
	tally_model_errf(errbuf, errlen, "%s=%llu out of range %llu..%llu", name,
			 (unsigned long long)val, (unsigned long long)lo,
			 (unsigned long long)hi);
	return -EINVAL;
}

static int
tally_model_config_check_wire(const struct tally_model_config *cfg,
			      char *errbuf, size_t errlen)
{
	int rc;

	switch (cfg->wire) {
	case TALLY_WIRE_IF:
		if (cfg->iface == NULL || cfg->iface[0] == '\0') {
			tally_model_errf(errbuf, errlen, "iface not set (required by the if wire)");
			return -EINVAL;
		}
		if (strlen(cfg->iface) >= IFNAMSIZ) {
			tally_model_errf(errbuf, errlen, "iface=%s: name longer than %d",
					 cfg->iface, IFNAMSIZ - 1);
			return -EINVAL;
		}
		return 0;
	case TALLY_WIRE_GEN:
		rc = tally_model_check_range("gen_flows", cfg->gen_flows, 1,
					     TALLY_MODEL_GEN_FLOWS_MAX, errbuf, errlen);
		if (rc == 0)
			rc = tally_model_check_range("gen_len", cfg->gen_len, 60,
						     cfg->max_frame, errbuf, errlen);
		return rc;
	case TALLY_WIRE_LOOP:
	case TALLY_WIRE_PCAP:
	case TALLY_WIRE_NONE:
		return 0;
	}
	tally_model_errf(errbuf, errlen, "wire=%d unknown (0..%d)", (int)cfg->wire,
			 (int)TALLY_WIRE_NONE);
	return -EINVAL;
}

int
tally_model_config_check(const struct tally_model_config *cfg, char *errbuf,
			 size_t errlen)
{
	const struct {
		const char *name;
		uint64_t val, lo, hi;
	} r[] = {
		{ "mode", (uint64_t)cfg->mode, TALLY_MODEL_INLINE, TALLY_MODEL_THREAD },
		{ "rx_queues", cfg->rx_queues, 1, TALLY_MAX_QUEUES },
		{ "tx_queues", cfg->tx_queues, 1, TALLY_MAX_QUEUES },
		{ "counters", cfg->counters, 1, TALLY_CNT_MAX },
		{ "comp_counters", cfg->comp_counters, 1, TALLY_MODEL_CCNT_MAX },
		{ "max_frame", cfg->max_frame, 64, 16383 },
		{ "cls_isa", (uint64_t)cfg->cls_isa, TALLY_CLS_ISA_AUTO, TALLY_CLS_ISA_AVX512 },
	};
	size_t i;
	int rc;

	for (i = 0; i < TALLY_ARRAY_SIZE(r); i++) {
		rc = tally_model_check_range(r[i].name, r[i].val, r[i].lo, r[i].hi,
					     errbuf, errlen);
		if (rc < 0)
			return rc;
	}
	if (cfg->mac[0] & 1) {
		tally_model_errf(errbuf, errlen,
				 "mac=%02x:%02x:%02x:%02x:%02x:%02x is a multicast address",
				 cfg->mac[0], cfg->mac[1], cfg->mac[2], cfg->mac[3],
				 cfg->mac[4], cfg->mac[5]);
		return -EINVAL;
	}
	return tally_model_config_check_wire(cfg, errbuf, errlen);
}
