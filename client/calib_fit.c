/* calib_fit.c - the cost model's parameters from measured command times (calib_fit.h,
 * docs/calibrate.md "Fitting").  Weighted linear least squares from GSL
 * (gsl_multifit_wlinear_tsvd: truncated SVD, so a rank-deficient design is detected rather
 * than solved into noise) inside an active-set loop over the model's max() of resources. */
#include "client/calib_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>

#define MIB 1048576.0
#define STARTS 48
#define MAX_ITER 60

static const char *const param_names[P_N] = {
	"cpu_cmd", "cpu_entry", "cpu_mib", "cpu_segment", "journal_cmd", "journal_entry",
	"frontend", "backend", "fixed", "xcopy_per_mib",
};
static const char *const kind_names[CK_N] = { "READ", "WRITE", "VERIFY", "WRITE SAME", "UNMAP", "XCOPY" };
static const char *const res_names[RES_N] = { "cores", "journal", "front-end", "back-end" };
static const char *const status_names[] = { "not measured", "bound", "confounded", "weak", "fitted" };

const char *calib_param_name(enum calib_param p) { return p < P_N ? param_names[p] : "?"; }
const char *calib_kind_name(enum calib_kind k) { return k < CK_N ? kind_names[k] : "?"; }
const char *calib_res_name(enum calib_res r) { return r < RES_N ? res_names[r] : "?"; }
const char *calib_status_name(enum calib_status s) { return s <= ST_FITTED ? status_names[s] : "?"; }

static bool updates_map(enum calib_kind k)
{
	return k == CK_WRITE || k == CK_WRITE_SAME || k == CK_UNMAP || k == CK_XCOPY;
}

static double entries(const struct calib_row *r, uint32_t d)
{
	return r->covered ? (double)((r->covered + d - 1) / d) : 0;
}

/* Bytes the back-end moves: what a READ or VERIFY covers, what a WRITE sends (unique data). */
static double backend_bytes(const struct calib_row *r)
{
	if (r->kind == CK_READ || r->kind == CK_VERIFY)
		return (double)r->covered;
	if (r->kind == CK_WRITE)
		return (double)r->wire;
	return 0;
}

bool calib_uses(const struct calib_row *r, enum calib_res res)
{
	switch (res) {
	case RES_CPU: return true;
	case RES_JOURNAL: return updates_map(r->kind);
	case RES_FRONTEND: return r->wire > 0;
	case RES_BACKEND: return backend_bytes(r) > 0;
	default: return false;
	}
}

double calib_coef(const struct calib_row *r, uint32_t d, enum calib_res res, enum calib_param p)
{
	if (!calib_uses(r, res))
		return 0;
	switch (res) {
	case RES_CPU:
		if (p == P_CPU_CMD) return 1;
		if (p == P_CPU_ENTRY) return entries(r, d);
		if (p == P_CPU_MIB) return (double)r->wire / MIB;
		if (p == P_CPU_SEG) return r->kind == CK_XCOPY && r->segments > 1 ? r->segments - 1.0 : 0;
		return 0;
	case RES_JOURNAL:
		if (p == P_J_CMD) return 1;
		if (p == P_J_ENTRY) return entries(r, d);
		return 0;
	case RES_FRONTEND: return p == P_FE ? (double)r->wire : 0;
	case RES_BACKEND: return p == P_BE ? backend_bytes(r) : 0;
	default: return 0;
	}
}

/* What a QD1 latency adds to the bottleneck: no resource, no queue. */
static double offset_coef(const struct calib_row *r, enum calib_param p)
{
	if (r->obs != OBS_QD1)
		return 0;
	if (p == P_FIXED)
		return 1;
	if (p == P_XC_MIB && r->kind == CK_XCOPY)
		return (double)r->covered / MIB;
	return 0;
}

/* The coefficients of one row for dedup block d, computed once per fit (the fit evaluates
 * every line of every row thousands of times). */
static void cache_row(struct calib_row *r, uint32_t d)
{
	r->cache_uses = 0;
	for (int res = 0; res <= RES_N; res++)
		for (int p = 0; p < P_N; p++)
			r->cache[res][p] = res == RES_N ? offset_coef(r, (enum calib_param)p)
							: calib_coef(r, d, (enum calib_res)res, (enum calib_param)p);
	for (int res = 0; res < RES_N; res++)
		if (calib_uses(r, (enum calib_res)res))
			r->cache_uses |= 1u << res;
}

static double dot(const double *c, const double *v)
{
	double s = 0;
	for (int p = 0; p < P_N; p++)
		s += c[p] * v[p];
	return s;
}

static double line(const struct calib_row *r, enum calib_res res, const double *v)
{
	return dot(r->cache[res], v);
}

static double offset(const struct calib_row *r, const double *v)
{
	return dot(r->cache[RES_N], v);
}

/* the model's value for a row from its cached coefficients; *active gets the maximum's resource */
static double predict(const struct calib_row *r, const double *v, int *active)
{
	double best = -1;
	int a = -1;
	for (int res = 0; res < RES_N; res++) {
		if (!(r->cache_uses & (1u << res)))
			continue;
		double l = line(r, (enum calib_res)res, v);
		if (l > best) {
			best = l;
			a = res;
		}
	}
	if (active)
		*active = a;
	return (best > 0 ? best : 0) + offset(r, v);
}

/* A measurement more than HUBER standard errors off counts linearly, not squared (Huber's
 * loss): a stall of the LU or of the measuring host in one measurement (a loaded machine, a
 * garbage collection) must not drag every parameter with it. */
#define HUBER 3.0

/* Exploration (which resource limits which measurement) runs on plain least squares, where a
 * wrong structure cannot hide its misfit by calling measurements outliers; the best structure
 * found is then refined with Huber's loss.  Set by run_fit for the phase it is in. */
static _Thread_local bool robust;

static double huber(double e)
{
	e = fabs(e);
	if (!robust)
		return e * e;
	return e <= HUBER ? e * e : 2 * HUBER * e - HUBER * HUBER;
}

/* The loss of the max() model: the sum of huber(residual / sigma), the chi-square when every
 * measurement is within HUBER of the model.  A bound-only row (this host may have limited it)
 * says the LU is at least that fast: it counts only when the model is slower than it. */
static double chi2_of(const struct calib_row *rows, size_t n, uint32_t d, const double *v)
{
	double c = 0;
	for (size_t i = 0; i < n; i++) {
		double e = (predict(&rows[i], v, NULL) - rows[i].y) / rows[i].sigma;
		if (rows[i].bound_only && e <= 0)
			continue;
		c += huber(e);
	}
	return c;
}

#define NOT_IN_FIT (-2) /* assignment of a bound-only row the model respects */

/* Each row's largest line under the current parameters, and its weight in the next solve
 * (1, or HUBER / |residual| beyond HUBER: iteratively reweighted least squares for Huber's
 * loss). */
struct asg {
	int res;
	double w;
};

static bool same_assign(const struct asg *a, const struct asg *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].res != b[i].res)
			return false;
	return true;
}

/* ---- one weighted linear least-squares solve for a fixed assignment ---- */

struct solve {
	bool free_[P_N];           /* parameters solved for */
	bool confounded[P_N];      /* dropped: the design could not separate them */
	bool carrier[P_N];         /* kept, but took over the effect of a dropped one */
	double v[P_N], se2[P_N];
	double chi2;
	int dof;
};

static double design(const struct calib_row *r, uint32_t d, int active, int p)
{
	(void)d;
	if (active == NOT_IN_FIT)
		return 0;
	return (active >= 0 ? r->cache[active][p] : 0) + r->cache[RES_N][p];
}

/* The normal equations of the scaled design, solved by Cholesky: a few hundred flops for the
 * ten parameters, where the SVD below costs a hundred times more; it serves every solve whose
 * design is well conditioned, and hands the rest (rank-deficient or nearly so) to the SVD,
 * which tells the rank.  Returns the rank k, or -1 to let the SVD decide. */
static int lsq_normal(const struct calib_row *rows, size_t n, uint32_t d, const struct asg *assign,
		      const int *idx, int k, const double *scale, double *v, double *se2, double *chi2)
{
	double a[P_N * P_N] = { 0 }, b[P_N] = { 0 }, x[P_N];
	for (size_t i = 0; i < n; i++) {
		if (assign[i].res == NOT_IN_FIT)
			continue;
		double w = assign[i].w / (rows[i].sigma * rows[i].sigma), xi[P_N];
		for (int j = 0; j < k; j++)
			xi[j] = design(&rows[i], d, assign[i].res, idx[j]) / scale[j];
		for (int j = 0; j < k; j++) {
			b[j] += w * xi[j] * rows[i].y;
			for (int l = 0; l <= j; l++)
				a[j * k + l] += w * xi[j] * xi[l];
		}
	}
	for (int j = 0; j < k; j++)
		for (int l = j + 1; l < k; l++)
			a[j * k + l] = a[l * k + j];
	gsl_matrix_view A = gsl_matrix_view_array(a, (size_t)k, (size_t)k);
	gsl_vector_view B = gsl_vector_view_array(b, (size_t)k), X = gsl_vector_view_array(x, (size_t)k);
	double rcond = 0, wk[3 * P_N];
	gsl_vector_view W = gsl_vector_view_array(wk, 3 * (size_t)k);
	if (gsl_linalg_cholesky_decomp1(&A.matrix) != GSL_SUCCESS ||
	    gsl_linalg_cholesky_rcond(&A.matrix, &rcond, &W.vector) != GSL_SUCCESS || rcond < 1e-10 ||
	    gsl_linalg_cholesky_solve(&A.matrix, &B.vector, &X.vector) != GSL_SUCCESS ||
	    gsl_linalg_cholesky_invert(&A.matrix) != GSL_SUCCESS)
		return -1;
	double c2 = 0;
	for (size_t i = 0; i < n; i++) {
		if (assign[i].res == NOT_IN_FIT)
			continue;
		double pred = 0;
		for (int j = 0; j < k; j++)
			pred += design(&rows[i], d, assign[i].res, idx[j]) / scale[j] * x[j];
		double e = pred - rows[i].y;
		c2 += assign[i].w / (rows[i].sigma * rows[i].sigma) * e * e;
	}
	*chi2 = c2;
	for (int j = 0; j < k; j++) {
		v[idx[j]] = x[j] / scale[j];
		se2[idx[j]] = a[j * k + j] / (scale[j] * scale[j]);
	}
	return k;
}

/* Solve for the parameters in `use` (others fixed at 0).  Returns the rank, -1 on failure. */
static int lsq(const struct calib_row *rows, size_t n, uint32_t d, const struct asg *assign, const bool *use,
	       double *v, double *se2, double *chi2)
{
	int idx[P_N], k = 0;
	for (int p = 0; p < P_N; p++)
		if (use[p])
			idx[k++] = p;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += assign[i].res != NOT_IN_FIT;
	for (int p = 0; p < P_N; p++) {
		v[p] = 0;
		se2[p] = 0;
	}
	if (k == 0 || m < (size_t)k)
		return -1;
	double scale[P_N];
	for (int j = 0; j < k; j++) {
		scale[j] = 0;
		for (size_t i = 0; i < n; i++)
			if (assign[i].res != NOT_IN_FIT && fabs(design(&rows[i], d, assign[i].res, idx[j])) > scale[j])
				scale[j] = fabs(design(&rows[i], d, assign[i].res, idx[j]));
		if (scale[j] == 0)
			scale[j] = 1;
	}
	int quick = lsq_normal(rows, n, d, assign, idx, k, scale, v, se2, chi2);
	if (quick >= 0)
		return quick;
	gsl_matrix *X = gsl_matrix_alloc(m, (size_t)k);
	gsl_vector *y = gsl_vector_alloc(m), *w = gsl_vector_alloc(m), *c = gsl_vector_alloc((size_t)k);
	gsl_matrix *cov = gsl_matrix_alloc((size_t)k, (size_t)k);
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(m, (size_t)k);
	int rank = -1;
	if (!X || !y || !w || !c || !cov || !ws)
		goto out;
	/* columns to a common magnitude: bytes (~1e6) and counts (~1) in one design */
	size_t row = 0;
	for (size_t i = 0; i < n; i++) {
		if (assign[i].res == NOT_IN_FIT)
			continue;
		for (int j = 0; j < k; j++)
			gsl_matrix_set(X, row, (size_t)j, design(&rows[i], d, assign[i].res, idx[j]) / scale[j]);
		gsl_vector_set(y, row, rows[i].y);
		gsl_vector_set(w, row, assign[i].w / (rows[i].sigma * rows[i].sigma));
		row++;
	}
	size_t rk = 0;
	if (gsl_multifit_wlinear_tsvd(X, w, y, 1e-9, c, cov, chi2, &rk, ws) != GSL_SUCCESS)
		goto out;
	rank = (int)rk;
	for (int j = 0; j < k; j++) {
		v[idx[j]] = gsl_vector_get(c, (size_t)j) / scale[j];
		se2[idx[j]] = gsl_matrix_get(cov, (size_t)j, (size_t)j) / (scale[j] * scale[j]);
	}
out:
	if (ws) gsl_multifit_linear_free(ws);
	if (cov) gsl_matrix_free(cov);
	if (c) gsl_vector_free(c);
	if (w) gsl_vector_free(w);
	if (y) gsl_vector_free(y);
	if (X) gsl_matrix_free(X);
	return rank;
}

/* The parameters a fixed assignment involves, solved with every parameter >= 0 and the design
 * of full rank: a negative value is clamped to 0 (dropped, most negative first); a parameter
 * the design cannot separate from the others is dropped as confounded, choosing the one whose
 * absence leaves the max() model closest to the data. */
static int solve_assignment(const struct calib_row *rows, size_t n, uint32_t d, const struct asg *assign,
			    const bool *allowed, struct solve *s)
{
	memset(s, 0, sizeof(*s));
	for (int p = 0; p < P_N; p++)
		for (size_t i = 0; i < n && !s->free_[p] && allowed[p]; i++)
			if (design(&rows[i], d, assign[i].res, p) != 0)
				s->free_[p] = true;
	for (int guard = 0; guard < 4 * P_N; guard++) {
		int nfree = 0;
		for (int p = 0; p < P_N; p++)
			nfree += s->free_[p];
		if (nfree == 0)
			return -1;
		int rank = lsq(rows, n, d, assign, s->free_, s->v, s->se2, &s->chi2);
		if (rank < 0)
			return -1;
		if (rank < nfree) {
			int best = -1;
			double best_chi2 = INFINITY;
			for (int p = 0; p < P_N; p++) {
				if (!s->free_[p])
					continue;
				bool use[P_N];
				double v[P_N], se2[P_N], c2;
				memcpy(use, s->free_, sizeof(use));
				use[p] = false;
				if (lsq(rows, n, d, assign, use, v, se2, &c2) < 0)
					continue;
				for (int q = 0; q < P_N; q++)
					if (v[q] < 0)
						v[q] = 0;
				double x = chi2_of(rows, n, d, v);
				if (x < best_chi2) {
					best_chi2 = x;
					best = p;
				}
			}
			if (best < 0)
				return -1;
			/* whoever moved when it went carries its effect from now on */
			double before[P_N];
			memcpy(before, s->v, sizeof(before));
			bool use[P_N];
			memcpy(use, s->free_, sizeof(use));
			use[best] = false;
			double after[P_N], se2[P_N], c2;
			if (lsq(rows, n, d, assign, use, after, se2, &c2) >= 0)
				for (int q = 0; q < P_N; q++)
					if (use[q] && fabs(after[q] - before[q]) > 0.02 * fabs(after[q]) + 1e-9)
						s->carrier[q] = true;
			s->free_[best] = false;
			s->confounded[best] = true;
			continue;
		}
		int neg = -1;
		for (int p = 0; p < P_N; p++)
			if (s->free_[p] && s->v[p] < 0 && (neg < 0 || s->v[p] / sqrt(s->se2[p] + 1e-300) <
							     s->v[neg] / sqrt(s->se2[neg] + 1e-300)))
				neg = p;
		if (neg < 0) {
			size_t m = 0;
			for (size_t i = 0; i < n; i++)
				m += !rows[i].bound_only;
			s->dof = (int)m - nfree;
			return 0;
		}
		s->free_[neg] = false;
		s->v[neg] = 0;
	}
	return -1;
}

/* Each row's largest line; a bound-only row joins the least squares only while the model is
 * slower than it measured (then as an equality, pulling the model back to the bound). */
static void assign_rows(const struct calib_row *rows, size_t n, uint32_t d, const double *v, struct asg *assign)
{
	for (size_t i = 0; i < n; i++) {
		double pred = predict(&rows[i], v, &assign[i].res);
		double e = fabs(pred - rows[i].y) / rows[i].sigma;
		assign[i].w = !robust || e <= HUBER ? 1 : HUBER / e;
		if (rows[i].bound_only && pred <= rows[i].y)
			assign[i].res = NOT_IN_FIT;
	}
}

/* xorshift64*: reproducible starting points, no global state */
static double urand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* The largest value a parameter could take alone: the biggest measurement divided by the
 * parameter's coefficient in it.  Starting points are drawn below it on a log scale. */
static void reaches(const struct calib_row *rows, size_t n, uint32_t d, double *reach)
{
	for (int p = 0; p < P_N; p++) {
		reach[p] = 0;
		for (size_t i = 0; i < n; i++) {
			if (rows[i].bound_only)
				continue;
			for (int res = -1; res < RES_N; res++) {
				double c = res < 0 ? offset_coef(&rows[i], (enum calib_param)p)
						   : calib_coef(&rows[i], d, (enum calib_res)res, (enum calib_param)p);
				if (c > 0 && rows[i].y / c > reach[p])
					reach[p] = rows[i].y / c;
			}
		}
	}
}

/* Upper bound of parameter p from every row where it appears in a resource or offset: that
 * term can be no larger than the measurement (plus two standard errors) leaves for it. */
static double upper_bound(const struct calib_row *rows, size_t n, uint32_t d, const double *v, int p)
{
	double b = INFINITY;
	for (size_t i = 0; i < n; i++) {
		const struct calib_row *r = &rows[i];
		double room = r->y + 2 * r->sigma;
		double off = offset(r, v);
		double c = offset_coef(r, (enum calib_param)p);
		if (c > 0) {
			double mx = predict(r, v, NULL) - off;
			double x = (room - mx - (off - c * v[p])) / c;
			if (x < b)
				b = x;
		}
		for (int res = 0; res < RES_N; res++) {
			c = calib_coef(r, d, (enum calib_res)res, (enum calib_param)p);
			if (c <= 0)
				continue;
			double rest = line(r, (enum calib_res)res, v) - c * v[p];
			double x = (room - off - rest) / c;
			if (x < b)
				b = x;
		}
	}
	return b < 0 ? 0 : b;
}

static bool appears(const struct calib_row *rows, size_t n, uint32_t d, int p)
{
	for (size_t i = 0; i < n; i++) {
		if (offset_coef(&rows[i], (enum calib_param)p) > 0)
			return true;
		for (int res = 0; res < RES_N; res++)
			if (calib_coef(&rows[i], d, (enum calib_res)res, (enum calib_param)p) > 0)
				return true;
	}
	return false;
}

/* Alternate from v0: assign every row its largest line, solve, until the assignment stays.
 * Returns the max() model's chi-square (INFINITY when nothing could be solved). */
static double alternate(const struct calib_row *rows, size_t n, uint32_t d, const bool *allowed, const double *v0,
			struct solve *out, struct asg *assign, struct asg *prev, int max_iter)
{
	double v[P_N];
	memcpy(v, v0, sizeof(v));
	bool have = false;
	for (int it = 0; it < max_iter; it++) {
		assign_rows(rows, n, d, v, assign);
		if (it > 2 && same_assign(assign, prev, n))
			break;
		memcpy(prev, assign, n * sizeof(*prev));
		struct solve s;
		if (solve_assignment(rows, n, d, assign, allowed, &s))
			break;
		have = true;
		*out = s;
		memcpy(v, s.v, sizeof(v));
	}
	return have ? chi2_of(rows, n, d, out->v) : INFINITY;
}

/* The alternation stops where no row changes its largest line, which need not be the best
 * fit (two resources can trade measurements).  Move a badly explained row (residual beyond
 * two standard errors, worst first) to another resource it uses, solve, alternate again, and
 * keep the move while the chi-square falls; a fit already within its noise is left alone. */
#define POLISH_ROWS 12
static double polish(const struct calib_row *rows, size_t n, uint32_t d, const bool *allowed, struct solve *s,
		     double c2, struct asg *assign, struct asg *prev)
{
	struct asg *trial = calloc(n ? n : 1, sizeof(*trial));
	if (!trial)
		return c2;
	bool improved = true;
	for (int pass = 0; improved && pass < 8; pass++) {
		improved = false;
		if (c2 <= 1.5 * (double)(s->dof > 0 ? s->dof : 1))
			break;
		assign_rows(rows, n, d, s->v, trial);
		/* the worst-explained rows, worst first */
		struct bad { size_t i; double e; } worst[POLISH_ROWS];
		unsigned nw = 0;
		for (size_t i = 0; i < n; i++) {
			if (trial[i].res == NOT_IN_FIT)
				continue;
			double e = fabs(predict(&rows[i], s->v, NULL) - rows[i].y) / rows[i].sigma;
			if (e <= 2 || (nw == POLISH_ROWS && e <= worst[nw - 1].e))
				continue;
			unsigned k = nw < POLISH_ROWS ? nw++ : nw - 1;
			for (; k > 0 && worst[k - 1].e < e; k--)
				worst[k] = worst[k - 1];
			worst[k] = (struct bad){ i, e };
		}
		for (unsigned w = 0; w < nw && !improved; w++) {
			size_t i = worst[w].i;
			int keep = trial[i].res;
			for (int r = 0; r < RES_N; r++) {
				if (r == keep || !calib_uses(&rows[i], (enum calib_res)r))
					continue;
				trial[i].res = r;
				struct solve t, u;
				double c = INFINITY;
				if (solve_assignment(rows, n, d, trial, allowed, &t) == 0)
					c = alternate(rows, n, d, allowed, t.v, &u, assign, prev, 20);
				trial[i].res = keep;
				if (c < c2 * (1 - 1e-9) - 1e-12) {
					*s = u;
					c2 = c;
					improved = true;
					assign_rows(rows, n, d, s->v, trial);
					break;
				}
			}
		}
	}
	free(trial);
	return c2;
}

/* The active-set fit from `starts` starting points (the first one `hint` when given), with
 * the parameters not `allowed` held at 0; the three best end points are polished.  Returns
 * the best chi-square (INFINITY: none). */
static double run_fit(const struct calib_row *rows, size_t n, uint32_t d, const bool *allowed, const double *hint,
		      int starts, struct solve *best)
{
	struct asg *assign = calloc(n ? n : 1, sizeof(*assign)), *prev = calloc(n ? n : 1, sizeof(*prev));
	struct solve top[3];
	double top_c2[3] = { INFINITY, INFINITY, INFINITY };
	double best_chi2 = INFINITY;
	if (!assign || !prev)
		goto out;
	double reach[P_N];
	reaches(rows, n, d, reach);
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ d;
	for (int start = 0; start < starts; start++) {
		double v[P_N];
		for (int p = 0; p < P_N; p++) {
			if (start == 0 && hint)
				v[p] = hint[p];
			else
				v[p] = start == 0 ? reach[p] * 0.1 : reach[p] * pow(10.0, -4.0 * urand(&seed));
			if (!allowed[p])
				v[p] = 0;
		}
		struct solve s;
		double c2 = alternate(rows, n, d, allowed, v, &s, assign, prev, MAX_ITER);
		if (!isfinite(c2))
			continue;
		/* keep the three best distinct end points */
		int k = 3;
		for (int j = 0; j < 3; j++)
			if (fabs(c2 - top_c2[j]) <= 1e-9 * (1 + c2)) {
				k = -1;
				break;
			}
		if (k < 0)
			continue;
		for (k = 0; k < 3 && top_c2[k] <= c2; k++)
			;
		if (k == 3)
			continue;
		for (int j = 2; j > k; j--) {
			top[j] = top[j - 1];
			top_c2[j] = top_c2[j - 1];
		}
		top[k] = s;
		top_c2[k] = c2;
	}
	for (int j = 0; j < 3; j++) {
		if (!isfinite(top_c2[j]))
			continue;
		double c2 = polish(rows, n, d, allowed, &top[j], top_c2[j], assign, prev);
		if (c2 < best_chi2) {
			best_chi2 = c2;
			*best = top[j];
		}
	}
	/* the robust refinement of the best structure */
	if (isfinite(best_chi2)) {
		robust = true;
		struct solve r;
		double plain = chi2_of(rows, n, d, best->v);
		double c2 = alternate(rows, n, d, allowed, best->v, &r, assign, prev, MAX_ITER);
		if (c2 <= plain) {
			*best = r;
			best_chi2 = c2;
		} else {
			best_chi2 = plain;
		}
		robust = false;
	}
out:
	free(assign);
	free(prev);
	return best_chi2;
}

static int fit_core(struct calib_row *rows, size_t n, uint32_t d, struct calib_fit *out, bool prune)
{
	memset(out, 0, sizeof(*out));
	out->dedup_block = d;
	if (!d)
		return -1;
	gsl_set_error_handler_off();
	for (size_t i = 0; i < n; i++)
		cache_row(&rows[i], d);
	bool allowed[P_N], pruned[P_N] = { false };
	for (int p = 0; p < P_N; p++)
		allowed[p] = true;
	struct solve best = { 0 };
	/* a search over dedup blocks only compares chi-squares: fewer starting points do */
	double best_chi2 = run_fit(rows, n, d, allowed, NULL, prune ? STARTS : STARTS / 2, &best);
	if (!isfinite(best_chi2))
		return -1;
	/* which parameters the unpruned fit used to explain a limiting measurement */
	bool involved[P_N] = { false };
	for (int p = 0; p < P_N; p++)
		involved[p] = best.confounded[p] || (best.free_[p] && best.v[p] > 0);
	/* A parameter is identified only if the data get significantly worse without it: when
	 * two resources tie in every measurement (a READ limited by a back-end exactly as slow as
	 * the front-end would be), or when another parameter can carry its effect, the fit above
	 * still gives it a value, but nothing measured pins it.  Drop the least needed one while
	 * dropping it costs less than chi-square 4 (two standard errors, scaled by the misfit). */
	while (prune) {
		double inflate = best.dof > 0 && best_chi2 / best.dof > 1 ? best_chi2 / best.dof : 1;
		int drop = -1;
		double drop_chi2 = INFINITY;
		struct solve drop_fit = { 0 };
		for (int p = 0; p < P_N; p++) {
			if (!best.free_[p] || best.v[p] <= 0)
				continue;
			bool a[P_N];
			memcpy(a, allowed, sizeof(a));
			a[p] = false;
			struct solve s = { 0 };
			double c = run_fit(rows, n, d, a, best.v, 1, &s);
			if (c < drop_chi2) {
				drop_chi2 = c;
				drop = p;
				drop_fit = s;
			}
		}
		if (drop < 0 || drop_chi2 - best_chi2 >= 4 * inflate)
			break;
		allowed[drop] = false;
		pruned[drop] = true;
		/* when it mattered (3% or more of a measurement it limited), the parameters that moved
		 * by more than 10% (and beyond their error) to make up for it carry its effect: their
		 * values are no longer their own.  A parameter that only fitted noise leaves nothing
		 * to carry, and a shift within 10% leaves a value good to that much. */
		double share = 0;
		struct asg *as = calloc(n ? n : 1, sizeof(*as));
		if (as) {
			assign_rows(rows, n, d, best.v, as);
			for (size_t i = 0; i < n; i++) {
				double c = design(&rows[i], d, as[i].res, drop) * best.v[drop] / rows[i].y;
				if (c > share)
					share = c;
			}
			free(as);
		}
		bool carried[P_N] = { false };
		for (int q = 0; q < P_N; q++)
			carried[q] = best.carrier[q] || (share >= 0.03 && q != drop && drop_fit.free_[q] && drop_fit.v[q] > 0 &&
				     fabs(drop_fit.v[q] - best.v[q]) > fmax(2 * sqrt(best.se2[q] * inflate), 0.10 * best.v[q]));
		best = drop_fit;
		for (int q = 0; q < P_N; q++)
			best.carrier[q] |= carried[q];
		best_chi2 = drop_chi2;
	}
	out->chi2 = best_chi2;
	out->dof = best.dof;
	/* the standard errors grow with the misfit: a model that explains the data to its noise
	 * keeps the measurement errors, a worse one inflates them by sqrt(chi2/dof) */
	double inflate = best.dof > 0 && best_chi2 / best.dof > 1 ? best_chi2 / best.dof : 1;
	memcpy(out->v, best.v, sizeof(out->v));
	for (size_t i = 0; i < n; i++) {
		rows[i].pred = predict(&rows[i], out->v, &rows[i].active);
		if (rows[i].pred <= offset(&rows[i], out->v))
			rows[i].active = -1;   /* no resource time at all: none limits the row */
		out->nfit += !rows[i].bound_only;
		if (rows[i].bound_only)
			continue;
		for (int p = 0; p < P_N; p++)
			if (design(&rows[i], d, rows[i].active, p) != 0 && out->v[p] > 0)
				out->nactive[p]++;
	}
	for (int p = 0; p < P_N; p++) {
		out->bound[p] = INFINITY;
		if (best.free_[p] && out->v[p] > 0) {
			out->se[p] = sqrt(best.se2[p] * inflate);
			out->st[p] = best.carrier[p] ? ST_CONFOUNDED
				     : 1.96 * out->se[p] <= 0.10 * out->v[p] ? ST_FITTED : ST_WEAK;
		} else if (best.confounded[p] || (pruned[p] && involved[p])) {
			/* it explained measurements, but others explain them as well */
			out->v[p] = 0;
			out->st[p] = ST_CONFOUNDED;
			out->bound[p] = upper_bound(rows, n, d, out->v, p);
		} else if (appears(rows, n, d, p)) {
			out->v[p] = 0;
			out->st[p] = ST_BOUND;
			out->bound[p] = upper_bound(rows, n, d, out->v, p);
		} else {
			out->v[p] = 0;
			out->st[p] = ST_UNMEASURED;
		}
	}
	return 0;
}

int calib_fit(struct calib_row *rows, size_t n, uint32_t d, struct calib_fit *out)
{
	return fit_core(rows, n, d, out, true);
}

int calib_fit_search(struct calib_row *rows, size_t n, uint32_t lo, uint32_t hi, struct calib_fit *out,
		     double *chi2_by_block, unsigned nblocks)
{
	struct calib_fit f;
	double best = INFINITY;
	uint32_t best_d = 0;
	unsigned i = 0;
	for (uint32_t d = lo; d && d <= hi; d <<= 1, i++) {
		double c = INFINITY;
		if (fit_core(rows, n, d, &f, false) == 0) /* every parameter free: the best chi-square */
			c = f.chi2;
		if (chi2_by_block && i < nblocks)
			chi2_by_block[i] = c;
		/* blocks that fit equally well (every size measured a multiple of all of them, or no
		 * per-entry cost visible) are indistinguishable: keep the largest of the tie */
		if (c <= best * (1 + 1e-6) + 1e-9) {
			best = c;
			best_d = d;
		}
	}
	if (!best_d)
		return -1;
	return calib_fit(rows, n, best_d, out);
}
