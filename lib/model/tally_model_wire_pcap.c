/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap wire (libpcap): Rx frames are read from cfg->pcap_rx, replayed
 * pcap_loops times; Tx frames are appended to cfg->pcap_tx. A record whose
 * caplen is below its length reaches the validator as truncated; a
 * zero-length record as a runt. The output is flushed at close.
 *
 * Damaged input, each record counted once per pass in RX_ERR_DAMAGED:
 *  - caplen > len (more captured than was on the wire): the header is
 *    impossible but the record's extent is known, so it is skipped and
 *    the records after it are read;
 *  - a record cut short by the end of the file (header or data): the pass
 *    ends there;
 *  - a caplen libpcap refuses (beyond 262144 bytes for Ethernet): the
 *    header cannot be trusted to find the next record, so nothing after it
 *    is read and the pass ends there too.
 * A pass that ends, damaged or not, starts the next replay; a pass that
 * delivered no record ends the replays (an empty or wholly damaged file
 * would otherwise be reopened pcap_loops times in one poll).
 */
#include <pcap/pcap.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "tally_model_priv.h"

struct tally_wire_pcap {
	pcap_t *in;
	pcap_t *dead;
	pcap_dumper_t *out;
	uint32_t loops_left;	/* replays after the current one */
	uint64_t recs;		/* records read in this pass */
	uint64_t frames;	/* of which handed to the pipeline */
	bool eof;
};

static int
tally_wire_pcap_open_in(struct tally_model *m, struct tally_wire_pcap *p,
			char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE];

	if (access(m->pcap_rx, R_OK) != 0) {
		int e = errno;

		tally_model_errf(errbuf, errlen, "pcap_rx=%s: %s", m->pcap_rx, strerror(e));
		return -e;
	}
	p->in = pcap_open_offline(m->pcap_rx, perr);
	if (p->in == NULL) {
		tally_model_errf(errbuf, errlen, "pcap_rx=%s: %s", m->pcap_rx, perr);
		return -EINVAL;
	}
	if (pcap_datalink(p->in) != DLT_EN10MB) {
		tally_model_errf(errbuf, errlen, "pcap_rx=%s: link type %d is not Ethernet",
				 m->pcap_rx, pcap_datalink(p->in));
		pcap_close(p->in);
		p->in = NULL;
		return -EINVAL;
	}
	return 0;
}

static void
tally_wire_pcap_close(struct tally_model *m)
{
	struct tally_wire_pcap *p = m->wire_priv;

	if (p == NULL)
		return;
	if (p->in != NULL)
		pcap_close(p->in);
	if (p->out != NULL) {
		pcap_dump_flush(p->out);
		pcap_dump_close(p->out);
	}
	if (p->dead != NULL)
		pcap_close(p->dead);
	tally_free(p);
	m->wire_priv = NULL;
}

static int
tally_wire_pcap_open(struct tally_model *m, char *errbuf, size_t errlen)
{
	struct tally_wire_pcap *p = tally_zmalloc(sizeof(*p));
	int rc;

	if (p == NULL) {
		tally_model_errf(errbuf, errlen, "wire=pcap: out of memory");
		return -ENOMEM;
	}
	m->wire_priv = p;
	p->loops_left = m->cfg.pcap_loops > 1 ? m->cfg.pcap_loops - 1 : 0;
	p->eof = m->pcap_rx == NULL;
	if (m->pcap_rx != NULL) {
		rc = tally_wire_pcap_open_in(m, p, errbuf, errlen);
		if (rc < 0)
			goto fail;
	}
	if (m->pcap_tx != NULL) {
		p->dead = pcap_open_dead(DLT_EN10MB, 65535);
		p->out = p->dead != NULL ? pcap_dump_open(p->dead, m->pcap_tx) : NULL;
		if (p->out == NULL) {
			tally_model_errf(errbuf, errlen, "pcap_tx=%s: %s", m->pcap_tx,
					 p->dead != NULL ? pcap_geterr(p->dead) : "out of memory");
			rc = -EIO;
			goto fail;
		}
	}
	return 0;
fail:
	tally_wire_pcap_close(m);
	return rc;
}

static int
tally_wire_pcap_tx(struct tally_model *m, const uint8_t *frame, uint32_t len)
{
	struct tally_wire_pcap *p = m->wire_priv;
	struct pcap_pkthdr h;

	if (p->out == NULL)
		return 0;	/* no output file: counted and dropped */
	memset(&h, 0, sizeof(h));
	gettimeofday(&h.ts, NULL);
	h.caplen = len;
	h.len = len;
	pcap_dump((u_char *)p->out, &h, frame);
	return 0;
}

/* Start the next replay; false when there is none. */
static bool
tally_wire_pcap_rewind(struct tally_model *m, struct tally_wire_pcap *p)
{
	char perr[PCAP_ERRBUF_SIZE];

	pcap_close(p->in);
	p->in = NULL;
	if (p->loops_left == 0 || p->frames == 0)
		return false;
	p->loops_left--;
	p->recs = 0;
	p->frames = 0;
	p->in = pcap_open_offline(m->pcap_rx, perr);
	if (p->in == NULL) {
		TALLY_LOG(ERR, "pcap_rx=%s: %s", m->pcap_rx, perr);
		return false;
	}
	return true;
}

static int
tally_wire_pcap_rx(struct tally_model *m, uint8_t *buf, uint32_t buflen,
		   uint32_t *caplen, uint32_t *len)
{
	struct tally_wire_pcap *p = m->wire_priv;
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;

	while (!p->eof) {
		rc = pcap_next_ex(p->in, &h, &data);
		if (rc == 1) {
			p->recs++;
			if (h->caplen > h->len) {
				tally_model_stat_add(m, TALLY_STAT_RX_ERR_DAMAGED, 1);
				TALLY_LOG(WARNING, "pcap_rx=%s: record %llu: caplen %u > len %u, skipped",
					  m->pcap_rx, (unsigned long long)p->recs,
					  h->caplen, h->len);
				continue;
			}
			p->frames++;
			*len = h->len;
			*caplen = TALLY_MIN(h->caplen, buflen);
			memcpy(buf, data, *caplen);
			return 1;
		}
		if (rc == -1) {
			/* cut short, or a length libpcap refuses: the file ends here */
			tally_model_stat_add(m, TALLY_STAT_RX_ERR_DAMAGED, 1);
			TALLY_LOG(WARNING, "pcap_rx=%s: record %llu: %s; rest of the file not read",
				  m->pcap_rx, (unsigned long long)p->recs + 1,
				  pcap_geterr(p->in));
		}
		if (!tally_wire_pcap_rewind(m, p))
			p->eof = true;
	}
	return 0;
}

static int
tally_wire_pcap_eof(struct tally_model *m)
{
	const struct tally_wire_pcap *p = m->wire_priv;

	return p->eof;
}

const struct tally_wire_ops tally_wire_pcap_ops = {
	.name = "pcap",
	.open = tally_wire_pcap_open,
	.close = tally_wire_pcap_close,
	.tx = tally_wire_pcap_tx,
	.rx = tally_wire_pcap_rx,
	.eof = tally_wire_pcap_eof,
};
