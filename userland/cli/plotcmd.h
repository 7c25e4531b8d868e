/* SPDX-License-Identifier: GPL-2.0 */
/* kpmc plot: metrics over time per thread from a saved trace, drawn by gnuplot. */
#ifndef KPMC_PLOTCMD_H
#define KPMC_PLOTCMD_H

/* kpmc plot [-m NAME=EXPR]... [-o OUT.svg] [-d DATA] TRACE; argv[0] is "plot". */
int kpmc_plot_main(int argc, char **argv);

#endif
