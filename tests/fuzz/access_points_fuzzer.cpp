// Fuzzes twinmaf's own bitstream parsing behind the several-decoder reader
// (io/access_points.h) on raw bytes, without FFmpeg: packet_syntax() on an
// avcC/hvcC record, classify_packet() on each packet (H.264, HEVC or VP9,
// NAL units behind lengths of 1..4 bytes or start codes), then
// plan_stretches() on their kinds and timestamps; then checks the plan
// against the header's contract, so a plan that would decode a frame twice,
// drop one or split away from a random-access point is a finding too.
//
// Input: byte 0 picks the codec (bits 0-1) and, with bit 2, kinds taken
// straight from the bytes instead of classified (plan_stretches alone, on
// streams longer than classified packets make). Byte 1 is the extradata's
// length, then the extradata. Then records until the input ends:
//   classified: [pts offset, int8][length, 2 bytes big-endian][packet]
//   direct:     [pts offset, int8][kind, low 2 bits]
// A packet's pts is 4 * its decoding index + its offset (reordering as
// B-frames do; a shared timestamp now and then).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <span>
#include <vector>

#include "io/access_points.h"

namespace {

using namespace twinmaf;

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "access_points_fuzzer: plan_stretches broke its contract: %s\n", what);
  std::abort();
}

// plan_stretches()'s promises (io/access_points.h).
void check_plan(std::span<const int64_t> pts, std::span<const Access> access, const Stretches& plan) {
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min(), kHigh = std::numeric_limits<int64_t>::max();
  const size_t n = pts.size();
  const std::vector<Stretch>& s = plan.stretches;
  check(!s.empty(), "no stretch");
  if (!plan.why.empty()) {
    check(s.size() == 1, "a reason to decode whole, and several stretches");
    check(s[0].first == 0 && s[0].end == n && s[0].lo == kLow && s[0].hi == kHigh && s[0].frames == n &&
              s[0].first_frame == 0,
          "the whole stream is not one stretch of every frame");
    return;
  }
  check(s.size() >= 2, "split into one stretch without a reason");
  check(s[0].first == 0 && s[0].lo == kLow, "the first stretch does not start the stream");
  check(s.back().hi == kHigh, "the last stretch does not end the stream");
  unsigned frame = 0;
  for (size_t j = 0; j < s.size(); ++j) {
    const size_t next = j + 1 < s.size() ? s[j + 1].first : n;
    check(s[j].first < next && next <= s[j].end && s[j].end <= n, "packets out of order or past the stream");
    check(s[j].lo < s[j].hi, "an empty pts range");
    check(s[j].first_frame == frame, "first_frame is not the frames before it");
    frame += s[j].frames;
    if (j > 0) {
      check(access[s[j].first] == Access::kRandom, "a stretch starts away from a random-access point");
      check(s[j].first - s[j - 1].first >= kMinStretch, "a stretch shorter than kMinStretch");
      check(s[j].lo == s[j - 1].hi, "pts ranges leave a gap or overlap");
      check(s[j].lo == pts[s[j].first], "a stretch's range does not start at its point");
    }
    unsigned in_range = 0;
    for (size_t i = s[j].first; i < s[j].end; ++i) in_range += pts[i] >= s[j].lo && pts[i] < s[j].hi;
    check(in_range == s[j].frames, "frames is not the count of its packets in its range");
  }
  check(frame == n, "the stretches' frames are not the stream's");
  // Every packet's frame is output by exactly one stretch that is fed it.
  for (size_t i = 0; i < n; ++i) {
    unsigned owners = 0;
    for (const Stretch& st : s) owners += i >= st.first && i < st.end && pts[i] >= st.lo && pts[i] < st.hi;
    check(owners == 1, "a frame is output by no stretch or by two");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static constexpr Bitstream kCodecs[] = {Bitstream::kH264, Bitstream::kHevc, Bitstream::kVp9, Bitstream::kH264};
  const Bitstream codec = kCodecs[data[0] & 3];
  const bool direct = data[0] & 4;
  size_t at = 2;
  const size_t extra = std::min<size_t>(data[1], size - at);
  const PacketSyntax syntax = packet_syntax(codec, std::span<const uint8_t>(data + at, extra));
  at += extra;
  std::vector<int64_t> pts;
  std::vector<Access> access;
  while (at < size) {
    const int64_t t = int64_t(pts.size()) * 4 + static_cast<int8_t>(data[at++]);
    if (direct) {
      if (at >= size) break;
      access.push_back(static_cast<Access>(data[at++] & 3));
    } else {
      if (at + 2 > size) break;
      const size_t len = std::min<size_t>(size_t(data[at]) << 8 | data[at + 1], size - at - 2);
      at += 2;
      // A copy of its own size: ASan sees a read past the packet.
      const std::vector<uint8_t> packet(data + at, data + at + len);
      access.push_back(classify_packet(syntax, packet));
      at += len;
    }
    pts.push_back(t);
  }
  const Stretches plan = plan_stretches(pts, access);
  check_plan(pts, access, plan);
  return 0;
}
