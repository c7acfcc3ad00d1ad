// The command line's GPU runs end when their outputs are written, not when
// the driver has torn the CUDA context down.
//
// A process that created a CUDA context spends its last 50-130 ms in the
// driver (H200 host: cuCtxDestroy at exit, or the kernel's release of the
// device files after _exit; docs/gpu.md, "Start-up"). split_exit() forks
// before anything else runs: the child does the job, the parent waits for it.
// report_exit(code) in the child flushes and detaches stdout/stderr, sends the
// exit code and ends the child; the parent exits with that code at once, and
// the driver's teardown finishes in the child after the caller has moved on.
//
// Contracts:
// - Every output (files, stdout, stderr) is complete and closed before the
//   caller sees the exit code; the code is the job's.
// - The child dies with the parent (PR_SET_PDEATHSIG): a caller that kills
//   the process it started (SIGINT, SIGTERM, SIGKILL, a timeout) ends the job.
// - A child that dies without reporting (a crash) is waited for and its end
//   mirrored: its exit status, or its signal raised in the parent.
// - Only runs that may use a GPU split (a CUDA build, a backend other than cpu
//   and /dev/nvidiactl present); never under a sanitizer, whose exit-time
//   reports must reach stderr.
#pragma once

#include "tools/twinmaf/args.h"

namespace twinmaf::cli {

// Whether `req` may run on a GPU, the condition for split_exit().
bool may_use_gpu(const CliRequest& req);

// Forks, before any thread or CUDA call of the process. Returns in the child
// (or in the only process when fork fails); the parent never returns.
void split_exit();

// In the child of split_exit(): ends the process with `code` (the parent's
// exit code). Elsewhere: returns.
void report_exit(int code);

}  // namespace twinmaf::cli
