// The processor's RCPSS (approximate reciprocal), which libvmaf's float ADM
// divides with (docs/float_adm.md). Its bits are not specified: processors
// differ, so values recorded with one hold only on processors whose RCPSS
// gives the same bits. The fingerprint tells them apart.
#pragma once

#include <string>

namespace twinmaf::test {

// 16 hex digits: 64-bit FNV-1a over the bits of RCPSS(x), every binary32 x
// in [1, 2) in order ("none" without SSE).
std::string rcpss_fingerprint();

}  // namespace twinmaf::test
