/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver side of the host transport (tally_hostif.h): connect to a device
 * process, receive its BAR, share with it the memory it may reach by DMA.
 *
 * Life cycle: tally_hostif_connect() -> map conn.bar_fd and attach with
 * tally_posted_attach() -> tally_hostif_add_mem() for the memory there is
 * and tally_hostif_sync() -> translations (tally_hal.h) -> ...
 * tally_hostif_add_mem() / tally_hostif_del_mem() and tally_hostif_sync()
 * as memory comes and goes ... -> tally_hostif_close() (the device resets
 * and forgets the ranges).
 *
 * Every call is bounded in time (socket timeouts); none returns before the
 * device has answered or TALLY_HOSTIF_TIMEOUT_MS passed (-ETIMEDOUT).
 * One thread at a time per connection (the caller serialises).
 */
#ifndef TALLY_HAL_HOSTIF_H
#define TALLY_HAL_HOSTIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tally/tally_hostif.h>

#define TALLY_HOSTIF_TIMEOUT_MS	5000

struct tally_hostif_conn {
	int sock;			/* the attachment; -1 when closed */
	int bar_fd;			/* -1 when not received */
	uint64_t bar_len;
};

/*
 * Connect to the device at socket path and ask to become its driver.
 * -EBUSY another driver is attached (its message in err), -ENOENT /
 * -ECONNREFUSED no device there, -EPROTO a malformed answer, -EACCES this
 * user may not connect, -EAGAIN too many connections pending.
 */
int tally_hostif_connect(const char *path, struct tally_hostif_conn *c,
			 char *err, size_t errlen);
/*
 * A secondary process of the attached driver: c->bar_fd and c->bar_len of
 * the device's BAR (no connection is kept; map the BAR and join the
 * driver's session with tally_posted_join()). -ENODEV no driver attached.
 */
int tally_hostif_join(const char *path, struct tally_hostif_conn *c,
		      char *err, size_t errlen);
/* Share [bus, bus + len) backed by fd at offset (no answer: see sync). */
int tally_hostif_add_mem(struct tally_hostif_conn *c, int fd, uint64_t bus,
			 uint64_t len, uint64_t offset);
/* Stop sharing every range inside [bus, bus + len) (no answer). */
int tally_hostif_del_mem(struct tally_hostif_conn *c, uint64_t bus, uint64_t len);
/* Wait for the device to have handled everything sent before; returns its
 * verdict on it (0 or its first error since the last sync). */
int tally_hostif_sync(struct tally_hostif_conn *c, char *err, size_t errlen);
/* Close the attachment (and the BAR fd if still open). */
void tally_hostif_close(struct tally_hostif_conn *c);
/*
 * True once the device process closed the attachment (it exited, was
 * killed, or dropped this driver): the device is gone for good. conn is a
 * struct tally_hostif_conn; no wait, any thread (a tally_posted_watch()
 * callback).
 */
bool tally_hostif_gone(void *conn);
/*
 * One message each way, at most one fd (both sides of the protocol use
 * these). send: 0 or -errno. recv: 0 with *fd the fd or -1; -EAGAIN nothing
 * pending (nowait), -ETIMEDOUT (the socket's receive timeout), -ECONNRESET
 * closed, -EPROTO malformed (any fd closed).
 */
int tally_hostif_send(int sock, const struct tally_hostif_msg *m, int fd, bool nowait);
int tally_hostif_recv(int sock, struct tally_hostif_msg *m, int *fd, bool nowait);

/* Read the device's statistics as text (no attachment needed). A refusal
 * is its status: -EACCES this user is not allowed, -EAGAIN too many
 * connections pending. */
int tally_hostif_stats(const char *path, char *buf, size_t len);

#endif /* TALLY_HAL_HOSTIF_H */
