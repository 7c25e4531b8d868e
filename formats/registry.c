// SPDX-License-Identifier: GPL-2.0
/*
 * The formats built into kpmc.ko, in registration order. Adding a built-in
 * format is adding a file and a line here; kernel/format.c, the registry,
 * never names a format.
 */
#include <linux/kernel.h>

#include "kpmc/format.h"
#include "formats.h"

struct builtin_format {
	int (*init)(void);
	void (*exit)(void);	/* frees what init took; nothing uses the format any more */
};

static const struct builtin_format builtin_formats[] = {
	{ kpmc_format_mem_init, NULL },
	{ kpmc_format_callstack_init, kpmc_format_callstack_exit },
};

void kpmc_builtin_formats_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(builtin_formats) - 1; i >= 0; i--)
		if (builtin_formats[i].exit)
			builtin_formats[i].exit();
}

/*
 * After kpmc_formats_init(). On failure the formats registered so far stay
 * listed until the caller's kpmc_formats_exit(); nothing can use them yet.
 */
int kpmc_builtin_formats_init(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(builtin_formats); i++) {
		err = builtin_formats[i].init();
		if (err) {
			while (--i >= 0)
				if (builtin_formats[i].exit)
					builtin_formats[i].exit();
			return err;
		}
	}
	return 0;
}
