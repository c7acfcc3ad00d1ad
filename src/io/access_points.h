// Where a compressed stream may be decoded from: the random-access points
// of H.264, HEVC and VP9 packets, read from the few header bits that say so,
// for decoding one stream in stretches on several decoders at once
// (io/ffmpeg_source.cpp). A stretch starting at a random-access point
// decodes to the same pictures as the whole stream does (the standards'
// guarantee for the pictures from that point on), given:
// - H.264: an IDR picture (nal_unit_type 5). libavcodec outputs every
//   earlier picture before it (it does not act on no_output_of_prior_pics).
// - HEVC: an IDR or CRA picture whose no_output_of_prior_pics_flag is 0
//   (libavcodec may drop earlier pictures otherwise). Its leading pictures
//   (RASL, RADL) follow it in decoding order and precede it in output: they
//   are the previous stretch's, which decodes through them. BLA pictures,
//   whose RASL pictures are never output, and end-of-sequence NAL units,
//   after which a CRA drops its RASL pictures, are not split at.
// - VP9: a key frame (it resets every reference and probability context).
// Other codecs and packets are kOther: never split at.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace twinmaf {

enum class Bitstream : uint8_t { kH264, kHevc, kVp9 };

// How a packet's NAL units are delimited: a big-endian length of
// `length_size` bytes before each (MP4/Matroska: avcC, hvcC), or start codes
// (length_size 0: Annex B). VP9 has no NAL units.
struct PacketSyntax {
  Bitstream codec = Bitstream::kH264;
  int length_size = 0;
};

// From the codec's extradata (avcC / hvcC records start with version 1).
PacketSyntax packet_syntax(Bitstream codec, std::span<const uint8_t> extradata);

enum class Access : uint8_t {
  kOther,     // decodes only after earlier packets
  kRandom,    // a random-access point (above)
  kLeading,   // HEVC RASL or RADL: output before the point it follows
  kEndOfSequence,  // HEVC end of sequence or bitstream: no stretch boundary near it
};

Access classify_packet(const PacketSyntax& syntax, std::span<const uint8_t> packet);

// A stretch of a stream decoded on its own: packets [first, end) in decoding
// order, which runs past the next stretch's start through the leading
// pictures that belong before it, and the frames whose pts lie in [lo, hi):
// `frames` of them, frame `first_frame` of the stream on.
struct Stretch {
  size_t first = 0, end = 0;
  int64_t lo = 0, hi = 0;
  unsigned frames = 0;
  unsigned first_frame = 0;
};

// A stretch is at least this many packets (a decoder's start costs about a
// frame's decoding) unless the stream ends sooner.
inline constexpr size_t kMinStretch = 48;

// The stretches of a stream of packets with these pts (in decoding order,
// all known and distinct) and kinds, split at random-access points; one
// stretch where none is usable, or where a picture is out of the order the
// standards promise around one (the reason in `why`).
struct Stretches {
  std::vector<Stretch> stretches;
  std::string why;  // empty: split
};
Stretches plan_stretches(std::span<const int64_t> pts, std::span<const Access> access);

}  // namespace twinmaf
