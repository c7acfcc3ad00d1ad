// ssim_pixel: one pixel's SSIM terms (contract in ssim.h), included once
// into namespace twinmaf by ssim_math.h (the CPU reference and any device
// twin) and once per Highway target into ssim_simd.cpp, so that the SIMD
// kernels compile this very expression for their target.
//
// No include guard: included inside a namespace; the includer provides
// base/hd.h and ssim_math.h's constants.

// One pixel's terms, over "lanes" L: L::F holds floats and L::D doubles, one
// pixel each (SsimScalarLanes, ssim_math.h; the SIMD kernels run it on
// Highway vectors, element-wise the same operations, ssim_simd.cpp). Inputs are the
// five Gaussian-filtered maps at the pixel: means mu1 (reference) and mu2
// (distorted), the filtered squares xx, yy and product xy. l and c are
// double quotients, s a float quotient widened; the SSIM term is l * c * s
// in double, in that order.
template <class L>
TWINMAF_HD void ssim_pixel(const typename L::F& mu1, const typename L::F& mu2, const typename L::F& xx,
                           const typename L::F& yy, const typename L::F& xy, typename L::D& l, typename L::D& c,
                           typename L::D& s) {
  using F = typename L::F;
  const F s1 = L::max0(xx - mu1 * mu1);
  const F s2 = L::max0(yy - mu2 * mu2);
  const F s12 = xy - mu1 * mu2;
  const F sd = L::sqrt_of(s1 * s2);
  l = (2.0 * L::widen(mu1) * L::widen(mu2) + static_cast<double>(kSsimC1)) /
      L::widen(mu1 * mu1 + mu2 * mu2 + kSsimC1);
  c = (2.0 * L::widen(sd) + static_cast<double>(kSsimC2)) / L::widen(s1 + s2 + kSsimC2);
  s = L::widen((L::clamp_cov(s12, sd) + kSsimC3) / (sd + kSsimC3));
}

