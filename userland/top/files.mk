# top/: kpmc-top, the live view (ncurses), and its model.
TOP_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
TOP_SRCS := $(wildcard $(TOP_DIR)*.c)
TOP_HDRS := $(wildcard $(TOP_DIR)*.h)
KPMC_PURE_SRCS += $(TOP_DIR)topmodel.c
