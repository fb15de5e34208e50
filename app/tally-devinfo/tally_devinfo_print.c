/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Printing an identity: text lines ("  label          value") or JSON
 * members. Register values are decoded with the field masks of
 * tally_regs.h.
 */
#include <inttypes.h>

#include "tally_devinfo.h"

/* Indexed by bit number (TALLY_CAP_* in tally_regs.h). */
static const char *const cap_names[32] = {
	[0] = "rss",
	[1] = "rx-scatter",
	[2] = "tx-gather",
	[3] = "steer",
	[4] = "cnt",
	[5] = "ccnt",
	[6] = "cnt-mirror",
	[7] = "xlt",
	[8] = "posted",
};

static const char *const status_names[32] = {
	[0] = "ready",
	[1] = "link-up",
	[2] = "fault",
};

static void
print_bits(FILE *f, uint32_t v, const char *const names[32], const char *sep,
	   const char *quote)
{
	const char *s = "";
	unsigned int b;

	for (b = 0; b < 32; b++) {
		if (!(v & TALLY_BIT(b)))
			continue;
		if (names[b] != NULL)
			fprintf(f, "%s%s%s%s", s, quote, names[b], quote);
		else
			fprintf(f, "%s%sbit%u%s", s, quote, b, quote);
		s = sep;
	}
}

void
tally_devinfo_json_str(FILE *f, const char *s)
{
	if (s == NULL) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
mac_str(const struct tally_devinfo_id *id, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
		 id->mac_lo & 0xff, (id->mac_lo >> 8) & 0xff,
		 (id->mac_lo >> 16) & 0xff, id->mac_lo >> 24,
		 id->mac_hi & 0xff, (id->mac_hi >> 8) & 0xff);
}

static void
print_id_text(FILE *f, const struct tally_devinfo_id *id)
{
	uint32_t rmin = TALLY_FIELD_GET(id->ring_limits, TALLY_RING_MIN_LOG2_M);
	uint32_t rmax = TALLY_FIELD_GET(id->ring_limits, TALLY_RING_MAX_LOG2_M);
	char mac[18];

	mac_str(id, mac, sizeof(mac));
	fprintf(f, "  %-14s 0x%08x (%c%c%c%c)\n", "signature", id->sig,
		id->sig & 0xff, (id->sig >> 8) & 0xff, (id->sig >> 16) & 0xff,
		id->sig >> 24);
	fprintf(f, "  %-14s %u.%u\n", "version",
		TALLY_FIELD_GET(id->version, TALLY_VERSION_MAJOR_M),
		TALLY_FIELD_GET(id->version, TALLY_VERSION_MINOR_M));
	fprintf(f, "  %-14s 0x%08x ", "capabilities", id->caps);
	print_bits(f, id->caps, cap_names, " ", "");
	fprintf(f, "\n  %-14s %u\n", "bar size", id->bar_size);
	fprintf(f, "  %-14s rx %u, tx %u\n", "queues",
		TALLY_FIELD_GET(id->queues, TALLY_QUEUES_RX_M),
		TALLY_FIELD_GET(id->queues, TALLY_QUEUES_TX_M));
	if (rmax <= 31 && rmin <= rmax)
		fprintf(f, "  %-14s %u..%u entries\n", "rings", 1u << rmin,
			1u << rmax);
	else
		fprintf(f, "  %-14s 2^%u..2^%u entries\n", "rings", rmin, rmax);
	fprintf(f, "  %-14s %u at 0x%x\n", "counters", id->cnt_num, id->cnt_off);
	fprintf(f, "  %-14s %u at 0x%x\n", "comp counters", id->ccnt_num,
		id->ccnt_off);
	fprintf(f, "  %-14s %u\n", "max frame", id->max_frame);
	fprintf(f, "  %-14s %u\n", "translations", id->xlt_max);
	fprintf(f, "  %-14s %s\n", "mac", mac);
	fprintf(f, "  %-14s 0x%08x ", "status", id->status);
	print_bits(f, id->status, status_names, " ", "");
	fputc('\n', f);
}

static void
print_id_json(FILE *f, const struct tally_devinfo_id *id)
{
	char mac[18];

	mac_str(id, mac, sizeof(mac));
	fprintf(f, "\"signature\": \"0x%08x\", \"version\": \"%u.%u\", ",
		id->sig, TALLY_FIELD_GET(id->version, TALLY_VERSION_MAJOR_M),
		TALLY_FIELD_GET(id->version, TALLY_VERSION_MINOR_M));
	fprintf(f, "\"caps\": \"0x%08x\", \"capabilities\": [", id->caps);
	print_bits(f, id->caps, cap_names, ", ", "\"");
	fprintf(f, "], \"bar_size\": %u, \"rx_queues\": %u, \"tx_queues\": %u, ",
		id->bar_size, TALLY_FIELD_GET(id->queues, TALLY_QUEUES_RX_M),
		TALLY_FIELD_GET(id->queues, TALLY_QUEUES_TX_M));
	fprintf(f, "\"ring_min_log2\": %u, \"ring_max_log2\": %u, ",
		TALLY_FIELD_GET(id->ring_limits, TALLY_RING_MIN_LOG2_M),
		TALLY_FIELD_GET(id->ring_limits, TALLY_RING_MAX_LOG2_M));
	fprintf(f, "\"counters\": %u, \"counters_offset\": %u, ", id->cnt_num,
		id->cnt_off);
	fprintf(f, "\"comp_counters\": %u, \"comp_counters_offset\": %u, ",
		id->ccnt_num, id->ccnt_off);
	fprintf(f, "\"max_frame\": %u, \"xlt_max\": %u, \"mac\": \"%s\", ",
		id->max_frame, id->xlt_max, mac);
	fprintf(f, "\"status\": \"0x%08x\", \"status_flags\": [", id->status);
	print_bits(f, id->status, status_names, ", ", "\"");
	fputc(']', f);
}

void
tally_devinfo_print_id(const struct tally_devinfo_out *o,
		       const struct tally_devinfo_id *id)
{
	if (o->json)
		print_id_json(o->f, id);
	else
		print_id_text(o->f, id);
}

void
tally_devinfo_print_problems(const struct tally_devinfo_out *o,
			     const struct tally_devinfo_problems *p)
{
	unsigned int i;

	if (o->json) {
		fputs("\"problems\": [", o->f);
		for (i = 0; i < p->n; i++) {
			fputs(i ? ", " : "", o->f);
			tally_devinfo_json_str(o->f, p->msg[i]);
		}
		fputc(']', o->f);
		return;
	}
	for (i = 0; i < p->n; i++)
		fprintf(o->f, "  %-14s %s\n", "problem", p->msg[i]);
}
