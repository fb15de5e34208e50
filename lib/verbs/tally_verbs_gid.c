/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GID table of a port: what ibv_query_gid, ibv_query_gid_ex,
 * ibv_query_gid_table and (for stock tools such as ibv_devinfo)
 * libibverbs' private ibv_query_gid_type answer.
 *
 * A Tally port carries raw Ethernet only; it has no IP addresses and no
 * Linux net device. Its table is what a RoCE port derives from its MAC
 * alone: the link-local GID fe80::<EUI-64 of the MAC> (the node GUID), once
 * as a RoCE v1 entry (index 0) and once as a RoCE v2 entry (index 1), with
 * ndev_ifindex 0 ("no net device"). Both entries always exist, so the table
 * length is 2 and no index inside it is empty.
 *
 * Errors follow the kernel's GID query methods (which libibverbs passes
 * through): bad port, index outside the table, non-zero flags, too small an
 * entry size, max_entries of 0 or below the number of valid entries: EINVAL.
 * A context that is not a live handle: EINVAL, as everywhere in the library.
 */
#include <string.h>

#include "tally_verbs_priv.h"

/* libibverbs' enum ibv_gid_type_sysfs (infiniband/driver.h, not installed) */
#define TALLY_GID_TYPE_SYSFS_ROCE_V1	0
#define TALLY_GID_TYPE_SYSFS_ROCE_V2	1

static void
gid_entry(const struct tally_verbs_ctx *c, uint32_t index, struct ibv_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->gid.raw[0] = 0xfe;
	e->gid.raw[1] = 0x80;
	memcpy(&e->gid.raw[8], &c->dev->guid, 8);
	e->gid_index = index;
	e->port_num = 1;
	e->gid_type = index == 0 ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_ROCE_V2;
	e->ndev_ifindex = 0;
}

/* The caller's entry may be longer (a newer header) than ours: zero the tail. */
static void
gid_copy_out(void *dst, size_t entry_size, const struct ibv_gid_entry *e)
{
	memset(dst, 0, entry_size);
	memcpy(dst, e, entry_size < sizeof(*e) ? entry_size : sizeof(*e));
}

int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
	      union ibv_gid *gid)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct ibv_gid_entry e;

	if (c == NULL || gid == NULL || port_num != 1 || index < 0 ||
	    index >= TALLY_VERBS_GID_TBL_LEN) {
		errno = EINVAL;
		return -1;
	}
	gid_entry(c, (uint32_t)index, &e);
	*gid = e.gid;
	return 0;
}

int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		  uint32_t gid_index, struct ibv_gid_entry *entry,
		  uint32_t flags, size_t entry_size)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct ibv_gid_entry e;

	if (c == NULL || entry == NULL || flags != 0 || port_num != 1 ||
	    gid_index >= TALLY_VERBS_GID_TBL_LEN ||
	    entry_size < sizeof(struct ibv_gid_entry))
		return EINVAL;
	gid_entry(c, gid_index, &e);
	gid_copy_out(entry, entry_size, &e);
	return 0;
}

ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
		     size_t max_entries, uint32_t flags, size_t entry_size)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct ibv_gid_entry e;
	uint32_t i;

	if (c == NULL || entries == NULL || flags != 0 || entry_size == 0 ||
	    max_entries == 0)
		return -EINVAL;
	if (max_entries < TALLY_VERBS_GID_TBL_LEN)
		return -EINVAL;	/* more valid entries than room */
	for (i = 0; i < TALLY_VERBS_GID_TBL_LEN; i++) {
		gid_entry(c, i, &e);
		gid_copy_out((char *)entries + (size_t)i * entry_size, entry_size, &e);
	}
	return TALLY_VERBS_GID_TBL_LEN;
}

/*
 * libibverbs' private ibv_query_gid_type (IBVERBS_PRIVATE_34 in rdma-core
 * 44, declared in its uninstalled driver.h): ibv_devinfo -v calls it for
 * every GID index. libibverbs' own version reads the provider's sysfs
 * device, which a Tally device does not have.
 */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);

int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		   unsigned int index, int *type)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);

	if (c == NULL || type == NULL || port_num != 1 ||
	    index >= TALLY_VERBS_GID_TBL_LEN) {
		errno = EINVAL;
		return -1;
	}
	*type = index == 0 ? TALLY_GID_TYPE_SYSFS_ROCE_V1 : TALLY_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}
