/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device settings as key=value arguments: the vdev's devargs and the device
 * process's command line share this one parser, so both accept exactly the
 * same keys and values with the same messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tally_model_priv.h"

typedef int (*tally_model_arg_fn)(struct tally_model_args *a, const char *key,
				  const char *val, char *errbuf, size_t errlen);

void
tally_model_args_init(struct tally_model_args *a)
{
	memset(a, 0, sizeof(*a));
	tally_model_config_init(&a->cfg);
}

static int
arg_u64(const char *key, const char *val, uint64_t lo, uint64_t hi,
	uint64_t *out, char *errbuf, size_t errlen)
{
	char *end = NULL;
	unsigned long long v;

	if (val == NULL || *val == '\0' || *val == '-')
		goto bad;
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno != 0 || end == val || *end != '\0')
		goto bad;
	if (v < lo || v > hi) {
		tally_model_errf(errbuf, errlen, "devarg %s=%s out of range %llu..%llu",
				 key, val, (unsigned long long)lo,
				 (unsigned long long)hi);
		return -ERANGE;
	}
	*out = v;
	return 0;
bad:
	tally_model_errf(errbuf, errlen, "devarg %s=%s is not a number", key,
			 val ? val : "");
	return -EINVAL;
}

static int
arg_u32(const char *key, const char *val, uint32_t lo, uint32_t hi,
	uint32_t *out, char *errbuf, size_t errlen)
{
	uint64_t v;
	int rc = arg_u64(key, val, lo, hi, &v, errbuf, errlen);

	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

static int
arg_str(const char *key, const char *val, char *dst, size_t len,
	char *errbuf, size_t errlen)
{
	if (val == NULL || *val == '\0' || strlen(val) >= len) {
		tally_model_errf(errbuf, errlen, "devarg %s: empty or too long value",
				 key);
		return -EINVAL;
	}
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

static int
arg_wire(struct tally_model_args *a, const char *key, const char *val,
	 char *errbuf, size_t errlen)
{
	static const struct { const char *s; enum tally_wire_kind k; } w[] = {
		{ "loop", TALLY_WIRE_LOOP }, { "pcap", TALLY_WIRE_PCAP },
		{ "if", TALLY_WIRE_IF }, { "gen", TALLY_WIRE_GEN },
		{ "none", TALLY_WIRE_NONE },
	};
	unsigned int i;

	for (i = 0; val != NULL && i < TALLY_ARRAY_SIZE(w); i++)
		if (strcmp(val, w[i].s) == 0) {
			a->cfg.wire = w[i].k;
			return 0;
		}
	tally_model_errf(errbuf, errlen, "devarg %s=%s: expected loop|pcap|if|gen|none",
			 key, val ? val : "");
	return -EINVAL;
}

static int
arg_mode(struct tally_model_args *a, const char *key, const char *val,
	 char *errbuf, size_t errlen)
{
	if (val != NULL && strcmp(val, "inline") == 0)
		a->cfg.mode = TALLY_MODEL_INLINE;
	else if (val != NULL && strcmp(val, "thread") == 0)
		a->cfg.mode = TALLY_MODEL_THREAD;
	else {
		tally_model_errf(errbuf, errlen, "devarg %s=%s: expected inline|thread",
				 key, val ? val : "");
		return -EINVAL;
	}
	return 0;
}

static int
arg_rx_pcap(struct tally_model_args *a, const char *key, const char *val,
	    char *errbuf, size_t errlen)
{
	int rc = arg_str(key, val, a->rx_pcap, sizeof(a->rx_pcap), errbuf, errlen);

	if (rc != 0)
		return rc;
	if (access(val, R_OK) != 0) {
		tally_model_errf(errbuf, errlen, "devarg %s=%s: cannot read: %s",
				 key, val, strerror(errno));
		return -ENOENT;
	}
	a->cfg.pcap_rx = a->rx_pcap;
	return 0;
}

static int
arg_tx_pcap(struct tally_model_args *a, const char *key, const char *val,
	    char *errbuf, size_t errlen)
{
	int rc = arg_str(key, val, a->tx_pcap, sizeof(a->tx_pcap), errbuf, errlen);

	if (rc == 0)
		a->cfg.pcap_tx = a->tx_pcap;
	return rc;
}

static int
arg_iface(struct tally_model_args *a, const char *key, const char *val,
	  char *errbuf, size_t errlen)
{
	int rc = arg_str(key, val, a->iface, sizeof(a->iface), errbuf, errlen);

	if (rc == 0)
		a->cfg.iface = a->iface;
	return rc;
}

static int
arg_mac(struct tally_model_args *a, const char *key, const char *val,
	char *errbuf, size_t errlen)
{
	unsigned int b[6];
	char tail;
	int i;

	if (val == NULL || strlen(val) != 17 ||
	    sscanf(val, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6) {
		tally_model_errf(errbuf, errlen, "devarg %s=%s: expected xx:xx:xx:xx:xx:xx",
				 key, val ? val : "");
		return -EINVAL;
	}
	for (i = 0; i < 6; i++)
		a->cfg.mac[i] = (uint8_t)b[i];
	return 0;
}

/* Numeric keys: where the value goes and its range. */
struct tally_model_num_arg {
	const char *key;
	size_t off;		/* offset in struct tally_model_config */
	int wide;		/* uint64_t field, else uint32_t */
	uint64_t lo, hi;
};

static int
arg_bad_rx(struct tally_model_args *a, const char *key, const char *val,
	   char *errbuf, size_t errlen)
{
	static const struct {
		const char *name;
		enum tally_model_bad_rx kind;
	} kinds[] = {
		{ "none", TALLY_BAD_RX_NONE }, { "len", TALLY_BAD_RX_LEN },
		{ "zero", TALLY_BAD_RX_ZERO }, { "more", TALLY_BAD_RX_MORE },
	};
	unsigned int i;

	for (i = 0; i < TALLY_ARRAY_SIZE(kinds); i++)
		if (val != NULL && strcmp(val, kinds[i].name) == 0) {
			a->cfg.bad_rx = kinds[i].kind;
			return 0;
		}
	tally_model_errf(errbuf, errlen, "devarg %s=%s: expected none, len, zero or more",
			 key, val ? val : "");
	return -EINVAL;
}

#define NUM(k, f, w, l, h) { k, offsetof(struct tally_model_config, f), w, l, h }
static const struct tally_model_num_arg tally_model_num_args[] = {
	NUM("pcap_loops", pcap_loops, 0, 0, UINT32_MAX),
	NUM("gen_flows", gen_flows, 0, 1, UINT32_MAX),
	NUM("gen_len", gen_len, 0, 60, 16383),
	NUM("gen_count", gen_count, 1, 0, UINT64_MAX),
	NUM("rxq", rx_queues, 0, 1, TALLY_MODEL_ARGS_MAX_QUEUES),
	NUM("txq", tx_queues, 0, 1, TALLY_MODEL_ARGS_MAX_QUEUES),
	NUM("counters", counters, 0, 1, TALLY_CNT_MAX),
	NUM("comp_counters", comp_counters, 0, 1, TALLY_CNT_MAX),
	NUM("bad_rx_every", bad_rx_every, 0, 1, UINT32_MAX),
};
#undef NUM

static const struct {
	const char *key;
	tally_model_arg_fn fn;
} tally_model_str_args[] = {
	{ "wire", arg_wire },
	{ "rx_pcap", arg_rx_pcap },
	{ "tx_pcap", arg_tx_pcap },
	{ "iface", arg_iface },
	{ "mode", arg_mode },
	{ "mac", arg_mac },
	{ "bad_rx", arg_bad_rx },
};

int
tally_model_args_set(struct tally_model_args *a, const char *key,
		     const char *val, char *errbuf, size_t errlen)
{
	const struct tally_model_num_arg *n;
	uint8_t *base = (uint8_t *)&a->cfg;
	unsigned int i;

	for (i = 0; i < TALLY_ARRAY_SIZE(tally_model_str_args); i++)
		if (strcmp(key, tally_model_str_args[i].key) == 0)
			return tally_model_str_args[i].fn(a, key, val, errbuf, errlen);
	for (i = 0; i < TALLY_ARRAY_SIZE(tally_model_num_args); i++) {
		n = &tally_model_num_args[i];
		if (strcmp(key, n->key) != 0)
			continue;
		if (n->wide)
			return arg_u64(key, val, n->lo, n->hi,
				       (uint64_t *)(void *)(base + n->off),
				       errbuf, errlen);
		return arg_u32(key, val, (uint32_t)n->lo, (uint32_t)n->hi,
			       (uint32_t *)(void *)(base + n->off), errbuf, errlen);
	}
	tally_model_errf(errbuf, errlen, "unknown devarg '%s'", key);
	return -EINVAL;
}

/* ---- several ports --------------------------------------------------------- */

/* Index of a key of tally_model_args_set() (a bit of own_keys), or -1. */
static int
ports_key_index(const char *key)
{
	unsigned int i;

	for (i = 0; i < TALLY_ARRAY_SIZE(tally_model_str_args); i++)
		if (strcmp(key, tally_model_str_args[i].key) == 0)
			return (int)i;
	for (i = 0; i < TALLY_ARRAY_SIZE(tally_model_num_args); i++)
		if (strcmp(key, tally_model_num_args[i].key) == 0)
			return (int)(TALLY_ARRAY_SIZE(tally_model_str_args) + i);
	return -1;
}
_Static_assert(TALLY_ARRAY_SIZE(tally_model_str_args) +
	       TALLY_ARRAY_SIZE(tally_model_num_args) <= 32, "own_keys holds a bit per key");

void
tally_model_ports_args_init(struct tally_model_ports_args *a)
{
	unsigned int i;

	memset(a, 0, sizeof(*a));
	a->n = 1;
	for (i = 0; i < TALLY_MAX_PORTS; i++)
		tally_model_args_init(&a->port[i]);
}

/* "p<i>_<key>": the port (any number: done() checks it) and the key; false
 * for any other key. */
static bool
ports_prefix(const char *key, uint32_t *port, const char **rest)
{
	const char *p = key + 1;
	uint32_t i = 0;

	if (key[0] != 'p' || *p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9' && i < 1000)
		i = i * 10 + (uint32_t)(*p++ - '0');
	if (*p != '_' || p[1] == '\0')
		return false;
	*port = i;
	*rest = p + 1;
	return true;
}

int
tally_model_ports_args_set(struct tally_model_ports_args *a, const char *key,
			   const char *val, char *errbuf, size_t errlen)
{
	char msg[256] = "";
	const char *k;
	uint32_t i, p;
	uint64_t v;
	int rc, bit;

	if (key == NULL) {
		tally_model_errf(errbuf, errlen, "devarg without a key");
		return -EINVAL;
	}
	if (strcmp(key, "ports") == 0) {
		rc = arg_u64(key, val, 1, TALLY_MAX_PORTS, &v, errbuf, errlen);
		if (rc == 0)
			a->n = (uint32_t)v;
		return rc;
	}
	if (ports_prefix(key, &p, &k)) {
		bit = ports_key_index(k);
		if (bit < 0 || p >= TALLY_MAX_PORTS) {
			tally_model_errf(errbuf, errlen, bit < 0 ? "unknown devarg '%s'" :
					 "devarg %s: a device has at most 8 ports", key);
			return -EINVAL;
		}
		rc = tally_model_args_set(&a->port[p], k, val, msg, sizeof(msg));
		if (rc < 0) {
			tally_model_errf(errbuf, errlen, "%s: %s", key, msg);
			return rc;
		}
		a->named |= 1u << p;
		a->own_keys[p] |= 1u << bit;
		if (strcmp(k, "mac") == 0)
			a->own_mac |= 1u << p;
		return 0;
	}
	bit = ports_key_index(key);
	if (bit < 0) {
		tally_model_errf(errbuf, errlen, "unknown devarg '%s'", key);
		return -EINVAL;
	}
	/* every port but those given their own value, whatever the order */
	for (i = 0; i < TALLY_MAX_PORTS; i++) {
		if (a->own_keys[i] & (1u << bit))
			continue;
		rc = tally_model_args_set(&a->port[i], key, val, errbuf, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
tally_model_ports_args_done(struct tally_model_ports_args *a, char *errbuf,
			    size_t errlen)
{
	struct tally_model_args *p;
	uint32_t i;

	if (a->n == 0 || a->n > TALLY_MAX_PORTS) {
		tally_model_errf(errbuf, errlen, "ports=%u: 1..%u", a->n, TALLY_MAX_PORTS);
		return -EINVAL;
	}
	if (a->named >> a->n) {
		i = (uint32_t)__builtin_ctz(a->named >> a->n) + a->n;
		tally_model_errf(errbuf, errlen, "devarg p%u_*: the device has %u port%s",
				 i, a->n, a->n > 1 ? "s" : "");
		return -EINVAL;
	}
	for (i = 0; i < a->n; i++) {
		p = &a->port[i];
		if (!(a->own_mac & (1u << i)))
			p->cfg.mac[5] = (uint8_t)(p->cfg.mac[5] + i);
		/* each port's strings are its own copies, wherever the struct is */
		if (p->cfg.pcap_rx != NULL)
			p->cfg.pcap_rx = p->rx_pcap;
		if (p->cfg.pcap_tx != NULL)
			p->cfg.pcap_tx = p->tx_pcap;
		if (p->cfg.iface != NULL)
			p->cfg.iface = p->iface;
	}
	return 0;
}
