// Pairwise int16 multiply-adds, compiled once per Highway target: included
// inside namespace twinmaf::HWY_NAMESPACE, after
// `namespace hn = hwy::HWY_NAMESPACE;`, by the kernels that filter with
// int16 taps two at a time (vif, adm, motion). No include guard.

// acc + a[2i]*b[2i] + a[2i+1]*b[2i+1] in int32 lane i, modulo 2^32. Each
// pair sum is exact in int32 unless both products are (-2^15)^2 (callers'
// operands exclude it), so the result is the same on every target. On
// AVX3_DL (AVX-512 VNNI) it is one vpdpwssd: Highway 1.0.3 has no op for
// it and its AVX3_DL target does not enable avx512vnni for the intrinsic,
// hence the assembly (zmm registers: always EVEX-encoded). Elsewhere a
// widening multiply-add and an add.
template <class VI32, class DI32 = hn::DFromV<VI32>>
HWY_INLINE VI32 MulAddPairs(hn::Vec<hn::Repartition<int16_t, DI32>> a, hn::Vec<hn::Repartition<int16_t, DI32>> b,
                            VI32 acc) {
#if HWY_TARGET == HWY_AVX3_DL
  if constexpr (sizeof(acc.raw) == 64) {
    asm("vpdpwssd %2, %1, %0" : "+v"(acc.raw) : "v"(b.raw), "vm"(a.raw));
    return acc;
  }
#endif
  const DI32 di;
  auto odd = hn::Zero(di);
  const auto even = hn::ReorderWidenMulAccumulate(di, a, b, hn::Zero(di), odd);
  return hn::Add(acc, hn::RearrangeToOddPlusEven(even, odd));
}

// The int16 taps (f0, f1) in every lane pair: MulAddPairs' b for a filter
// taken two taps at a time (|f| < 2^15).
template <class D16>
HWY_INLINE hn::Vec<D16> PairTaps(D16 d16, int32_t f0, int32_t f1) {
  return hn::InterleaveLower(d16, hn::Set(d16, static_cast<int16_t>(f0)), hn::Set(d16, static_cast<int16_t>(f1)));
}
