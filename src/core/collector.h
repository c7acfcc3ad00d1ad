// Feature collector: per-feature per-frame doubles and aggregates.
//
// Columns are kept in first-append order. The engine appends in a fixed order
// (frames increasing; within a frame, extractors in registration order; each
// extractor in its own order; flush-time scores after all per-frame ones;
// model scores last), so output column order never depends on thread timing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace twinmaf {

class Collector {
 public:
  // Appends value of feature `name` at frame `index`. Writing an index twice is
  // an internal error (as in libvmaf).
  Status append(std::string_view name, unsigned index, double value);
  // Aggregates (apsnr_*): re-setting a name with an equal value is a no-op.
  Status set_aggregate(std::string_view name, double value);

  // Value of `name` at `index`, if written.
  std::optional<double> get(std::string_view name, unsigned index) const;
  bool has(std::string_view name) const { return find(name) != nullptr; }

  struct Column {
    std::string name;
    std::vector<double> values;
    std::vector<uint8_t> written;
  };
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::pair<std::string, double>>& aggregates() const { return aggregates_; }
  // One past the highest index written in any column.
  unsigned frame_count() const { return frame_count_; }

 private:
  const Column* find(std::string_view name) const;
  std::vector<Column> columns_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::pair<std::string, double>> aggregates_;
  unsigned frame_count_ = 0;
};

}  // namespace twinmaf
