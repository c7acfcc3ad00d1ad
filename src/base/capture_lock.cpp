#include "base/capture_lock.h"

namespace twinmaf {

std::shared_mutex& capture_lock() {
  static std::shared_mutex m;
  return m;
}

}  // namespace twinmaf
