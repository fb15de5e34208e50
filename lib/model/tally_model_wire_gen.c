/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generator wire: Ethernet/IPv4/UDP frames of gen_len bytes addressed to the
 * model's MAC, cycling over gen_flows flows (flow i: source 10.<i>, source
 * port 1024 + i % 64512), gen_count frames then end of input (0 = endless).
 * A frame is a template copy plus four patched fields and the IPv4 checksum.
 * Sent frames are counted and dropped.
 */
#include <string.h>

#include "tally_model_priv.h"

#define TALLY_GEN_IP_OFF	14
#define TALLY_GEN_UDP_OFF	34

struct tally_wire_gen {
	uint64_t sent;
	uint32_t flow;
	uint32_t len;
	uint8_t tmpl[TALLY_MODEL_WIRE_BUF];
};

static void
tally_gen_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
tally_gen_ip_csum(const uint8_t *ip)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
tally_gen_template(struct tally_wire_gen *g, const uint8_t mac[6])
{
	static const uint8_t smac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	uint8_t *ip = g->tmpl + TALLY_GEN_IP_OFF;
	uint8_t *udp = g->tmpl + TALLY_GEN_UDP_OFF;

	memcpy(g->tmpl, mac, 6);
	memcpy(g->tmpl + 6, smac, 6);
	tally_gen_put16(g->tmpl + 12, 0x0800);
	ip[0] = 0x45;
	tally_gen_put16(ip + 2, (uint16_t)(g->len - TALLY_GEN_IP_OFF));
	ip[8] = 64;		/* ttl */
	ip[9] = 17;		/* UDP */
	ip[12] = 10;		/* source 10.x.y.z, patched per flow */
	ip[16] = 10;		/* destination 10.255.0.1 */
	ip[17] = 255;
	ip[19] = 1;
	tally_gen_put16(udp + 2, 9);	/* discard */
	tally_gen_put16(udp + 4, (uint16_t)(g->len - TALLY_GEN_UDP_OFF));
}

static int
tally_wire_gen_open(struct tally_model *m, char *errbuf, size_t errlen)
{
	struct tally_wire_gen *g = tally_zmalloc(sizeof(*g));

	if (g == NULL) {
		tally_model_errf(errbuf, errlen, "wire=gen: out of memory");
		return -ENOMEM;
	}
	g->len = m->cfg.gen_len;
	tally_gen_template(g, m->cfg.mac);
	m->wire_priv = g;
	return 0;
}

static void
tally_wire_gen_close(struct tally_model *m)
{
	tally_free(m->wire_priv);
	m->wire_priv = NULL;
}

static int
tally_wire_gen_tx(struct tally_model *m, const uint8_t *frame, uint32_t len)
{
	return 0;
}

static int
tally_wire_gen_rx(struct tally_model *m, uint8_t *buf, uint32_t buflen,
		  uint32_t *caplen, uint32_t *len)
{
	struct tally_wire_gen *g = m->wire_priv;
	uint8_t *ip = buf + TALLY_GEN_IP_OFF;
	uint32_t f = g->flow;

	if ((m->cfg.gen_count != 0 && g->sent >= m->cfg.gen_count) || buflen < g->len)
		return 0;
	memcpy(buf, g->tmpl, g->len);
	ip[13] = (uint8_t)(f >> 16);
	ip[14] = (uint8_t)(f >> 8);
	ip[15] = (uint8_t)f;
	tally_gen_put16(ip + 10, tally_gen_ip_csum(ip));
	tally_gen_put16(buf + TALLY_GEN_UDP_OFF, (uint16_t)(1024 + f % 64512));
	g->flow = f + 1 == m->cfg.gen_flows ? 0 : f + 1;
	g->sent++;
	*caplen = g->len;
	*len = g->len;
	return 1;
}

static int
tally_wire_gen_eof(struct tally_model *m)
{
	const struct tally_wire_gen *g = m->wire_priv;

	return m->cfg.gen_count != 0 && g->sent >= m->cfg.gen_count;
}

const struct tally_wire_ops tally_wire_gen_ops = {
	.name = "gen",
	.open = tally_wire_gen_open,
	.close = tally_wire_gen_close,
	.tx = tally_wire_gen_tx,
	.rx = tally_wire_gen_rx,
	.eof = tally_wire_gen_eof,
};
