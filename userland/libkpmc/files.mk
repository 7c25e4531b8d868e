# libkpmc/: self-monitoring (the session, the counters' reads, regions, the
# session's records and samples, memory samples, the fold trace, function
# regions; libkpmc_internal.h says which file does what), header in
# include/, exports in libkpmc.map; with it, what it uses of common/ and
# metrics/.
LIBKPMC_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
LIBKPMC_OWN_SRCS := $(wildcard $(LIBKPMC_DIR)*.c)
LIBKPMC_SRCS := $(LIBKPMC_OWN_SRCS) $(addprefix $(COMMON_DIR),cgroup_count.c eventspec.c pfm_events.c memaccess.c kpmc_proc.c mux_estimate.c) \
	$(METRICS_DIR)metricexpr.c
LIBKPMC_HDRS := $(wildcard $(LIBKPMC_DIR)*.h $(LIBKPMC_DIR)include/*.h)
