// SPDX-License-Identifier: GPL-2.0
/*
 * The numbers of folding. The fit of the cumulative curve is isotonic
 * regression (pool adjacent violators) of the folded points followed by
 * Steffen's monotone interpolant (GSL) through the pooled points and the
 * anchors (0,0) and (1,1): monotone by construction, and local, so a sharp
 * change of rate stays sharp (BSC's Kriging smooths it and clamps the
 * negative values it produces). The band comes from resampling instances.
 * The phases are a model the data can support where per-bin slopes cannot
 * (a few hundred points, each off by the noise of its instance): a
 * continuous piece-wise linear cumulative curve with C(0) = 0, C(1) = 1 and
 * no negative slope, fitted robustly (Huber, GSL's weighted least squares)
 * from the breakpoints of a first segmented least-squares pass (dynamic
 * programming on a grid, each point weighted by its local noise as in the
 * fit), the number of phases chosen by a robust BIC, no
 * phase narrower than a minimum width (BSC's tool calls R's strucchange).
 */
#include "fold.h"
#include "common/growarray.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_interp.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* MAD of normally distributed data is 0.6745 sigma: scaled, it estimates sigma. */
#define MAD_SCALE 1.4826
/*
 * More than half the instances of equal duration make the MAD 0, and then an
 * instance 1 ns longer would be an outlier: the spread compared is at least
 * this fraction of the median.
 */
#define MAD_FLOOR 1e-3
/* Candidate breakpoints of the segmented fit's first pass, spread over the points. */
#define SEG_GRID 200
/* A noise scale below this (counts' quantization) is no better fit, for BIC. */
#define SEG_SIGMA_FLOOR 1e-6
/* Huber's tuning constant: 95% efficiency on Gaussian noise, bounded influence of outliers. */
#define HUBER_K 1.345
/* Rounds of reweighting of the phase model's robust fit. */
#define IRLS_ROUNDS 4
/* How far (region time) the robust fit moves a breakpoint of the first pass (to 1/100 of it). */
#define BP_REACH 0.02
/* Points on each side of a point whose spread is its noise scale. */
#define LOCAL_WINDOW 25
/* A block's scale is at least this fraction of the global one (weights stay in GSL's range). */
#define LOCAL_FLOOR 0.1

void kpmc_fold_opts_init(struct kpmc_fold_opts *o)
{
	o->mad_k = 3;
	o->max_samples = 0;
	o->bootstrap = 200;
	o->bins = 50;
	o->max_phases = 4;
	o->min_phase = 0.02;
	o->min_change = 0.05;
	o->seed = 1;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static double median_of(double *v, size_t n)
{
	gsl_sort(v, 1, n);
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* ---- the cumulative curve ---- */

struct fit_work {
	double *bx, *by, *bw;	/* pooled blocks, then the interpolant's nodes */
	size_t capx, capy, capw;
};

/*
 * The monotone fit of points (x sorted) with weights w (0: left out) on the
 * grid i / bins, into cum[0 .. bins].
 */
static int fit_curve(const struct kpmc_fold_point *p, const double *w, size_t n, unsigned int bins,
		     struct fit_work *fw, double *cum)
{
	size_t nb = 0, i, m;
	double lastx = -1;
	gsl_interp *interp;
	gsl_interp_accel *acc;

	/* n blocks at most, the anchors (0,0) and (1,1) besides. */
	if (grow_array((void **)&fw->bx, &fw->capx, n + 2, sizeof(*fw->bx), 64) ||
	    grow_array((void **)&fw->by, &fw->capy, n + 2, sizeof(*fw->by), 64) ||
	    grow_array((void **)&fw->bw, &fw->capw, n + 2, sizeof(*fw->bw), 64))
		return -1;
	/* Node 0 is the anchor (0,0); blocks follow (sums of w*x, w*y, w). */
	fw->bx[0] = 0;
	fw->by[0] = 0;
	fw->bw[0] = 0;
	nb = 1;
	for (i = 0; i < n; i++) {
		double wi = w ? w[i] : 1;

		/* The anchors stand for x = 0 and x = 1: a sample there adds nothing. */
		if (wi <= 0 || p[i].x <= 0 || p[i].x >= 1)
			continue;
		/* Equal x: one point, their mean (the interpolant needs distinct x). */
		if (p[i].x == lastx) {
			fw->bx[nb - 1] += wi * p[i].x;
			fw->by[nb - 1] += wi * p[i].y;
			fw->bw[nb - 1] += wi;
		} else {
			fw->bx[nb] = wi * p[i].x;
			fw->by[nb] = wi * p[i].y;
			fw->bw[nb] = wi;
			nb++;
		}
		lastx = p[i].x;
		/* Pool adjacent violators: a block below its predecessor merges into it. */
		while (nb > 2 && fw->by[nb - 1] / fw->bw[nb - 1] < fw->by[nb - 2] / fw->bw[nb - 2]) {
			fw->bx[nb - 2] += fw->bx[nb - 1];
			fw->by[nb - 2] += fw->by[nb - 1];
			fw->bw[nb - 2] += fw->bw[nb - 1];
			nb--;
		}
	}
	for (i = 1; i < nb; i++) {
		fw->bx[i] /= fw->bw[i];
		fw->by[i] /= fw->bw[i];
	}
	fw->bx[nb] = 1;
	fw->by[nb] = 1;
	m = nb + 1;
	interp = gsl_interp_alloc(m >= 3 ? gsl_interp_steffen : gsl_interp_linear, m);
	acc = gsl_interp_accel_alloc();
	if (!interp || !acc || gsl_interp_init(interp, fw->bx, fw->by, m)) {
		gsl_interp_free(interp);
		gsl_interp_accel_free(acc);
		return -1;
	}
	for (i = 0; i <= bins; i++) {
		double v = gsl_interp_eval(interp, fw->bx, fw->by, (double)i / bins, acc);

		cum[i] = v < 0 ? 0 : v > 1 ? 1 : v;
	}
	cum[0] = 0;
	cum[bins] = 1;
	gsl_interp_free(interp);
	gsl_interp_accel_free(acc);
	return 0;
}

/* ---- phases: a continuous piece-wise linear cumulative curve ---- */

/*
 * A segment's line for the first pass (discontinuous segmented least squares
 * by dynamic programming): its residual sum of squares, each point weighted
 * by w (1 / its local noise squared, as in the phase model's fit: unweighted,
 * the noisy stretch of a curve would decide the splits, and a change where
 * the points are precise, however clear, would be found by no candidate). A
 * cumulative count never falls, so a line that does is replaced by the best
 * non-falling one, flat at the weighted mean.
 */
static double seg_fit(const double *x, const double *y, const double *w, size_t i, size_t j,
		      double *c0, double *c1)
{
	double cov00, cov01, cov11, rss;

	if (x[i] != x[j - 1]) {
		gsl_fit_wlinear(x + i, 1, w + i, 1, y + i, 1, j - i, c0, c1, &cov00, &cov01, &cov11,
				&rss);
		if (*c1 >= 0)
			return rss;
	}
	*c1 = 0;
	*c0 = gsl_stats_wmean(w + i, 1, y + i, 1, j - i);
	return gsl_stats_wtss_m(w + i, 1, y + i, 1, j - i, *c0);
}

/* Region time that points [lo, hi) stand for: from the first to the next segment's first. */
static double seg_width(const double *x, size_t n, size_t lo, size_t hi)
{
	return (hi < n ? x[hi] : 1) - (lo ? x[lo] : 0);
}

/*
 * Moves each of the k-1 breakpoints bp (first point index of the next
 * segment) to the point, within reach of where it is, that best splits the
 * points between its neighbours, keeping segments minseg points and minw
 * wide; again until none moves.
 */
static void refine(const double *x, const double *y, const double *w, size_t n, unsigned int k,
		   size_t minseg, double minw, size_t reach, size_t *bp)
{
	double c0, c1;

	for (int pass = 0; pass < 8; pass++) {
		int moved = 0;

		for (unsigned int q = 0; q + 1 < k; q++) {
			size_t lo = q ? bp[q - 1] : 0, hi = q + 2 < k ? bp[q + 1] : n;
			size_t from_i = lo + minseg, to_i = hi - minseg, i, besti = bp[q];
			double bestv = INFINITY;

			if (bp[q] > from_i + reach)
				from_i = bp[q] - reach;
			if (to_i > bp[q] + reach)
				to_i = bp[q] + reach;
			for (i = from_i; i <= to_i; i++) {
				double v;

				if (seg_width(x, n, lo, i) < minw || seg_width(x, n, i, hi) < minw)
					continue;
				v = seg_fit(x, y, w, lo, i, &c0, &c1) + seg_fit(x, y, w, i, hi, &c0, &c1);
				if (v < bestv) {
					bestv = v;
					besti = i;
				}
			}
			if (besti != bp[q]) {
				bp[q] = besti;
				moved = 1;
			}
		}
		if (!moved)
			break;
	}
}

/*
 * The first pass: for each k <= maxk the best k-segment split of the points
 * (x sorted) on a grid, refined point by point; bps[k][0 .. k-2] the first
 * point index of segments 1..., ok[k] whether k segments fit at all.
 */
static void segment(const double *x, const double *y, const double *w, size_t n, unsigned int maxk,
		    double minw, size_t bps[][KPMC_FOLD_MAX_PHASES], int *ok)
{
	size_t minseg = 3, g, grid = n < SEG_GRID ? n : SEG_GRID;
	size_t c[SEG_GRID + 1];
	double *cost, *best, c0, c1;
	size_t *from;
	unsigned int k;

	for (k = 0; k <= maxk; k++)
		ok[k] = k == 1;
	if (maxk < 2 || n < 2 * minseg)
		return;
	for (g = 0; g <= grid; g++)
		c[g] = g * n / grid;
	cost = malloc((grid + 1) * (grid + 1) * sizeof(*cost));
	best = malloc((maxk + 1) * (grid + 1) * sizeof(*best));
	from = malloc((maxk + 1) * (grid + 1) * sizeof(*from));
	if (!cost || !best || !from) {
		free(cost);
		free(best);
		free(from);
		return;
	}
#define COST(a, b) cost[(a) * (grid + 1) + (b)]
#define BEST(k, b) best[(k) * (grid + 1) + (b)]
#define FROM(k, b) from[(k) * (grid + 1) + (b)]
	for (size_t a = 0; a < grid; a++)
		for (size_t b = a + 1; b <= grid; b++)
			COST(a, b) = c[b] - c[a] >= minseg && seg_width(x, n, c[a], c[b]) >= minw ?
				seg_fit(x, y, w, c[a], c[b], &c0, &c1) : INFINITY;
	for (size_t b = 0; b <= grid; b++) {
		BEST(1, b) = b ? COST(0, b) : INFINITY;
		FROM(1, b) = 0;
	}
	for (k = 2; k <= maxk; k++)
		for (size_t b = 0; b <= grid; b++) {
			BEST(k, b) = INFINITY;
			FROM(k, b) = 0;
			for (size_t a = 1; a < b; a++) {
				double v = BEST(k - 1, a) + COST(a, b);

				if (v < BEST(k, b)) {
					BEST(k, b) = v;
					FROM(k, b) = a;
				}
			}
		}
	for (k = 2; k <= maxk; k++) {
		size_t b = grid;

		if (!isfinite(BEST(k, grid)))
			continue;
		for (unsigned int q = k; q > 1; q--) {
			b = FROM(q, b);
			bps[k][q - 2] = c[b];
		}
		refine(x, y, w, n, k, minseg, minw, 3 * n / grid, bps[k]);
		ok[k] = 1;
	}
#undef COST
#undef BEST
#undef FROM
	free(cost);
	free(best);
	free(from);
}

/*
 * The phase model: a continuous piece-wise linear cumulative fraction with no
 * negative slope, phase m being [b[m], b[m + 1]): C(x) = c + sum of s[m] times
 * the part of phase m below x, inside (0, 1), clamped to [0, 1], with C(0) = 0
 * and C(1) = 1 exactly. The intercept c stands for what is narrower than any
 * phase at the region's begin (c > 0: a burst, the begin's own system call
 * in kernel counts; c < 0: a delay before the first phase starts counting)
 * and 1 - C(1-) for the same at its end.
 */
struct hinge {
	unsigned int k;
	double b[KPMC_FOLD_MAX_PHASES + 1];
	double s[KPMC_FOLD_MAX_PHASES];
	double c;
};

struct hinge_work {
	double *X, *t, *w, *r;		/* n x (1 + phases) design, target, weights, residuals */
	double *sig;			/* each point's local noise scale, for BIC */
	double *pw;			/* 1 / sig^2: the first pass's weights */
	gsl_multifit_linear_workspace *ws;
};

/* How much of phase m lies in [0, x]. */
static double hinge_len(const struct hinge *h, unsigned int m, double x)
{
	double v = x - h->b[m], wm = h->b[m + 1] - h->b[m];

	return v < 0 ? 0 : v > wm ? wm : v;
}

/* The model's line inside (0, 1), not clamped: what the points are fitted to. */
static double hinge_line(const struct hinge *h, double x)
{
	double c = h->c;

	for (unsigned int m = 0; m < h->k; m++)
		c += h->s[m] * hinge_len(h, m, x);
	return c;
}

/* The model's cumulative fraction: monotone from C(0) = 0 to C(1) = 1. */
static double hinge_eval(const struct hinge *h, double x)
{
	double c = hinge_line(h, x);

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	return c < 0 ? 0 : c > 1 ? 1 : c;
}

/*
 * h's intercept and slopes for its breakpoints by weighted least squares
 * (GSL; weights hw->w), no slope negative by an active set: the most
 * negative one fixed at 0 and the rest fitted again. Returns the weighted
 * residual sum of squares (the residuals in hw->r), or -1 if GSL fails.
 */
static double hinge_fit(struct hinge *h, const double *x, const double *y, size_t n,
			struct hinge_work *hw)
{
	int is_free[KPMC_FOLD_MAX_PHASES];
	unsigned int m, idx[KPMC_FOLD_MAX_PHASES];
	double rss = 0, cbuf[KPMC_FOLD_MAX_PHASES + 1];
	double covbuf[(KPMC_FOLD_MAX_PHASES + 1) * (KPMC_FOLD_MAX_PHASES + 1)];
	size_t i;

	for (m = 0; m < h->k; m++)
		is_free[m] = 1;
	for (;;) {
		unsigned int p = 1, worst = h->k;
		double chisq;
		gsl_matrix_view X, cov;
		gsl_vector_view t = gsl_vector_view_array(hw->t, n);
		gsl_vector_view w = gsl_vector_view_array(hw->w, n);
		gsl_vector_view c;

		for (m = 0; m < h->k; m++) {
			h->s[m] = 0;
			if (is_free[m])
				idx[p++] = m;
		}
		X = gsl_matrix_view_array(hw->X, n, p);
		cov = gsl_matrix_view_array(covbuf, p, p);
		c = gsl_vector_view_array(cbuf, p);
		for (i = 0; i < n; i++) {
			hw->t[i] = y[i];
			hw->X[i * p] = 1;
			for (unsigned int j = 1; j < p; j++)
				hw->X[i * p + j] = hinge_len(h, idx[j], x[i]);
		}
		if (gsl_multifit_wlinear(&X.matrix, &w.vector, &t.vector, &c.vector, &cov.matrix,
					 &chisq, hw->ws))
			return -1;
		h->c = cbuf[0];
		for (unsigned int j = 1; j < p; j++) {
			h->s[idx[j]] = cbuf[j];
			if (cbuf[j] < 0 && (worst == h->k || cbuf[j] < h->s[worst]))
				worst = idx[j];
		}
		if (worst == h->k)
			break;
		is_free[worst] = 0;
	}
	for (i = 0; i < n; i++) {
		hw->r[i] = y[i] - hinge_line(h, x[i]);
		rss += hw->w[i] * hw->r[i] * hw->r[i];
	}
	return rss;
}

/* The residuals' robust scale: their MAD, scaled to estimate a standard deviation. */
static double noise_scale(const double *r, size_t n, double *tmp)
{
	double s;

	for (size_t i = 0; i < n; i++)
		tmp[i] = fabs(r[i]);
	s = MAD_SCALE * median_of(tmp, n);
	return s > SEG_SIGMA_FLOOR ? s : SEG_SIGMA_FLOOR;
}

/*
 * Each point's noise scale, from the points alone (x sorted): the scaled MAD
 * of the pseudo-residuals e (each point against the line through its two
 * neighbours, Gasser, Sroka and Jennen-Steinmetz 1986) of the LOCAL_WINDOW
 * points before it, or of those after it, whichever is larger. A folded
 * cumulative curve's noise is not uniform: where a counter counts, the
 * instances' spread of duration scatters its points (for a user spin, 10 to
 * 30 times more than where it has stopped counting), and one global scale
 * would let a phase buy that scatter as structure. No model's residuals: a
 * poor fit would pass its own misfit off as noise. The larger side: beside
 * a quiet stretch a window half in it would make noisy points look precise.
 * At least LOCAL_FLOOR of the largest scale (exact counts have none), so
 * weights stay within GSL's range.
 */
static void local_noise(const double *x, const double *y, size_t n, double *e, double *sig,
			double *tmp)
{
	double top = SEG_SIGMA_FLOOR;
	size_t i;

	for (i = 1; i + 1 < n; i++) {
		double dx = x[i + 1] - x[i - 1];
		double w = dx > 0 ? (x[i] - x[i - 1]) / dx : 0.5;

		/* Var of y_i - ((1 - w) y_{i-1} + w y_{i+1}) is (1 + w^2 + (1 - w)^2) sigma^2. */
		e[i] = (y[i] - (1 - w) * y[i - 1] - w * y[i + 1]) / sqrt(1 + w * w + (1 - w) * (1 - w));
	}
	e[0] = n > 2 ? e[1] : 0;
	if (n > 1)
		e[n - 1] = n > 2 ? e[n - 2] : 0;
	for (i = 0; i < n; i++) {
		size_t lo = i > LOCAL_WINDOW ? i - LOCAL_WINDOW : 0;
		size_t hi = i + LOCAL_WINDOW < n ? i + LOCAL_WINDOW : n - 1;

		sig[i] = fmax(noise_scale(e + lo, i - lo + 1, tmp), noise_scale(e + i, hi - i + 1, tmp));
		top = fmax(top, sig[i]);
	}
	for (i = 0; i < n; i++)
		sig[i] = fmax(sig[i], LOCAL_FLOOR * top);
}

/* Huber's loss of a residual in units of the noise scale. */
static double huber(double u)
{
	u = fabs(u);
	return u <= HUBER_K ? u * u / 2 : HUBER_K * u - HUBER_K * HUBER_K / 2;
}

/*
 * Fits h robustly: weighted by each point's noise (hw->sig, local_noise())
 * and iteratively reweighted (Huber's weights of the residuals in units of
 * it), in every other round each breakpoint moved within
 * BP_REACH of where it is (phases at least minw wide) to the least weighted
 * residual sum of squares. -1 if a fit fails.
 */
static int hinge_robust(struct hinge *h, const double *x, const double *y, size_t n, double minw,
			struct hinge_work *hw)
{
	size_t i;

	for (i = 0; i < n; i++)
		hw->w[i] = 1 / (hw->sig[i] * hw->sig[i]);
	for (int round = 0; round < IRLS_ROUNDS; round++) {
		for (unsigned int j = 1; j < h->k && round % 2 == 0; j++) {
			double reach = BP_REACH, step = BP_REACH / 10;

			/* On a grid over the reach, then on a finer one around the best. */
			for (int level = 0; level < 2; level++, reach = step, step /= 10) {
				double lo = fmax(h->b[j] - reach, h->b[j - 1] + minw);
				double hi = fmin(h->b[j] + reach, h->b[j + 1] - minw);
				double bestb = h->b[j], bestv = INFINITY;

				for (double v, bj = lo; bj <= hi + 1e-12; bj += step) {
					h->b[j] = bj;
					v = hinge_fit(h, x, y, n, hw);
					if (v < 0)
						return -1;
					if (v < bestv) {
						bestv = v;
						bestb = bj;
					}
				}
				h->b[j] = bestb;
			}
		}
		if (hinge_fit(h, x, y, n, hw) < 0)
			return -1;
		for (i = 0; i < n; i++) {
			double u = fabs(hw->r[i]) / hw->sig[i];

			hw->w[i] = (u <= HUBER_K ? 1 : HUBER_K / u) / (hw->sig[i] * hw->sig[i]);
		}
	}
	return hinge_fit(h, x, y, n, hw) < 0 ? -1 : 0;
}

/*
 * Whether each phase's rate differs from its neighbour's by minc of the
 * larger of the two at least. Where counts are precise (cycles under
 * -icount: residuals of a few counts) the BIC buys phases for changes of
 * 0.2% of the rate, true but of no use to a reader.
 */
static int distinct_rates(const struct hinge *h, double minc)
{
	for (unsigned int j = 1; j < h->k; j++)
		if (fabs(h->s[j] - h->s[j - 1]) < minc * fmax(h->s[j], h->s[j - 1]))
			return 0;
	return 1;
}

/*
 * Phases of the points (x sorted): for each number of phases k the first
 * pass's split, turned into the continuous model (breakpoints where the
 * first pass's lines meet) and fitted robustly; the k of the least robust
 * BIC: 2 sum Huber(r_i / sigma_i) + (2k + 1) log n (k - 1 breakpoints, k
 * slopes, the intercept, the scale), sigma_i point i's local noise (a timer
 * tick's few late points cost linearly, and so cannot buy a phase as they
 * would in a Gaussian likelihood). A model with a phase narrower than minw,
 * or two neighbouring phases whose rates differ by less than min_change,
 * is not a candidate.
 */
static int choose_phases(const double *x, const double *y, size_t n,
			 const struct kpmc_fold_opts *o, struct hinge *best, struct hinge_work *hw)
{
	unsigned int maxk = o->max_phases;
	double minw = o->min_phase;
	size_t bps[KPMC_FOLD_MAX_PHASES + 1][KPMC_FOLD_MAX_PHASES];
	int ok[KPMC_FOLD_MAX_PHASES + 1];
	struct hinge cand[KPMC_FOLD_MAX_PHASES + 1];
	double bestbic = INFINITY;
	unsigned int k, j, top = 1;
	size_t i;

	if (maxk > KPMC_FOLD_MAX_PHASES)
		maxk = KPMC_FOLD_MAX_PHASES;
	if (maxk > 1 / minw)
		maxk = (unsigned int)(1 / minw);
	segment(x, y, hw->pw, n, maxk, minw, bps, ok);
	for (k = 1; k <= maxk; k++) {
		struct hinge *h = &cand[k];
		double c0[KPMC_FOLD_MAX_PHASES], c1[KPMC_FOLD_MAX_PHASES];

		if (!ok[k])
			continue;
		h->k = k;
		h->b[0] = 0;
		h->b[k] = 1;
		for (j = 0; j < k; j++)
			seg_fit(x, y, hw->pw, j ? bps[k][j - 1] : 0, j + 1 < k ? bps[k][j] : n, &c0[j],
				&c1[j]);
		/* A breakpoint where the two lines meet, if they meet between the two points. */
		for (j = 1; j < k; j++) {
			size_t q = bps[k][j - 1];
			double xl = x[q - 1], xr = x[q], xb = (xl + xr) / 2;

			if (c1[j - 1] != c1[j]) {
				double xi = (c0[j] - c0[j - 1]) / (c1[j - 1] - c1[j]);

				xb = xi < xl ? xl : xi > xr ? xr : xi;
			}
			h->b[j] = xb;
		}
		for (j = 0; j < k; j++)
			if (h->b[j + 1] - h->b[j] < minw)
				ok[k] = 0;
		if (!ok[k])
			continue;
		if (hinge_robust(h, x, y, n, minw, hw))
			return -1;
		top = k;
	}
	for (k = 1; k <= top; k++) {
		double loss = 0, bic;

		if (!ok[k])
			continue;
		/* Each candidate as its robust fit left it. */
		for (i = 0; i < n; i++)
			loss += huber((y[i] - hinge_line(&cand[k], x[i])) / hw->sig[i]);
		bic = 2 * loss + (2.0 * k + 1) * log((double)n);
		if (bic < bestbic && distinct_rates(&cand[k], o->min_change)) {
			bestbic = bic;
			*best = cand[k];
		}
	}
	return 0;
}

/*
 * Phases of series s from its points, and the phase model's rate per bin;
 * scale turns a slope into a rate per second.
 */
static int phases(struct kpmc_fold_series *s, const struct kpmc_fold_opts *o, double scale,
		  double *x, double *y, double *tmp)
{
	struct hinge h = { .k = 1, .b = { 0, 1 }, .s = { 1 }, .c = 0 };
	struct hinge_work hw = { 0 };
	size_t i, n = s->npoints;
	int rc = -1;

	for (i = 0; i < n; i++) {
		x[i] = s->points[i].x;
		y[i] = s->points[i].y;
	}
	/* With fewer points than that, nothing to regress: the straight line from (0,0) to (1,1). */
	if (n >= 6) {
		hw.X = malloc(n * (KPMC_FOLD_MAX_PHASES + 1) * sizeof(double));
		hw.t = malloc(n * sizeof(double));
		hw.w = malloc(n * sizeof(double));
		hw.r = malloc(n * sizeof(double));
		hw.sig = malloc(n * sizeof(double));
		hw.pw = malloc(n * sizeof(double));
		hw.ws = gsl_multifit_linear_alloc(n, KPMC_FOLD_MAX_PHASES + 1);
		if (!hw.X || !hw.t || !hw.w || !hw.r || !hw.sig || !hw.pw || !hw.ws)
			goto out;
		local_noise(x, y, n, hw.r, hw.sig, tmp);
		for (i = 0; i < n; i++)
			hw.pw[i] = 1 / (hw.sig[i] * hw.sig[i]);
		if (choose_phases(x, y, n, o, &h, &hw))
			goto out;
	}
	s->nphases = h.k;
	for (unsigned int k = 0; k < h.k; k++)
		s->phases[k] = (struct kpmc_fold_phase){ h.b[k], h.b[k + 1], h.s[k], h.s[k] * scale };
	for (i = 0; i < o->bins; i++)
		s->phase_rate[i] = (hinge_eval(&h, (double)(i + 1) / o->bins) -
				    hinge_eval(&h, (double)i / o->bins)) * o->bins * scale;
	rc = 0;
out:
	free(hw.X);
	free(hw.t);
	free(hw.w);
	free(hw.r);
	free(hw.sig);
	free(hw.pw);
	if (hw.ws)
		gsl_multifit_linear_free(hw.ws);
	return rc;
}

/* ---- the fold ---- */

struct kept {
	double x;
	size_t sample;		/* index into the trace's samples */
	size_t inst;		/* index into the used instances */
};

static int cmp_kept(const void *a, const void *b)
{
	const struct kept *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->sample < q->sample ? -1 : p->sample > q->sample;
}

static const char *pick_region(const struct kpmc_fold_trace *t, const char *region, char *err,
			       size_t errlen)
{
	size_t i;

	if (!t->nregions) {
		fail(err, errlen, "the trace has no instance line");
		return NULL;
	}
	if (!region) {
		if (t->nregions == 1)
			return t->regions[0];
		fail(err, errlen, "the trace has %zu regions (%s, %s%s): choose one with -r",
		     t->nregions, t->regions[0], t->regions[1], t->nregions > 2 ? ", ..." : "");
		return NULL;
	}
	for (i = 0; i < t->nregions; i++)
		if (!strcmp(t->regions[i], region))
			return t->regions[i];
	fail(err, errlen, "region '%s' has no instance in the trace", region);
	return NULL;
}

/* Per-bin rates from cumulative values at the bin edges. */
static void rates(const double *cum, unsigned int bins, double scale, double *rate)
{
	for (unsigned int i = 0; i < bins; i++)
		rate[i] = (cum[i + 1] - cum[i]) * bins * scale;
}

static int alloc_series(struct kpmc_fold_series *s, unsigned int bins, size_t npoints)
{
	s->points = malloc((npoints ? npoints : 1) * sizeof(*s->points));
	s->cum = calloc(bins + 1, sizeof(double));
	s->cum_lo = calloc(bins + 1, sizeof(double));
	s->cum_hi = calloc(bins + 1, sizeof(double));
	s->rate = calloc(bins, sizeof(double));
	s->rate_lo = calloc(bins, sizeof(double));
	s->rate_hi = calloc(bins, sizeof(double));
	s->phase_rate = calloc(bins, sizeof(double));
	return s->points && s->cum && s->cum_lo && s->cum_hi && s->rate && s->rate_lo &&
		       s->rate_hi && s->phase_rate ? 0 : -1;
}

/* Band of each column of v[b * cols + col] (b < nb): the 5% and 95% quantiles. */
static void band(double *v, size_t nb, size_t cols, double *lo, double *hi, double *col)
{
	for (size_t j = 0; j < cols; j++) {
		for (size_t b = 0; b < nb; b++)
			col[b] = v[b * cols + j];
		gsl_sort(col, 1, nb);
		lo[j] = gsl_stats_quantile_from_sorted_data(col, 1, nb, 0.05);
		hi[j] = gsl_stats_quantile_from_sorted_data(col, 1, nb, 0.95);
	}
}

struct fold_state {
	const struct kpmc_fold_trace *t;
	const struct kpmc_fold_set *set;
	struct kpmc_fold_result *r;
	size_t *used;		/* instance indices */
	struct kept *kept;
	size_t nkept;
	size_t **point_inst;	/* per series: each point's used-instance index */
	double *totals;		/* used x counters: each used instance's totals */
};

static int select_instances(struct fold_state *st, const struct kpmc_fold_opts *o, char *err,
			    size_t errlen)
{
	const struct kpmc_fold_trace *t = st->t;
	struct kpmc_fold_result *r = st->r;
	size_t i, n = 0, rotated = 0, other = 0;
	double *d, *dev, spread;

	d = malloc((t->ninstances + 1) * sizeof(*d));
	dev = malloc((t->ninstances + 1) * sizeof(*dev));
	st->used = malloc((t->ninstances + 1) * sizeof(*st->used));
	r->excluded = malloc((t->ninstances + 1) * sizeof(*r->excluded));
	if (!d || !dev || !st->used || !r->excluded) {
		free(d);
		free(dev);
		return fail(err, errlen, "out of memory");
	}
	for (i = 0; i < t->ninstances; i++) {
		const struct kpmc_fold_instance *in = &t->instances[i];

		if (strcmp(in->region, r->region))
			continue;
		if (in->set != r->set) {
			*(in->set < 0 ? &rotated : &other) += 1;
			continue;
		}
		d[n++] = (double)in->duration_ns;
	}
	r->instances = n;
	if (!n) {
		free(d);
		free(dev);
		return fail(err, errlen,
			    "region %s: no instance counted whole by set %d (%zu by other sets, "
			    "%zu with sets rotated inside)", r->region, r->set, other, rotated);
	}
	r->median_ns = median_of(d, n);
	for (i = 0; i < n; i++)
		dev[i] = fabs(d[i] - r->median_ns);
	r->mad_ns = MAD_SCALE * median_of(dev, n);
	if (r->mad_ns < MAD_FLOOR * r->median_ns)
		r->mad_ns = MAD_FLOOR * r->median_ns;
	spread = o->mad_k * r->mad_ns;
	for (i = 0; i < t->ninstances; i++) {
		const struct kpmc_fold_instance *in = &t->instances[i];

		if (strcmp(in->region, r->region) || in->set != r->set)
			continue;
		if (fabs((double)in->duration_ns - r->median_ns) > spread) {
			r->excluded[r->nexcluded++] = (struct kpmc_fold_excluded){
				in->tid, in->call, in->duration_ns };
			continue;
		}
		st->used[r->used++] = i;
	}
	free(d);
	free(dev);
	return 0;
}

/* The used instances' samples, sorted by x, at most o->max_samples evenly spread. */
static int select_samples(struct fold_state *st, const struct kpmc_fold_opts *o, gsl_rng *rng,
			  char *err, size_t errlen)
{
	const struct kpmc_fold_trace *t = st->t;
	size_t i, j, n = 0;

	for (i = 0; i < st->r->used; i++)
		n += t->instances[st->used[i]].nsamples;
	if (!n)
		return fail(err, errlen, "region %s set %d: no sample in its %zu instances",
			    st->r->region, st->r->set, st->r->used);
	st->kept = malloc(n * sizeof(*st->kept));
	if (!st->kept)
		return fail(err, errlen, "out of memory");
	for (i = 0; i < st->r->used; i++) {
		const struct kpmc_fold_instance *in = &t->instances[st->used[i]];

		for (j = 0; j < in->nsamples; j++) {
			const struct kpmc_fold_sample *s = &t->samples[in->samples[j]];

			st->kept[st->nkept++] = (struct kept){
				in->duration_ns ? (double)s->offset_ns / in->duration_ns : 0,
				in->samples[j], i };
		}
	}
	qsort(st->kept, n, sizeof(*st->kept), cmp_kept);
	if (o->max_samples && n > o->max_samples) {
		/* One sample from each of N equal runs of the sorted samples, at random within it. */
		for (i = 0; i < o->max_samples; i++) {
			size_t lo = (i * n + o->max_samples - 1) / o->max_samples;
			size_t hi = ((i + 1) * n + o->max_samples - 1) / o->max_samples;

			st->kept[i] = st->kept[lo + gsl_rng_uniform_int(rng, hi - lo)];
		}
		st->nkept = o->max_samples;
	}
	st->r->samples = st->nkept;
	return 0;
}

/* Points, mean rate, fit, rates and phases of counter j of the set. */
static int fold_counter(struct fold_state *st, size_t j, const struct kpmc_fold_opts *o,
			struct fit_work *fw, double *x, double *y, double *tmp)
{
	const struct kpmc_fold_trace *t = st->t;
	struct kpmc_fold_result *r = st->r;
	struct kpmc_fold_series *s = &r->series[j];
	double sum = 0, scale;
	size_t i;

	s->name = t->counters[st->set->counter[j]].name;
	if (alloc_series(s, o->bins, st->nkept))
		return -1;
	st->point_inst[j] = malloc((st->nkept ? st->nkept : 1) * sizeof(size_t));
	if (!st->point_inst[j])
		return -1;
	for (i = 0; i < r->used; i++)
		sum += st->totals[i * st->set->ncounters + j];
	s->mean_total = sum / r->used;
	scale = r->mean_duration_ns > 0 ? s->mean_total / r->mean_duration_ns * 1e9 : 0;
	s->mean_rate_per_s = scale;
	for (i = 0; i < st->nkept; i++) {
		const struct kpmc_fold_sample *smp = &t->samples[st->kept[i].sample];
		double total = st->totals[st->kept[i].inst * st->set->ncounters + j];

		if (total <= 0)
			continue;
		s->points[s->npoints] = (struct kpmc_fold_point){ st->kept[i].x, smp->cum[j] / total };
		st->point_inst[j][s->npoints++] = st->kept[i].inst;
	}
	if (fit_curve(s->points, NULL, s->npoints, o->bins, fw, s->cum))
		return -1;
	rates(s->cum, o->bins, scale, s->rate);
	return phases(s, o, scale, x, y, tmp);
}

/* Resamples the used instances B times; each counter's band from its fits. */
static int bootstrap(struct fold_state *st, const struct kpmc_fold_opts *o, gsl_rng *rng,
		     struct fit_work *fw)
{
	struct kpmc_fold_result *r = st->r;
	size_t nc = r->nseries, B = o->bootstrap, bins = o->bins, j, b, i;
	double *mult = calloc(r->used, sizeof(double)), *w = malloc((st->nkept + 1) * sizeof(double));
	double *cumb = malloc(B * nc * (bins + 1) * sizeof(double));
	double *rateb = malloc(B * nc * bins * sizeof(double));
	double *col = malloc((B + 1) * sizeof(double)), *cum = malloc((bins + 1) * sizeof(double));
	int rc = -1;

	if (!mult || !w || !cumb || !rateb || !col || !cum)
		goto out;
	for (b = 0; b < B; b++) {
		double dur = 0;

		memset(mult, 0, r->used * sizeof(double));
		for (i = 0; i < r->used; i++)
			mult[gsl_rng_uniform_int(rng, r->used)] += 1;
		for (i = 0; i < r->used; i++)
			dur += mult[i] * (double)st->t->instances[st->used[i]].duration_ns;
		for (j = 0; j < nc; j++) {
			struct kpmc_fold_series *s = &r->series[j];
			double tot = 0, scale;

			for (i = 0; i < r->used; i++)
				tot += mult[i] * st->totals[i * nc + j];
			/* Each resample's own mean rate: its uncertainty is part of the band. */
			scale = dur > 0 ? tot / dur * 1e9 : 0;
			for (i = 0; i < s->npoints; i++)
				w[i] = mult[st->point_inst[j][i]];
			if (fit_curve(s->points, w, s->npoints, o->bins, fw, cum))
				goto out;
			memcpy(&cumb[(j * B + b) * (bins + 1)], cum, (bins + 1) * sizeof(double));
			rates(cum, o->bins, scale, &rateb[(j * B + b) * bins]);
		}
	}
	for (j = 0; j < nc; j++) {
		struct kpmc_fold_series *s = &r->series[j];

		band(&cumb[j * B * (bins + 1)], B, bins + 1, s->cum_lo, s->cum_hi, col);
		band(&rateb[j * B * bins], B, bins, s->rate_lo, s->rate_hi, col);
	}
	rc = 0;
out:
	free(mult);
	free(w);
	free(cumb);
	free(rateb);
	free(col);
	free(cum);
	return rc;
}

int kpmc_fold(const struct kpmc_fold_trace *t, const char *region, int set,
	      const struct kpmc_fold_opts *o, struct kpmc_fold_result **out, char *err,
	      size_t errlen)
{
	struct fold_state st = { .t = t };
	struct kpmc_fold_result *r;
	struct fit_work fw = { 0 };
	gsl_rng *rng = NULL;
	double *x = NULL, *y = NULL, *tmp = NULL, dur = 0;
	size_t i, j, nc;
	int rc = -1;

	*out = NULL;
	if (!(o->mad_k > 0) || !o->bins || o->bins > 100000 || !o->max_phases ||
	    o->max_phases > KPMC_FOLD_MAX_PHASES || !(o->min_phase > 0 && o->min_phase <= 0.5) ||
	    !(o->min_change >= 0 && o->min_change <= 1))
		return fail(err, errlen, "fold options out of range");
	if (set < 0 || set >= KPMC_FOLD_MAX_SETS || !t->sets[set].ncounters)
		return fail(err, errlen, "set %d has no counter line in the trace", set);
	r = calloc(1, sizeof(*r));
	if (!r)
		return fail(err, errlen, "out of memory");
	r->region = pick_region(t, region, err, errlen);
	if (!r->region) {
		free(r);
		return -1;
	}
	/* GSL's default handler aborts; every call's status is checked here instead. */
	gsl_set_error_handler_off();
	r->set = set;
	r->bins = o->bins;
	st.r = r;
	st.set = &t->sets[set];
	nc = st.set->ncounters;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		fail(err, errlen, "out of memory");
		goto out;
	}
	gsl_rng_set(rng, o->seed);
	if (select_instances(&st, o, err, errlen) || select_samples(&st, o, rng, err, errlen))
		goto out;
	for (i = 0; i < r->used; i++)
		dur += (double)t->instances[st.used[i]].duration_ns;
	r->mean_duration_ns = dur / r->used;
	st.totals = malloc(r->used * nc * sizeof(double));
	r->series = calloc(nc, sizeof(*r->series));
	st.point_inst = calloc(nc, sizeof(*st.point_inst));
	x = malloc(st.nkept * sizeof(double));
	y = malloc(st.nkept * sizeof(double));
	tmp = malloc(st.nkept * sizeof(double));
	if (!st.totals || !r->series || !st.point_inst || !x || !y || !tmp) {
		fail(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < r->used; i++)
		for (j = 0; j < nc; j++)
			st.totals[i * nc + j] = (double)t->instances[st.used[i]].totals[j];
	r->nseries = nc;
	for (j = 0; j < nc; j++)
		if (fold_counter(&st, j, o, &fw, x, y, tmp)) {
			fail(err, errlen, "out of memory (or a fit failed) folding %s",
			     t->counters[st.set->counter[j]].name);
			goto out;
		}
	if (o->bootstrap) {
		if (bootstrap(&st, o, rng, &fw)) {
			fail(err, errlen, "out of memory (or a fit failed) in the bootstrap");
			goto out;
		}
	} else {
		for (j = 0; j < nc; j++) {
			struct kpmc_fold_series *s = &r->series[j];

			memcpy(s->cum_lo, s->cum, (o->bins + 1) * sizeof(double));
			memcpy(s->cum_hi, s->cum, (o->bins + 1) * sizeof(double));
			memcpy(s->rate_lo, s->rate, o->bins * sizeof(double));
			memcpy(s->rate_hi, s->rate, o->bins * sizeof(double));
		}
	}
	rc = 0;
out:
	if (st.point_inst)
		for (j = 0; j < nc; j++)
			free(st.point_inst[j]);
	free(st.point_inst);
	free(st.totals);
	free(st.used);
	free(st.kept);
	free(fw.bx);
	free(fw.by);
	free(fw.bw);
	free(x);
	free(y);
	free(tmp);
	gsl_rng_free(rng);
	if (rc)
		kpmc_fold_result_free(r);
	else
		*out = r;
	return rc;
}

void kpmc_fold_result_free(struct kpmc_fold_result *r)
{
	size_t j;

	if (!r)
		return;
	for (j = 0; j < r->nseries; j++) {
		struct kpmc_fold_series *s = &r->series[j];

		free(s->points);
		free(s->cum);
		free(s->cum_lo);
		free(s->cum_hi);
		free(s->rate);
		free(s->rate_lo);
		free(s->rate_hi);
		free(s->phase_rate);
	}
	free(r->series);
	free(r->excluded);
	free(r);
}
