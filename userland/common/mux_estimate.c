// SPDX-License-Identifier: GPL-2.0
#include "mux_estimate.h"

#include <math.h>
#include <string.h>

/* A stretch of the set ends: fold it into the set's sums. */
static void stretch_close(struct kpmc_set_stream *st, uint32_t mask, const double *x, double t)
{
	uint32_t m;

	for (m = mask; m; m &= m - 1) {
		unsigned int c = (unsigned int)__builtin_ctz(m);
		double rate = t > 0 ? x[c] / t : 0;

		if (st->stretches)
			st->interp[c] += st->gap * (st->last_rate[c] + rate) / 2;
		else
			st->interp[c] += st->gap * rate;
		st->interp[c] += x[c];
		st->last_rate[c] = rate;
		st->x[c] += x[c];
		st->xx[c] += x[c] * x[c];
		st->xt[c] += x[c] * t;
		if (st->stretches) {
			double dx = x[c] - st->prev_x[c];

			st->dxx[c] += dx * dx;
			st->dxt[c] += dx * (t - st->prev_t);
		}
		st->prev_x[c] = x[c];
	}
	st->mask |= mask;
	st->tt += t * t;
	if (st->stretches)
		st->dtt += (t - st->prev_t) * (t - st->prev_t);
	st->prev_t = t;
	st->time += t;
	st->gap = 0;
	st->stretches++;
}

void kpmc_mux_streams_add(struct kpmc_mux_streams *m, unsigned int set, uint32_t mask,
			  const uint64_t *counts, double time)
{
	unsigned int s;
	uint32_t b;

	if (set >= KPMC_MAX_SETS)
		return;
	if (m->open && m->open != (int)set + 1) {
		stretch_close(&m->set[m->open - 1], m->open_mask, m->open_x, m->open_t);
		memset(m->open_x, 0, sizeof(m->open_x));
		m->open_t = 0;
		m->open_mask = 0;
	}
	m->open = (int)set + 1;
	m->open_mask |= mask;
	for (b = mask; b; b &= b - 1) {
		unsigned int c = (unsigned int)__builtin_ctz(b);

		m->open_x[c] += (double)counts[c];
	}
	m->open_t += time;
	m->time += time;
	for (s = 0; s < KPMC_MAX_SETS; s++)
		if (s != set)
			m->set[s].gap += time;
}

/* Student's t, 95th percentile (a two-sided 90% interval), df degrees of freedom. */
static double t_90(uint64_t df)
{
	static const double t[] = { 0, 6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860,
				    1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740,
				    1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706,
				    1.703, 1.701, 1.699, 1.697 };
	const double z = 1.6449;

	if (df < sizeof(t) / sizeof(t[0]))
		return t[df];
	/* Beyond the table: the normal quantile and its first correction. */
	return z + (z * z * z + z) / (4.0 * (double)df);
}

static uint64_t to_count(double v)
{
	if (v <= 0)
		return 0;
	if (v >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)(v + 0.5);
}

void kpmc_mux_estimate(const struct kpmc_mux_streams *m, unsigned int set, unsigned int c,
		       struct kpmc_estimate *e)
{
	struct kpmc_set_stream st;
	double n, rate, resid, diffs, spread;

	*e = (struct kpmc_estimate){ .half90 = -1, .how = KPMC_EST_NONE };
	if (set >= KPMC_MAX_SETS || c >= KPMC_MAX_COUNTERS)
		return;
	/* The open stretch, as if it ended now: on a copy. */
	st = m->set[set];
	if (m->open == (int)set + 1)
		stretch_close(&st, m->open_mask, m->open_x, m->open_t);
	if (!st.stretches || st.time <= 0)
		return;
	if (st.time >= m->time) {
		*e = (struct kpmc_estimate){ .value = to_count(st.x[c]), .half90 = 0,
					     .how = KPMC_EST_COUNTED };
		return;
	}
	/* The last gap, at the last stretch's rate. */
	st.interp[c] += st.gap * st.last_rate[c];
	rate = st.x[c] / st.time;
	e->value = to_count(rate * m->time);
	e->how = KPMC_EST_SCALED;
	if (st.stretches < 2)
		return;
	n = (double)st.stretches;
	/* sum of (x_i - rate t_i)^2 and of its successive differences */
	resid = st.xx[c] - 2 * rate * st.xt[c] + rate * rate * st.tt;
	diffs = st.dxx[c] - 2 * rate * st.dxt[c] + rate * rate * st.dtt;
	if (resid < 0)
		resid = 0;
	if (diffs < 0)
		diffs = 0;
	spread = resid / (n - 1);
	if (st.stretches >= KPMC_EST_INTERP_MIN &&
	    diffs / (2 * (n - 1)) < KPMC_EST_INTERP_BELOW * spread) {
		e->value = to_count(st.interp[c]);
		e->how = KPMC_EST_INTERPOLATED;
		spread = diffs / (2 * (n - 1));
	}
	/*
	 * No finite-population correction: the turns are not a simple random
	 * sample of the thread's time. A rotation gives each set one turn a
	 * cycle, and turns of one cycle share its time: what one turn gains of
	 * a phase, the next loses. The variance then lies between that of
	 * independent turns, n s^2 (1 - coverage), and n s^2, where a cycle's
	 * residuals cancel; the bar takes the upper (measured: the lower held
	 * the truth in too few).
	 */
	e->half90 = t_90(st.stretches - 1) * sqrt(spread / n) / (st.time / n) * m->time;
}

const char *kpmc_estimator_name(enum kpmc_estimator how)
{
	switch (how) {
	case KPMC_EST_COUNTED:
		return "counted";
	case KPMC_EST_SCALED:
		return "scaled";
	case KPMC_EST_INTERPOLATED:
		return "interp";
	default:
		return "none";
	}
}
