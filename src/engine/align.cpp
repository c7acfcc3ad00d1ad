#include "engine/align.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/picture.h"

namespace twinmaf {

namespace {

using Thumb = std::vector<float>;

// Luma block means of up to `count` frames, normalised to [0, 1].
Result<std::vector<Thumb>> thumbnails(VideoSource& src, unsigned count) {
  src.set_planes_needed(1);
  const VideoFormat& f = src.format();
  const int block = (f.w + kAlignThumbWidth - 1) / kAlignThumbWidth;
  const int tw = std::max(1, f.w / block), th = std::max(1, f.h / block);
  const int bw = std::min(block, f.w), bh = std::min(block, f.h);
  const double scale = 1.0 / (double((1u << f.bpc) - 1) * bw * bh);
  Picture pic(f, host_allocator());
  std::vector<Thumb> out;
  std::vector<double> row(size_t(tw), 0.0);
  while (out.size() < count) {
    TWINMAF_ASSIGN_OR_RETURN(const bool got, src.read(pic));
    if (!got) break;
    const PlaneView luma = pic.plane(0);
    Thumb t(size_t(tw) * size_t(th));
    for (int ty = 0; ty < th; ++ty) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int y = ty * bh; y < (ty + 1) * bh; ++y)
        for (int x = 0; x < tw * bw; ++x)
          row[size_t(x / bw)] += f.bpc > 8 ? luma.row<uint16_t>(y)[x] : luma.row<uint8_t>(y)[x];
      for (int tx = 0; tx < tw; ++tx) t[size_t(ty) * size_t(tw) + size_t(tx)] = float(row[size_t(tx)] * scale);
    }
    out.push_back(std::move(t));
  }
  return out;
}

struct Error {
  double mse = std::numeric_limits<double>::infinity();
  unsigned pairs = 0;
};

Error error_at(const std::vector<Thumb>& ref, const std::vector<Thumb>& dis, int d) {
  // Distorted frame j against reference frame j + d, from the first j with both.
  const size_t j0 = d < 0 ? size_t(-d) : 0;
  const size_t r0 = d < 0 ? 0 : size_t(d);
  if (j0 >= dis.size() || r0 >= ref.size()) return {};
  const size_t n = std::min<size_t>({kAlignWindow, dis.size() - j0, ref.size() - r0});
  double sum = 0;
  size_t samples = 0;
  for (size_t k = 0; k < n; ++k) {
    const Thumb& a = ref[r0 + k];
    const Thumb& b = dis[j0 + k];
    for (size_t i = 0; i < a.size(); ++i) sum += double(a[i] - b[i]) * double(a[i] - b[i]);
    samples += a.size();
  }
  return {sum / double(samples), static_cast<unsigned>(n)};
}

double psnr(double mse) { return mse > 0 ? 10.0 * std::log10(1.0 / mse) : std::numeric_limits<double>::infinity(); }

}  // namespace

Result<std::vector<OffsetMatch>> find_alignment(VideoSource& ref, const std::vector<VideoSource*>& dis,
                                              unsigned range) {
  const unsigned count = range + kAlignWindow;
  TWINMAF_ASSIGN_OR_RETURN(const std::vector<Thumb> ref_thumbs, thumbnails(ref, count));
  if (ref_thumbs.empty()) TWINMAF_FAIL(kBadInput, "--align: {} has no frame to compare", ref.path());
  std::vector<OffsetMatch> out;
  for (VideoSource* d : dis) {
    TWINMAF_ASSIGN_OR_RETURN(const std::vector<Thumb> dis_thumbs, thumbnails(*d, count));
    if (dis_thumbs.empty()) TWINMAF_FAIL(kBadInput, "--align: {} has no frame to compare", d->path());
    const Error zero = error_at(ref_thumbs, dis_thumbs, 0);
    OffsetMatch best;
    Error best_err = zero;
    // 0, 1, -1, 2, -2, ...: a strictly smaller error is needed to move away
    // from a smaller |d|.
    for (unsigned k = 1; k <= range; ++k)
      for (const int off : {int(k), -int(k)}) {
        const Error e = error_at(ref_thumbs, dis_thumbs, off);
        if (e.pairs == 0 || 2 * e.pairs < zero.pairs) continue;
        if (e.mse < best_err.mse) {
          best_err = e;
          best.offset = off;
          best.ambiguous = false;
        } else if (e.mse == best_err.mse) {
          best.ambiguous = true;
        }
      }
    best.psnr = psnr(best_err.mse);
    best.psnr_zero = psnr(zero.mse);
    best.pairs = best_err.pairs;
    out.push_back(best);
  }
  return out;
}

}  // namespace twinmaf
