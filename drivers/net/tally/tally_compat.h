/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one place where the PMD meets the differences between the DPDK
 * releases it builds against: 22.11 (Debian bookworm) and 24.11 (Debian
 * trixie). Everything else is written once; a .c file uses the names below
 * and never tests RTE_VERSION itself.
 *
 * What differs, and since when:
 *  - 24.03: dev_supported_ptypes_get reports the number of entries instead of
 *    relying on a RTE_PTYPE_UNKNOWN terminator (TALLY_PTYPES_GET_DEFINE).
 *  - 24.03: the async rte_flow fast path (async_create/destroy, push, pull,
 *    async indirect actions) left struct rte_flow_ops for struct
 *    rte_flow_fp_ops, which the port points to (dev->flow_fp_ops). ethdev
 *    calls those pointers without a NULL check, so every member is set: the
 *    callbacks the device has no use for (rules by index, action updates,
 *    query-and-update, action lists) answer ENOTSUP.
 *  - 23.03: template table attributes gained specialize, insertion_type and
 *    hash_func, the port attributes nb_quotas; anything but the defaults is
 *    refused with ENOTSUP (tally_compat_table_attr_check,
 *    tally_compat_port_attr_check).
 *  - 24.11: IPv6 addresses are struct rte_ipv6_addr (a 16-byte array inside
 *    a struct); a braced string initialises both forms.
 *  - 23.03: rte_tel_data_add_{dict,array}_u64 are deprecated for the _uint
 *    forms, which 22.11 lacks (tally_tel_dict_u64, tally_tel_array_u64).
 * Unchanged over that range, hence nothing here: the driver headers of the
 * buses (bus_pci_driver.h, bus_vdev_driver.h, since 22.11), the logging
 * macros (RTE_LOG_REGISTER_SUFFIX, rte_log) and the mbuf fields and flags
 * the burst functions use.
 */
#ifndef TALLY_COMPAT_H
#define TALLY_COMPAT_H

#include <errno.h>

#include <ethdev_driver.h>
#include <rte_flow_driver.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#define TALLY_DPDK_AT_LEAST(year, month) \
	(RTE_VERSION >= RTE_VERSION_NUM(year, month, 0, 0))

/* ---- ethdev -------------------------------------------------------------- */

/*
 * TALLY_PTYPES_GET_DEFINE(name, impl) defines the dev_supported_ptypes_get
 * callback `name` over `impl(dev, &n)`, which returns an array of n packet
 * types followed by RTE_PTYPE_UNKNOWN (or NULL).
 */
#if TALLY_DPDK_AT_LEAST(24, 3)
#define TALLY_PTYPES_GET_DEFINE(name, impl)				\
	static const uint32_t *						\
	name(struct rte_eth_dev *dev, size_t *no_of_elements)		\
	{								\
		return impl(dev, no_of_elements);			\
	}
#else
#define TALLY_PTYPES_GET_DEFINE(name, impl)				\
	static const uint32_t *						\
	name(struct rte_eth_dev *dev)					\
	{								\
		size_t n;						\
		return impl(dev, &n);					\
	}
#endif

/* ---- telemetry ----------------------------------------------------------- */

#if TALLY_DPDK_AT_LEAST(23, 3)
#define tally_tel_dict_u64(d, name, v)	rte_tel_data_add_dict_uint(d, name, v)
#define tally_tel_array_u64(d, v)	rte_tel_data_add_array_uint(d, v)
#else
#define tally_tel_dict_u64(d, name, v)	rte_tel_data_add_dict_u64(d, name, v)
#define tally_tel_array_u64(d, v)	rte_tel_data_add_array_u64(d, v)
#endif

/* ---- rte_flow: attributes added after 22.11 ---------------------------- */

static inline int
tally_compat_table_attr_check(const struct rte_flow_template_table_attr *ta,
			      struct rte_flow_error *err)
{
#if TALLY_DPDK_AT_LEAST(23, 3)
	if (ta->insertion_type != RTE_FLOW_TABLE_INSERTION_TYPE_PATTERN)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   ta, "tables insert by pattern only, not by index");
	if (ta->hash_func != RTE_FLOW_TABLE_HASH_FUNC_DEFAULT)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   ta, "the table hash function is fixed");
	if (ta->specialize != 0)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   ta, "no table specialisation (transfer only)");
#else
	RTE_SET_USED(ta);
	RTE_SET_USED(err);
#endif
	return 0;
}

static inline int
tally_compat_port_attr_check(const struct rte_flow_port_attr *pa,
			     struct rte_flow_error *err)
{
#if TALLY_DPDK_AT_LEAST(23, 3)
	if (pa->nb_quotas != 0)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "the device has no quota objects");
#else
	RTE_SET_USED(pa);
	RTE_SET_USED(err);
#endif
	return 0;
}

/* ---- rte_flow: where the async fast path lives ----------------------- */

/*
 * The async fast path (async_create, async_destroy, push, pull and
 * async_action_handle_{create,destroy,update,query}, same names and
 * prototypes in both releases) is in rte_flow_ops before 24.03 and in a
 * struct rte_flow_fp_ops of the driver's own from 24.03
 * (TALLY_FLOW_FP_OWN_TABLE), whose other members the driver refuses
 * (TALLY_COMPAT_FLOW_FP_REFUSED, its initializers).
 */
#if TALLY_DPDK_AT_LEAST(24, 3)
#define TALLY_FLOW_FP_OWN_TABLE 1

static inline struct rte_flow *
tally_compat_by_index(struct rte_eth_dev *dev, uint32_t queue,
		      const struct rte_flow_op_attr *oa,
		      struct rte_flow_template_table *tb, uint32_t rule_index,
		      const struct rte_flow_action *actions, uint8_t at_index,
		      void *user_data, struct rte_flow_error *err)
{
	rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, tb,
			   "rules by index: tables insert by pattern only");
	return NULL;
}

static inline struct rte_flow *
tally_compat_by_index_pattern(struct rte_eth_dev *dev, uint32_t queue,
			      const struct rte_flow_op_attr *oa,
			      struct rte_flow_template_table *tb, uint32_t rule_index,
			      const struct rte_flow_item *items, uint8_t pt_index,
			      const struct rte_flow_action *actions, uint8_t at_index,
			      void *user_data, struct rte_flow_error *err)
{
	rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, tb,
			   "rules by index: tables insert by pattern only");
	return NULL;
}

static inline int
tally_compat_actions_update(struct rte_eth_dev *dev, uint32_t queue,
			    const struct rte_flow_op_attr *oa, struct rte_flow *flow,
			    const struct rte_flow_action *actions, uint8_t at_index,
			    void *user_data, struct rte_flow_error *err)
{
	return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, flow,
				  "a rule's actions cannot be replaced; destroy and create");
}

static inline int
tally_compat_ah_query_update(struct rte_eth_dev *dev, uint32_t queue,
			     const struct rte_flow_op_attr *oa,
			     struct rte_flow_action_handle *h, const void *update,
			     void *query, enum rte_flow_query_update_mode mode,
			     void *user_data, struct rte_flow_error *err)
{
	return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, h,
				  "no combined query and update of indirect actions");
}

static inline struct rte_flow_action_list_handle *
tally_compat_list_create(struct rte_eth_dev *dev, uint32_t queue,
			 const struct rte_flow_op_attr *oa,
			 const struct rte_flow_indir_action_conf *conf,
			 const struct rte_flow_action *actions, void *user_data,
			 struct rte_flow_error *err)
{
	rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, actions,
			   "no indirect action lists");
	return NULL;
}

static inline int
tally_compat_list_destroy(struct rte_eth_dev *dev, uint32_t queue,
			  const struct rte_flow_op_attr *oa,
			  struct rte_flow_action_list_handle *h, void *user_data,
			  struct rte_flow_error *err)
{
	return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, h,
				  "no indirect action lists");
}

static inline int
tally_compat_list_query_update(struct rte_eth_dev *dev, uint32_t queue,
			       const struct rte_flow_op_attr *oa,
			       const struct rte_flow_action_list_handle *h,
			       const void **update, void **query,
			       enum rte_flow_query_update_mode mode, void *user_data,
			       struct rte_flow_error *err)
{
	return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, h,
				  "no indirect action lists");
}

#define TALLY_COMPAT_FLOW_FP_REFUSED						\
	.async_create_by_index = tally_compat_by_index,				\
	.async_create_by_index_with_pattern = tally_compat_by_index_pattern,	\
	.async_actions_update = tally_compat_actions_update,			\
	.async_action_handle_query_update = tally_compat_ah_query_update,	\
	.async_action_list_handle_create = tally_compat_list_create,		\
	.async_action_list_handle_destroy = tally_compat_list_destroy,		\
	.async_action_list_handle_query_update = tally_compat_list_query_update
#else
#define TALLY_FLOW_FP_OWN_TABLE 0
#endif

#endif /* TALLY_COMPAT_H */
