#include "io/access_points.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace twinmaf {
namespace {

using Bytes = std::vector<uint8_t>;

// A packet of NAL units, each behind a 4-byte length or a start code.
Bytes packet(const std::vector<Bytes>& nals, int length_size) {
  Bytes p;
  for (const Bytes& n : nals) {
    if (length_size == 0) {
      p.insert(p.end(), {0, 0, 0, 1});
    } else {
      for (int i = length_size - 1; i >= 0; --i) p.push_back(uint8_t(n.size() >> (8 * i)));
    }
    p.insert(p.end(), n.begin(), n.end());
  }
  return p;
}

// An HEVC NAL unit of `type` (layer 0), then a slice header's first byte.
Bytes hevc(int type, uint8_t first = 0x80) { return {uint8_t(type << 1), 1, first, 0x55}; }

TEST(AccessPoints, SyntaxFromExtradata) {
  EXPECT_EQ(packet_syntax(Bitstream::kH264, Bytes{1, 100, 0, 40, 0xff, 0xe1, 0}).length_size, 4);
  EXPECT_EQ(packet_syntax(Bitstream::kH264, Bytes{1, 100, 0, 40, 0xfd, 0xe1, 0}).length_size, 2);
  EXPECT_EQ(packet_syntax(Bitstream::kH264, Bytes{0, 0, 0, 1, 0x67}).length_size, 0);
  Bytes hvcc(23, 0);
  hvcc[0] = 1;
  hvcc[21] = 0x0f;
  EXPECT_EQ(packet_syntax(Bitstream::kHevc, hvcc).length_size, 4);
  EXPECT_EQ(packet_syntax(Bitstream::kHevc, {}).length_size, 0);
}

TEST(AccessPoints, H264IdrOnly) {
  for (int ls : {0, 4}) {
    const PacketSyntax s{Bitstream::kH264, ls};
    EXPECT_EQ(classify_packet(s, packet({{0x06, 5}, {0x65, 0x88}}, ls)), Access::kRandom);  // SEI, IDR
    EXPECT_EQ(classify_packet(s, packet({{0x41, 0x9a}}, ls)), Access::kOther);              // non-IDR slice
    EXPECT_EQ(classify_packet(s, packet({{0x06, 5}, {0x01, 0x88}}, ls)), Access::kOther);   // recovery point I
    EXPECT_EQ(classify_packet(s, {}), Access::kOther);
  }
}

TEST(AccessPoints, HevcPointsLeadingAndEnds) {
  for (int ls : {0, 4}) {
    const PacketSyntax s{Bitstream::kHevc, ls};
    const Bytes vps{0x40, 1, 0}, sei{0x4e, 1, 5};
    EXPECT_EQ(classify_packet(s, packet({vps, sei, hevc(19)}, ls)), Access::kRandom);  // IDR_W_RADL
    EXPECT_EQ(classify_packet(s, packet({hevc(20)}, ls)), Access::kRandom);            // IDR_N_LP
    EXPECT_EQ(classify_packet(s, packet({hevc(21)}, ls)), Access::kRandom);            // CRA
    EXPECT_EQ(classify_packet(s, packet({hevc(21, 0xc0)}, ls)), Access::kOther);  // no_output_of_prior_pics
    for (int bla : {16, 17, 18}) EXPECT_EQ(classify_packet(s, packet({hevc(bla)}, ls)), Access::kOther);
    for (int lead : {6, 7, 8, 9}) EXPECT_EQ(classify_packet(s, packet({hevc(lead)}, ls)), Access::kLeading);
    EXPECT_EQ(classify_packet(s, packet({hevc(1), hevc(21)}, ls)), Access::kOther);  // the first slice decides
    EXPECT_EQ(classify_packet(s, packet({hevc(1), {0x48, 1}}, ls)), Access::kEndOfSequence);
    Bytes layer1 = hevc(19);
    layer1[1] = 0x09;  // nuh_layer_id 1: not the base layer's picture
    EXPECT_EQ(classify_packet(s, packet({layer1, hevc(1)}, ls)), Access::kOther);
  }
}

TEST(AccessPoints, Vp9KeyFrames) {
  const PacketSyntax s{Bitstream::kVp9, 0};
  // frame_marker 2, profile 0: show_existing_frame bit 3, frame_type bit 2.
  EXPECT_EQ(classify_packet(s, Bytes{0x80, 0x49}), Access::kRandom);
  EXPECT_EQ(classify_packet(s, Bytes{0x84}), Access::kOther);  // inter
  EXPECT_EQ(classify_packet(s, Bytes{0x88}), Access::kOther);  // show_existing_frame
  // Profile 3 (both profile bits): a reserved bit first.
  EXPECT_EQ(classify_packet(s, Bytes{0xb0}), Access::kRandom);
  EXPECT_EQ(classify_packet(s, Bytes{0xb2}), Access::kOther);
  EXPECT_EQ(classify_packet(s, Bytes{0x40}), Access::kOther);  // not a frame marker
}

// A stream of `n` packets in display order but for `reorder`: (index in
// decoding order, pts) pairs that replace the plain ones.
struct Stream {
  std::vector<int64_t> pts;
  std::vector<Access> access;
};
Stream gops(size_t n, size_t gop) {
  Stream s;
  for (size_t i = 0; i < n; ++i) {
    s.pts.push_back(int64_t(i) * 10);
    s.access.push_back(i % gop == 0 ? Access::kRandom : Access::kOther);
  }
  return s;
}

TEST(AccessPoints, StretchesSplitClosedGops) {
  const Stream s = gops(200, 50);
  const Stretches st = plan_stretches(s.pts, s.access);
  ASSERT_TRUE(st.why.empty()) << st.why;
  ASSERT_EQ(st.stretches.size(), 4u);
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(st.stretches[j].first, 50 * j);
    EXPECT_EQ(st.stretches[j].end, 50 * j + 50);  // no leading pictures: up to the next point
    EXPECT_EQ(st.stretches[j].frames, 50u);
    EXPECT_EQ(st.stretches[j].first_frame, 50u * unsigned(j));
  }
  EXPECT_EQ(st.stretches[0].lo, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(st.stretches[1].lo, 500);
  EXPECT_EQ(st.stretches[3].hi, std::numeric_limits<int64_t>::max());
  // Points closer than kMinStretch are passed over.
  const Stream dense = gops(200, 10);
  EXPECT_EQ(plan_stretches(dense.pts, dense.access).stretches.size(), 200 / 50u);
}

TEST(AccessPoints, StretchesDecodeThroughTheNextPointsLeadingPictures) {
  // Open GOPs: the CRA of display frame 50 is coded before the leading
  // frames 48 and 49.
  Stream s = gops(100, 1000);
  s.access[0] = Access::kRandom;
  s.pts[48] = 500;
  s.access[48] = Access::kRandom;
  s.pts[49] = 480;
  s.access[49] = Access::kLeading;
  s.pts[50] = 490;
  s.access[50] = Access::kLeading;
  const Stretches st = plan_stretches(s.pts, s.access);
  ASSERT_TRUE(st.why.empty()) << st.why;
  ASSERT_EQ(st.stretches.size(), 2u);
  EXPECT_EQ(st.stretches[0].end, 51u);  // through the CRA and its leading pictures
  EXPECT_EQ(st.stretches[0].hi, 500);
  EXPECT_EQ(st.stretches[0].frames, 50u);  // 0..47 and the two leading ones
  EXPECT_EQ(st.stretches[1].first, 48u);
  EXPECT_EQ(st.stretches[1].frames, 50u);
  EXPECT_EQ(st.stretches[1].first_frame, 50u);
}

TEST(AccessPoints, StreamsThatCannotBeSplitAreWhole) {
  Stream s = gops(200, 50);
  s.access[120] = Access::kEndOfSequence;
  Stretches st = plan_stretches(s.pts, s.access);
  EXPECT_EQ(st.stretches.size(), 1u);
  EXPECT_EQ(st.stretches[0].frames, 200u);
  EXPECT_FALSE(st.why.empty());
  s = gops(200, 50);
  s.pts[70] = s.pts[71];  // a repeated timestamp
  EXPECT_EQ(plan_stretches(s.pts, s.access).stretches.size(), 1u);
  s = gops(200, 50);
  s.pts[60] = 485;  // a picture after the point shown before it, not marked leading
  EXPECT_EQ(plan_stretches(s.pts, s.access).stretches.size(), 1u);
  s = gops(200, 50);
  s.pts[40] = 1999;  // a picture before the point shown after it
  EXPECT_EQ(plan_stretches(s.pts, s.access).stretches.size(), 1u);
  s = gops(200, 1000);
  st = plan_stretches(s.pts, s.access);
  EXPECT_EQ(st.stretches.size(), 1u);
  EXPECT_FALSE(st.why.empty());
  EXPECT_EQ(plan_stretches({}, {}).stretches.size(), 1u);
}

}  // namespace
}  // namespace twinmaf
