#include "core/collector.h"

namespace twinmaf {

const Collector::Column* Collector::find(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &columns_[it->second];
}

Status Collector::append(std::string_view name, unsigned index, double value) {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) {
    it = index_.emplace(std::string(name), columns_.size()).first;
    columns_.push_back(Column{std::string(name), {}, {}});
  }
  Column& c = columns_[it->second];
  if (c.values.size() <= index) {
    c.values.resize(index + 1, 0.0);
    c.written.resize(index + 1, 0);
  }
  if (c.written[index])
    TWINMAF_FAIL(kInternal, "feature '{}' written twice at frame {}", name, index);
  c.values[index] = value;
  c.written[index] = 1;
  if (index + 1 > frame_count_) frame_count_ = index + 1;
  return ok_status();
}

Status Collector::set_aggregate(std::string_view name, double value) {
  for (auto& [n, v] : aggregates_) {
    if (n == name) {
      if (v == value) return ok_status();
      TWINMAF_FAIL(kInternal, "aggregate '{}' set twice with different values", name);
    }
  }
  aggregates_.emplace_back(std::string(name), value);
  return ok_status();
}

std::optional<double> Collector::get(std::string_view name, unsigned index) const {
  const Column* c = find(name);
  if (!c || index >= c->values.size() || !c->written[index]) return std::nullopt;
  return c->values[index];
}

}  // namespace twinmaf
