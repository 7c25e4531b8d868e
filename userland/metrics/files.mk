# metrics/: metric expressions, groups and models (share/kpmc), and their
# binding to a session's counters (event names through libpfm4).
METRICS_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
METRICS_SRCS := $(wildcard $(METRICS_DIR)*.c)
METRICS_HDRS := $(wildcard $(METRICS_DIR)*.h)
KPMC_PURE_SRCS += $(addprefix $(METRICS_DIR),metricexpr.c metricgroup.c metricmodel.c)
