/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD log types (pmd.net.tally.init/driver/flow/rx/tx) and the one logging
 * macro, which adds the function name and a newline.
 *
 * Per-packet logs (TALLY_RX_LOG/TALLY_TX_LOG) compile to nothing unless the
 * build defines TALLY_DEBUG_DATAPATH.
 */
#ifndef TALLY_LOGS_H
#define TALLY_LOGS_H

#include <rte_log.h>

extern int tally_logtype_init;
extern int tally_logtype_driver;
extern int tally_logtype_flow;
extern int tally_logtype_rx;
extern int tally_logtype_tx;

#define TALLY_PMD_LOG(level, type, fmt, ...)				\
	rte_log(RTE_LOG_##level, tally_logtype_##type, "%s(): " fmt "\n",	\
		__func__, ##__VA_ARGS__)

#define TALLY_INIT_LOG(level, fmt, ...)	TALLY_PMD_LOG(level, init, fmt, ##__VA_ARGS__)
#define TALLY_DRV_LOG(level, fmt, ...)	TALLY_PMD_LOG(level, driver, fmt, ##__VA_ARGS__)
#define TALLY_FLOW_LOG(level, fmt, ...)	TALLY_PMD_LOG(level, flow, fmt, ##__VA_ARGS__)

#ifdef TALLY_DEBUG_DATAPATH
#define TALLY_RX_LOG(level, fmt, ...)	TALLY_PMD_LOG(level, rx, fmt, ##__VA_ARGS__)
#define TALLY_TX_LOG(level, fmt, ...)	TALLY_PMD_LOG(level, tx, fmt, ##__VA_ARGS__)
#else
#define TALLY_RX_LOG(level, fmt, ...)	do { } while (0)
#define TALLY_TX_LOG(level, fmt, ...)	do { } while (0)
#endif

#endif /* TALLY_LOGS_H */
