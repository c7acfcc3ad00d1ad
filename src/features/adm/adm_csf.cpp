// adm CSF factors (see adm_csf.h): host-side, once per session, libvmaf's
// exact float/double operation order.
#include "features/adm/adm_csf.h"

#include <cmath>

namespace twinmaf {

namespace {

// C's M_PI as libvmaf spells it (integer_adm.h); rounds to the same double.
constexpr double kPi = 3.14159265358979323846264338327;

// Display visual resolution in pixels per degree, rounded to float as
// libvmaf stores it: nvd * rdh * pi / 180 evaluated in double.
float display_resolution(double nvd, int rdh) {
  return static_cast<float>(nvd * rdh * kPi / 180.0);
}

// ---- Watson97 -------------------------------------------------------------

// Luma row of the Watson et al. 1997 threshold model (a, k, f0, g[theta]).
constexpr float kWatsonA = 0.495f;
constexpr float kWatsonK = 0.466f;
constexpr float kWatsonF0 = 0.401f;
constexpr float kWatsonG[4] = {1.501f, 1.0f, 0.534f, 1.0f};

// Basis function amplitudes A[lambda][theta] of the 7-9 biorthogonal wavelet
// (Watson et al. 1997, Table V, transposed).
constexpr float kWatsonAmp[6][4] = {
    {0.62171f, 0.67234f, 0.72709f, 0.67234f},
    {0.34537f, 0.41317f, 0.49428f, 0.41317f},
    {0.18004f, 0.22727f, 0.28688f, 0.22727f},
    {0.091401f, 0.11792f, 0.15214f, 0.11792f},
    {0.045943f, 0.059758f, 0.077727f, 0.059758f},
    {0.023013f, 0.030018f, 0.039156f, 0.030018f},
};

// Quantisation step Q(lambda, theta); theta 1 = h/v, 2 = diagonal.
float watson_quant_step(int lambda, int theta, double nvd, int rdh) {
  const float r = display_resolution(nvd, rdh);
  // log10 argument in double: 2^(lambda+1) * f0 * g / r, all widened.
  const float t = static_cast<float>(
      std::log10(std::pow(2.0, static_cast<double>(lambda + 1)) * static_cast<double>(kWatsonF0) *
                 static_cast<double>(kWatsonG[theta]) / static_cast<double>(r)));
  const float kt2 = kWatsonK * t * t;  // float products, as libvmaf
  const double q = 2.0 * static_cast<double>(kWatsonA) * std::pow(10.0, static_cast<double>(kt2)) /
                   static_cast<double>(kWatsonAmp[lambda][theta]);
  return static_cast<float>(q);
}

// ---- Barten (HDR-VDP-2 simplified) ----------------------------------------

// Luminance anchors (cd/m2) and the per-anchor parameters; column 0 unused.
constexpr float kBartenAnchor[6] = {0.002f, 0.02f, 0.2f, 2.0f, 20.0f, 150.0f};
constexpr float kBartenParam[6][5] = {
    {0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f},
    {0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f},
    {0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f},
    {1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f},
    {1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f},
    {1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f},
};
constexpr float kBartenSa[4] = {30.162f, 4.0627f, 1.6596f, 0.2712f};
constexpr float kBartenMtfA[4] = {0.424838596301290f, 0.572435103936480f, 0.000167576239164937f,
                                  0.00255872352306433f};
constexpr float kBartenMtfB[4] = {0.028f, 0.37f, 37.0f, 360.0f};

// The CSF is evaluated at libvmaf's fixed 100 cd/m2.
constexpr double kBartenLuminance = 100.0;

float lerp_float(float x0, float y0, float x1, float y1, float x) {
  return y0 + ((y1 - y0) / (x1 - x0)) * (x - x0);
}

float barten_rod_cone(float lum) {
  const double inner =
      std::pow(static_cast<double>(kBartenSa[1] / lum), static_cast<double>(kBartenSa[2])) + 1;
  const double s = static_cast<double>(kBartenSa[0]) *
                   std::pow(inner, static_cast<double>(-kBartenSa[3]));
  return static_cast<float>(s);
}

float barten_mtf(float sf) {
  float mtf = 0.0f;
  for (int i = 0; i < 4; ++i) {
    const float e = -kBartenMtfB[i] * sf;
    mtf = static_cast<float>(static_cast<double>(mtf) +
                             static_cast<double>(kBartenMtfA[i]) * std::exp(static_cast<double>(e)));
  }
  return mtf;
}

float barten_csf(int lambda, double nvd, int rdh, double lum, double scale) {
  const float r = display_resolution(nvd, rdh);
  const float sf =
      static_cast<float>(static_cast<double>(r) / std::pow(2.0, static_cast<double>(lambda + 1)));

  const double lo = static_cast<double>(kBartenAnchor[0]);
  const double hi = static_cast<double>(kBartenAnchor[5]);
  const double cl = lum > hi ? hi : (lum < lo ? lo : lum);
  int li = 0;
  int ri = 0;
  for (int i = 0; i < 5; ++i) {
    if (cl >= static_cast<double>(kBartenAnchor[i]) &&
        cl <= static_cast<double>(kBartenAnchor[i + 1])) {
      li = i;
      ri = i + 1;
      break;
    }
  }
  const float lp = static_cast<float>(std::log10(static_cast<double>(kBartenAnchor[li])));
  const float rp = static_cast<float>(std::log10(static_cast<double>(kBartenAnchor[ri])));
  const float sp = static_cast<float>(std::log10(cl));
  float p[4];
  for (int k = 0; k < 4; ++k)
    p[k] = lerp_float(lp, kBartenParam[li][k + 1], rp, kBartenParam[ri][k + 1], sp);

  const float a = static_cast<float>(
      1.0f + std::pow(static_cast<double>(p[0] * sf), static_cast<double>(p[1])));
  const double g = std::pow(static_cast<double>(sf / 7), 2.0);
  const float b = static_cast<float>(
      1.0f / std::pow(1 - std::exp(-g), static_cast<double>(p[2])));
  const float csf =
      static_cast<float>(static_cast<double>(p[3]) / std::pow(static_cast<double>(a * b), 0.5));
  const float prod = csf * barten_mtf(sf) * barten_rod_cone(static_cast<float>(lum));
  return static_cast<float>(static_cast<double>(prod) * scale);
}

// ---- Barten-Watson blend tables -------------------------------------------

using BlendTable = float[2][4];  // [theta: 0 h/v, 1 diagonal][scale]

constexpr BlendTable kBlend1080x3 = {{0.01183f, 0.025026f, 0.04295f, 0.058621f},
                                     {0.004302f, 0.011778f, 0.023918f, 0.035901f}};
constexpr BlendTable kBlend1080x5 = {{0.004212f, 0.014809f, 0.029642f, 0.047464f},
                                     {0.000984f, 0.005852f, 0.0146f, 0.027574f}};
constexpr BlendTable kBlend2160x3 = {{0.00226f, 0.01183f, 0.025026f, 0.04295f},
                                     {0.000479f, 0.004302f, 0.011778f, 0.023918f}};
constexpr BlendTable kBlend2160x5 = {{0.000092f, 0.004212f, 0.014809f, 0.029642f},
                                     {0.000050f, 0.000984f, 0.005852f, 0.0146f}};
constexpr BlendTable kBlend720x3 = {{0.018715f, 0.035637f, 0.052798f, 0.061509f},
                                    {0.007999f, 0.018396f, 0.031851f, 0.037718f}};
constexpr BlendTable kBlend720x5 = {{0.010144f, 0.022561f, 0.040309f, 0.05672f},
                                    {0.003463f, 0.010282f, 0.021839f, 0.034641f}};
constexpr BlendTable kBlend480x3 = {{0.027961f, 0.045875f, 0.060275f, 0.056234f},
                                    {0.013572f, 0.026277f, 0.036959f, 0.034511f}};
constexpr BlendTable kBlend480x5 = {{0.016781f, 0.032822f, 0.05032f, 0.061594f},
                                    {0.00691f, 0.016545f, 0.029917f, 0.037777f}};

constexpr BlendTable kMae1080x3 = {{0.011249f, 0.022606f, 0.035930f, 0.045673f},
                                   {0.004097f, 0.010921f, 0.021430f, 0.031313f}};
constexpr BlendTable kMae1080x5 = {{0.004052f, 0.013939f, 0.026298f, 0.038833f},
                                   {0.000927f, 0.005544f, 0.013415f, 0.024515f}};
constexpr BlendTable kMae2160x3 = {{0.002166f, 0.011249f, 0.022606f, 0.035930f},
                                   {0.000447f, 0.004097f, 0.010921f, 0.021430f}};
constexpr BlendTable kMae2160x5 = {{0.000077f, 0.004052f, 0.013939f, 0.026298f},
                                   {0.000045f, 0.000927f, 0.005544f, 0.013415f}};
constexpr BlendTable kMae720x3 = {{0.017329f, 0.030870f, 0.042134f, 0.047410f},
                                  {0.007509f, 0.016707f, 0.028072f, 0.032722f}};
constexpr BlendTable kMae720x5 = {{0.009689f, 0.020577f, 0.034162f, 0.044523f},
                                  {0.003302f, 0.009579f, 0.019661f, 0.030318f}};
constexpr BlendTable kMae480x3 = {{0.024969f, 0.037825f, 0.046676f, 0.043974f},
                                  {0.012511f, 0.023424f, 0.032139f, 0.030166f}};
constexpr BlendTable kMae480x5 = {{0.015665f, 0.028766f, 0.040612f, 0.047483f},
                                  {0.006514f, 0.015107f, 0.026476f, 0.032776f}};

// The table for (rdh, nvd), matched with exact == as libvmaf does; 2160 at
// 1.5H has the pixels-per-degree of 1080 at 3H and reuses that table.
const BlendTable* blend_table(bool mae, double nvd, int rdh) {
  if (rdh == 1080 && nvd == 3.0) return mae ? &kMae1080x3 : &kBlend1080x3;
  if (rdh == 1080 && nvd == 5.0) return mae ? &kMae1080x5 : &kBlend1080x5;
  if (rdh == 2160 && nvd == 1.5) return mae ? &kMae1080x3 : &kBlend1080x3;
  if (rdh == 2160 && nvd == 3.0) return mae ? &kMae2160x3 : &kBlend2160x3;
  if (rdh == 2160 && nvd == 5.0) return mae ? &kMae2160x5 : &kBlend2160x5;
  if (rdh == 720 && nvd == 3.0) return mae ? &kMae720x3 : &kBlend720x3;
  if (rdh == 720 && nvd == 5.0) return mae ? &kMae720x5 : &kBlend720x5;
  if (rdh == 480 && nvd == 3.0) return mae ? &kMae480x3 : &kBlend480x3;
  if (rdh == 480 && nvd == 5.0) return mae ? &kMae480x5 : &kBlend480x5;
  return nullptr;
}

}  // namespace

bool adm_blend_supported(double norm_view_dist, int ref_display_height) {
  return blend_table(false, norm_view_dist, ref_display_height) != nullptr;
}

const char* adm_blend_supported_list() {
  return "(1080, 3), (1080, 5), (2160, 1.5), (2160, 3), (2160, 5), (720, 3), (720, 5), "
         "(480, 3), (480, 5)";
}

std::array<float, 2> adm_csf_factors(AdmCsfMode mode, int lambda, double norm_view_dist,
                                     int ref_display_height, double csf_scale,
                                     double csf_diag_scale) {
  switch (mode) {
    case AdmCsfMode::kBarten:
      return {barten_csf(lambda, norm_view_dist, ref_display_height, kBartenLuminance, csf_scale),
              barten_csf(lambda, norm_view_dist, ref_display_height, kBartenLuminance,
                         csf_diag_scale)};
    case AdmCsfMode::kBlend:
    case AdmCsfMode::kBlendMae: {
      const BlendTable* t =
          blend_table(mode == AdmCsfMode::kBlendMae, norm_view_dist, ref_display_height);
      if (!t) return {-22.0f, -22.0f};  // libvmaf's -EINVAL; callers reject this at init
      return {(*t)[0][lambda], (*t)[1][lambda]};
    }
    case AdmCsfMode::kWatson97:
      break;
  }
  return {1.0f / watson_quant_step(lambda, 1, norm_view_dist, ref_display_height),
          1.0f / watson_quant_step(lambda, 2, norm_view_dist, ref_display_height)};
}

}  // namespace twinmaf
