/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the data of the classification benchmark (cls_gen.h) for
 * dpdk-test-acl: DIR/acl.rules (ClassBench rule format, one rule a line in
 * priority order: dpdk-test-acl gives line n priority MAX - n and reports
 * rule n - 1), DIR/acl.trace (ClassBench trace format) and DIR/expect.txt
 * (the expected result of every packet as dpdk-test-acl prints it with
 * --verbose=2: the rule's line index from 0, or 4294967295 for a miss).
 *
 * usage: cls_files DIR [--rules N] [--packets N] [--seed N] [--hit-pct N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cls_gen.h"

static void
ip_str(uint32_t a, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff,
		 a & 0xff);
}

static FILE *
open_in(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		perror(path);
	return f;
}

static int
write_all(const struct cls_set *s, const char *dir)
{
	FILE *fr = open_in(dir, "acl.rules");
	FILE *ft = open_in(dir, "acl.trace");
	FILE *fe = open_in(dir, "expect.txt");
	char a[16], b[16];
	uint32_t i;
	int rc = 0;

	if (fr == NULL || ft == NULL || fe == NULL) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < s->nrules; i++) {
		const struct cls_rule *r = &s->rules[i];

		ip_str(r->sip, a, sizeof(a));
		ip_str(r->dip, b, sizeof(b));
		fprintf(fr, "@%s/%u\t%s/%u\t%u : %u\t%u : %u\t0x%02x/0x%02x\n", a, r->sip_len,
			b, r->dip_len, r->sp_lo, r->sp_hi, r->dp_lo, r->dp_hi, r->proto,
			r->proto_mask);
	}
	for (i = 0; i < s->npkts; i++) {
		const struct cls_pkt *p = &s->pkts[i];

		fprintf(ft, "%u\t%u\t%u\t%u\t%u\n", p->sip, p->dip, p->sp, p->dp, p->proto);
		fprintf(fe, "%u\n", (uint32_t)s->expect[i]);
	}
	if (ferror(fr) || ferror(ft) || ferror(fe))
		rc = -1;
out:
	if (fr != NULL && fclose(fr) != 0)
		rc = -1;
	if (ft != NULL && fclose(ft) != 0)
		rc = -1;
	if (fe != NULL && fclose(fe) != 0)
		rc = -1;
	return rc;
}

int
main(int argc, char **argv)
{
	struct cls_params p;
	struct cls_set s;
	struct cls_tuples t;
	int i, rc;

	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: cls_files DIR [--rules N] [--packets N] [--seed N] "
			"[--hit-pct N]\n");
		return 2;
	}
	cls_params_init(&p);
	for (i = 2; i < argc; i++) {
		if (cls_parse_opt(&p, argc, argv, &i) <= 0) {
			fprintf(stderr, "bad option %s\n", argv[i]);
			return 2;
		}
	}
	rc = cls_set_gen(&p, &s);
	if (rc != 0) {
		fprintf(stderr, "generate: %d\n", rc);
		return 1;
	}
	if (cls_expand(&s, &t) == 0) {
		cls_set_print(&s, &t, stdout);
		cls_tuples_free(&t);
	}
	rc = write_all(&s, argv[1]);
	cls_set_free(&s);
	return rc == 0 ? 0 : 1;
}
