/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the device-process tests: start and stop a tally-nic on a
 * socket of this test's own, and be its driver through lib/hal's host
 * transport and posted writes (struct drv: the BAR, one memfd of MEM_LEN
 * bytes shared at its own virtual address, as the PMD shares its memory).
 */
#ifndef NIC_TEST_UTIL_H
#define NIC_TEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tally_hal.h"
#include "tally_hal_hostif.h"
#include "tally_hal_io.h"
#include "tally_hal_posted.h"
#include "tally_test.h"

#define MEM_LEN		(1u << 20)
#define RING_LOG2	4

static const char *nic_exe;
static char sock_path[108];

struct drv {
	struct tally_hostif_conn conn;
	struct tally_posted posted;
	struct tally_hal_dev hal;
	void *bar;
	size_t bar_len;
	int memfd;
	uint8_t *mem;		/* MEM_LEN bytes shared with the device */
};

/*
 * Start tally-nic with args (NULL-terminated, after the socket option);
 * its standard error goes to log when not NULL. The pid once the socket
 * is there, -1 when it exited or did not get there.
 */
static inline pid_t
nic_start_log(const char *const *extra, const char *log)
{
	const char *argv[24] = { nic_exe, "--socket", sock_path, "--log-level", "2" };
	struct stat st;
	unsigned int i, n = 5;
	pid_t pid;
	int fd;

	for (i = 0; extra != NULL && extra[i] != NULL && n < 23; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	unlink(sock_path);
	pid = fork();
	if (pid == 0) {
		if (log != NULL) {
			fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
			if (fd >= 0)
				dup2(fd, 2);
		}
		execv(nic_exe, (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	for (i = 0; i < 500; i++) {
		if (stat(sock_path, &st) == 0)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static inline pid_t
nic_start(const char *const *extra)
{
	return nic_start_log(extra, NULL);
}

static inline void
nic_stop(pid_t pid, int sig)
{
	if (pid <= 0)
		return;
	kill(pid, sig);
	waitpid(pid, NULL, 0);
}

/* Connect, share MEM_LEN bytes, map the BAR and open the device. */
static inline int
drv_attach(struct drv *d)
{
	struct tally_io io;
	char err[256];
	int rc;

	memset(d, 0, sizeof(*d));
	d->memfd = memfd_create("tally-test-dma", MFD_CLOEXEC);
	if (d->memfd < 0 || ftruncate(d->memfd, MEM_LEN) != 0)
		return -errno;
	d->mem = mmap(NULL, MEM_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, d->memfd, 0);
	if (d->mem == MAP_FAILED)
		return -errno;
	rc = tally_hostif_connect(sock_path, &d->conn, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "  %s\n", err);
		return rc;
	}
	/* bus = our virtual address, as the PMD does */
	rc = tally_hostif_add_mem(&d->conn, d->memfd, (uint64_t)(uintptr_t)d->mem,
				  MEM_LEN, 0);
	if (rc == 0)
		rc = tally_hostif_sync(&d->conn, err, sizeof(err));
	if (rc != 0)
		return rc;
	d->bar_len = d->conn.bar_len;
	d->bar = mmap(NULL, d->bar_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      d->conn.bar_fd, 0);
	if (d->bar == MAP_FAILED)
		return -errno;
	rc = tally_posted_attach(&d->posted, d->bar, d->bar_len, "test", &io);
	if (rc == 0)
		rc = tally_hal_open(&d->hal, &io);
	return rc;
}

static inline void
drv_detach(struct drv *d)
{
	if (d->bar != NULL && d->bar != MAP_FAILED)
		munmap(d->bar, d->bar_len);
	tally_hostif_close(&d->conn);
	if (d->mem != NULL && d->mem != MAP_FAILED)
		munmap(d->mem, MEM_LEN);
	if (d->memfd > 0)
		close(d->memfd);
	d->bar = NULL;
	d->mem = NULL;
	d->memfd = -1;
}

/* Tx queue 0 with its rings at the start of the shared memory. */
static inline int
drv_txq(struct drv *d)
{
	uint64_t base = (uint64_t)(uintptr_t)d->mem;
	int rc;

	memset(d->mem, 0, 4096);
	rc = tally_hal_xlt_map(&d->hal, base, base, MEM_LEN);
	if (rc == 0)
		rc = tally_hal_txq_create(&d->hal, 0, base, base + 1024, RING_LOG2);
	if (rc == 0)
		rc = tally_hal_txq_enable(&d->hal, 0);
	tally_hal_ctrl_update(&d->hal, TALLY_CTRL_ENABLE, 0);
	return rc;
}

/* Write descriptor i of Tx queue 0 (the doorbell is the caller's). */
static inline void
drv_tx_post(struct drv *d, uint32_t i, uint64_t addr, uint16_t len)
{
	struct tally_tx_desc *ring = (struct tally_tx_desc *)(void *)d->mem;
	uint32_t slot = i & ((1u << RING_LOG2) - 1);

	ring[slot].addr = addr;
	ring[slot].len = len;
	ring[slot].flags = TALLY_TXD_F_EOP;
}

/* Post descriptor i of Tx queue 0 and wait for its completion status. */
static inline int
drv_tx_one(struct drv *d, uint32_t i, uint64_t addr, uint16_t len)
{
	struct tally_tx_cqe *cq = (struct tally_tx_cqe *)(void *)(d->mem + 1024);
	uint64_t deadline = tally_time_ns() + 2000000000ull;
	uint32_t slot = i & ((1u << RING_LOG2) - 1);

	drv_tx_post(d, i, addr, len);
	tally_hal_txq_doorbell(&d->hal, 0, i + 1);
	while (!tally_hal_tx_cqe_ready(&cq[slot], 1)) {
		if (tally_time_ns() > deadline)
			return -ETIMEDOUT;
		usleep(100);
	}
	return cq[slot].status;
}

#endif /* NIC_TEST_UTIL_H */
