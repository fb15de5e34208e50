/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL memory arguments of the C test and benchmark programs, chosen by
 * TALLY_TEST_MEM. The twin of devtools/eal-mem.sh (the scripts' side):
 * keep the two alike.
 *
 *   pa (default)  hugepages, IOVA as PA:  --in-memory --iova-mode=pa
 *   va            hugepages, IOVA as VA:  --in-memory --iova-mode=va
 *   nohuge        no hugepages:           --no-huge -m <MB> --no-shconf
 *
 * --in-memory leaves no hugepage file behind and implies --no-shconf. A
 * hugepage mode needs a hugetlbfs mounted and writable, at least
 * TALLY_EAL_MEM_MIN_FREE free pages, and root for IOVA as PA; where it
 * cannot run, tally_eal_mem_args() says why on stderr and exits 77
 * (meson's skip). No EAL call here: it runs before rte_eal_init().
 */
#ifndef TALLY_EAL_MEM_H
#define TALLY_EAL_MEM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TALLY_EAL_MEM_MIN_FREE	64	/* 2 MiB pages: 128 MiB */
#define TALLY_EAL_MEM_MAX_ARGS	4

/* "pa", "va" or "nohuge"; exits 2 on any other TALLY_TEST_MEM. */
static inline const char *
tally_eal_mem_mode(void)
{
	const char *m = getenv("TALLY_TEST_MEM");

	if (m == NULL || *m == '\0')
		return "pa";
	if (strcmp(m, "pa") == 0 || strcmp(m, "va") == 0 || strcmp(m, "nohuge") == 0)
		return m;
	fprintf(stderr, "eal-mem: TALLY_TEST_MEM='%s': use pa, va or nohuge\n", m);
	exit(2);
}

/* 0 when the mode can run here; else -1 and the reason in why. */
static inline int
tally_eal_mem_why_not(char *why, size_t len)
{
	const char *mode = tally_eal_mem_mode();
	char line[512], dev[128], mnt[256] = "", type[64];
	long free_pages = 0;
	FILE *f;

	if (strcmp(mode, "nohuge") == 0)
		return 0;
	f = fopen("/proc/mounts", "r");
	while (f != NULL && mnt[0] == '\0' && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%127s %255s %63s", dev, mnt, type) != 3 ||
		    strcmp(type, "hugetlbfs") != 0)
			mnt[0] = '\0';
	if (f != NULL)
		fclose(f);
	f = fopen("/proc/meminfo", "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "HugePages_Free: %ld", &free_pages) == 1)
			break;
	if (f != NULL)
		fclose(f);
	if (mnt[0] == '\0')
		snprintf(why, len, "no hugetlbfs mounted (devtools/setup.sh mounts "
			 "one at /dev/hugepages as root)");
	else if (access(mnt, W_OK) != 0)
		snprintf(why, len, "hugetlbfs at %s is not writable for uid %d",
			 mnt, (int)geteuid());
	else if (free_pages < TALLY_EAL_MEM_MIN_FREE)
		snprintf(why, len, "%ld free hugepages, fewer than %d (HugePages_Free; "
			 "devtools/setup.sh reserves them as root)", free_pages,
			 TALLY_EAL_MEM_MIN_FREE);
	else if (strcmp(mode, "pa") == 0 && geteuid() != 0)
		snprintf(why, len, "IOVA as PA needs root (physical addresses)");
	else
		return 0;
	return -1;
}

/*
 * Put the memory arguments of the mode into argv (room for
 * TALLY_EAL_MEM_MAX_ARGS; mb is -m of nohuge) and return how many. Where
 * the mode cannot run: the reason on stderr, exit 77.
 */
static inline int
tally_eal_mem_args(char **argv, unsigned int mb)
{
	static char mode_arg[32], mb_arg[16];
	const char *mode = tally_eal_mem_mode();
	char why[512];

	if (tally_eal_mem_why_not(why, sizeof(why)) != 0) {
		fprintf(stderr, "SKIP: memory mode %s (TALLY_TEST_MEM): %s; "
			"TALLY_TEST_MEM=nohuge runs without hugepages\n", mode, why);
		exit(77);
	}
	if (strcmp(mode, "nohuge") == 0) {
		snprintf(mb_arg, sizeof(mb_arg), "%u", mb);
		argv[0] = (char *)"--no-huge";
		argv[1] = (char *)"-m";
		argv[2] = mb_arg;
		argv[3] = (char *)"--no-shconf";
		return 4;
	}
	snprintf(mode_arg, sizeof(mode_arg), "--iova-mode=%s", mode);
	argv[0] = (char *)"--in-memory";
	argv[1] = mode_arg;
	return 2;
}

#endif /* TALLY_EAL_MEM_H */
