/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tally burst functions. Chosen once by tally_set_rxtx_functions() (at init
 * and at start); the data path never tests configuration per packet.
 */
#ifndef TALLY_RXTX_H
#define TALLY_RXTX_H

#include <rte_mbuf.h>

#include "tally_pmd.h"

uint16_t tally_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t nb_pkts);
uint16_t tally_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t nb_pkts);
void tally_set_rxtx_functions(struct rte_eth_dev *dev);

#endif /* TALLY_RXTX_H */
