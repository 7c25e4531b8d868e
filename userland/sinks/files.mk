# sinks/: what becomes of a record (common/sink.h's chain): rows, totals,
# the raw copy, call stacks, memory samples, metrics. kpmc-top links only
# the metrics sink.
SINKS_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
SINKS_SRCS := $(wildcard $(SINKS_DIR)*.c)
SINKS_HDRS := $(wildcard $(SINKS_DIR)*.h)
