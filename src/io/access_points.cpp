#include "io/access_points.h"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace twinmaf {

namespace {

// Calls f(nal) for each NAL unit of the packet (its header first) until f
// returns true.
template <typename F>
void for_each_nal(const PacketSyntax& s, std::span<const uint8_t> p, F&& f) {
  const size_t n = p.size();
  if (s.length_size > 0) {
    for (size_t at = 0; at + size_t(s.length_size) <= n;) {
      size_t len = 0;
      for (int i = 0; i < s.length_size; ++i) len = len << 8 | p[at + size_t(i)];
      at += size_t(s.length_size);
      if (len > n - at) len = n - at;
      if (len > 0 && f(p.subspan(at, len))) return;
      at += len;
    }
    return;
  }
  // Annex B: a NAL unit runs from after 00 00 01 to the next start code.
  size_t begin = SIZE_MAX;
  for (size_t i = 0; i + 2 < n; ++i) {
    if (p[i] != 0 || p[i + 1] != 0 || p[i + 2] != 1) continue;
    if (begin != SIZE_MAX && i > begin && f(p.subspan(begin, i - begin))) return;
    begin = i + 3;
    i += 2;
  }
  if (begin != SIZE_MAX && begin < n) f(p.subspan(begin));
}

Access classify_h264(const PacketSyntax& s, std::span<const uint8_t> p) {
  bool idr = false;
  for_each_nal(s, p, [&](std::span<const uint8_t> nal) { return idr = (nal[0] & 0x1f) == 5; });
  return idr ? Access::kRandom : Access::kOther;
}

Access classify_hevc(const PacketSyntax& s, std::span<const uint8_t> p) {
  enum : int { kRaslR = 9, kIdrWRadl = 19, kCra = 21, kVclEnd = 32, kEos = 36, kEob = 37 };
  Access first_vcl = Access::kOther;
  bool seen_vcl = false, eos = false;
  for_each_nal(s, p, [&](std::span<const uint8_t> nal) {
    if (nal.size() < 2) return false;
    const int type = (nal[0] >> 1) & 0x3f;
    const int layer = ((nal[0] & 1) << 5) | (nal[1] >> 3);
    if (type == kEos || type == kEob) eos = true;
    if (type >= kVclEnd || layer != 0 || seen_vcl) return false;
    seen_vcl = true;
    if (type >= 6 && type <= kRaslR) {
      first_vcl = Access::kLeading;
    } else if (type >= kIdrWRadl && type <= kCra) {
      // first_slice_segment_in_pic_flag, then no_output_of_prior_pics_flag.
      first_vcl = nal.size() > 2 && (nal[2] & 0x40) == 0 ? Access::kRandom : Access::kOther;
    }
    return false;
  });
  return eos ? Access::kEndOfSequence : first_vcl;
}

Access classify_vp9(std::span<const uint8_t> p) {
  // The uncompressed header: frame_marker (2 bits, 2), profile_low_bit,
  // profile_high_bit, a reserved bit in profile 3, show_existing_frame,
  // frame_type (0: key frame).
  if (p.empty() || (p[0] >> 6) != 2) return Access::kOther;
  const int profile = ((p[0] >> 5) & 1) | (((p[0] >> 4) & 1) << 1);
  const int show_existing_bit = profile == 3 ? 2 : 3;
  const bool show_existing = (p[0] >> show_existing_bit) & 1;
  const bool inter = (p[0] >> (show_existing_bit - 1)) & 1;
  return !show_existing && !inter ? Access::kRandom : Access::kOther;
}

}  // namespace

PacketSyntax packet_syntax(Bitstream codec, std::span<const uint8_t> x) {
  PacketSyntax s{codec, 0};
  if (codec == Bitstream::kH264 && x.size() >= 7 && x[0] == 1) s.length_size = (x[4] & 3) + 1;
  if (codec == Bitstream::kHevc && x.size() >= 23 && x[0] == 1) s.length_size = (x[21] & 3) + 1;
  return s;
}

Access classify_packet(const PacketSyntax& s, std::span<const uint8_t> p) {
  switch (s.codec) {
    case Bitstream::kH264:
      return classify_h264(s, p);
    case Bitstream::kHevc:
      return classify_hevc(s, p);
    case Bitstream::kVp9:
      return classify_vp9(p);
  }
  return Access::kOther;
}

Stretches plan_stretches(std::span<const int64_t> pts, std::span<const Access> access) {
  const size_t n = pts.size();
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min(), kHigh = std::numeric_limits<int64_t>::max();
  Stretches out;
  const auto whole = [&](const char* why) {
    out.stretches.assign(1, Stretch{0, n, kLow, kHigh, unsigned(n), 0});
    out.why = why;
    return out;
  };
  if (std::find(access.begin(), access.end(), Access::kEndOfSequence) != access.end())
    return whole("it ends a coded sequence mid-stream");
  std::vector<int64_t> sorted(pts.begin(), pts.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return whole("packets share a timestamp");
  std::vector<size_t> starts{0};
  for (size_t i = 1; i < n; ++i)
    if (access[i] == Access::kRandom && i - starts.back() >= kMinStretch) starts.push_back(i);
  if (starts.size() == 1) return whole("it has no random-access point to split at");
  unsigned frame = 0;
  size_t prev_end = 0;
  int64_t prev_lo = kLow;
  for (size_t j = 0; j < starts.size(); ++j) {
    Stretch s;
    s.first = starts[j];
    const size_t next = j + 1 < starts.size() ? starts[j + 1] : n;
    s.end = next;
    if (next < n) {
      size_t lead = next + 1;
      while (lead < n && access[lead] == Access::kLeading) ++lead;
      if (lead > next + 1) s.end = lead;  // through the next point and its leading pictures
    }
    s.lo = j == 0 ? kLow : pts[s.first];
    s.hi = next < n ? pts[next] : kHigh;
    // Leading pictures fed to the previous stretch lie in its range; the
    // rest up to the next point in this one's.
    for (size_t i = s.first; i < next; ++i) {
      const bool leading = i > s.first && i < prev_end;
      if (leading ? !(pts[i] >= prev_lo && pts[i] < s.lo) : !(pts[i] >= s.lo && pts[i] < s.hi))
        return whole("a picture is out of order around a random-access point");
    }
    for (size_t i = s.first; i < s.end; ++i) s.frames += pts[i] >= s.lo && pts[i] < s.hi;
    s.first_frame = frame;
    frame += s.frames;
    prev_end = s.end;
    prev_lo = s.lo;
    out.stretches.push_back(s);
  }
  if (frame != n) return whole("a picture is out of order around a random-access point");
  return out;
}

}  // namespace twinmaf
