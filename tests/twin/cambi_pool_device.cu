#include "tests/twin/cambi_pool_device.h"

#include <cuda_runtime_api.h>

#include "features/cambi/cambi_pool.cuh"

namespace twinmaf::test {

namespace {

__global__ void __launch_bounds__(cuda::kCambiPoolThreads)
    pool_kernel(float* a, int n, int k, int* scratch, int serial_below, double* sum) {
  __shared__ cuda::CambiPoolShared sh;
  const double s = cuda::cambi_topk_sum_block(a, n, k, scratch, serial_below, sh);
  if (threadIdx.x == 0) *sum = s;
}

}  // namespace

std::string device_cambi_topk_sum(std::vector<float>& a, int k, int serial_below, double& sum) {
  const int n = static_cast<int>(a.size());
  void *d_a = nullptr, *d_scratch = nullptr, *d_sum = nullptr;
  cudaError_t e = cudaMalloc(&d_a, a.size() * sizeof(float));
  if (e == cudaSuccess) e = cudaMalloc(&d_scratch, static_cast<size_t>(cuda::cambi_pool_scratch_ints(n)) * sizeof(int));
  if (e == cudaSuccess) e = cudaMalloc(&d_sum, sizeof(double));
  if (e == cudaSuccess) e = cudaMemcpy(d_a, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    pool_kernel<<<1, cuda::kCambiPoolThreads>>>(static_cast<float*>(d_a), n, k, static_cast<int*>(d_scratch),
                                                serial_below, static_cast<double*>(d_sum));
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(a.data(), d_a, a.size() * sizeof(float), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(&sum, d_sum, sizeof(double), cudaMemcpyDeviceToHost);
  for (void* p : {d_a, d_scratch, d_sum}) cudaFree(p);
  return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
}

}  // namespace twinmaf::test
