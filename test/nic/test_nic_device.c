/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device process (tally-nic) driven without DPDK, through lib/hal's
 * host transport and posted writes: attach, a second driver refused, a
 * hostile driver's bogus DMA addresses counted as faults while the device
 * keeps serving, memory shared and taken back (a translation into memory
 * no longer shared is gone, a range past its file refused), detach and
 * re-attach, the device killed (the driver sees it gone, nothing hangs),
 * refused settings, the statistics query.
 *
 * argv[1]: the tally-nic executable.
 */
#include "nic_test_util.h"

static int
test_attach(void)
{
	pid_t pid = nic_start((const char *const[]){ "wire=none", NULL });
	struct drv d;

	TEST_ASSERT(pid > 0, "tally-nic did not start");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT(d.hal.caps & TALLY_CAP_POSTED, "caps 0x%x", d.hal.caps);
	TEST_ASSERT_EQ(d.hal.nb_txq, 8, "");
	TEST_ASSERT(TALLY_IS_POW2(d.bar_len), "BAR %zu bytes", d.bar_len);
	TEST_ASSERT(tally_hal_link_up(&d.hal), "");
	TEST_ASSERT(!tally_hal_gone(&d.hal), "");
	drv_detach(&d);
	nic_stop(pid, SIGTERM);
	return TEST_SUCCESS;
}

static int
test_second_driver_refused(void)
{
	pid_t pid = nic_start(NULL);
	struct tally_hostif_conn c2;
	char err[256] = "";
	struct drv d;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT_EQ(tally_hostif_connect(sock_path, &c2, err, sizeof(err)), -EBUSY, "");
	TEST_ASSERT(strstr(err, "busy") != NULL && strstr(err, "attached") != NULL,
		    "message: %s", err);
	/* the first driver is undisturbed */
	TEST_ASSERT_EQ(tally_hal_read32(&d.hal, TALLY_REG_SIG), TALLY_SIGNATURE, "");
	drv_detach(&d);
	nic_stop(pid, SIGTERM);
	return TEST_SUCCESS;
}

static int
test_hostile_dma(void)
{
	pid_t pid = nic_start((const char *const[]){ "wire=none", NULL });
	uint64_t base, faults0;
	struct drv d;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT_EQ(drv_txq(&d), 0, "");
	base = (uint64_t)(uintptr_t)d.mem;
	faults0 = tally_hal_port_stat(&d.hal, TALLY_STAT_DMA_FAULTS);
	/* an address no translation maps */
	TEST_ASSERT_EQ(drv_tx_one(&d, 0, 0xdead0000ull, 60), TALLY_TXC_ERR_DMA, "");
	/* a translation to bus addresses beyond the memory shared: refused,
	 * and the device cannot reach them */
	TEST_ASSERT_EQ(tally_hal_xlt_map(&d.hal, base + MEM_LEN, base + MEM_LEN, MEM_LEN),
		       -EFAULT, "");
	TEST_ASSERT_EQ(tally_hal_xlt_map(&d.hal, 0x10000000ull, base + MEM_LEN / 2, MEM_LEN),
		       -EFAULT, "half outside");
	TEST_ASSERT_EQ(drv_tx_one(&d, 1, base + MEM_LEN + 4096, 60), TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT_U64_EQ(tally_hal_port_stat(&d.hal, TALLY_STAT_DMA_FAULTS), faults0 + 2, "");
	TEST_ASSERT_EQ(tally_hal_read32(&d.hal, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_DMA, "");
	TEST_ASSERT_U64_EQ(tally_hal_read32(&d.hal, TALLY_REG_FAULT_ADDR_LO),
			   (uint32_t)(base + MEM_LEN + 4096), "");
	/* and the device keeps serving: a valid frame goes out */
	memset(d.mem + 8192, 0xab, 60);
	TEST_ASSERT_EQ(drv_tx_one(&d, 2, base + 8192, 60), TALLY_TXC_OK, "");
	TEST_ASSERT_U64_EQ(tally_hal_port_stat(&d.hal, TALLY_STAT_TX_PKTS), 1, "");
	TEST_ASSERT(!tally_hal_gone(&d.hal), "");
	drv_detach(&d);
	nic_stop(pid, SIGTERM);
	return TEST_SUCCESS;
}

/* Memory shared and taken back while attached (what EAL's memory events
 * do): a range past the end of its file is refused (a mapping there would
 * SIGBUS the device); a translation into a range taken back is gone. */
static int
test_memory_events(void)
{
	pid_t pid = nic_start((const char *const[]){ "wire=none", NULL });
	uint64_t extra_va, base;
	char err[256] = "";
	uint8_t *extra;
	struct drv d;
	int fd;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT_EQ(drv_txq(&d), 0, "");
	base = (uint64_t)(uintptr_t)d.mem;
	fd = memfd_create("tally-test-extra", MFD_CLOEXEC);
	TEST_ASSERT(fd >= 0 && ftruncate(fd, 2 * 4096) == 0, "");
	extra = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	TEST_ASSERT(extra != MAP_FAILED, "");
	extra_va = (uint64_t)(uintptr_t)extra;
	/* a range longer than its file */
	TEST_ASSERT_EQ(tally_hostif_add_mem(&d.conn, fd, extra_va, 4 * 4096, 0), 0, "");
	TEST_ASSERT_EQ(tally_hostif_sync(&d.conn, err, sizeof(err)), -EINVAL, "%s", err);
	TEST_ASSERT_EQ(tally_hal_xlt_map(&d.hal, extra_va, extra_va, 2 * 4096), -EFAULT,
		       "nothing shared there");
	/* the right size: shared, mapped, used */
	TEST_ASSERT_EQ(tally_hostif_add_mem(&d.conn, fd, extra_va, 2 * 4096, 0), 0, "");
	TEST_ASSERT_EQ(tally_hostif_sync(&d.conn, err, sizeof(err)), 0, "%s", err);
	TEST_ASSERT_EQ(tally_hal_xlt_map(&d.hal, extra_va, extra_va, 2 * 4096), 0, "");
	memset(extra, 0xcd, 60);
	TEST_ASSERT_EQ(drv_tx_one(&d, 0, extra_va, 60), TALLY_TXC_OK, "");
	/* taken back without an unmap first: the device drops the
	 * translation itself */
	TEST_ASSERT_EQ(tally_hostif_del_mem(&d.conn, extra_va, 2 * 4096), 0, "");
	TEST_ASSERT_EQ(tally_hostif_sync(&d.conn, err, sizeof(err)), 0, "%s", err);
	TEST_ASSERT_EQ(drv_tx_one(&d, 1, extra_va, 60), TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT_EQ(tally_hal_xlt_unmap(&d.hal, extra_va, 2 * 4096), -ENOENT,
		       "already gone");
	/* taking back what was never shared */
	TEST_ASSERT_EQ(tally_hostif_del_mem(&d.conn, extra_va, 4096), 0, "");
	TEST_ASSERT_EQ(tally_hostif_sync(&d.conn, err, sizeof(err)), -ENOENT, "%s", err);
	/* half of the first range back: its other half still works */
	TEST_ASSERT_EQ(tally_hal_xlt_unmap(&d.hal, base + MEM_LEN / 2, MEM_LEN / 2), 0, "");
	TEST_ASSERT_EQ(tally_hostif_del_mem(&d.conn, base + MEM_LEN / 2, MEM_LEN / 2), 0, "");
	TEST_ASSERT_EQ(tally_hostif_sync(&d.conn, err, sizeof(err)), 0, "%s", err);
	memset(d.mem + 8192, 0xab, 60);
	TEST_ASSERT_EQ(drv_tx_one(&d, 2, base + 8192, 60), TALLY_TXC_OK, "");
	TEST_ASSERT_EQ(drv_tx_one(&d, 3, base + MEM_LEN / 2 + 8192, 60), TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT(!tally_hal_gone(&d.hal), "");
	munmap(extra, 2 * 4096);
	close(fd);
	drv_detach(&d);
	nic_stop(pid, SIGTERM);
	return TEST_SUCCESS;
}

static int
test_reattach(void)
{
	pid_t pid = nic_start((const char *const[]){ "wire=none", NULL });
	char buf[4096];
	struct drv d;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT_EQ(drv_txq(&d), 0, "");
	TEST_ASSERT_EQ(tally_hostif_stats(sock_path, buf, sizeof(buf)), 0, "");
	TEST_ASSERT(strstr(buf, "driver: attached") != NULL, "%s", buf);
	drv_detach(&d);		/* as a crash would: no reset from our side */
	TEST_ASSERT_EQ(drv_attach(&d), 0, "a new driver attaches");
	TEST_ASSERT_EQ(tally_hal_ctrl_get(&d.hal), 0, "device reset on detach");
	TEST_ASSERT_EQ(tally_hal_read32(&d.hal, TALLY_TXQ_REG(0, TALLY_Q_CTRL)), 0, "");
	TEST_ASSERT_EQ(tally_hostif_stats(sock_path, buf, sizeof(buf)), 0, "");
	TEST_ASSERT(strstr(buf, "attaches 2") != NULL, "%s", buf);
	drv_detach(&d);
	nic_stop(pid, SIGTERM);
	return TEST_SUCCESS;
}

static int
test_device_killed(void)
{
	pid_t pid = nic_start((const char *const[]){ "wire=none", NULL });
	uint64_t t0, dt;
	struct drv d;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT_EQ(drv_txq(&d), 0, "");
	nic_stop(pid, SIGKILL);
	t0 = tally_time_ns();
	/* the read waits for the dead device, then reads all ones */
	tally_hal_ctrl_update(&d.hal, TALLY_CTRL_PROMISC, 0);
	TEST_ASSERT_EQ(tally_hal_read32(&d.hal, TALLY_REG_STATUS), UINT32_MAX, "");
	dt = tally_time_ns() - t0;
	TEST_ASSERT(dt < 3ull * TALLY_MBOX_LOST_US * 1000, "took %" PRIu64 " ns", dt);
	TEST_ASSERT(tally_hal_gone(&d.hal), "");
	TEST_ASSERT(!tally_hal_link_up(&d.hal), "");
	TEST_ASSERT_EQ(tally_hal_ccnt_cmd(&d.hal, 0, TALLY_CCNT_CMD_ADD_COMP, 1), -ENODEV, "");
	/* later calls do not wait again */
	t0 = tally_time_ns();
	TEST_ASSERT_EQ(tally_hal_read32(&d.hal, TALLY_REG_CTRL), UINT32_MAX, "");
	TEST_ASSERT(tally_time_ns() - t0 < 100000000ull, "");
	drv_detach(&d);
	/* a restarted device serves a new driver */
	pid = nic_start(NULL);
	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT(tally_hal_link_up(&d.hal), "");
	drv_detach(&d);
	nic_stop(pid, SIGTERM);
	return TEST_SUCCESS;
}

static int
test_refused_settings(void)
{
	static const char *const bad[][2] = {
		{ "wire=bogus", "wire" },
		{ "rxq=99", "rxq" },
		{ "mode=inline", "mode" },
		{ "foo=1", "foo" },
		{ "counters=", "counters" },
	};
	char cmd[512], out[1024];
	unsigned int i;
	FILE *p;

	for (i = 0; i < TALLY_ARRAY_SIZE(bad); i++) {
		snprintf(cmd, sizeof(cmd), "%s --socket %s %s 2>&1; echo rc=$?",
			 nic_exe, sock_path, bad[i][0]);
		p = popen(cmd, "r");
		TEST_ASSERT(p != NULL, "");
		out[fread(out, 1, sizeof(out) - 1, p)] = '\0';
		pclose(p);
		TEST_ASSERT(strstr(out, "rc=2") != NULL, "%s: %s", bad[i][0], out);
		TEST_ASSERT(strstr(out, bad[i][1]) != NULL, "%s: %s", bad[i][0], out);
	}
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_attach),
	TEST_CASE(test_second_driver_refused),
	TEST_CASE(test_hostile_dma),
	TEST_CASE(test_memory_events),
	TEST_CASE(test_reattach),
	TEST_CASE(test_device_killed),
	TEST_CASE(test_refused_settings),
};

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TALLY_NIC\n", argv[0]);
		return 2;
	}
	nic_exe = argv[1];
	snprintf(sock_path, sizeof(sock_path), "/tmp/tally-nic-test-%d.sock",
		 (int)getpid());
	signal(SIGPIPE, SIG_IGN);
	return tally_test_run("nic-device", cases, TALLY_ARRAY_SIZE(cases));
}
