// SPDX-License-Identifier: GPL-2.0
/*
 * What the kpmc command asks of the module: is it loaded, -I, event names
 * made raw configurations for this PMU, the active monitoring module's
 * virtual counters, and /proc/kpmc writes whose refusal is explained.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/eventspec.h"
#include "common/pfm_events.h"

int kpmc_module_loaded(void)
{
	if (kpmc_proc_present())
		return 1;
	fprintf(stderr, "kpmc: the kpmc kernel module is not loaded (no %s); load it with insmod kpmc.ko\n",
		KPMC_PROC_DIR);
	return 0;
}

static int cat_file(const char *path)
{
	char buf[4096];
	FILE *f;
	size_t n;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kpmc: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

/* -I: the PMU and hooks, then the monitoring modules and their availability. */
int kpmc_print_info(void)
{
	if (!kpmc_module_loaded())
		return 1;
	if (cat_file(KPMC_PROC_INFO))
		return 1;
	printf("[monitoring modules: activate N with echo 'activate N' > " KPMC_PROC_DIR "/mm_manager]\n");
	return cat_file(KPMC_PROC_DIR "/mm_manager");
}

/*
 * -c with event names ("instr,cycles:u", libpfm4 strings): encode each for
 * this PMU, put them on counters, and return the raw configuration.
 */
char *kpmc_names_to_raw_config(const char *list)
{
	char err[512], *out = malloc(1024);

	if (!out || kpmc_names_to_raw(KPMC_PROC_INFO, list, out, 1024, err, sizeof(err)) < 0) {
		fprintf(stderr, "kpmc: -c '%s': %s\n", list, out ? err : "out of memory");
		free(out);
		return NULL;
	}
	return out;
}

/* Every -c not raw already (and not -r) made raw: 0, or -1 told. */
int kpmc_configs_to_raw(struct kpmc_run_opts *o)
{
	for (int i = 0; i < o->nconfigs && !o->raw_only; i++) {
		if (kpmc_config_is_raw(o->configs[i]))
			continue;
		o->configs[i] = kpmc_names_to_raw_config(o->configs[i]);
		if (!o->configs[i])
			return -1;
	}
	return 0;
}

/*
 * The active module's virtual counter names ("virtual_counters: virt0=a
 * virt1=b" in info) into names[]; then, if wanted (-V a,b), the mask of the
 * wanted ones, or -1 naming the first unknown one.
 */
long kpmc_virtual_counters(char names[KPMC_MAX_VIRT][32], const char *wanted)
{
	char *tok, *save = NULL, list[256];
	struct kpmc_info info;
	unsigned int i;
	long mask = 0;

	kpmc_info_read(&info);
	memcpy(names, info.virt_name, sizeof(info.virt_name));
	if (!wanted)
		return 0;
	snprintf(list, sizeof(list), "%s", wanted);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < KPMC_MAX_VIRT && strcmp(names[i], tok); i++)
			;
		if (i == KPMC_MAX_VIRT) {
			fprintf(stderr, "kpmc: -V: the active monitoring module has no virtual counter '%s'; it has:",
				tok);
			for (i = 0; i < KPMC_MAX_VIRT; i++)
				if (names[i][0])
					fprintf(stderr, " %s", names[i]);
			fprintf(stderr, "%s\n", names[0][0] ? "" : " none (see kpmc -I)");
			return -1;
		}
		mask |= 1L << i;
	}
	return mask;
}

/* One write() of s to a /proc/kpmc file; on failure print what and why. */
int kpmc_proc_write_told(const char *file, const char *s, const char *what)
{
	char reason[256];

	if (!kpmc_proc_write(file, s, reason, sizeof(reason)))
		return 0;
	fprintf(stderr, "kpmc: %s: %s\n", what, reason);
	return -1;
}
