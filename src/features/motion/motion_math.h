// motion's filter, shared by the CPU reference (motion_ref.cpp) and the CUDA
// twin (motion.cu). CUDA-safe: only <cstdint>.
#pragma once

#include <cstdint>

namespace twinmaf {

// 5-tap blur, sum 65536 (libvmaf integer_motion.h).
inline constexpr int32_t kMotionFilter[5] = {3571, 16004, 26386, 16004, 3571};

}  // namespace twinmaf
