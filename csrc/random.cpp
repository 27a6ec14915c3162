// Random fills for pd.random (normal, uniform, truncated_normal, randint, gamma). Every element's
// draw depends only on (seed, index), so the numbers are the same whatever the thread count,
// and a seed given again gives the same tensor again.
#include "common.h"

#include <climits>
#include <cmath>
#include <utility>

namespace paddle {
namespace {

enum Kind : int {
  kUniform = 0, kNormal = 1, kTruncatedNormal = 2, kRandint = 3, kKeepMask = 4, kPermutation = 5,
  kGamma = 6
};

constexpr double kTwoPow53 = 9007199254740992.0;
constexpr double kPi = 3.14159265358979323846;

inline double unit(uint64_t bits) { return double(bits >> 11) / kTwoPow53; }  // [0, 1)

// One standard normal draw for element i of stream `base` (Box-Muller, cosine branch).
inline double std_normal(uint64_t base, uint64_t i) {
  double u1 = (double(splitmix64(base + 2 * i) >> 11) + 1.0) / kTwoPow53;  // (0, 1]
  double u2 = unit(splitmix64(base + 2 * i + 1));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

// Redraws beyond two standard deviations, as Keras's truncated_normal; each redraw comes from
// a stream of its own. The chance of 64 misses in a row is 0.0455^64: never, in practice.
inline double truncated(uint64_t base, uint64_t i) {
  for (uint64_t attempt = 0; attempt < 64; ++attempt) {
    double z = std_normal(splitmix64(base ^ (attempt * 0xD1B54A32D192ED03ull)), i);
    if (z >= -2.0 && z <= 2.0) return z;
  }
  return 0.0;
}

// The stream of a gamma draw's attempt (tag 1: its normal, 2: its uniform, 0: the boost
// of a shape below 1), apart from the other kinds' streams.
inline uint64_t gamma_stream(uint64_t base, uint64_t attempt, uint64_t tag) {
  return splitmix64(base ^ ((3 * attempt + tag + 1) * 0x9E6C63D0676A9A99ull));
}

// A Gamma(alpha, 1) draw (Marsaglia and Tsang, 2000): accepted with probability above 0.95
// per attempt, so 64 misses in a row never happen in practice (then: the mode, d). A shape
// below 1 draws Gamma(alpha + 1) and scales it by u^(1 / alpha).
inline double std_gamma(uint64_t base, uint64_t i, double alpha) {
  const double shape = alpha < 1.0 ? alpha + 1.0 : alpha;
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  double g = d;
  for (uint64_t attempt = 0; attempt < 64; ++attempt) {
    const double z = std_normal(gamma_stream(base, attempt, 1), i);
    const double v = 1.0 + c * z;
    if (v <= 0.0) continue;
    const double v3 = v * v * v;
    const double u = (double(splitmix64(gamma_stream(base, attempt, 2) + i) >> 11) + 1.0) /
                     kTwoPow53;  // (0, 1]
    if (std::log(u) < 0.5 * z * z + d - d * v3 + d * std::log(v3)) { g = d * v3; break; }
  }
  if (alpha < 1.0) {
    const double u = (double(splitmix64(gamma_stream(base, 64, 0) + i) >> 11) + 1.0) /
                     kTwoPow53;
    g *= std::pow(u, 1.0 / alpha);
  }
  return g;
}

template <typename T>
void fill_typed(T* out, int64_t n, int kind, double a, double b, uint64_t base) {
  parallel_chunks(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const uint64_t k = uint64_t(i);
      double v;
      switch (kind) {
        case kUniform: v = a + (b - a) * unit(splitmix64(base + k)); break;
        case kNormal: v = a + b * std_normal(base, k); break;
        case kTruncatedNormal: v = a + b * truncated(base, k); break;
        case kRandint: v = std::floor(a + (b - a) * unit(splitmix64(base + k))); break;
        case kGamma: v = b * std_gamma(base, k, a); break;
        default: v = unit(splitmix64(base + k)) >= a ? b : 0.0;  // kKeepMask
      }
      out[i] = T(v);
    }
  });
}

// out <- a random permutation of 0..n-1 (Fisher-Yates, one draw per position from the stream).
template <typename T>
void permutation_typed(T* out, int64_t n, uint64_t base) {
  for (int64_t i = 0; i < n; ++i) out[i] = T(i);
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = int64_t(splitmix64(base + uint64_t(i)) % uint64_t(i + 1));
    std::swap(out[i], out[j]);
  }
}

// out <- draws of `kind` with parameters (a, b): uniform [a, b), normal / truncated normal
// of mean a and standard deviation b, integers in [a, b) (floats or ints out), or a dropout
// keep mask: b with probability 1 - a, else 0, or gamma draws of shape a and scale b.
void random_fill(py::array out, int kind, double a, double b, uint64_t seed) {
  const char* op = "random_fill";
  require(kind >= kUniform && kind <= kGamma, op, "unknown distribution");
  require(std::isfinite(a) && std::isfinite(b), op, "parameters must be finite");
  if (kind == kRandint) require(b > a, op, "randint needs maxval > minval");
  if (kind == kNormal || kind == kTruncatedNormal) require(b >= 0, op, "stddev must be >= 0");
  if (kind == kKeepMask) require(a >= 0 && a < 1, op, "the drop rate must be in [0, 1)");
  if (kind == kGamma) require(a > 0 && b > 0, op, "gamma needs a shape and a scale > 0");
  int dt = check_dtype(out, op, "out");
  check_array(out, op, "out", dt, -1, kWrite);
  // Integers hold integer draws only, all of them in range: converting a double outside an
  // integer type's range is undefined behaviour.
  if (dt == kInt32 || dt == kInt64) {
    const double lo = dt == kInt32 ? double(INT32_MIN) : double(INT64_MIN);
    if (!(kind == kRandint || kind == kPermutation))
      fail(op, "argument 'out' of dtype " + dtype_name(dt) + " can hold randint draws or a "
            "permutation only");
    if (!(kind == kPermutation || (a >= lo && b <= -lo)))
      fail(op, "randint bounds [" + std::to_string(a) + ", " + std::to_string(b) +
                ") do not fit in " + dtype_name(dt));
  }
  const uint64_t base = splitmix64(seed);
  if (kind == kPermutation) {
    require(dt == kInt64 || dt == kInt32, op, "a permutation is made of int32 or int64");
    if (dt == kInt32) require(out.size() <= INT32_MAX, op, "too many positions for int32");
    PD_DISPATCH_NUMERIC(dt, op, { permutation_typed<scalar_t>(out_ptr<scalar_t>(out), out.size(), base); });
    return;
  }
  PD_DISPATCH_NUMERIC(dt, op, {
    fill_typed<scalar_t>(out_ptr<scalar_t>(out), out.size(), kind, a, b, base);
  });
}

// out[i] <- a Gamma(alpha[i], 1) draw from (seed, i), std_gamma's numbers (a shape that is
// not a finite number > 0 gives NaN, as NumPy's and JAX's samplers do).
template <typename T>
void gamma_typed(T* out, const T* alpha, int64_t n, uint64_t base) {
  parallel_chunks(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const double a = double(alpha[i]);
      out[i] = (std::isfinite(a) && a > 0) ? T(std_gamma(base, uint64_t(i), a))
                                           : T(std::nan(""));
    }
  });
}

void random_gamma(py::array out, py::array alpha, uint64_t seed) {
  const char* op = "random_gamma";
  int dt = check_dtype(out, op, "out");
  require(dt == kFloat32 || dt == kFloat64, op, "gamma draws are float32 or float64");
  check_array(out, op, "out", dt, -1, kWrite);
  check_array(alpha, op, "alpha", dt, out.size(), kRead);
  const uint64_t base = splitmix64(seed);
  PD_DISPATCH_FLOAT(dt, op, {
    gamma_typed<scalar_t>(out_ptr<scalar_t>(out), in_ptr<scalar_t>(alpha), out.size(), base);
  });
}

}  // namespace

void init_random(py::module_& m) {
  m.def("random_fill", &random_fill,
        array_arg("out"), py::arg("kind"), py::arg("a"), py::arg("b"), py::arg("seed"),
        "fills out with draws (0 uniform, 1 normal, 2 truncated normal, 3 randint, 4 keep "
        "mask, 5 permutation, 6 gamma) from (seed, index)");
  m.def("random_gamma", &random_gamma, array_arg("out"), array_arg("alpha"), py::arg("seed"),
        "fills out with Gamma(alpha[i], 1) draws from (seed, index)");
}

}  // namespace paddle
