// ciede extractor and the shared finish (the contract is in ciede.h).
#include "features/ciede/ciede.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "features/create_with.h"

namespace twinmaf {

namespace {

class Ciede final : public Extractor {
 public:
  Status init(const VideoFormat& fmt) override {
    if (fmt.fmt == PixFmt::k400)
      TWINMAF_FAIL(kUnsupported, "ciede: pixel format 400 is not supported (needs chroma)");
    if (fmt.bpc != 8 && fmt.bpc != 10 && fmt.bpc != 12 && fmt.bpc != 16)
      TWINMAF_FAIL(kUnsupported, "ciede: bit depth {} is not supported (8, 10, 12 or 16)", fmt.bpc);
    w_ = fmt.w;
    h_ = fmt.h;
    bpc_ = fmt.bpc;
    ciede_dsp_init(dsp_);
    return ok_status();
  }

  FeatureNeeds needs() const override { return {.ref = Planes::kAll, .dis = Planes::kAll}; }
  std::unique_ptr<FrameTerms> make_terms() const override { return std::make_unique<CiedeTerms>(); }

  Status compute(const FrameInput& in, FrameTerms& terms) const override {
    // Frames run concurrently; each borrows a set of caches, which keep their
    // colours and pairs from frame to frame.
    std::unique_ptr<Caches> c;
    {
      std::lock_guard<std::mutex> lock(caches_mu_);
      if (!idle_caches_.empty()) {
        c = std::move(idle_caches_.back());
        idle_caches_.pop_back();
      }
    }
    if (!c) {
      const size_t pixels = static_cast<size_t>(w_) * static_cast<size_t>(h_);
      c = std::make_unique<Caches>(CiedeLabCache(bpc_, pixels),
                                   bpc_ == 8 ? std::make_unique<CiedePairCache>(pixels) : nullptr);
    }
    down_cast<CiedeTerms&>(terms).de00_sum = ciede_sum(*in.ref, *in.dis, c->labs, c->pairs.get(),
                                                       dsp_.de00_row);
    std::lock_guard<std::mutex> lock(caches_mu_);
    idle_caches_.push_back(std::move(c));
    return ok_status();
  }

  Status finish(unsigned index, const FrameTerms& terms, Collector& out) override {
    return out.append("ciede2000", index, ciede_score(down_cast<const CiedeTerms&>(terms).de00_sum, w_, h_));
  }

 private:
  int w_ = 0;
  int h_ = 0;
  int bpc_ = 8;
  CiedeDsp dsp_ = ciede_dsp_ref();  // chosen by init
  struct Caches {
    CiedeLabCache labs;
    std::unique_ptr<CiedePairCache> pairs;  // 8 bit only
  };
  mutable std::mutex caches_mu_;
  mutable std::vector<std::unique_ptr<Caches>> idle_caches_;
};

}  // namespace

double ciede_score(double de00_sum, int w, int h) {
  // libvmaf divides by the unsigned product w * h converted to double.
  const unsigned n = static_cast<unsigned>(w) * static_cast<unsigned>(h);
  return 45. - 20. * std::log10(de00_sum / n);
}

const FeatureSpec& ciede_feature_spec() {
  static const FeatureSpec spec{
      .name = "ciede",
      .options = {},
      .provided = {"ciede2000"},
      .create = create_with<Ciede>,
#if TWINMAF_HAVE_CUDA
      .cuda = &make_ciede_twin,
#endif
  };
  return spec;
}

}  // namespace twinmaf
