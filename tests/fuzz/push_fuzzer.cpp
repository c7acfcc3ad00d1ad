// Fuzzes the push path: pictures handed to the engine a frame at a time,
//   - through libvmaf's C API (include/libvmaf, src/capi; what FFmpeg's
//     vf_libvmaf calls): vmaf_init, features and models registered,
//     vmaf_picture_alloc or the preallocated pool, vmaf_read_pictures, the
//     flush (NULL, NULL), scores per frame and pooled, result files;
//   - through twinmaf::Scorer's open/new_picture/push/flush with one to three
//     distorted pictures a frame: the calls the Python module's
//     Scorer.open/push/flush make (python/twinmaf/_twinmaf.cpp), whose own
//     code only checks numpy buffers' shapes before copying them in.
// The bytes choose the features (with options) and models, the picture
// format: size (1x1, odd, thin, up to kMaxPixels, and sizes outside
// 1..32768), depth (7..17) and layout (420/422/444/400 and invalid ones),
// the samples, and misuse: pictures that differ from each other or from the
// first frame, wrong indices, a NULL picture, one buffer twice, reads after
// the flush, samples above the depth. Every misuse must be an error return,
// never a crash, hang, leak or undefined behaviour.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "libvmaf/libvmaf.h"
#include "twinmaf/twinmaf.h"

namespace {

// Pixels per picture at most: a 4:4:4 16-bit picture of 2^16 is 384 KiB,
// the features' buffers stay well under 1 GB, and a frame of every feature
// takes tens of milliseconds under ASan (sizes past 192 only in thin shapes).
constexpr int64_t kMaxPixels = int64_t(1) << 16;
constexpr int kMaxFrames = 6;

constexpr const char* kFeatures[] = {
    "psnr",      "float_ssim", "float_ms_ssim", "ciede",       "cambi",        "psnr_hvs",
    "motion",    "motion_v2",  "vif",           "adm",         "float_psnr",   "float_ansnr",
    "float_adm", "float_vif",  "float_motion",  "float_moment", "speed_chroma", "speed_temporal",
    "no_such_feature"};
// Options, except those naming files (heatmaps_path) or sizes that scale
// the work past the fuzzer's bounds (cambi's enc_/src_ width and height).
constexpr const char* kOptions[] = {
    "enable_chroma",     "enable_mse",         "enable_apsnr",       "enable_db",       "enable_lcs",
    "min_sse",           "clip_db",            "reduced_hbd_peak",   "debug",           "scale",
    "motion_force_zero", "motion_fps_weight",  "motion_filter_size", "motion_add_uv",   "motion_add_scale1",
    "motion_max_val",    "motion_five_frame_window", "motion_moving_average", "motion_blend_factor",
    "motion_blend_offset", "adm_enhn_gain_limit", "adm_csf_mode",     "adm_skip_scale0", "adm_skip_aim",
    "adm_skip_aim_scale", "adm_p_norm",        "adm_min_val",        "adm_norm_view_dist", "adm_bypass_cm",
    "vif_enhn_gain_limit", "vif_kernelscale",  "vif_prescale",       "vif_prescale_method", "vif_sigma_nsq",
    "vif_skip_scale0",   "window_size",        "topk",               "cambi_topk",      "tvi_threshold",
    "max_log_contrast",  "eotf",               "cambi_eotf",         "full_ref",        "enc_bitdepth",
    "cambi_high_res_speedup", "cambi_max_val", "cambi_vis_lum_threshold", "speed_kernelscale",
    "speed_prescale",    "speed_prescale_method", "speed_sigma_nn",  "speed_nn_floor",  "speed_use_ref_diff",
    "speed_weight_var_mode", "speed_max_val",  "no_such_option"};
constexpr const char* kValues[] = {"true", "false", "0", "1", "2", "3", "0.5", "-1", "1e9", "nan", "inf", "pq",
                                   "bt1886", ""};
constexpr const char* kModels[] = {"vmaf_v0.6.1",       "vmaf_v0.6.1neg",        "vmaf_float_v0.6.1",
                                   "vmaf_float_v0.6.1neg", "vmaf_4k_v0.6.1",    "vmaf_4k_v0.6.1neg",
                                   "vmaf_float_4k_v0.6.1", "vmaf_b_v0.6.3",     "vmaf_float_b_v0.6.3",
                                   "no_such_model"};
// Stored names a model or feature above writes, read back by name.
constexpr const char* kScoreNames[] = {"psnr_y", "psnr_cb", "float_ssim", "float_ms_ssim", "ciede2000", "cambi",
                                       "psnr_hvs", "VMAF_integer_feature_adm2_score",
                                       "VMAF_integer_feature_motion2_score", "VMAF_feature_vif_scale0_score",
                                       "vmaf", "vmaf_bagging", "x"};

template <size_t N>
const char* pick(FuzzedDataProvider& in, const char* const (&names)[N]) {
  return names[in.ConsumeIntegralInRange<size_t>(0, N - 1)];
}

std::string option_value(FuzzedDataProvider& in) {
  return in.ConsumeBool() ? std::string(pick(in, kValues)) : in.ConsumeRandomLengthString(12);
}

// Choices run from the usual (0: what an exhausted input reads) to misuse.
//
// A size: mostly one every feature takes (speed_temporal's minimum is
// 80), at times 1, below the features' minimums, thin, or outside 1..32768.
unsigned picture_side(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 4: return 1;
    case 5: return in.ConsumeIntegralInRange(2u, 79u);
    case 6: return in.ConsumeIntegralInRange(1000u, 32768u);
    case 7: return in.PickValueInArray({0u, 32769u, std::numeric_limits<unsigned>::max()});
    default: return in.ConsumeIntegralInRange(80u, 192u);
  }
}

struct Format {
  unsigned w = 0, h = 0, bpc = 8;
  int fmt = VMAF_PIX_FMT_YUV420P;  // libvmaf's numbering; 0 and 5 are invalid
};

Format consume_format(FuzzedDataProvider& in) {
  Format f;
  f.w = picture_side(in);
  f.h = picture_side(in);
  // Valid sizes are bounded by area; invalid ones are refused unallocated.
  const bool valid = f.w >= 1 && f.h >= 1 && f.w <= 32768 && f.h <= 32768;
  if (valid && int64_t(f.w) * f.h > kMaxPixels) f.h = unsigned(std::max<int64_t>(1, kMaxPixels / f.w));
  f.bpc = in.ConsumeBool() ? in.ConsumeIntegralInRange(8u, 17u) : 8;
  if (in.ConsumeIntegralInRange(0, 15) == 15) f.bpc = 7;
  // 420, 422, 444, 400, then the invalid 0 and 5.
  static constexpr int kFmts[] = {VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P, VMAF_PIX_FMT_YUV444P,
                                  VMAF_PIX_FMT_YUV400P, VMAF_PIX_FMT_UNKNOWN,  VMAF_PIX_FMT_YUV400P + 1};
  const int k = in.ConsumeIntegralInRange(0, 11);
  f.fmt = kFmts[k < 10 ? k % 4 : k - 6];
  return f;
}

// Samples: a pattern of the input's bytes repeated, masked to the depth
// (unmasked now and then: above 8 bits, an error), or flat, or the maximum.
struct Content {
  std::vector<uint8_t> pattern;
  int kind = 0;
};

Content consume_content(FuzzedDataProvider& in) {
  Content c;
  c.kind = in.ConsumeIntegralInRange(0, 7);
  c.pattern = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(1, 64));
  if (c.pattern.empty()) c.pattern.push_back(0);
  return c;
}

void fill_plane(uint8_t* data, ptrdiff_t stride, unsigned w, unsigned h, unsigned bpc, const Content& c,
                unsigned salt) {
  const unsigned max = bpc >= 16 ? 0xffff : (1u << std::min(bpc, 16u)) - 1;
  const size_t n = c.pattern.size();
  size_t k = salt;
  for (unsigned y = 0; y < h; ++y) {
    uint8_t* row = data + ptrdiff_t(y) * stride;
    for (unsigned x = 0; x < w; ++x, ++k) {
      unsigned v = c.pattern[k % n] | unsigned(c.pattern[(k + 1) % n]) << 8;
      if (c.kind == 5) v = c.pattern[0];
      else if (c.kind == 6) v = max;
      else if (c.kind != 7) v &= max;  // 7: unmasked
      if (bpc > 8) {
        const uint16_t s = static_cast<uint16_t>(v);
        std::memcpy(row + 2 * size_t(x), &s, 2);
      } else {
        row[x] = static_cast<uint8_t>(v);
      }
    }
  }
}

void fill(VmafPicture& pic, const Content& c, unsigned salt) {
  for (int p = 0; p < 3; ++p)
    if (pic.data[p])
      fill_plane(static_cast<uint8_t*>(pic.data[p]), pic.stride[p], pic.w[p], pic.h[p], pic.bpc, c, salt + unsigned(p));
}

VmafFeatureDictionary* consume_dictionary(FuzzedDataProvider& in) {
  VmafFeatureDictionary* d = nullptr;
  for (int k = std::max(0, in.ConsumeIntegralInRange(-2, 2)); k > 0; --k) {  // mostly none
    const std::string value = option_value(in);
    (void)vmaf_feature_dictionary_set(&d, pick(in, kOptions), value.c_str());
  }
  return d;
}

// ---- libvmaf's C API ---------------------------------------------------------

struct CModel {
  VmafModel* model = nullptr;
  VmafModelCollection* collection = nullptr;
};

void run_capi(FuzzedDataProvider& in) {
  VmafConfiguration cfg{};
  // PUSH_FUZZER_LOG=1 replays an input with the library's error messages.
  cfg.log_level = std::getenv("PUSH_FUZZER_LOG") ? VMAF_LOG_LEVEL_DEBUG : VMAF_LOG_LEVEL_NONE;
  cfg.n_threads = in.ConsumeIntegralInRange(0u, 2u);
  cfg.n_subsample = in.ConsumeIntegralInRange(0u, 3u);
  cfg.cpumask = in.PickValueInArray<uint64_t>({0, 0, 8, 16, 32, ~uint64_t(0)});
  VmafContext* vmaf = nullptr;
  if (vmaf_init(&vmaf, cfg) != 0) return;

  std::vector<CModel> models;
  const int registrations = in.ConsumeIntegralInRange(0, 3);  // 3: none
  for (int k = registrations == 3 ? 0 : registrations + 1; k > 0; --k) {
    if (in.ConsumeIntegralInRange(0, 2) == 0) {  // a feature
      const char* name = pick(in, kFeatures);
      VmafFeatureDictionary* d = consume_dictionary(in);
      (void)vmaf_use_feature(vmaf, name, d);
      // A known extractor takes the dictionary (libvmaf's ownership rule).
      if (std::strcmp(name, "no_such_feature") == 0) (void)vmaf_feature_dictionary_free(&d);
      continue;
    }
    VmafModelConfig mc{};
    mc.name = in.ConsumeBool() ? nullptr : pick(in, kScoreNames);
    mc.flags = in.ConsumeIntegralInRange<uint64_t>(0, 7);
    CModel m;
    const char* version = pick(in, kModels);
    const bool collection = in.ConsumeBool();
    const int err = collection ? vmaf_model_collection_load(&m.model, &m.collection, &mc, version)
                               : vmaf_model_load(&m.model, &mc, version);
    if (err != 0) continue;
    if (in.ConsumeBool()) {
      const char* extractor = in.PickValueInArray({"adm", "vif", "motion", "float_adm", "x"});
      VmafFeatureDictionary* d = consume_dictionary(in);
      if (d) {
        if (m.collection) (void)vmaf_model_collection_feature_overload(m.model, &m.collection, extractor, d);
        else (void)vmaf_model_feature_overload(m.model, extractor, d);
      }
    }
    if (m.collection) (void)vmaf_use_features_from_model_collection(vmaf, m.collection);
    else (void)vmaf_use_features_from_model(vmaf, m.model);
    models.push_back(m);
  }

  VmafPictureConfiguration pool{};
  if (in.ConsumeBool()) {
    const Format f = consume_format(in);
    pool.pic_params = {f.w, f.h, f.bpc, static_cast<VmafPixelFormat>(f.fmt)};
    pool.pic_cnt = in.ConsumeIntegralInRange(0u, 3u);
    if (vmaf_preallocate_pictures(vmaf, pool) != 0) pool.pic_cnt = 0;
  }

  Format f = consume_format(in);
  unsigned index = 0;
  const int frames = (in.ConsumeIntegralInRange(0, kMaxFrames) + 3) % (kMaxFrames + 1);  // 3 once the bytes run out
  for (int i = 0; i < frames; ++i) {
    // 0..7: a frame as it should be; then misuse.
    const int action = in.ConsumeIntegralInRange(0, 15);
    if (action == 8) f = consume_format(in);  // the stream changes format
    Format fd = f;
    if (action == 9) fd = consume_format(in);  // the distorted picture differs
    if (action == 10) {  // flush mid-stream: later reads are errors
      (void)vmaf_read_pictures(vmaf, nullptr, nullptr, 0);
      continue;
    }
    VmafPicture ref{}, dis{};
    // Pool pictures while the pool has two free (a fetch waits for one).
    const bool pooled = pool.pic_cnt >= 2 && action < 4;
    if (pooled) {
      (void)vmaf_fetch_preallocated_picture(vmaf, &ref);
      (void)vmaf_fetch_preallocated_picture(vmaf, &dis);
    } else {
      (void)vmaf_picture_alloc(&ref, static_cast<VmafPixelFormat>(f.fmt), f.bpc, f.w, f.h);
      (void)vmaf_picture_alloc(&dis, static_cast<VmafPixelFormat>(fd.fmt), fd.bpc, fd.w, fd.h);
    }
    const Content cr = consume_content(in);
    const Content cd = in.ConsumeBool() ? cr : consume_content(in);
    fill(ref, cr, 0);
    fill(dis, cd, unsigned(action));
    const unsigned at = action == 11 ? in.ConsumeIntegral<unsigned>() : index;
    int err;
    if (action == 12) err = vmaf_read_pictures(vmaf, &ref, nullptr, at);
    else if (action == 13) err = vmaf_read_pictures(vmaf, &ref, &ref, at);
    else if (action == 14) {  // a changed picture struct
      ++dis.w[0];
      err = vmaf_read_pictures(vmaf, &ref, &dis, at);
      --dis.w[0];
    } else err = vmaf_read_pictures(vmaf, &ref, &dis, at);
    if (err == 0) ++index;
    // Read pictures were released (zeroed); refused ones are still ours.
    (void)vmaf_picture_unref(&ref);
    (void)vmaf_picture_unref(&dis);
    if (in.ConsumeIntegralInRange(0, 7) == 0)
      (void)vmaf_import_feature_score(vmaf, pick(in, kScoreNames), in.ConsumeFloatingPoint<double>(),
                                      in.ConsumeIntegralInRange(0u, 8u));
  }
  (void)vmaf_read_pictures(vmaf, nullptr, nullptr, 0);  // flush
  if (in.ConsumeBool()) {  // a read after the flush
    VmafPicture ref{}, dis{};
    (void)vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 16, 16);
    (void)vmaf_picture_alloc(&dis, VMAF_PIX_FMT_YUV420P, 8, 16, 16);
    (void)vmaf_read_pictures(vmaf, &ref, &dis, index);
    (void)vmaf_picture_unref(&ref);
    (void)vmaf_picture_unref(&dis);
  }

  const auto index_range = [&](unsigned& lo, unsigned& hi) {
    lo = in.ConsumeIntegralInRange(0u, index + 1);
    hi = in.ConsumeBool() ? index ? index - 1 : 0 : in.ConsumeIntegral<unsigned>();
  };
  const auto method = [&] { return static_cast<VmafPoolingMethod>(in.ConsumeIntegralInRange(0, 5)); };
  for (const CModel& m : models) {
    double score;
    for (unsigned i = 0; i <= index; ++i) (void)vmaf_score_at_index(vmaf, m.model, &score, i);
    unsigned lo, hi;
    index_range(lo, hi);
    (void)vmaf_score_pooled(vmaf, m.model, method(), &score, lo, hi);
    if (m.collection) {
      VmafModelCollectionScore cs;
      (void)vmaf_score_at_index_model_collection(vmaf, m.collection, &cs, in.ConsumeIntegralInRange(0u, index));
      index_range(lo, hi);
      (void)vmaf_score_pooled_model_collection(vmaf, m.collection, method(), &cs, lo, hi);
    }
  }
  for (int k = in.ConsumeIntegralInRange(0, 3); k > 0; --k) {
    const char* name = pick(in, kScoreNames);
    double score;
    (void)vmaf_feature_score_at_index(vmaf, name, &score, in.ConsumeIntegralInRange(0u, index));
    unsigned lo, hi;
    index_range(lo, hi);
    (void)vmaf_feature_score_pooled(vmaf, name, method(), &score, lo, hi);
  }
  if (in.ConsumeBool())
    (void)vmaf_write_output(vmaf, "/dev/null", static_cast<VmafOutputFormat>(in.ConsumeIntegralInRange(0, 5)));
  (void)vmaf_close(vmaf);
  for (CModel& m : models) {
    vmaf_model_destroy(m.model);
    vmaf_model_collection_destroy(m.collection);
  }
}

// ---- twinmaf::Scorer (the Python module's push path) -------------------------

std::string feature_text(FuzzedDataProvider& in) {
  std::string text = pick(in, kFeatures);
  for (int k = std::max(0, in.ConsumeIntegralInRange(-2, 2)); k > 0; --k)  // mostly none
    text += std::string(text.find('=') == std::string::npos ? "=" : ":") + pick(in, kOptions) + "=" +
            option_value(in);
  return text;
}

twinmaf::VideoFormat video_format(FuzzedDataProvider& in) {
  // Python hands ints through unchecked: sizes and depths outside the valid
  // ranges reach open().
  Format f = consume_format(in);
  twinmaf::VideoFormat v;
  v.w = in.ConsumeIntegralInRange(0, 15) == 15 ? -int(f.w % 5) : int(std::min(f.w, 40000u));
  v.h = int(std::min(f.h, 40000u));
  v.bpc = in.ConsumeIntegralInRange(0, 15) == 15 ? in.ConsumeIntegralInRange(-1, 32) : int(f.bpc);
  static constexpr twinmaf::PixFmt kFmts[] = {twinmaf::PixFmt::k420, twinmaf::PixFmt::k422, twinmaf::PixFmt::k444,
                                              twinmaf::PixFmt::k400};
  v.fmt = kFmts[f.fmt & 3];
  return v;
}

// The status, printed where PUSH_FUZZER_LOG is set; whether it is ok.
bool logged(const twinmaf::Status& st) {
  if (!st.ok() && std::getenv("PUSH_FUZZER_LOG")) std::fprintf(stderr, "push_fuzzer: %s\n", st.message().c_str());
  return st.ok();
}

bool bounded(const twinmaf::VideoFormat& f) { return int64_t(f.w) * f.h <= kMaxPixels; }

void fill(twinmaf::Picture& pic, const Content& c, unsigned salt) {
  const twinmaf::VideoFormat& f = pic.format();
  for (int p = 0; p < f.planes(); ++p)
    if (pic.mutable_data(p))
      fill_plane(pic.mutable_data(p), pic.stride(p), unsigned(f.stored_w(p)), unsigned(f.stored_h(p)),
                 unsigned(f.bpc), c, salt + unsigned(p));
}

void run_scorer(FuzzedDataProvider& in) {
  twinmaf::ScorerConfig cfg;
  if (in.ConsumeBool()) cfg.models.push_back(std::string("version=") + pick(in, kModels));
  const int features = in.ConsumeIntegralInRange(0, 2);  // 2: none
  for (int k = features == 2 ? 0 : features + 1; k > 0; --k) cfg.features.push_back(feature_text(in));
  cfg.threads = in.ConsumeIntegralInRange(0u, 2u);
  cfg.subsample = in.ConsumeIntegralInRange(0u, 3u);
  const unsigned lanes = in.ConsumeIntegralInRange(0u, 7u);
  cfg.distorted = lanes == 7 ? 0 : 1 + lanes % 3;
  auto created = twinmaf::Scorer::create(cfg);
  if (!logged(created.status())) return;
  twinmaf::Scorer& s = **created;

  const twinmaf::VideoFormat fmt = video_format(in);
  // A picture before open() is an error; open() refuses what validate_format
  // refuses without allocating, but a valid size is bounded here.
  if (in.ConsumeIntegralInRange(0, 15) == 15) (void)s.new_picture();
  if (twinmaf::validate_format(fmt).ok() && !bounded(fmt)) return;
  (void)logged(s.open(fmt));
  const int frames = (in.ConsumeIntegralInRange(0, kMaxFrames) + 3) % (kMaxFrames + 1);  // 3 once the bytes run out
  for (int i = 0; i < frames; ++i) {
    // 0..10: a frame as it should be; then misuse.
    const int action = in.ConsumeIntegralInRange(0, 15);
    if (action == 15) {
      (void)s.flush();
      continue;
    }
    std::vector<twinmaf::PicturePtr> pics;
    // The right count of pictures, or one more or one fewer.
    const size_t count = cfg.distorted + 1 + (action == 14) - (action == 13);
    bool made = true;
    for (size_t k = 0; k < count && made; ++k) {
      twinmaf::PicturePtr pic;
      if (action == 12 && k == count - 1) {  // a picture of another format
        const twinmaf::VideoFormat other = video_format(in);
        if (!twinmaf::validate_format(other).ok() || !bounded(other)) break;
        pic = std::make_shared<twinmaf::Picture>(other, twinmaf::host_allocator());
      } else {
        auto p = s.new_picture();
        made = p.ok();
        if (made) pic = std::move(*p);
      }
      if (action == 11 && k == 1) pic = nullptr;
      if (pic) fill(*pic, consume_content(in), unsigned(k));
      pics.push_back(std::move(pic));
    }
    if (!made || pics.empty()) continue;
    twinmaf::PicturePtr ref = std::move(pics.front());
    pics.erase(pics.begin());
    (void)logged(s.push(std::move(ref), std::move(pics)));
  }
  (void)logged(s.flush());
  if (in.ConsumeBool()) (void)logged(s.flush());
  // What Python reads back, per lane (one past the last too).
  for (unsigned lane = 0; lane <= cfg.distorted; ++lane) {
    for (const std::string& m : s.metrics(lane)) {
      for (unsigned i = 0; i <= s.frames(lane); ++i) (void)s.score(m, i, lane);
      (void)s.pooled(m, lane);
      (void)s.stats(m, lane);
    }
    (void)s.aggregates(lane);
    (void)s.summary(lane);
    if (in.ConsumeBool())
      (void)s.format(static_cast<twinmaf::OutputFormat>(in.ConsumeIntegralInRange(0, 3)), lane);
  }
  (void)s.info();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) run_scorer(in);
  else run_capi(in);
  return 0;
}
