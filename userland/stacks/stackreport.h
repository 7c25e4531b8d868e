/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpmc report: the call stacks of a text trace (kpmc -o FILE with
 * fmt=callstack) symbolized and counted by function, self and total (the
 * function and its callees, as perf report --children), or as folded stacks
 * for flame graphs (--folded; kpmc-flame draws them).
 */
#ifndef KPMC_STACKREPORT_H
#define KPMC_STACKREPORT_H

/* argv[0] is "report"; the exit status. */
int kpmc_report_main(int argc, char **argv);

#endif
