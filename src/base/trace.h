// Start-up trace for --profile: named steps of a process with their times,
// so a user sees where a short job's time goes before its first frame.
//
// The origin is the static initialisation of this library (after the
// dynamic loader); loader_ms() estimates exec -> origin from /proc (10 ms
// resolution). Recording is off until enable(); mark() is thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace twinmaf::trace {

void enable();
bool enabled();
// Records `step` at the current time (no-op unless enabled).
void mark(std::string_view step);
// "startup <step>  <ms since origin>  (+<ms since the previous step>)" lines,
// the loader estimate first.
std::vector<std::string> lines();

}  // namespace twinmaf::trace
