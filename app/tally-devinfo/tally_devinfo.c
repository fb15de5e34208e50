/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tally-devinfo: command line. See usage() and doc/pci.md.
 *
 * Exit status: 0 success, 1 failure (no device, unreadable or inconsistent
 * BAR, bind failed), 2 usage error.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tally_devinfo.h"

enum { OPT_SYSFS = 256 };

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: tally-devinfo [--json] [BDF...]     list Tally PCI functions (or the given ones)\n"
		"       tally-devinfo [--json] --bar FILE   identity of a BAR file (device process)\n"
		"       tally-devinfo --bind DRIVER BDF     bind a function to a kernel driver (e.g. vfio-pci)\n"
		"       tally-devinfo --unbind BDF          unbind a function from its driver\n"
		"options: --sysfs DIR  PCI bus directory instead of " TALLY_DEVINFO_SYSFS_DEFAULT "\n"
		"BDF: dddd:bb:dd.f or bb:dd.f\n");
}

static int
do_bar(const struct tally_devinfo_out *o, const char *file)
{
	struct tally_devinfo_problems p;
	struct tally_devinfo_id id;
	char err[TALLY_DEVINFO_ERR_LEN];
	uint64_t len;

	if (tally_devinfo_bar_read(file, &id, &len, err, sizeof(err)) != 0) {
		fprintf(stderr, "tally-devinfo: %s\n", err);
		return 1;
	}
	tally_devinfo_id_check(&id, len, &p);
	if (o->json) {
		fputs("{\"file\": ", o->f);
		tally_devinfo_json_str(o->f, file);
		fprintf(o->f, ", \"size\": %" PRIu64 ", \"identity\": {", len);
		tally_devinfo_print_id(o, &id);
		fputs("}, ", o->f);
		tally_devinfo_print_problems(o, &p);
		fputs("}\n", o->f);
	} else {
		fprintf(o->f, "%s: BAR file, %" PRIu64 " bytes\n", file, len);
		tally_devinfo_print_id(o, &id);
		tally_devinfo_print_problems(o, &p);
	}
	return p.n != 0;
}

static int
do_bind(const char *sysfs, const char *driver, const char *arg)
{
	char bdf[16], err[TALLY_DEVINFO_ERR_LEN] = "";
	int rc;

	if (tally_devinfo_bdf_parse(arg, bdf, sizeof(bdf)) != 0) {
		fprintf(stderr, "tally-devinfo: bad BDF '%s' (dddd:bb:dd.f)\n", arg);
		return 2;
	}
	if (driver != NULL)
		rc = tally_devinfo_bind(sysfs, bdf, driver, err, sizeof(err));
	else
		rc = tally_devinfo_unbind(sysfs, bdf, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "tally-devinfo: %s\n", err);
		return 1;
	}
	if (driver != NULL)
		printf(rc == 1 ? "%s: already bound to %s\n" : "%s: bound to %s\n",
		       bdf, driver);
	else
		printf(rc == 1 ? "%s: not bound to a driver\n" : "%s: unbound\n", bdf);
	return 0;
}

static int
do_list(const struct tally_devinfo_out *o, const char *sysfs, int argc,
	char **argv)
{
	char **bdfs;
	int i, rc;

	bdfs = calloc((size_t)argc + 1, sizeof(*bdfs));
	if (bdfs == NULL)
		return 1;
	for (i = 0; i < argc; i++) {
		bdfs[i] = malloc(16);
		if (bdfs[i] == NULL ||
		    tally_devinfo_bdf_parse(argv[i], bdfs[i], 16) != 0) {
			fprintf(stderr, "tally-devinfo: bad BDF '%s' (dddd:bb:dd.f)\n",
				argv[i]);
			rc = 2;
			goto out;
		}
	}
	rc = tally_devinfo_pci_list(o, sysfs, bdfs, argc);
out:
	for (i = 0; i < argc; i++)
		free(bdfs[i]);
	free(bdfs);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bar", required_argument, NULL, 'b' },
		{ "bind", required_argument, NULL, 'B' },
		{ "unbind", no_argument, NULL, 'u' },
		{ "json", no_argument, NULL, 'j' },
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tally_devinfo_out o = { .f = stdout };
	const char *sysfs = TALLY_DEVINFO_SYSFS_DEFAULT;
	const char *bar = NULL, *driver = NULL;
	bool unbind = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': bar = optarg; break;
		case 'B': driver = optarg; break;
		case 'u': unbind = true; break;
		case 'j': o.json = true; break;
		case OPT_SYSFS: sysfs = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if ((bar != NULL) + (driver != NULL) + unbind > 1) {
		fprintf(stderr, "tally-devinfo: --bar, --bind and --unbind exclude each other\n");
		return 2;
	}
	if (bar != NULL) {
		if (argc != 0) {
			usage(stderr);
			return 2;
		}
		return do_bar(&o, bar);
	}
	if (driver != NULL || unbind) {
		if (argc != 1) {
			fprintf(stderr, "tally-devinfo: --%s takes one BDF\n",
				unbind ? "unbind" : "bind DRIVER");
			return 2;
		}
		return do_bind(sysfs, driver, argv[0]);
	}
	return do_list(&o, sysfs, argc, argv);
}
