/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vdev probe "net_tally": the in-process software device (lib/model).
 *
 * devargs (all optional; `--vdev net_tally0` alone gives a loopback port):
 *   wire=loop|pcap|if|gen|none  the other side of the port (default loop)
 *   rx_pcap=<file>      wire=pcap: frames to receive (must be readable)
 *   tx_pcap=<file>      wire=pcap: where transmitted frames are written
 *   pcap_loops=N        wire=pcap: replay rx_pcap N times (0 = once)
 *   iface=<name>        wire=if: Linux interface (AF_PACKET), required
 *   gen_flows=N         wire=gen: distinct UDP flows, >= 1
 *   gen_len=N           wire=gen: frame length, 60..max frame
 *   gen_count=N         wire=gen: frames to generate, 0 = endless
 *   rxq=N, txq=N        device queues per direction, 1..8 (default 8)
 *   counters=N          flow counter bank entries, 1..2^24 (default 1048576)
 *   comp_counters=N     completion counter bank entries, 1..2^24 (default 65536)
 *   mode=inline|thread  inline: the device runs in the burst functions and
 *                       rte_pmd_tally_model_step(); thread: its own thread
 *   mac=xx:xx:xx:xx:xx:xx  port MAC address (default 02:00:00:00:00:00)
 *
 * An unknown key or a malformed value fails the probe with an error log
 * naming the argument; nothing is left allocated.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ethdev_vdev.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "tally_model.h"
#include "tally_ethdev.h"
#include "tally_logs.h"

#define TALLY_VDEV_MAX_QUEUES	TALLY_PMD_MAX_QUEUES

/* Per-port vdev state, freed with the model. */
struct tally_vdev_priv {
	struct tally_model *model;
	char rx_pcap[PATH_MAX];
	char tx_pcap[PATH_MAX];
	char iface[64];
};

struct tally_vdev_args {
	struct tally_model_config cfg;
	struct tally_vdev_priv *priv;	/* string storage */
	const char *name;
};

typedef int (*tally_arg_fn)(struct tally_vdev_args *a, const char *key,
			    const char *val);

static int
tally_arg_u64(const char *name, const char *key, const char *val,
	      uint64_t lo, uint64_t hi, uint64_t *out)
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
		TALLY_INIT_LOG(ERR, "%s: devarg %s=%s out of range %" PRIu64 "..%" PRIu64,
			       name, key, val, lo, hi);
		return -ERANGE;
	}
	*out = v;
	return 0;
bad:
	TALLY_INIT_LOG(ERR, "%s: devarg %s=%s is not a number", name, key,
		       val ? val : "");
	return -EINVAL;
}

static int
tally_arg_u32(struct tally_vdev_args *a, const char *key, const char *val,
	      uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v;
	int rc = tally_arg_u64(a->name, key, val, lo, hi, &v);

	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

static int
tally_arg_str(struct tally_vdev_args *a, const char *key, const char *val,
	      char *dst, size_t len)
{
	if (val == NULL || *val == '\0' || strlen(val) >= len) {
		TALLY_INIT_LOG(ERR, "%s: devarg %s: empty or too long value",
			       a->name, key);
		return -EINVAL;
	}
	strcpy(dst, val);
	return 0;
}

static int
arg_wire(struct tally_vdev_args *a, const char *key, const char *val)
{
	static const struct { const char *s; enum tally_wire_kind k; } w[] = {
		{ "loop", TALLY_WIRE_LOOP }, { "pcap", TALLY_WIRE_PCAP },
		{ "if", TALLY_WIRE_IF }, { "gen", TALLY_WIRE_GEN },
		{ "none", TALLY_WIRE_NONE },
	};
	unsigned int i;

	for (i = 0; val != NULL && i < RTE_DIM(w); i++)
		if (strcmp(val, w[i].s) == 0) {
			a->cfg.wire = w[i].k;
			return 0;
		}
	TALLY_INIT_LOG(ERR, "%s: devarg %s=%s: expected loop|pcap|if|gen|none",
		       a->name, key, val ? val : "");
	return -EINVAL;
}

static int
arg_mode(struct tally_vdev_args *a, const char *key, const char *val)
{
	if (val != NULL && strcmp(val, "inline") == 0)
		a->cfg.mode = TALLY_MODEL_INLINE;
	else if (val != NULL && strcmp(val, "thread") == 0)
		a->cfg.mode = TALLY_MODEL_THREAD;
	else {
		TALLY_INIT_LOG(ERR, "%s: devarg %s=%s: expected inline|thread",
			       a->name, key, val ? val : "");
		return -EINVAL;
	}
	return 0;
}

static int
arg_rx_pcap(struct tally_vdev_args *a, const char *key, const char *val)
{
	int rc = tally_arg_str(a, key, val, a->priv->rx_pcap,
			       sizeof(a->priv->rx_pcap));

	if (rc != 0)
		return rc;
	if (access(val, R_OK) != 0) {
		TALLY_INIT_LOG(ERR, "%s: devarg %s=%s: cannot read: %s", a->name,
			       key, val, strerror(errno));
		return -ENOENT;
	}
	a->cfg.pcap_rx = a->priv->rx_pcap;
	return 0;
}

static int
arg_tx_pcap(struct tally_vdev_args *a, const char *key, const char *val)
{
	int rc = tally_arg_str(a, key, val, a->priv->tx_pcap,
			       sizeof(a->priv->tx_pcap));

	if (rc == 0)
		a->cfg.pcap_tx = a->priv->tx_pcap;
	return rc;
}

static int
arg_iface(struct tally_vdev_args *a, const char *key, const char *val)
{
	int rc = tally_arg_str(a, key, val, a->priv->iface,
			       sizeof(a->priv->iface));

	if (rc == 0)
		a->cfg.iface = a->priv->iface;
	return rc;
}

static int
arg_pcap_loops(struct tally_vdev_args *a, const char *key, const char *val)
{
	return tally_arg_u32(a, key, val, 0, UINT32_MAX, &a->cfg.pcap_loops);
}

static int
arg_gen_flows(struct tally_vdev_args *a, const char *key, const char *val)
{
	return tally_arg_u32(a, key, val, 1, UINT32_MAX, &a->cfg.gen_flows);
}

static int
arg_gen_len(struct tally_vdev_args *a, const char *key, const char *val)
{
	return tally_arg_u32(a, key, val, 60, 16383, &a->cfg.gen_len);
}

static int
arg_gen_count(struct tally_vdev_args *a, const char *key, const char *val)
{
	return tally_arg_u64(a->name, key, val, 0, UINT64_MAX, &a->cfg.gen_count);
}

static int
arg_rxq(struct tally_vdev_args *a, const char *key, const char *val)
{
	return tally_arg_u32(a, key, val, 1, TALLY_VDEV_MAX_QUEUES,
			     &a->cfg.rx_queues);
}

static int
arg_txq(struct tally_vdev_args *a, const char *key, const char *val)
{
	return tally_arg_u32(a, key, val, 1, TALLY_VDEV_MAX_QUEUES,
			     &a->cfg.tx_queues);
}

static int
arg_counters(struct tally_vdev_args *a, const char *key, const char *val)
{
	return tally_arg_u32(a, key, val, 1, TALLY_CNT_MAX, &a->cfg.counters);
}

static int
arg_comp_counters(struct tally_vdev_args *a, const char *key, const char *val)
{
	return tally_arg_u32(a, key, val, 1, TALLY_CNT_MAX,
			     &a->cfg.comp_counters);
}

static int
arg_mac(struct tally_vdev_args *a, const char *key, const char *val)
{
	struct rte_ether_addr mac;

	if (val == NULL || rte_ether_unformat_addr(val, &mac) != 0 ||
	    strlen(val) != 17) {
		TALLY_INIT_LOG(ERR, "%s: devarg %s=%s: expected xx:xx:xx:xx:xx:xx",
			       a->name, key, val ? val : "");
		return -EINVAL;
	}
	memcpy(a->cfg.mac, mac.addr_bytes, sizeof(a->cfg.mac));
	return 0;
}

static const struct {
	const char *key;
	tally_arg_fn fn;
} tally_vdev_keys[] = {
	{ "wire", arg_wire },
	{ "rx_pcap", arg_rx_pcap },
	{ "tx_pcap", arg_tx_pcap },
	{ "pcap_loops", arg_pcap_loops },
	{ "iface", arg_iface },
	{ "gen_flows", arg_gen_flows },
	{ "gen_len", arg_gen_len },
	{ "gen_count", arg_gen_count },
	{ "rxq", arg_rxq },
	{ "txq", arg_txq },
	{ "counters", arg_counters },
	{ "comp_counters", arg_comp_counters },
	{ "mode", arg_mode },
	{ "mac", arg_mac },
};

static int
tally_vdev_parse(struct tally_vdev_args *a, const char *params)
{
	struct rte_kvargs *kv;
	unsigned int i, k;
	int rc = 0;

	if (params == NULL || *params == '\0')
		return 0;
	kv = rte_kvargs_parse(params, NULL);
	if (kv == NULL) {
		TALLY_INIT_LOG(ERR, "%s: cannot parse devargs '%s'", a->name,
			       params);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && rc == 0; i++) {
		const struct rte_kvargs_pair *p = &kv->pairs[i];

		for (k = 0; k < RTE_DIM(tally_vdev_keys); k++)
			if (strcmp(p->key, tally_vdev_keys[k].key) == 0)
				break;
		if (k == RTE_DIM(tally_vdev_keys)) {
			TALLY_INIT_LOG(ERR, "%s: unknown devarg '%s'", a->name,
				       p->key);
			rc = -EINVAL;
			break;
		}
		rc = tally_vdev_keys[k].fn(a, p->key, p->value);
	}
	rte_kvargs_free(kv);
	if (rc == 0 && a->cfg.wire == TALLY_WIRE_IF && a->cfg.iface == NULL) {
		TALLY_INIT_LOG(ERR, "%s: devarg iface is required with wire=if",
			       a->name);
		rc = -EINVAL;
	}
	return rc;
}

/* IOVA as PA: translate through EAL's memseg tables. */
static void *
tally_vdev_xlate(void *arg, uint64_t iova, size_t len)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(len);
	return rte_mem_iova2virt(iova);
}

static void
tally_vdev_fini(struct tally_adapter *ad)
{
	struct tally_vdev_priv *priv = ad->transport_priv;

	if (priv == NULL)
		return;
	tally_model_destroy(priv->model);
	rte_free(priv);
	ad->transport_priv = NULL;
	ad->model = NULL;
}

static int
tally_vdev_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct tally_vdev_args a = { .name = name };
	struct rte_eth_dev *dev;
	struct tally_adapter *ad;
	struct tally_io io;
	char err[256] = "";
	int rc;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		TALLY_INIT_LOG(ERR, "%s: secondary processes are not supported",
			       name);
		return -ENOTSUP;
	}
	a.priv = rte_zmalloc("tally_vdev", sizeof(*a.priv), 0);
	if (a.priv == NULL)
		return -ENOMEM;
	tally_model_config_init(&a.cfg);
	rc = tally_vdev_parse(&a, rte_vdev_device_args(vdev));
	if (rc != 0)
		goto err_priv;
	if (rte_eal_iova_mode() != RTE_IOVA_VA) {
		a.cfg.xlate = tally_vdev_xlate;
		a.cfg.xlate_arg = NULL;
	}
	rc = tally_model_create(&a.cfg, &a.priv->model, err, sizeof(err));
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: cannot create the device model: %s",
			       name, err[0] ? err : strerror(-rc));
		goto err_priv;
	}
	dev = rte_eth_vdev_allocate(vdev, sizeof(struct tally_adapter));
	if (dev == NULL) {
		rc = -ENOMEM;
		goto err_model;
	}
	ad = tally_adapter(dev);
	ad->model = a.priv->model;
	ad->transport_priv = a.priv;
	ad->transport_fini = tally_vdev_fini;
	tally_model_io(a.priv->model, &io);
	rc = tally_ethdev_init(dev, &io, NULL);
	if (rc != 0) {
		tally_vdev_fini(ad);
		ad->transport_fini = NULL;
		rte_eth_dev_release_port(dev);
		return rc;
	}
	rte_eth_dev_probing_finish(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u ready", name, dev->data->port_id);
	return 0;

err_model:
	tally_model_destroy(a.priv->model);
err_priv:
	rte_free(a.priv);
	return rc;
}

static int
tally_vdev_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (dev == NULL)
		return 0;	/* already closed */
	tally_dev_close(dev);
	return rte_eth_dev_release_port(dev);
}

static struct rte_vdev_driver tally_vdev_driver = {
	.probe = tally_vdev_probe,
	.remove = tally_vdev_remove,
};

RTE_PMD_REGISTER_VDEV(net_tally, tally_vdev_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_tally,
	"wire=loop|pcap|if|gen|none "
	"rx_pcap=<file> tx_pcap=<file> pcap_loops=<int> iface=<name> "
	"gen_flows=<int> gen_len=<int> gen_count=<int> "
	"rxq=<1-8> txq=<1-8> counters=<int> comp_counters=<int> "
	"mode=inline|thread mac=<xx:xx:xx:xx:xx:xx>");
