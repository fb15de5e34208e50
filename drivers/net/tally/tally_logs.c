/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Log type registration, and the sink that routes lib/hal, lib/model and
 * lib/steer messages (tally_plat_log) into rte_log under
 * pmd.net.tally.driver.
 */
#include <rte_common.h>
#include <rte_log.h>

#include "tally_plat.h"
#include "tally_logs.h"

RTE_LOG_REGISTER_SUFFIX(tally_logtype_init, init, NOTICE);
RTE_LOG_REGISTER_SUFFIX(tally_logtype_driver, driver, NOTICE);
RTE_LOG_REGISTER_SUFFIX(tally_logtype_flow, flow, NOTICE);
RTE_LOG_REGISTER_SUFFIX(tally_logtype_rx, rx, NOTICE);
RTE_LOG_REGISTER_SUFFIX(tally_logtype_tx, tx, NOTICE);

static void
tally_plat_sink(enum tally_log_level level, const char *fmt, va_list ap)
{
	uint32_t lvl;

	switch (level) {
	case TALLY_LOG_ERR: lvl = RTE_LOG_ERR; break;
	case TALLY_LOG_WARNING: lvl = RTE_LOG_WARNING; break;
	case TALLY_LOG_NOTICE: lvl = RTE_LOG_NOTICE; break;
	case TALLY_LOG_INFO: lvl = RTE_LOG_INFO; break;
	default: lvl = RTE_LOG_DEBUG; break;
	}
	rte_vlog(lvl, tally_logtype_driver, fmt, ap);
}

/* After the log types exist (RTE_LOG_REGISTER uses RTE_PRIO_LOG). */
RTE_INIT(tally_logs_init)
{
	tally_plat_set_log_sink(tally_plat_sink);
	tally_plat_set_log_level(TALLY_LOG_DEBUG);
}
