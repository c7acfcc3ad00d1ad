// speed: the shared finish, stages 6-7 of speed.h (block statistics of a
// band, the score of a pair). Every step follows libvmaf f85a8536
// feature/speed.c (est_params, get_speed_score and the solvers they call) in
// its types and order; C promotes float arguments of log2/sqrt to double,
// so those calls take doubles here too (std::log2(float) would be log2f).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "features/speed/speed.h"

namespace twinmaf {

namespace {

constexpr int kN = kSpeedBlockSamples;  // order of the covariance matrix
constexpr int kMaxQrSteps = 500;
constexpr double kPi = 3.14159265358979323846;
constexpr double kE = 2.7182818284590452354;

using Matrix = SpeedMatrix;

// log2(2 pi e), the Gaussian entropy constant, as libvmaf's expression.
double log2_2pi_e() { return std::log2(2 * kPi * kE); }

int sign_of(float x) { return x >= 0 ? 1 : -1; }

// sqrt(x^2 + y^2): float squares and sum, double sqrt, float result.
float hypot_f(float x, float y) {
  return static_cast<float>(std::sqrt(static_cast<double>(x * x + y * y)));
}

// ---- eigenvalues of a symmetric matrix (GSL's symmtd + symm, in float) ----

// Householder vector annihilating A[start+1.., col]; returns tau, leaves v
// (scaled, v[start] implicit 1) below A[start][col] = beta.
float householder(float* a, int n, int col, int start) {
  if (n - start == 1) return 0.0f;
  float ss = 0;
  for (int r = start + 1; r < n; ++r) ss += a[r * n + col] * a[r * n + col];
  const float xnorm = static_cast<float>(std::sqrt(static_cast<double>(ss)));
  if (xnorm == 0.0f) return 0.0f;
  const float alpha = a[start * n + col];
  const float beta = -sign_of(alpha) * hypot_f(alpha, xnorm);
  const float tau = (beta - alpha) / beta;
  const float s = alpha - beta;
  if (s != 0.0f) {
    for (int r = start; r < n; ++r) a[r * n + col] /= s;
    a[start * n + col] = beta;
  }
  return tau;
}

// Reduces symmetric a (modified) to tridiagonal: diagonal d, subdiagonal sd.
void tridiagonalize(float* a, int n, float* d, float* sd) {
  std::array<float, kN> v{};
  std::array<float, kN> x{};
  for (int i = 0; i < n - 2; ++i) {
    const float tau = householder(a, n, i, i + 1);
    for (int j = i + 1; j < n; ++j) v[j] = a[j * n + i];
    if (tau == 0.0f) continue;
    a[(i + 1) * n + i] = v[i + 1];
    v[i + 1] = 1.0f;
    const int lo = i + 1;
    for (int r = lo; r < n; ++r) {  // x = tau A v
      x[r] = 0.0f;
      for (int c = lo; c < n; ++c) x[r] += tau * a[r * n + c] * v[c];
    }
    float xv = 0;
    for (int r = lo; r < n; ++r) xv += x[r] * v[r];
    const float alpha = static_cast<float>(-0.5 * tau * xv);
    for (int r = lo; r < n; ++r) x[r] += alpha * v[r];
    for (int r = lo; r < n; ++r)  // A -= x v' + v x'
      for (int c = lo; c < n; ++c) a[r * n + c] -= x[r] * v[c] + v[r] * x[c];
  }
  for (int i = 0; i < n; ++i) d[i] = a[i * n + i];
  for (int i = 0; i < n - 1; ++i) sd[i] = a[(i + 1) * n + i];
}

// Zeroes subdiagonal entries negligible against their diagonal neighbours
// (float sum, double comparison).
void chop_small(const float* d, float* sd, int n) {
  for (int i = 0; i < n - 1; ++i)
    if (std::fabs(sd[i]) < kSpeedEps * (std::fabs(d[i]) + std::fabs(d[i + 1]))) sd[i] = 0.0f;
}

// Wilkinson shift from the trailing 2x2 block.
float trailing_shift(const float* d, const float* sd, int n) {
  const float ta = d[n - 2];
  const float tb = d[n - 1];
  const float tab = sd[n - 2];
  const float dt = static_cast<float>((ta - tb) / 2.0);
  if (dt > 0) return tb - tab * (tab / (dt + hypot_f(dt, tab)));
  if (dt == 0) return tb - std::fabs(tab);
  return tb + tab * (tab / (-dt + hypot_f(dt, tab)));
}

void givens(float a, float b, float& c, float& s) {
  if (b == 0) {
    c = 1;
    s = 0;
  } else if (std::fabs(b) > std::fabs(a)) {
    const float t = -a / b;
    const float s1 = static_cast<float>(1.0 / std::sqrt(static_cast<double>(1 + t * t)));
    s = s1;
    c = s1 * t;
  } else {
    const float t = -b / a;
    const float c1 = static_cast<float>(1.0 / std::sqrt(static_cast<double>(1 + t * t)));
    c = c1;
    s = c1 * t;
  }
}

// One implicit-shift QR step on the unreduced block d[0..n), sd[0..n-1).
void qr_step(float* d, float* sd, int n) {
  float mu = trailing_shift(d, sd, n);
  if (kSpeedEps * std::fabs(mu) > std::fabs(d[0]) + std::fabs(sd[0])) mu = 0;
  float x = d[0] - mu;
  float z = sd[0];
  float bk = 0;
  float zk = 0;
  float ap = d[0];
  float bp = sd[0];
  float aq = d[1];
  if (n == 2) {
    float c, s;
    givens(x, z, c, s);
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    d[0] = ap1;
    sd[0] = bp1;
    d[1] = aq1;
    return;
  }
  float bq = sd[1];
  for (int k = 0; k < n - 1; ++k) {
    float c, s;
    givens(x, z, c, s);
    const float bk1 = c * bk - s * zk;
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float zp1 = -s * bq;
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    const float bq1 = c * bq;
    bk = bp1;
    zk = zp1;
    ap = aq1;
    bp = bq1;
    if (k < n - 2) aq = d[k + 2];
    if (k < n - 3) bq = sd[k + 2];
    d[k] = ap1;
    if (k > 0) sd[k - 1] = bk1;
    if (k < n - 2) sd[k + 1] = bp;
    x = bk;
    z = zk;
  }
  d[n - 1] = ap;
  sd[n - 2] = bk;
}

// Eigenvalues (unordered) of the symmetric kN x kN matrix k.
std::array<float, kN> eigenvalues(const Matrix& k) {
  Matrix a = k;
  std::array<float, kN> d{};
  std::array<float, kN> sd{};
  tridiagonalize(a.data(), kN, d.data(), sd.data());
  chop_small(d.data(), sd.data(), kN);
  int b = kN - 1;
  int steps = 0;
  while (b > 0 && steps < kMaxQrSteps) {
    if (sd[b - 1] == 0.0f) {
      --b;
      continue;
    }
    int top = b - 1;  // start of the unreduced block ending at b
    while (top > 0 && sd[top - 1] != 0.0f) --top;
    const int n = b - top + 1;
    qr_step(d.data() + top, sd.data() + top, n);
    chop_small(d.data() + top, sd.data() + top, n);
    ++steps;
  }
  return d;
}

// ---- linear system K X = Y by Householder QR (dense, as libvmaf) ----

// dst = x y for kN x kN x and y of kN x cols: speed_product_entry with lo = 0
// for every entry (the j loop innermost, so that it vectorises).
void multiply(const float* x, const float* y, int cols, float* dst) {
  std::fill(dst, dst + kN * cols, 0.0f);
  for (int i = 0; i < kN; ++i)
    for (int k = 0; k < kN; ++k) {
      const float xik = x[i * kN + k];
      const float* yk = y + k * cols;
      float* di = dst + i * cols;
      for (int j = 0; j < cols; ++j) di[j] += xik * yk[j];
    }
}

// t[i][j] = speed_product_entry(h, m, kN, lo, i, j) for i >= i0 and j >= j0.
void product_block(const Matrix& h, const Matrix& m, int lo, int i0, int j0, Matrix& t) {
  for (int i = i0; i < kN; ++i) {
    float* ti = t.data() + i * kN;
    std::fill(ti + j0, ti + kN, 0.0f);
    for (int k = lo; k < kN; ++k) {
      const float hik = h[i * kN + k];
      const float* mk = m.data() + k * kN;
      for (int j = j0; j < kN; ++j) ti[j] += hik * mk[j];
    }
  }
}

// X (kN x cols) solving K X = Y from K's factors (speed_solvable).
void solve(const SpeedFactors& f, const float* y, int cols, float* x) {
  const Matrix& r = f.r;
  // q is Q' of K = Q R: R X = q Y.
  std::vector<float> qy(static_cast<size_t>(kN) * cols);
  multiply(f.q.data(), y, cols, qy.data());
  // Back substitution, row i of every column j at once: x[i][j] starts at
  // qy[i][j], subtracts x[m][j] * r[i][m] for m = i+1 .. kN-1 in order and
  // is divided by the pivot (each column's operations in libvmaf's order;
  // the j loops vectorise).
  for (int i = kN - 1; i >= 0; --i) {
    const float pivot = r[i * kN + i];
    float* __restrict xi = x + i * cols;
    std::copy(qy.data() + i * cols, qy.data() + (i + 1) * cols, xi);
    for (int m = i + 1; m < kN; ++m) {
      const float rim = r[i * kN + m];
      const float* __restrict xm = x + m * cols;
      for (int j = 0; j < cols; ++j) xi[j] -= xm[j] * rim;
    }
    for (int j = 0; j < cols; ++j) xi[j] = xi[j] / pivot;
  }
}

}  // namespace

void speed_shifted_sums_ref(const SpeedGeometry& g, const float* band, float* sum) {
  for (int a = 0; a < kN; ++a) sum[a] = speed_shifted_sum(band, g.trunc_w, g.trunc_h, a);
}

void speed_covariance_sums_ref(const SpeedGeometry& g, const float* band, const float* mean, double* acc) {
  for (int t = 0; t < kSpeedPairs; ++t) {
    int a, b;
    speed_pair(t, &a, &b);
    acc[t] = speed_covariance_sum(band, g.trunc_w, g.trunc_h, a, mean[a], b, mean[b]);
  }
}

void speed_band_sums(const SpeedDsp& dsp, const SpeedGeometry& g, const SpeedBand& band, SpeedSums& sums) {
  std::array<float, kN> mean{};
  dsp.shifted_sums(g, band.data(), mean.data());
  for (float& m : mean) m = speed_shifted_mean(m, g.trunc_w, g.trunc_h);
  dsp.covariance_sums(g, band.data(), mean.data(), sums.data());
}

SpeedMatrix speed_covariance_matrix(const SpeedGeometry& g, const SpeedSums& sums) {
  Matrix k{};
  for (int a = 0; a < kN; ++a)
    for (int b = 0; b < kN; ++b) k[a * kN + b] = speed_covariance_entry(sums.data(), g.trunc_w, g.trunc_h, a, b);
  return k;
}

// libvmaf forms each reflection H = I - 2 v v' densely and multiplies full
// matrices. At step c, v[0..c) = +0 (rows above c of the reduced matrix Z
// are identity rows), so H's rows and columns below c are the identity's
// with signed-zero off-diagonal entries. With v finite, every product that
// involves one of those zeros and a finite factor is a signed zero, and a
// float sum that starts at +0 is never -0, so adding them changes nothing;
// the products are skipped:
//   Z' = H Z   only rows and columns > c (the next step resets the others
//              to the identity's before reading Z);
//   Q' = H Q   rows >= c; rows < c equal Q's (Q never holds -0 or non-finite
//              values while v stays finite).
// Once v is not finite (a zero or NaN norm), the rest runs dense, as libvmaf.
void speed_qr(const SpeedMatrix& k, SpeedFactors& f) {
  Matrix z = k;  // the matrix being reduced
  Matrix& q = f.q;  // product of the reflections so far
  Matrix h{};    // the current reflection I - 2 v v'
  Matrix t{};
  q.fill(0.0f);
  for (int i = 0; i < kN; ++i) q[i * kN + i] = 1;
  std::array<float, kN> v{};
  bool dense = false;
  for (int c = 0; c < kN - 1; ++c) {
    for (int i = 0; i < kN; ++i)
      for (int j = 0; j < kN; ++j)
        if (i < c || j < c) z[i * kN + j] = (i == j) ? 1 : 0;
    // The sign is the original matrix's entry's.
    const float vn = speed_reflector(z.data(), c, k[c * kN + c], v.data());
    for (int i = 0; i < kN; ++i)
      for (int j = 0; j < kN; ++j) h[i * kN + j] = speed_reflection_entry(v.data(), i, j);
    dense = dense || !(std::isfinite(vn) && vn > 0);
    if (dense) {
      multiply(h.data(), z.data(), kN, t.data());
      z = t;
      multiply(h.data(), q.data(), kN, t.data());
      q = t;
      continue;
    }
    product_block(h, z, c, c + 1, c + 1, t);
    for (int i = c + 1; i < kN; ++i)
      std::copy(t.data() + i * kN + c + 1, t.data() + (i + 1) * kN, z.data() + i * kN + c + 1);
    product_block(h, q, c, c, 0, t);
    std::copy(t.data() + c * kN, t.data() + kN * kN, q.data() + c * kN);
  }
  multiply(q.data(), k.data(), kN, f.r.data());
}

void speed_block_variances(const SpeedGeometry& g, SpeedImageTerms& image) {
  const SpeedBand& band = image.band;
  const int tw = g.trunc_w;
  const int nbx = g.blocks_x();
  const int nb = g.blocks();
  image.variance.assign(static_cast<size_t>(nb), 0.0f);
  if (!speed_solvable(image.factors.r.data())) return;

  // Y: row a holds sample (a / 5, a % 5) of every block, blocks in raster order.
  std::vector<float> y(static_cast<size_t>(kN) * nb);
  for (int a = 0; a < kN; ++a)
    for (int bi = 0; bi < nb; ++bi) {
      const int by = bi / nbx;
      const int bx = bi % nbx;
      y[a * nb + bi] = band[(by * kSpeedBlock + a / kSpeedBlock) * tw + bx * kSpeedBlock +
                            a % kSpeedBlock];
    }
  std::vector<float> x(static_cast<size_t>(kN) * nb);
  solve(image.factors, y.data(), nb, x.data());

  // S = sum over a of (X * Y) / 25, summed over a in order.
  const float n_samples = static_cast<float>(kN);
  for (int a = 0; a < kN; ++a)
    for (int bi = 0; bi < nb; ++bi) {
      const float term = (x[a * nb + bi] * y[a * nb + bi]) / n_samples;
      image.variance[bi] = a == 0 ? term : image.variance[bi] + term;
    }
}

void speed_image_terms(const SpeedDsp& dsp, const SpeedGeometry& g, SpeedImageTerms& image) {
  speed_band_sums(dsp, g, image.band, image.sums);
  speed_qr(speed_covariance_matrix(g, image.sums), image.factors);
  speed_block_variances(g, image);
}

SpeedBlockStats speed_block_stats(const SpeedGeometry& g, const SpeedImageTerms& image, float sigma_nn) {
  const int nb = g.blocks();
  const std::array<float, kN> eig = eigenvalues(speed_covariance_matrix(g, image.sums));

  SpeedBlockStats st;
  bool regular = true;
  for (float l : eig) regular = regular && !(l < kSpeedEps);
  st.singular = !(regular && speed_solvable(image.factors.r.data()));
  // Singular: est_params' X is 0, so each S is a signed zero; +0 gives every
  // later value the same bits (l * S + snn and 1 + S see no sign).
  if (st.singular)
    st.variance.assign(static_cast<size_t>(nb), 0.0f);
  else
    st.variance = image.variance;

  const double c = log2_2pi_e();
  st.entropy.assign(static_cast<size_t>(nb), 0.0f);
  for (int a = 0; a < kN; ++a) {
    const float l = eig[a] < 0 ? 0 : eig[a];
    for (int bi = 0; bi < nb; ++bi)
      st.entropy[bi] = static_cast<float>(
          st.entropy[bi] + (std::log2(static_cast<double>(l * st.variance[bi] + sigma_nn)) + c));
  }
  return st;
}

float speed_blocks_score(const SpeedBlockStats& ref, const SpeedBlockStats& dis, float sigma_nn,
                         float nn_floor, int weight_var_mode) {
  const double c = log2_2pi_e();
  const float base = static_cast<float>(
      static_cast<double>(kN) * (std::log2(static_cast<double>((1 + nn_floor) * sigma_nn)) + c));
  const size_t nb = ref.entropy.size();
  float score = 0;
  for (size_t i = 0; i < nb; ++i) {
    const float hr = ref.entropy[i];
    const float hd = dis.entropy[i];
    if (hr < base && hd < base) continue;  // adds 0 to a sum that is never -0
    const float vr = ref.variance[i];
    const float vd = dis.variance[i];
    auto lg = [](double v) { return std::log2(v); };
    float sr = 0;
    float sd = 0;
    switch (weight_var_mode) {
      case 0:
        sr = static_cast<float>(hr * lg(1 + vr));
        sd = static_cast<float>(hd * lg(1 + vd));
        break;
      case 1:
        sr = static_cast<float>(hr * lg(1 + vr));
        sd = static_cast<float>(hd * lg(1 + vr));
        break;
      case 2:
        sr = static_cast<float>(hr * lg(1 + vd));
        sd = static_cast<float>(hd * lg(1 + vd));
        break;
      case 3:
        sr = static_cast<float>(hr * lg(1 + (vr + vd) / 2.0));
        sd = static_cast<float>(hd * lg(1 + (vr + vd) / 2.0));
        break;
      case 4:
        sr = static_cast<float>(hr * lg(1 + vr));
        sd = static_cast<float>(hd * lg(1 + (vr + vd) / 2.0));
        break;
      case 5:
        sr = static_cast<float>(hr * lg(1 + vr));
        sd = static_cast<float>(hd * lg(1 + (0.75 * vr + 0.25 * vd)));
        break;
      default:  // 6 (the option's range is 0..6)
        sr = static_cast<float>(hr * lg(1 + vr));
        sd = static_cast<float>(hd * lg(1 + (0.25 * vr + 0.75 * vd)));
        break;
    }
    score += std::fabs(sr - sd);
  }
  return score / static_cast<float>(nb);
}

SpeedScore speed_pair_score(const SpeedGeometry& g, const SpeedImageTerms& ref, const SpeedImageTerms& dis,
                            const SpeedParams& p) {
  const auto snn = static_cast<float>(p.sigma_nn);
  const SpeedBlockStats r = speed_block_stats(g, ref, snn);
  const SpeedBlockStats d = speed_block_stats(g, dis, snn);
  SpeedScore s;
  s.singular = r.singular || d.singular;
  // Exactly one singular image: libvmaf reports 0 rather than an inflated score.
  s.score = r.singular != d.singular ? 0.0f
                                     : speed_blocks_score(r, d, snn, static_cast<float>(p.nn_floor),
                                                          p.weight_var_mode);
  return s;
}

SpeedChromaScores speed_chroma_scores(const SpeedScore& u, const SpeedScore& v, double max_val) {
  float uv;
  if (u.singular && !v.singular)
    uv = v.score;
  else if (v.singular && !u.singular)
    uv = u.score;
  else
    uv = static_cast<float>((u.score + v.score) / 2.0);
  // C's MIN(score, max_val): the second operand unless the first is smaller.
  auto clip = [max_val](float s) { return s < max_val ? static_cast<double>(s) : max_val; };
  return {clip(u.score), clip(v.score), clip(uv)};
}

}  // namespace twinmaf
