// Device-to-device copy bandwidth (the ceiling for memory-bound kernels): cudaMemcpyAsync of a
// 512 MiB buffer, warm-up then the median of repeats timed with CUDA events. Prints one line:
// COPY_RESULT {"bytes_moved": N, "median_us": T, "gbs": B}   (bytes moved = read + write)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
  const size_t bytes = size_t(512) << 20;
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    std::fprintf(stderr, "copy_bandwidth: no GPU memory (%s)\n", cudaGetErrorString(cudaGetLastError()));
    return 3;
  }
  cudaMemset(a, 1, bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 5; ++i) cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice);
  std::vector<float> ms;
  for (int i = 0; i < 30; ++i) {
    cudaEventRecord(start);
    cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  double median = ms[ms.size() / 2];
  std::printf("COPY_RESULT {\"bytes_moved\": %zu, \"median_us\": %.3f, \"gbs\": %.2f}\n", 2 * bytes, median * 1000.0,
              2.0 * bytes / (median * 1e-3) / 1e9);
  return 0;
}
