/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Public API of the Tally poll-mode driver, beyond ethdev and rte_flow.
 *
 * All functions take an ethdev port id and return 0 (or a count) on success
 * and a negative errno on failure: -ENODEV when port_id is not a Tally port.
 * They are experimental: build with ALLOW_EXPERIMENTAL_API.
 */
#ifndef RTE_PMD_TALLY_H
#define RTE_PMD_TALLY_H

#include <stdint.h>
#include <stdio.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Run the in-process software device of a vdev port one step: process
 * pending doorbells and take up to a burst of frames from its wire.
 *
 * The Rx burst function already does this on every call (mode=inline); use
 * it to let the device make progress without polling Rx, e.g. to push
 * transmitted frames to a pcap file. Thread-safe (the model serialises).
 *
 * @param port_id  a net_tally vdev port
 * @return frames moved (>= 0); -ENODEV if not a Tally port; -ENOTSUP if the
 *         port is a PCI function (the device runs by itself).
 */
__rte_experimental
int rte_pmd_tally_model_step(uint16_t port_id);

/**
 * Print the device identity, control and status registers, fault state,
 * port statistics and the state of every configured queue to f.
 * For diagnostics; reads registers, so not for the data path.
 *
 * @return 0; -ENODEV if not a Tally port; -EINVAL if f is NULL.
 */
__rte_experimental
int rte_pmd_tally_dump(uint16_t port_id, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_TALLY_H */
