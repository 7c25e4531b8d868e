# Pure (I/O-free) sources of the CLI, also linked into tests/unit.
KPMC_PURE_SRCS := record_format.c aggregate.c options.c eventspec.c topmodel.c memaccess.c \
	stackparts.c stackline.c ksyms.c stackfold.c metricexpr.c metricgroup.c metricmodel.c
