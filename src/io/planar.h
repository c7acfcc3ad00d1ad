// Packed planar frames (raw YUV files and Y4M frame payloads): plane after
// plane, rows of stored_w samples, no padding; 2 bytes little-endian per sample
// above 8 bits.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "core/picture.h"
#include "io/file_reader.h"

namespace twinmaf {

uint64_t packed_frame_bytes(const VideoFormat& f);
uint64_t packed_plane_bytes(const VideoFormat& f, int p);

// Reads the packed frame at `offset` into pic (planes 0..planes-1; the others
// are skipped). Returns false when the file ends exactly at `offset`; a frame
// that is cut short is an error naming `frame`. Above 8 bits, planes
// check_from..planes-1 are range-checked (check_sample_range).
Result<bool> read_packed_frame(const FileReader& file, uint64_t offset, Picture& pic, int planes,
                               int check_from, unsigned frame);

}  // namespace twinmaf
