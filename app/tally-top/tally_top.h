/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tally-top: a live view of the flow counters of a running DPDK application
 * with Tally ports, through the application's telemetry socket
 * (/var/run/dpdk/<file-prefix>/dpdk_telemetry.v2, SOCK_SEQPACKET, one JSON
 * reply per command). It uses the driver's /tally/... endpoints and ethdev's
 * /ethdev/stats; nothing of DPDK is linked.
 *
 * tally_top_tel.c: the socket and the few JSON shapes the replies have.
 * tally_top.c: options, sampling, rates and the two renderings.
 */
#ifndef TALLY_TOP_H
#define TALLY_TOP_H

#include <stddef.h>
#include <stdint.h>

#define TT_MAX_PORTS	32
#define TT_MAX_RULES	64	/* what /tally/top returns at most */
#define TT_REPLY_MAX	(64 * 1024)

struct tt_conn {
	int fd;
	char *buf;			/* last reply, NUL-terminated */
};

/* Connect to the telemetry socket of file prefix `prefix`; 0 or -errno. */
int tt_connect(struct tt_conn *c, const char *prefix);
void tt_close(struct tt_conn *c);
/* Send cmd, receive its reply into c->buf; returns the reply's value (the
 * text after "<cmd>": ) or NULL when the reply is null or the socket
 * failed (errno says which). */
const char *tt_query(struct tt_conn *c, const char *cmd);

/* JSON helpers on a reply value: the value of "key" (the first one at any
 * depth; our replies never repeat a key), as a number, array or string.
 * Return 0 or -ENOENT / -EINVAL. */
int tt_json_u64(const char *js, const char *key, uint64_t *v);
int tt_json_u64_array(const char *js, const char *key, uint64_t *v,
		      unsigned int max, unsigned int *n);
int tt_json_str(const char *js, const char *key, char *out, size_t len);
/* The integers of a top-level array value ("[0, 1]"). */
int tt_json_int_list(const char *js, uint64_t *v, unsigned int max,
		     unsigned int *n);

#endif /* TALLY_TOP_H */
