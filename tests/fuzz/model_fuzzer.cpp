// Fuzzes model files: JSON text loaded as a model or a collection, bound
// through the feature registry, and predicted on a few frames of synthetic
// feature values. Any text must give a model or a Status, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/collector.h"
#include "features/feature.h"
#include "model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace twinmaf;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto model = LoadedModel::from_json(text, ModelConfig{}, "fuzz");
  if (!model.ok()) return 0;
  auto uses = model->bind(registry_provider);
  if (!uses.ok()) return 0;
  Collector c;
  for (unsigned i = 0; i < 3; ++i) {
    for (const FeatureUse& u : *uses)
      (void)c.append(u.collector_name, i, static_cast<double>(i) * 0.37 + static_cast<double>(u.collector_name.size()));
    (void)model->predict_main(c, i);
    if (model->is_collection()) (void)model->predict_collection(c, i);
  }
  return 0;
}
