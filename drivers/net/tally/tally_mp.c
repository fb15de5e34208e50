/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-process: a Tally port in DPDK secondary processes.
 *
 * What is shared and what is not: the adapter, the queues, their rings and
 * the mbufs live in EAL's shared memory at the same address in every
 * process; function pointers, the device model, the flow engine (plain
 * heap) and the BAR mapping do not. So every process reaches the device
 * through a struct tally_proc of its own (dev->process_private,
 * tally_pmd.h): the primary's holds a copy of the adapter's HAL, a
 * secondary's posts register writes into the primary's mailbox session
 * (tally_hal_posted.h, "join") through its own mapping of the BAR:
 *  - in-process model: the BAR is a memzone (tally_vdev.c) the model keeps
 *    a mailbox in; the model applies what secondaries post at every step,
 *    and starts its own thread when the first secondary joins, so their
 *    doorbells never wait for the primary's next burst;
 *  - device process: the secondary asks the device for the BAR's fd
 *    (HELLO mode JOIN, tally_hostif.c) and maps it;
 *  - PCI: EAL maps the BAR in the secondary as in the primary.
 *
 * A secondary may run Rx/Tx bursts on queues the primary set up (one
 * process per queue), read statistics, extended statistics, the link and
 * completion counters; flow counters are read by the primary on its
 * behalf over EAL's IPC (the reset baselines live with the flow engine).
 * Everything that configures the port or the steering tables is the
 * primary's: a secondary gets -EPERM and a log line saying so.
 *
 * IPC: one action, TALLY_MP_ACTION; requests name the port by its ethdev
 * name (port ids are per process).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_string_fns.h>

#include "rte_pmd_tally.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_hal_posted.h"
#include "tally_guard.h"
#include "tally_logs.h"
#include "tally_model.h"
#include "tally_mp.h"
#include "tally_rxtx.h"

#define TALLY_MP_ACTION		"tally_mp"
#define TALLY_MP_TIMEOUT_S	5

enum tally_mp_op {
	TALLY_MP_JOIN = 1,	/* a secondary attached to the port */
	TALLY_MP_CNT_READ,	/* flow counter `id`: packets, bytes */
	TALLY_MP_CNT_POOL,	/* flow counters in use */
};

struct tally_mp_req {
	uint32_t op;
	uint32_t id;
	char name[RTE_ETH_NAME_MAX_LEN];
};

struct tally_mp_rep {
	int32_t rc;
	uint32_t pad;
	uint64_t a, b;
};

_Static_assert(sizeof(struct tally_mp_req) <= RTE_MP_MAX_PARAM_LEN, "IPC request size");
_Static_assert(sizeof(struct tally_mp_rep) <= RTE_MP_MAX_PARAM_LEN, "IPC reply size");

/* ---- primary ---------------------------------------------------------------- */

static void
tally_mp_serve(const struct tally_mp_req *req, struct tally_mp_rep *rep)
{
	struct tally_adapter *ad;
	uint16_t port;

	if (rte_eth_dev_get_port_by_name(req->name, &port) != 0 ||
	    (ad = tally_adapter_from_port(port)) == NULL || ad->closed) {
		rep->rc = -ENODEV;
		return;
	}
	switch (req->op) {
	case TALLY_MP_JOIN: {
		struct tally_model *model = tally_proc(ad->eth_dev)->model;

		rep->rc = model != NULL ? tally_model_run_thread(model) : 0;
		TALLY_DRV_LOG(INFO, "port %u: a secondary process joined%s", port,
			      model != NULL ? ": the device runs on its own thread now" : "");
		break;
	}
	case TALLY_MP_CNT_READ: {
		struct tally_cnt_pool *pool = tally_flow_cnt_pool(ad);

		rep->rc = pool != NULL ? tally_cnt_read(pool, req->id, &rep->a, &rep->b) :
					 -ENODEV;
		break;
	}
	case TALLY_MP_CNT_POOL:
		rep->a = tally_mp_cnt_in_use(ad->eth_dev);
		rep->rc = 0;
		break;
	default:
		rep->rc = -EINVAL;
		break;
	}
}

static int
tally_mp_handle(const struct rte_mp_msg *msg, const void *peer)
{
	struct tally_mp_rep rep = { .rc = -EINVAL };
	struct tally_mp_req req;
	struct rte_mp_msg out;

	if (msg->len_param == (int)sizeof(req)) {
		memcpy(&req, msg->param, sizeof(req));
		req.name[sizeof(req.name) - 1] = '\0';
		tally_mp_serve(&req, &rep);
	}
	memset(&out, 0, sizeof(out));
	strlcpy(out.name, TALLY_MP_ACTION, sizeof(out.name));
	out.len_param = sizeof(rep);
	memcpy(out.param, &rep, sizeof(rep));
	return rte_mp_reply(&out, peer);
}

struct tally_proc *
tally_mp_proc_new(struct rte_eth_dev *dev)
{
	struct tally_proc *proc = calloc(1, sizeof(*proc));

	dev->process_private = proc;
	return proc;
}

void
tally_mp_primary_init(struct rte_eth_dev *dev)
{
	tally_proc(dev)->hal = tally_adapter(dev)->hal;
	/* once per process; without shared memory there is no IPC (ENOTSUP) */
	if (rte_mp_action_register(TALLY_MP_ACTION, tally_mp_handle) != 0 &&
	    rte_errno != EEXIST && rte_errno != ENOTSUP)
		TALLY_INIT_LOG(WARNING, "%s: no IPC for secondary processes: %s",
			       dev->data->name, rte_strerror(rte_errno));
}

void
tally_mp_proc_free(struct rte_eth_dev *dev)
{
	struct tally_proc *proc = dev->process_private;

	if (proc == NULL)
		return;
	if (proc->bar_map != NULL)
		tally_guard_del(proc->bar_map);	/* before its lost flag goes */
	if (proc->posted != NULL) {
		tally_posted_detach(proc->posted);
		free(proc->posted);
	}
	if (proc->bar_map != NULL)
		munmap(proc->bar_map, proc->bar_map_len);
	free(proc);
	dev->process_private = NULL;
}

/* ---- secondary -------------------------------------------------------------- */

static int
tally_mp_request(const char *name, uint32_t op, uint32_t id, struct tally_mp_rep *rep)
{
	struct timespec ts = { .tv_sec = TALLY_MP_TIMEOUT_S };
	struct tally_mp_req req;
	struct rte_mp_reply r;
	struct rte_mp_msg msg;
	int rc = -EIO;

	memset(&req, 0, sizeof(req));
	req.op = op;
	req.id = id;
	strlcpy(req.name, name, sizeof(req.name));
	memset(&msg, 0, sizeof(msg));
	strlcpy(msg.name, TALLY_MP_ACTION, sizeof(msg.name));
	msg.len_param = sizeof(req);
	memcpy(msg.param, &req, sizeof(req));
	if (rte_mp_request_sync(&msg, &r, &ts) != 0)
		return -rte_errno ? -rte_errno : -EIO;
	if (r.nb_received == 1 && r.msgs[0].len_param == (int)sizeof(*rep)) {
		memcpy(rep, r.msgs[0].param, sizeof(*rep));
		rc = rep->rc;
	}
	free(r.msgs);
	return rc;
}

struct rte_eth_dev *
tally_mp_secondary_port(const char *name)
{
	struct rte_eth_dev *dev = rte_eth_dev_attach_secondary(name);

	if (dev == NULL)
		TALLY_INIT_LOG(ERR, "%s: no such port in the primary process", name);
	return dev;
}

int
tally_mp_secondary_attach(struct rte_eth_dev *dev, struct rte_device *rdev,
			  const struct tally_io *io, struct tally_posted *posted,
			  void *bar_map, size_t bar_map_len)
{
	const char *name = dev->data->name;
	struct tally_mp_rep rep;
	struct tally_proc *proc;
	int rc;

	proc = calloc(1, sizeof(*proc));
	if (proc == NULL) {
		TALLY_INIT_LOG(ERR, "%s: out of memory", name);
		rte_eth_dev_release_port(dev);
		if (bar_map != NULL)
			tally_guard_del(bar_map);
		if (posted != NULL) {
			tally_posted_detach(posted);
			free(posted);
		}
		if (bar_map != NULL)
			munmap(bar_map, bar_map_len);
		return -ENOMEM;
	}
	/* the identity the primary read; this process's transport */
	proc->hal = tally_adapter(dev)->hal;
	proc->hal.io = *io;
	proc->hal.ccnt_lock = false;
	proc->hal.xlt_lock = false;
	proc->posted = posted;
	proc->bar_map = bar_map;
	proc->bar_map_len = bar_map_len;
	dev->process_private = proc;
	dev->device = rdev;
	dev->dev_ops = &tally_eth_dev_ops_secondary;
	tally_set_rxtx_functions(dev);
	dev->rx_descriptor_status = tally_rx_descriptor_status;
	dev->tx_descriptor_status = tally_tx_descriptor_status;
	rc = tally_mp_request(name, TALLY_MP_JOIN, 0, &rep);
	if (rc != 0)
		TALLY_INIT_LOG(WARNING, "%s: the primary did not answer the join (%s): queues move only when it steps the device",
			       name, strerror(-rc));
	rte_eth_dev_probing_finish(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u in a secondary process (%s)", name,
		       dev->data->port_id, io->ops->name);
	return 0;
}

int
tally_mp_secondary_close(struct rte_eth_dev *dev)
{
	tally_mp_proc_free(dev);
	return 0;
}

/* ---- what both answer --------------------------------------------------- */

uint32_t
tally_mp_cnt_in_use(struct rte_eth_dev *dev)
{
	struct tally_adapter *ad = tally_adapter(dev);
	uint32_t in_use = 0, free_now, pending;
	struct tally_mp_rep rep;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return tally_mp_request(dev->data->name, TALLY_MP_CNT_POOL, 0, &rep) == 0 ?
		       (uint32_t)rep.a : 0;
	if (tally_flow_cnt_pool(ad) != NULL)
		tally_cnt_pool_stats(tally_flow_cnt_pool(ad), &in_use, &free_now, &pending);
	return in_use;
}

int
tally_mp_counter_read(uint16_t port_id, uint32_t id, uint64_t *packets, uint64_t *bytes)
{
	struct rte_eth_dev *dev;
	struct tally_mp_rep rep;
	int rc;

	if (!rte_eth_dev_is_valid_port(port_id))
		return -ENODEV;
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != &tally_eth_dev_ops_secondary)
		return -ENODEV;
	rc = tally_mp_request(dev->data->name, TALLY_MP_CNT_READ, id, &rep);
	if (rc == 0) {
		*packets = rep.a;
		*bytes = rep.b;
	}
	return rc;
}
