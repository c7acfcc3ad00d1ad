// Scorer::compute_segment / finish_segments (twinmaf/twinmaf.h): a run split
// into segments of frames. A segment's bytes:
//
//   "twinmaf-segment 1\n", the scorer's fingerprint (configuration + build),
//   the format, first, count, frames, the reader's warnings, then per frame
//   its index and, per lane and feature, a tag (0: no terms at this frame,
//   1: terms follow, 2: lane 0's, a reference-only feature) and the terms
//   (FrameTerms::save).
//
// Exactness: finish() sees the same terms in the same order as in score(),
// since compute() is a function of the frame, its history and (temporal
// features) the state FeatureNeeds::state_frames declares, all of which a
// segment's warm-up provides (engine/session.h).
#include <algorithm>

#include "api/scorer_impl.h"
#include "base/bytes.h"

namespace twinmaf {

namespace {

constexpr std::string_view kMagic = "twinmaf-segment 1\n";

enum class Tag : uint8_t { kNone = 0, kOwn = 1, kLane0 = 2 };

// What both ends must agree on: the build, the configuration's texts, and
// the features they registered.
std::string fingerprint(const ScorerConfig& cfg, const Session& session) {
  std::string f = fmt::format("twinmaf {}\nsubsample {}\nlanes {}\ncommon_bitdepth {}\n", version(), cfg.subsample,
                              cfg.distorted, cfg.common_bitdepth);
  for (const std::string& m : cfg.models) f += "model " + m + "\n";
  for (const std::string& x : cfg.features) f += "feature " + x + "\n";
  for (const Session::Registered& r : session.features()) f += "registered " + r.key + "\n";
  return f;
}

}  // namespace

Result<std::string> Scorer::compute_segment(const InputFile& reference, const std::vector<InputFile>& distorted,
                                            unsigned first, unsigned count, const RunLimits& limits) {
  Impl& m = *impl_;
  if (count == 0) TWINMAF_FAIL(kInvalidArgument, "compute_segment(): a segment of 0 frames");
  if (first > UINT32_MAX - count) TWINMAF_FAIL(kInvalidArgument, "compute_segment(): frame {} + {} frames is too far", first, count);
  TWINMAF_RETURN_IF_ERROR(m.begin(distorted.size()));
  TWINMAF_ASSIGN_OR_RETURN(Impl::Inputs in, m.open_inputs(reference, distorted));
  std::string body;
  ByteWriter w(body);
  unsigned frames = 0;
  const Session& session = *m.session;
  const Session::TermsSink sink = [&](unsigned index, const std::vector<FrameTermsList>& terms) -> Status {
    if (index != first + frames)
      TWINMAF_FAIL(kInternal, "compute_segment(): frame {} arrived, frame {} was next", index, first + frames);
    ++frames;
    w.put(index);
    std::string bytes;
    for (unsigned l = 0; l < session.lanes(); ++l)
      for (size_t i = 0; i < terms[l].size(); ++i) {
        const FrameTerms* t = terms[l][i].get();
        const Tag tag = !t ? Tag::kNone : (l > 0 && t == terms[0][i].get() ? Tag::kLane0 : Tag::kOwn);
        w.put(tag);
        if (tag != Tag::kOwn) continue;
        bytes.clear();
        ByteWriter tw(bytes);
        t->save(tw);
        w.put_bytes(bytes);
      }
    return ok_status();
  };
  const Status st = m.session->run_segment(*in.ref, in.dis_ptrs, limits, first, count, sink, &m.report);
  m.info.warnings = m.report.warnings;
  TWINMAF_RETURN_IF_ERROR(st);
  TWINMAF_RETURN_IF_ERROR(m.check_one_length(distorted));
  m.info.frames = frames;
  std::string out(kMagic);
  ByteWriter h(out);
  h.put_bytes(fingerprint(m.cfg, session));
  h.put(m.fmt.w);
  h.put(m.fmt.h);
  h.put(m.fmt.fmt);
  h.put(m.fmt.bpc);
  h.put(first);
  h.put(count);
  h.put(frames);
  h.put(m.report.warnings);
  out += body;
  return out;
}

Status Scorer::finish_segments(const std::vector<std::string_view>& segments) {
  Impl& m = *impl_;
  if (m.used) TWINMAF_FAIL(kInvalidArgument, "a Scorer runs one job");
  m.used = true;
  m.t0 = Clock::now();
  if (segments.empty()) TWINMAF_FAIL(kInvalidArgument, "finish_segments(): no segments");
  Session& session = *m.session;
  const std::string mine = fingerprint(m.cfg, session);
  unsigned next = 0;
  bool ended = false;
  for (size_t k = 0; k < segments.size(); ++k) {
    std::string_view seg = segments[k];
    if (!seg.starts_with(kMagic)) TWINMAF_FAIL(kInvalidArgument, "segment {}: not a twinmaf segment", k);
    ByteReader r(seg.substr(kMagic.size()));
    if (r.get_bytes() != mine)
      TWINMAF_FAIL(kInvalidArgument, "segment {}: computed by a scorer of another configuration or build", k);
    VideoFormat fmt;
    unsigned first = 0, count = 0, frames = 0;
    std::vector<std::string> warnings;
    r.get(fmt.w);
    r.get(fmt.h);
    r.get(fmt.fmt);
    r.get(fmt.bpc);
    r.get(first);
    r.get(count);
    r.get(frames);
    r.get(warnings);
    if (!r.ok() || frames > count || static_cast<uint8_t>(fmt.fmt) > static_cast<uint8_t>(PixFmt::k444))
      TWINMAF_FAIL(kInvalidArgument, "segment {}: truncated or corrupt", k);
    if (k == 0) {
      TWINMAF_RETURN_IF_ERROR(validate_format(fmt));
      m.fmt = fmt;
      TWINMAF_RETURN_IF_ERROR(session.prepare(fmt).status());
    } else if (!(fmt == m.fmt)) {
      TWINMAF_FAIL(kInvalidArgument, "segment {}: {}x{} {} {}-bit, segment 0 is {}x{} {} {}-bit", k, fmt.w, fmt.h,
                   pix_fmt_name(fmt.fmt), fmt.bpc, m.fmt.w, m.fmt.h, pix_fmt_name(m.fmt.fmt), m.fmt.bpc);
    }
    if (ended) {
      if (frames > 0) TWINMAF_FAIL(kInvalidArgument, "segment {}: frames after the segment where the inputs end", k);
      continue;
    }
    if (first != next) TWINMAF_FAIL(kInvalidArgument, "segment {} starts at frame {}; frame {} was next", k, first, next);
    for (std::string& wn : warnings)
      if (std::find(m.report.warnings.begin(), m.report.warnings.end(), wn) == m.report.warnings.end())
        m.report.warnings.push_back(std::move(wn));
    std::vector<FrameTermsList> terms(session.lanes(), FrameTermsList(session.features().size()));
    for (unsigned f = 0; f < frames; ++f) {
      unsigned index = 0;
      r.get(index);
      if (!r.ok() || index != next) TWINMAF_FAIL(kInvalidArgument, "segment {}: truncated or corrupt", k);
      for (unsigned l = 0; l < session.lanes(); ++l)
        for (size_t i = 0; i < terms[l].size(); ++i) {
          Tag tag = Tag::kNone;
          r.get(tag);
          terms[l][i] = nullptr;
          if (tag == Tag::kLane0 && l > 0) {
            terms[l][i] = terms[0][i];
          } else if (tag == Tag::kOwn) {
            std::shared_ptr<FrameTerms> t = session.features(l)[i].extractor->make_terms();
            ByteReader tr(r.get_bytes());
            if (!r.ok() || !t->load(tr).ok() || !tr.at_end())
              TWINMAF_FAIL(kInvalidArgument, "segment {}: frame {}: truncated or corrupt terms", k, index);
            terms[l][i] = std::move(t);
          } else if (tag != Tag::kNone || !r.ok()) {
            TWINMAF_FAIL(kInvalidArgument, "segment {}: truncated or corrupt", k);
          }
        }
      TWINMAF_RETURN_IF_ERROR(session.finish_terms(index, terms));
      ++next;
    }
    if (!r.at_end()) TWINMAF_FAIL(kInvalidArgument, "segment {}: bytes after its last frame", k);
    ended = frames < count;
  }
  if (!ended)
    TWINMAF_FAIL(kInvalidArgument,
                 "finish_segments(): the last segment is full, so the inputs may go on; add the segments up to "
                 "one that ends short");
  if (next == 0) TWINMAF_FAIL(kBadInput, "no frames to score in the segments");
  m.report.frames = next;
  TWINMAF_RETURN_IF_ERROR(session.end_terms(&m.report));
  return m.predict();
}

}  // namespace twinmaf
