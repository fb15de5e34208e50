/* SPDX-License-Identifier: BSD-3-Clause */
/* The device's statistics as text: port statistics, faults, attachment,
 * clients. */
#include <stdio.h>

#include <tally/tally_mbox.h>
#include <tally/tally_regs.h>

#include "tally_nic.h"

static uint32_t
rd32(const volatile uint8_t *bar, uint32_t off)
{
	return __atomic_load_n((const uint32_t *)(uintptr_t)(bar + off),
			       __ATOMIC_ACQUIRE);
}

static uint64_t
rd64(const volatile uint8_t *bar, uint32_t off)
{
	return __atomic_load_n((const uint64_t *)(uintptr_t)(bar + off),
			       __ATOMIC_ACQUIRE);
}

size_t
nic_stats_format(const struct nic *n, char *buf, size_t len)
{
	const volatile uint8_t *bar = tally_model_bar(n->model, NULL);
	const struct tally_mbox *mb =
		(const struct tally_mbox *)(uintptr_t)(bar + TALLY_MBOX_OFF);
	size_t used = 0;
	unsigned int i;
	uint32_t p;

#define OUT(...) do { \
		int w_ = snprintf(buf + used, len - used, __VA_ARGS__); \
		if (w_ > 0) \
			used = used + (size_t)w_ >= len ? len - 1 : used + (size_t)w_; \
	} while (0)
	if (len == 0)
		return 0;
	buf[0] = '\0';
	OUT("driver: %s (pid %u, uid %u), attaches %llu, refused %llu, shared ranges %u (%llu MiB)%s\n",
	    n->drv_fd >= 0 ? "attached" : (n->guest_ram ? "guest" : "none"),
	    n->drv_pid, n->drv_uid, (unsigned long long)n->attaches,
	    (unsigned long long)n->refused, n->nb_ranges,
	    (unsigned long long)(n->shared_bytes >> 20),
	    n->guest_ram ? " (guest RAM)" : "");
	OUT("clients: pending %u, not allowed %llu, no HELLO %llu, dropped %llu, memory gone %llu\n",
	    n->nb_pending, (unsigned long long)n->not_allowed,
	    (unsigned long long)n->no_hello, (unsigned long long)n->dropped,
	    (unsigned long long)n->mem_gone);
	OUT("translations %u, guest RAM mapped at its IOVA %llu MiB\n",
	    rd32(bar, TALLY_REG_XLT_COUNT), (unsigned long long)(n->mirrored >> 20));
	/* one port: as before 2.3; several: each port's block under its name */
	for (p = 0; p < n->nb_ports; p++) {
		bar = tally_model_bar(n->ports[p], NULL);
		mb = (const struct tally_mbox *)(uintptr_t)(bar + TALLY_MBOX_OFF);
		if (n->nb_ports > 1)
			OUT("port %u:\n", p);
		OUT("status 0x%x ctrl 0x%x faults %u last cause %u addr 0x%llx\n",
		    rd32(bar, TALLY_REG_STATUS), rd32(bar, TALLY_REG_CTRL),
		    rd32(bar, TALLY_REG_FAULT_CNT), rd32(bar, TALLY_REG_FAULT_CAUSE),
		    (unsigned long long)rd32(bar, TALLY_REG_FAULT_ADDR_LO) |
		    (unsigned long long)rd32(bar, TALLY_REG_FAULT_ADDR_HI) << 32);
		OUT("posted writes %llu session 0x%llx\n",
		    (unsigned long long)__atomic_load_n(&mb->cons, __ATOMIC_ACQUIRE),
		    (unsigned long long)__atomic_load_n(&mb->session_ack, __ATOMIC_ACQUIRE));
		for (i = 0; i < TALLY_STAT_NUM; i++)
			OUT("%s %llu\n", tally_port_stat_name(i),
			    (unsigned long long)rd64(bar, TALLY_REG_STAT(i)));
	}
#undef OUT
	return used;
}
