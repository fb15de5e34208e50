/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared mappings whose loss must not kill the process.
 *
 * A mapping of a file another process controls (the device process's BAR,
 * memory a driver shares with the device) faults with SIGBUS when that
 * file shrinks under it. A guarded mapping does not: the process-wide
 * SIGBUS handler installed by the first tally_guard_add() finds the range
 * the faulting address lies in, maps anonymous zero pages over the whole
 * range (MAP_FIXED, same protection), sets the range's lost flag and
 * returns, so the access is retried on the zero pages. The owner sees the
 * flag and treats the memory as gone. A fault anywhere else goes to the
 * handler that was installed before (or the default action: the process
 * dies as it would have).
 *
 * The table is fixed (TALLY_GUARD_MAX ranges) and read by the handler
 * without locks. Remove a range before unmapping it.
 */
#ifndef TALLY_GUARD_H
#define TALLY_GUARD_H

#include <stddef.h>

#define TALLY_GUARD_MAX	64

/* Guard [addr, addr + len). lost (may be NULL) is set to 1 (atomic store)
 * when the range was lost. 0, -EINVAL, -ENOSPC (table full) or the errno
 * of installing the handler. */
int tally_guard_add(void *addr, size_t len, int *lost);

/* Stop guarding the range that starts at addr (no-op when none does). */
void tally_guard_del(void *addr);

/* Ranges lost since the process started (diagnostics). */
unsigned long tally_guard_lost_count(void);

#endif /* TALLY_GUARD_H */
