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
 *   counters=N          flow counter bank entries, 1..2^24 (default 4194304)
 *   comp_counters=N     completion counter bank entries, 1..2^24 (default 65536)
 *   mode=inline|thread  inline: the device runs in the burst functions and
 *                       rte_pmd_tally_model_step(); thread: its own thread
 *   mac=xx:xx:xx:xx:xx:xx  port MAC address (default 02:00:00:00:00:00)
 *   bad_rx=none|len|zero|more  a faulty device, for tests: every
 *                       bad_rx_every-th Rx completion (default every one)
 *                       claims length 65535, length 0, or more segments
 *                       (doc/security.md)
 *   bad_rx_every=N      N >= 1
 *   dev=<socket path>   no in-process model: attach to the device process
 *                       `tally-nic --socket <path>` (tally_hostif.c); the
 *                       settings above then belong to tally-nic
 *   steer_mem=auto|eal  where the steering engine keeps its large arrays:
 *                       auto (default) a host window advised for huge
 *                       pages when the in-process device runs on an EAL
 *                       without huge pages (tally_flow_mem.c), else DPDK
 *                       memory; eal: always DPDK memory
 *   steer_stage=N|off   single rte_flow creates into hash arrays of at
 *                       least 2^N slots (N 1..28, default 20) go through
 *                       a small staging array first (lib/steer
 *                       tally_steer_stage.c); off: never
 *   ports=N             a device of N ports (1..8, default 1) in one switch
 *                       domain: port 0 is the vdev's own name, port i
 *                       <name>_p<i>; the device settings above apply to
 *                       every port, and p<i>_<setting> (p1_wire=pcap) to
 *                       port i only; a port given no mac takes port 0's
 *                       with i added to its last byte
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
#include <rte_memzone.h>

#include <tally/tally_steer_fmt.h>

#include "tally_model.h"
#include "tally_pmd.h"
#include "tally_hal_posted.h"
#include "tally_logs.h"
#include "tally_mp.h"


/* The device's vdev state, shared by its ports, freed with the last. */
struct tally_vdev_priv {
	struct tally_model *model[TALLY_MAX_PORTS];	/* port i's, until it closes */
	uint32_t nb_ports;
	uint32_t refs;				/* ports not closed yet */
	const struct rte_memzone *bar_mz;	/* the BAR, when shared */
	struct tally_model_ports_args args;	/* owns the strings cfg points to */
};

struct tally_vdev_args {
	struct tally_vdev_priv *priv;
	const char *name;
	char dev[PATH_MAX];		/* dev=: device process socket */
	bool steer_mem_eal;		/* steer_mem=eal */
	uint32_t steer_stage;		/* steer_stage=: log2, 0 = default */
	unsigned int nb_model_args;	/* device settings given */
};

static int
tally_vdev_parse(struct tally_vdev_args *a, const char *params)
{
	struct rte_kvargs *kv;
	char err[256];
	unsigned int i;
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

		if (strcmp(p->key, "dev") == 0) {
			if (p->value == NULL || *p->value == '\0' ||
			    strlen(p->value) >= sizeof(a->dev)) {
				TALLY_INIT_LOG(ERR, "%s: devarg dev: empty or too long value",
					       a->name);
				rc = -EINVAL;
			} else {
				strcpy(a->dev, p->value);
			}
			continue;
		}
		if (strcmp(p->key, "steer_mem") == 0) {
			if (p->value != NULL && strcmp(p->value, "eal") == 0) {
				a->steer_mem_eal = true;
			} else if (p->value == NULL || strcmp(p->value, "auto") != 0) {
				TALLY_INIT_LOG(ERR, "%s: devarg steer_mem: '%s' is not auto or eal",
					       a->name, p->value != NULL ? p->value : "");
				rc = -EINVAL;
			}
			continue;
		}
		if (strcmp(p->key, "steer_stage") == 0) {
			char *end = NULL;
			unsigned long v = 0;

			if (p->value != NULL && strcmp(p->value, "off") == 0) {
				a->steer_stage = TALLY_STEER_HTAB_MAX_LOG2 + 1;
				continue;
			}
			if (p->value != NULL && *p->value != '\0')
				v = strtoul(p->value, &end, 10);
			if (end == NULL || *end != '\0' || v < 1 ||
			    v > TALLY_STEER_HTAB_MAX_LOG2) {
				TALLY_INIT_LOG(ERR, "%s: devarg steer_stage: '%s' is not 1..%u or off",
					       a->name, p->value != NULL ? p->value : "",
					       TALLY_STEER_HTAB_MAX_LOG2);
				rc = -EINVAL;
			} else {
				a->steer_stage = (uint32_t)v;
			}
			continue;
		}
		rc = tally_model_ports_args_set(&a->priv->args, p->key, p->value, err,
						sizeof(err));
		if (rc != 0)
			TALLY_INIT_LOG(ERR, "%s: %s", a->name, err);
		a->nb_model_args++;
	}
	rte_kvargs_free(kv);
	if (rc == 0 && a->nb_model_args != 0 &&
	    (rc = tally_model_ports_args_done(&a->priv->args, err, sizeof(err))) != 0)
		TALLY_INIT_LOG(ERR, "%s: %s", a->name, err);
	if (rc == 0 && a->dev[0] != '\0' && a->nb_model_args != 0) {
		TALLY_INIT_LOG(ERR, "%s: with dev= the device settings belong to the device process (tally-nic)",
			       a->name);
		rc = -EINVAL;
	}
	return rc;
}

/* The memzone that holds the BAR of port `name` (secondaries look it up). */
static int
tally_vdev_bar_mz_name(const char *name, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "tally_bar_%s", name) >= len) {
		TALLY_INIT_LOG(ERR, "%s: name too long for the BAR's memzone", name);
		return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * With huge pages (where secondary processes can exist) the model's BAR is
 * a memzone, with a mailbox for the writes of other processes
 * (tally_mp.c); without, plain memory of this process.
 */
static int
tally_vdev_shared_bar(const char *name, struct tally_vdev_priv *priv,
		      struct tally_model_config *cfgs)
{
	struct tally_model_config *cfg = &cfgs[0];
	char mz[RTE_MEMZONE_NAMESIZE];
	size_t len;
	int rc;

	if (!rte_eal_has_hugepages())
		return 0;
	rc = tally_vdev_bar_mz_name(name, mz, sizeof(mz));
	if (rc != 0)
		return rc;
	len = RTE_ALIGN_CEIL(tally_model_ports_bar_size(cfgs, priv->nb_ports, NULL), 4096);
	priv->bar_mz = rte_memzone_reserve_aligned(mz, len, rte_socket_id(), 0, 4096);
	if (priv->bar_mz == NULL) {
		TALLY_INIT_LOG(ERR, "%s: no memory for a %zu-byte BAR: %s", name, len,
			       rte_strerror(rte_errno));
		return -rte_errno;
	}
	cfg->bar_mem = priv->bar_mz->addr;
	cfg->bar_mem_len = priv->bar_mz->len;
	cfg->mbox = 1;
	return 0;
}

/* A secondary's port `i` of the primary's device in BAR memzone mz. */
static int
tally_vdev_join_port(struct rte_vdev_device *vdev, const struct rte_memzone *mz,
		     const char *pname, struct rte_eth_dev *dev, size_t off, size_t len)
{
	struct tally_posted *p;
	struct tally_io io;
	int rc;

	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	rc = tally_posted_join(p, (uint8_t *)mz->addr + off, len, pname, &io);
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: cannot join the primary's device: %s", pname,
			       strerror(-rc));
		free(p);
		rte_eth_dev_release_port(dev);
		return rc;
	}
	return tally_mp_secondary_attach(dev, &vdev->device, &io, p, NULL, 0);
}

struct tally_vdev_join {
	struct rte_vdev_device *vdev;
	const struct rte_memzone *mz;
	size_t win;
};

static int
tally_vdev_join_one(struct rte_eth_dev *dev, unsigned int i, const char *pname, void *arg)
{
	struct tally_vdev_join *j = arg;

	return tally_vdev_join_port(j->vdev, j->mz, pname, dev, i * j->win, j->win);
}

/*
 * A secondary process (EAL passes it the device's name only): the
 * primary's port tells the transport; the in-process model is reached
 * through its BAR memzone (every port's window in it), the device process
 * through its socket.
 */
static int
tally_vdev_probe_secondary(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	const struct rte_memzone *mz = NULL;
	char mzname[RTE_MEMZONE_NAMESIZE];
	struct tally_vdev_join j = { .vdev = vdev };
	struct rte_eth_dev *dev;
	struct tally_adapter *ad;
	unsigned int n;
	int rc;

	dev = tally_mp_secondary_port(name);
	if (dev == NULL)
		return -ENODEV;
	ad = tally_adapter(dev);
	if (ad->dma_bus == TALLY_DMA_BUS_HOST)
		return tally_hostif_probe_secondary(vdev, dev, ad->dev_path);
	rc = tally_vdev_bar_mz_name(name, mzname, sizeof(mzname));
	if (rc == 0 && (mz = rte_memzone_lookup(mzname)) == NULL) {
		TALLY_INIT_LOG(ERR, "%s: the primary's device has no shared BAR (it runs without huge pages?)",
			       name);
		rc = -ENODEV;
	}
	if (rc != 0) {
		rte_eth_dev_release_port(dev);
		return rc;
	}
	n = ad->sw != NULL ? ad->sw->nb_ports : 1;
	j.mz = mz;
	j.win = n > 1 ? ad->hal.port_stride : mz->len;	/* windows are stride apart */
	rc = tally_vdev_join_port(vdev, mz, name, dev, 0, j.win);
	return rc == 0 ? tally_switch_join_ports(name, n, tally_vdev_join_one, &j) : rc;
}

/* Drop a reference on priv; the last frees the device (the models no port
 * took, the BAR). */
static void
tally_vdev_put(struct tally_vdev_priv *priv)
{
	unsigned int i;

	if (--priv->refs != 0)
		return;
	for (i = 0; i < priv->nb_ports; i++)
		if (priv->model[i] != NULL)
			tally_model_destroy(priv->model[i]);
	if (priv->bar_mz != NULL)
		rte_memzone_free(priv->bar_mz);
	rte_free(priv);
}

static void
tally_vdev_fini(struct tally_adapter *ad)
{
	struct tally_vdev_priv *priv = ad->transport_priv;
	uint8_t i = ad->sw_port;

	if (priv == NULL)
		return;
	ad->transport_priv = NULL;
	tally_proc(ad->eth_dev)->model = NULL;
	tally_model_destroy(priv->model[i]);
	priv->model[i] = NULL;
	tally_vdev_put(priv);
}

/* Port i of the device: its ethdev over model i. */
static int
tally_vdev_port_init(struct rte_vdev_device *vdev, struct tally_vdev_args *a,
		     struct tally_switch *sw, unsigned int i)
{
	struct tally_vdev_priv *priv = a->priv;
	struct rte_eth_dev *dev;
	struct tally_adapter *ad;
	struct tally_io io;
	int rc;

	dev = tally_switch_vdev_port(vdev, i);
	if (dev == NULL)
		return -ENOMEM;
	if (tally_mp_proc_new(dev) == NULL) {
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	ad = tally_adapter(dev);
	ad->eth_dev = dev;
	tally_proc(dev)->model = priv->model[i];
	tally_proc(dev)->transport_fini = tally_vdev_fini;
	ad->transport_priv = priv;
	priv->refs++;
	ad->steer_mem_eal = a->steer_mem_eal;
	ad->steer_stage = a->steer_stage;
	ad->dma_bus = TALLY_DMA_BUS_VA;
	tally_switch_attach(sw, ad, (uint8_t)i);
	tally_model_io(priv->model[i], &io);
	rc = tally_ethdev_init(dev, &io, NULL);
	if (rc != 0) {
		tally_vdev_fini(ad);
		tally_mp_proc_free(dev);
		rte_eth_dev_release_port(dev);
		return rc;
	}
	rte_eth_dev_probing_finish(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u ready", dev->data->name, dev->data->port_id);
	return 0;
}

static int tally_vdev_remove(struct rte_vdev_device *vdev);

static int
tally_vdev_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct tally_model_config cfgs[TALLY_MAX_PORTS];
	struct tally_vdev_args a = { .name = name };
	struct tally_vdev_priv *priv;
	struct tally_switch *sw;
	char err[256] = "";
	unsigned int i;
	int rc;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return tally_vdev_probe_secondary(vdev);
	priv = a.priv = rte_zmalloc("tally_vdev", sizeof(*a.priv), 0);
	if (priv == NULL)
		return -ENOMEM;
	tally_model_ports_args_init(&priv->args);
	rc = tally_vdev_parse(&a, rte_vdev_device_args(vdev));
	if (rc != 0)
		goto err_priv;
	if (a.dev[0] != '\0') {
		rte_free(priv);
		return tally_hostif_probe(vdev, a.dev);
	}
	priv->nb_ports = priv->args.n;
	for (i = 0; i < priv->nb_ports; i++) {
		cfgs[i] = priv->args.port[i].cfg;
		/* no bus hook: the model's bus is this process's address space;
		 * the Tx burst steps the device after its doorbell (tally_rxtx.c) */
		cfgs[i].defer_tx = 1;
	}
	rc = tally_vdev_shared_bar(name, priv, cfgs);
	if (rc != 0)
		goto err_priv;
	rc = tally_model_create_ports(cfgs, priv->nb_ports, priv->model, err, sizeof(err));
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: cannot create the device model: %s",
			       name, err[0] ? err : strerror(-rc));
		goto err_priv;
	}
	sw = tally_switch_new(name, (uint8_t)priv->nb_ports);
	if (sw == NULL) {
		rc = -ENOMEM;
		goto err_model;
	}
	/* each port takes its reference on sw and priv (the probe holds one
	 * of each meanwhile); a port that fails has released its own, and the
	 * ones before are closed below */
	priv->refs = 1;
	for (i = 0; i < priv->nb_ports; i++) {
		rc = tally_vdev_port_init(vdev, &a, sw, i);
		if (rc != 0)
			break;
	}
	tally_switch_put(sw);
	if (rc != 0 && i > 0)
		tally_vdev_remove(vdev);
	tally_vdev_put(priv);
	return rc;

err_model:
	for (i = 0; i < priv->nb_ports; i++)
		if (priv->model[i] != NULL)
			tally_model_destroy(priv->model[i]);
err_priv:
	if (priv->bar_mz != NULL)
		rte_memzone_free(priv->bar_mz);
	rte_free(priv);
	return rc;
}

/* Every port of the device, the others before port 0 (the transfer proxy). */
static int
tally_vdev_remove(struct rte_vdev_device *vdev)
{
	char pname[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev *dev;
	int i, rc = 0;

	for (i = TALLY_MAX_PORTS - 1; i >= 0; i--) {
		if (tally_switch_port_name(rte_vdev_device_name(vdev), (unsigned int)i,
					 pname, sizeof(pname)) != 0)
			continue;
		dev = rte_eth_dev_allocated(pname);
		if (dev == NULL || dev->device != &vdev->device)
			continue;	/* already closed, or not one of ours */
		if (rte_eal_process_type() != RTE_PROC_PRIMARY)
			tally_mp_secondary_close(dev);
		else
			tally_dev_close(dev);
		if (rte_eth_dev_release_port(dev) != 0)
			rc = -EIO;
	}
	return rc;
}

/* rte_dev_dma_map(): external memory the application brings, for every
 * port of the device (each has its own translation table). */
static int
tally_vdev_dma_each(struct rte_vdev_device *vdev, void *addr, uint64_t iova, size_t len,
		    bool map)
{
	char pname[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev *dev;
	unsigned int i, done = 0;
	int rc;

	for (i = 0; i < TALLY_MAX_PORTS; i++) {
		if (tally_switch_port_name(rte_vdev_device_name(vdev), i, pname,
					 sizeof(pname)) != 0)
			break;
		dev = rte_eth_dev_allocated(pname);
		if (dev == NULL || dev->device != &vdev->device)
			continue;
		rc = map ? tally_dma_map(tally_adapter(dev), addr, iova, len) :
			   tally_dma_unmap(tally_adapter(dev), addr, iova, len);
		if (rc != 0)
			return rc;
		done++;
	}
	return done != 0 ? 0 : -ENODEV;
}

static int
tally_vdev_dma_map(struct rte_vdev_device *vdev, void *addr, uint64_t iova,
		   size_t len)
{
	return tally_vdev_dma_each(vdev, addr, iova, len, true);
}

static int
tally_vdev_dma_unmap(struct rte_vdev_device *vdev, void *addr, uint64_t iova,
		     size_t len)
{
	return tally_vdev_dma_each(vdev, addr, iova, len, false);
}

static struct rte_vdev_driver tally_vdev_driver = {
	.probe = tally_vdev_probe,
	.remove = tally_vdev_remove,
	.dma_map = tally_vdev_dma_map,
	.dma_unmap = tally_vdev_dma_unmap,
};

RTE_PMD_REGISTER_VDEV(net_tally, tally_vdev_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_tally,
	"wire=loop|pcap|if|gen|none "
	"rx_pcap=<file> tx_pcap=<file> pcap_loops=<int> iface=<name> "
	"gen_flows=<int> gen_len=<int> gen_count=<int> "
	"rxq=<1-8> txq=<1-8> counters=<int> comp_counters=<int> "
	"mode=inline|thread mac=<xx:xx:xx:xx:xx:xx> dev=<socket> "
	"bad_rx=none|len|zero|more bad_rx_every=<int> "
	"steer_mem=auto|eal steer_stage=<1-28>|off ports=<1-8> p<i>_<setting>=<value>");
