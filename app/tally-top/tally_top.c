/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tally-top [options]: live flow counters of a running DPDK application
 * with Tally ports (see tally_top.h and doc/guides/nics/tally.rst).
 *
 * Every interval it samples, per Tally port, ethdev's /ethdev/stats and the
 * driver's /tally/flows, /tally/counters, /tally/faults and /tally/top (the
 * 64 counting rules with the most hits), and shows packets/s and bytes/s
 * from the difference of two samples. Rules are sorted by the chosen rate
 * (ties: more hits first, then older rule).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tally_top.h"

enum tt_col { TT_INDEX, TT_GROUP, TT_PRIO, TT_COUNTER, TT_SHARED, TT_HITS,
	      TT_BYTES, TT_NCOLS };
static const char *const tt_cols[TT_NCOLS] = {
	"index", "group", "priority", "counter", "shared", "hits", "bytes",
};

struct tt_rule {
	uint64_t v[TT_NCOLS];
	double pps, bps;
};

struct tt_port {
	uint64_t id;
	uint64_t ipackets, ibytes, opackets, obytes, imissed, ierrors, oerrors;
	uint64_t flows, indirect, matchers;
	uint64_t pool_size, in_use, free_now, pending;
	uint64_t faults, dma, desc, other;
	char last_cause[32];
	struct tt_rule rules[TT_MAX_RULES];
	unsigned int nb_rules;
	double rx_pps, rx_bps, tx_pps, tx_bps;
};

struct tt_sample {
	struct tt_port port[TT_MAX_PORTS];
	unsigned int nb_ports;
	struct timespec at;
};

struct tt_opts {
	const char *prefix;
	double interval;
	int port;			/* -1: every Tally port */
	unsigned int top;
	bool sort_bytes;
	bool once;
	bool json;
};

static volatile sig_atomic_t tt_stop;

static void
tt_on_signal(int sig)
{
	(void)sig;
	tt_stop = 1;
}

#define TT_Q(c, buf, fmt, ...) \
	(snprintf(buf, sizeof(buf), fmt, __VA_ARGS__), tt_query(c, buf))

static int
tt_port_stats(struct tt_conn *c, struct tt_port *p)
{
	char cmd[64];
	const char *v;

	v = TT_Q(c, cmd, "/ethdev/stats,%" PRIu64, p->id);
	if (v == NULL || tt_json_u64(v, "ipackets", &p->ipackets) ||
	    tt_json_u64(v, "ibytes", &p->ibytes) ||
	    tt_json_u64(v, "opackets", &p->opackets) ||
	    tt_json_u64(v, "obytes", &p->obytes) ||
	    tt_json_u64(v, "imissed", &p->imissed) ||
	    tt_json_u64(v, "ierrors", &p->ierrors) ||
	    tt_json_u64(v, "oerrors", &p->oerrors))
		return -EPROTO;
	v = TT_Q(c, cmd, "/tally/flows,%" PRIu64, p->id);
	if (v == NULL || tt_json_u64(v, "flows", &p->flows) ||
	    tt_json_u64(v, "indirect_counters", &p->indirect) ||
	    tt_json_u64(v, "matchers", &p->matchers))
		return -EPROTO;
	v = TT_Q(c, cmd, "/tally/counters,%" PRIu64, p->id);
	if (v == NULL || tt_json_u64(v, "size", &p->pool_size) ||
	    tt_json_u64(v, "in_use", &p->in_use) ||
	    tt_json_u64(v, "free", &p->free_now) ||
	    tt_json_u64(v, "pending_reuse", &p->pending))
		return -EPROTO;
	v = TT_Q(c, cmd, "/tally/faults,%" PRIu64, p->id);
	if (v == NULL || tt_json_u64(v, "total", &p->faults) ||
	    tt_json_u64(v, "dma", &p->dma) ||
	    tt_json_u64(v, "descriptor", &p->desc) ||
	    tt_json_u64(v, "other", &p->other) ||
	    tt_json_str(v, "last_cause", p->last_cause, sizeof(p->last_cause)))
		return -EPROTO;
	return 0;
}

static int
tt_port_rules(struct tt_conn *c, struct tt_port *p)
{
	uint64_t col[TT_MAX_RULES];
	unsigned int i, k, n;
	char cmd[64];
	const char *v;

	v = TT_Q(c, cmd, "/tally/top,%" PRIu64 ",%d", p->id, TT_MAX_RULES);
	if (v == NULL)
		return -EPROTO;
	p->nb_rules = 0;
	for (k = 0; k < TT_NCOLS; k++) {
		if (tt_json_u64_array(v, tt_cols[k], col, TT_MAX_RULES, &n) != 0 ||
		    (k > 0 && n != p->nb_rules))
			return -EPROTO;
		p->nb_rules = n;
		for (i = 0; i < n; i++)
			p->rules[i].v[k] = col[i];
	}
	return 0;
}

static int
tt_sample_take(struct tt_conn *c, const struct tt_opts *o, struct tt_sample *s)
{
	uint64_t ids[TT_MAX_PORTS];
	unsigned int i, n;
	const char *v;
	int rc;

	memset(s, 0, sizeof(*s));
	v = tt_query(c, "/tally/ports");
	if (v == NULL || tt_json_int_list(v, ids, TT_MAX_PORTS, &n) != 0)
		return -EPROTO;
	for (i = 0; i < n; i++) {
		struct tt_port *p = &s->port[s->nb_ports];

		if (o->port >= 0 && ids[i] != (uint64_t)o->port)
			continue;
		p->id = ids[i];
		rc = tt_port_stats(c, p);
		if (rc == 0)
			rc = tt_port_rules(c, p);
		if (rc != 0)
			return rc;
		s->nb_ports++;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->at);
	return 0;
}

static double
tt_rate(uint64_t now, uint64_t before, double secs)
{
	return now >= before && secs > 0 ? (double)(now - before) / secs : 0;
}

static const struct tt_port *
tt_find_port(const struct tt_sample *s, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < s->nb_ports; i++)
		if (s->port[i].id == id)
			return &s->port[i];
	return NULL;
}

static const struct tt_rule *
tt_find_rule(const struct tt_port *p, uint64_t counter, uint64_t index)
{
	unsigned int i;

	for (i = 0; p != NULL && i < p->nb_rules; i++)
		if (p->rules[i].v[TT_COUNTER] == counter &&
		    p->rules[i].v[TT_INDEX] == index)
			return &p->rules[i];
	return NULL;
}

static bool tt_sort_bytes;

static int
tt_rule_cmp(const void *a, const void *b)
{
	const struct tt_rule *x = a, *y = b;
	double rx = tt_sort_bytes ? x->bps : x->pps;
	double ry = tt_sort_bytes ? y->bps : y->pps;

	if (rx != ry)
		return rx < ry ? 1 : -1;
	if (x->v[TT_HITS] != y->v[TT_HITS])
		return x->v[TT_HITS] < y->v[TT_HITS] ? 1 : -1;
	return x->v[TT_INDEX] < y->v[TT_INDEX] ? -1 : 1;
}

/* Rates of `now` against `before` (a rule new since then counts from 0). */
static void
tt_rates(struct tt_sample *now, const struct tt_sample *before, bool sort_bytes)
{
	double secs = (double)(now->at.tv_sec - before->at.tv_sec) +
		      (double)(now->at.tv_nsec - before->at.tv_nsec) / 1e9;
	unsigned int i, j;

	for (i = 0; i < now->nb_ports; i++) {
		struct tt_port *p = &now->port[i];
		const struct tt_port *q = tt_find_port(before, p->id);

		if (q != NULL) {
			p->rx_pps = tt_rate(p->ipackets, q->ipackets, secs);
			p->rx_bps = 8 * tt_rate(p->ibytes, q->ibytes, secs);
			p->tx_pps = tt_rate(p->opackets, q->opackets, secs);
			p->tx_bps = 8 * tt_rate(p->obytes, q->obytes, secs);
		}
		for (j = 0; j < p->nb_rules; j++) {
			struct tt_rule *r = &p->rules[j];
			const struct tt_rule *o = tt_find_rule(q, r->v[TT_COUNTER],
							       r->v[TT_INDEX]);

			r->pps = tt_rate(r->v[TT_HITS], o ? o->v[TT_HITS] : 0, secs);
			r->bps = 8 * tt_rate(r->v[TT_BYTES], o ? o->v[TT_BYTES] : 0, secs);
		}
		tt_sort_bytes = sort_bytes;
		qsort(p->rules, p->nb_rules, sizeof(p->rules[0]), tt_rule_cmp);
	}
}

static void
tt_print_text(FILE *f, const struct tt_sample *s, const struct tt_opts *o)
{
	unsigned int i, j;

	fprintf(f, "tally-top: %s, every %.1f s, rules by %s (Ctrl-C quits)\n",
		o->prefix, o->interval, o->sort_bytes ? "bytes/s" : "packets/s");
	for (i = 0; i < s->nb_ports; i++) {
		const struct tt_port *p = &s->port[i];

		fprintf(f, "\nport %" PRIu64 ": rx %" PRIu64 " pkts %" PRIu64 " bytes"
			" (%.0f pkt/s, %.0f bit/s)  tx %" PRIu64 " pkts %" PRIu64
			" bytes (%.0f pkt/s, %.0f bit/s)\n", p->id, p->ipackets,
			p->ibytes, p->rx_pps, p->rx_bps, p->opackets, p->obytes,
			p->tx_pps, p->tx_bps);
		fprintf(f, "  missed %" PRIu64 "  rx errors %" PRIu64 "  tx errors %"
			PRIu64 "\n", p->imissed, p->ierrors, p->oerrors);
		fprintf(f, "  flows %" PRIu64 " (indirect counters %" PRIu64
			", matchers %" PRIu64 ")  counter pool %" PRIu64 ": in use %"
			PRIu64 ", free %" PRIu64 ", pending reuse %" PRIu64 "\n",
			p->flows, p->indirect, p->matchers, p->pool_size, p->in_use,
			p->free_now, p->pending);
		fprintf(f, "  faults %" PRIu64 " (dma %" PRIu64 ", descriptor %" PRIu64
			", other %" PRIu64 "; last %s)\n", p->faults, p->dma,
			p->desc, p->other, p->last_cause);
		fprintf(f, "  %6s %6s %5s %8s %6s %14s %16s %12s %14s\n", "RULE",
			"GROUP", "PRIO", "COUNTER", "SHARED", "HITS", "BYTES",
			"PKT/S", "BIT/S");
		for (j = 0; j < p->nb_rules && j < o->top; j++) {
			const struct tt_rule *r = &p->rules[j];

			fprintf(f, "  %6" PRIu64 " %6" PRIu64 " %5" PRIu64 " %8" PRIu64
				" %6s %14" PRIu64 " %16" PRIu64 " %12.0f %14.0f\n",
				r->v[TT_INDEX], r->v[TT_GROUP], r->v[TT_PRIO],
				r->v[TT_COUNTER], r->v[TT_SHARED] ? "yes" : "-",
				r->v[TT_HITS], r->v[TT_BYTES], r->pps, r->bps);
		}
	}
	fflush(f);
}

static void
tt_print_json(FILE *f, const struct tt_sample *s, const struct tt_opts *o)
{
	unsigned int i, j, k;

	fprintf(f, "{\"interval\": %.3f, \"sort\": \"%s\", \"ports\": [",
		o->interval, o->sort_bytes ? "bytes" : "packets");
	for (i = 0; i < s->nb_ports; i++) {
		const struct tt_port *p = &s->port[i];

		fprintf(f, "%s{\"port\": %" PRIu64 ", \"rx_packets\": %" PRIu64
			", \"rx_bytes\": %" PRIu64 ", \"tx_packets\": %" PRIu64
			", \"tx_bytes\": %" PRIu64 ", \"rx_missed\": %" PRIu64
			", \"rx_errors\": %" PRIu64 ", \"tx_errors\": %" PRIu64
			", \"rx_pps\": %.0f, \"rx_bps\": %.0f, \"tx_pps\": %.0f"
			", \"tx_bps\": %.0f, \"flows\": %" PRIu64
			", \"indirect_counters\": %" PRIu64 ", \"matchers\": %" PRIu64,
			i ? ", " : "", p->id, p->ipackets, p->ibytes, p->opackets,
			p->obytes, p->imissed, p->ierrors, p->oerrors, p->rx_pps,
			p->rx_bps, p->tx_pps, p->tx_bps, p->flows, p->indirect,
			p->matchers);
		fprintf(f, ", \"counter_pool\": {\"size\": %" PRIu64 ", \"in_use\": %"
			PRIu64 ", \"free\": %" PRIu64 ", \"pending_reuse\": %" PRIu64
			"}, \"faults\": {\"total\": %" PRIu64 ", \"dma\": %" PRIu64
			", \"descriptor\": %" PRIu64 ", \"other\": %" PRIu64
			", \"last_cause\": \"%s\"}, \"rules\": [", p->pool_size,
			p->in_use, p->free_now, p->pending, p->faults, p->dma,
			p->desc, p->other, p->last_cause);
		for (j = 0; j < p->nb_rules && j < o->top; j++) {
			fprintf(f, "%s{", j ? ", " : "");
			for (k = 0; k < TT_NCOLS; k++)
				fprintf(f, "\"%s\": %" PRIu64 ", ", tt_cols[k],
					p->rules[j].v[k]);
			fprintf(f, "\"pps\": %.0f, \"bps\": %.0f}", p->rules[j].pps,
				p->rules[j].bps);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}\n");
	fflush(f);
}

static void
tt_usage(FILE *f)
{
	fprintf(f,
		"usage: tally-top [-f PREFIX] [-p PORT] [-i SECONDS] [-n N] [-s pps|bps]\n"
		"                 [--once] [--json]\n"
		"  -f, --file-prefix  EAL file prefix of the application (default rte)\n"
		"  -p, --port         one port only (default: every Tally port)\n"
		"  -i, --interval     seconds between samples, 0.1..3600 (default 1)\n"
		"  -n, --top          rules shown per port, 1..%d (default 10)\n"
		"  -s, --sort         pps (packets/s, default) or bps (bytes/s)\n"
		"      --once         one snapshot (rates over one interval), then exit\n"
		"      --json         JSON, one object per snapshot\n", TT_MAX_RULES);
}

static int
tt_parse(int argc, char **argv, struct tt_opts *o)
{
	static const struct option lopts[] = {
		{ "file-prefix", required_argument, NULL, 'f' },
		{ "port", required_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'i' },
		{ "top", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "once", no_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	*o = (struct tt_opts){ .prefix = "rte", .interval = 1, .port = -1, .top = 10 };
	while ((c = getopt_long(argc, argv, "f:p:i:n:s:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (*optarg == '\0' || strchr(optarg, '/') != NULL)
				goto bad;
			o->prefix = optarg;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 0 || v > 65535)
				goto bad;
			o->port = (int)v;
			break;
		case 'i':
			o->interval = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || !(o->interval >= 0.1) ||
			    o->interval > 3600)
				goto bad;
			break;
		case 'n':
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 || v > TT_MAX_RULES)
				goto bad;
			o->top = (unsigned int)v;
			break;
		case 's':
			if (strcmp(optarg, "pps") != 0 && strcmp(optarg, "bps") != 0)
				goto bad;
			o->sort_bytes = optarg[0] == 'b';
			break;
		case 'o': o->once = true; break;
		case 'j': o->json = true; break;
		case 'h': tt_usage(stdout); exit(0);
		default: tt_usage(stderr); return -EINVAL;
		}
	}
	if (optind == argc)
		return 0;
	optarg = argv[optind];
bad:
	fprintf(stderr, "tally-top: bad argument '%s'\n", optarg);
	tt_usage(stderr);
	return -EINVAL;
}

static void
tt_sleep(double secs)
{
	struct timespec ts = { .tv_sec = (time_t)secs,
			       .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !tt_stop)
		;
}

int
main(int argc, char **argv)
{
	static struct tt_sample s[2];
	struct tt_opts o;
	struct tt_conn c;
	unsigned int cur = 0;
	int rc;

	if (tt_parse(argc, argv, &o) != 0)
		return 2;
	rc = tt_connect(&c, o.prefix);
	if (rc != 0) {
		fprintf(stderr, "tally-top: cannot reach the telemetry socket of '%s': %s\n",
			o.prefix, strerror(-rc));
		tt_close(&c);
		return 1;
	}
	signal(SIGINT, tt_on_signal);
	signal(SIGTERM, tt_on_signal);
	rc = tt_sample_take(&c, &o, &s[cur]);
	while (rc == 0 && !tt_stop) {
		tt_sleep(o.interval);
		cur ^= 1;
		rc = tt_sample_take(&c, &o, &s[cur]);
		if (rc != 0)
			break;
		tt_rates(&s[cur], &s[cur ^ 1], o.sort_bytes);
		if (!o.once && !o.json)
			fputs("\033[H\033[2J", stdout);	/* home, clear: redraw in place */
		if (o.json)
			tt_print_json(stdout, &s[cur], &o);
		else
			tt_print_text(stdout, &s[cur], &o);
		if (o.once)
			break;
	}
	tt_close(&c);
	if (rc != 0 && !tt_stop) {
		fprintf(stderr, "tally-top: telemetry query failed: %s\n",
			strerror(errno ? errno : EPROTO));
		return 1;
	}
	return 0;
}
