/* STREAM-style copy bandwidth for the CPU benchmark (bench/cpu/run_bench.sh); not a test.
 *
 * a[i] = b[i] over two arrays (256 MiB each by default), first-touch initialised in parallel with the
 * same static schedule as the timed loops, so each thread's pages sit where that thread runs. Two
 * variants: plain stores, and non-temporal stores (_mm256_stream_ps, only when compiled with AVX).
 * Each is repeated (>= 10 times) and reported as best and median GB/s, counting 2 x bytes per copy
 * (one read, one write), as STREAM does.
 *
 * The arrays are aligned to 2 MiB and advised onto transparent huge pages (Linux), as gir allocates its
 * kernels' buffers and as NumPy allocates the peers' inputs (docs/cpu.md "Huge pages"): the roof is then
 * measured with the same page size as the kernels it is compared with.
 *
 * Build: cc -O3 -march=native -fopenmp stream_copy.c -o stream_copy
 * Usage: stream_copy [THREADS [MIB_PER_ARRAY [REPEATS]]]
 * Prints one JSON object on one line.
 */
/* Keep the plain copy a loop of ordinary stores: GCC would otherwise turn it into a memcpy call, and
 * glibc's memcpy switches to non-temporal stores for large sizes, which would blur the two variants. */
#pragma GCC optimize("no-tree-loop-distribute-patterns")

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef __AVX__
#include <immintrin.h>
#endif

static int cmp_double(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

static void copy_plain(float* restrict a, const float* restrict b, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) a[i] = b[i];
}

#ifdef __AVX__
/* n is a multiple of 8 * threads (the caller sizes the arrays so), and the arrays are 64-byte aligned. */
static void copy_stream(float* restrict a, const float* restrict b, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i += 8) _mm256_stream_ps(a + i, _mm256_load_ps(b + i));
  _mm_sfence();
}
#endif

/* Times `repeats` copies; writes the best and the median GB/s. */
static void time_copy(void (*copy)(float*, const float*, size_t), float* a, const float* b, size_t n, int repeats,
                      double* best, double* median) {
  double* gbs = malloc(sizeof(double) * (size_t)repeats);
  copy(a, b, n); /* warm-up: page tables, thread team */
  for (int r = 0; r < repeats; ++r) {
    double t0 = omp_get_wtime();
    copy(a, b, n);
    double t = omp_get_wtime() - t0;
    gbs[r] = 2.0 * (double)n * sizeof(float) / t / 1e9;
  }
  qsort(gbs, (size_t)repeats, sizeof(double), cmp_double);
  *best = gbs[repeats - 1];
  *median = repeats % 2 ? gbs[repeats / 2] : 0.5 * (gbs[repeats / 2 - 1] + gbs[repeats / 2]);
  free(gbs);
}

/* n floats on 2 MiB boundaries, advised onto huge pages before the first touch. */
static float* huge_page_array(size_t n) {
  const size_t page = (size_t)2 << 20;
  size_t bytes = (n * sizeof(float) + page - 1) / page * page;
  float* p = aligned_alloc(page, bytes);
#ifdef __linux__
  if (p) (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : omp_get_max_threads();
  size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 256;
  int repeats = argc > 3 ? atoi(argv[3]) : 10;
  if (threads < 1 || mib < 1 || repeats < 1) {
    fprintf(stderr, "usage: stream_copy [THREADS [MIB_PER_ARRAY [REPEATS]]]\n");
    return 2;
  }
  omp_set_num_threads(threads);
  size_t n = mib * (1u << 20) / sizeof(float);
  n -= n % (size_t)(8 * threads);
  float* a = huge_page_array(n);
  float* b = huge_page_array(n);
  if (!a || !b) {
    fprintf(stderr, "stream_copy: cannot allocate 2 x %zu MiB\n", mib);
    return 1;
  }
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0.0f;
    b[i] = (float)(i & 1023);
  }
  double best, median;
  time_copy(copy_plain, a, b, n, repeats, &best, &median);
  printf("{\"threads\": %d, \"mib_per_array\": %zu, \"repeats\": %d, \"copy_best_gbs\": %.3f, \"copy_median_gbs\": %.3f", threads, mib,
         repeats, best, median);
#ifdef __AVX__
  time_copy(copy_stream, a, b, n, repeats, &best, &median);
  printf(", \"nt_copy_best_gbs\": %.3f, \"nt_copy_median_gbs\": %.3f", best, median);
#else
  printf(", \"nt_copy_best_gbs\": null, \"nt_copy_median_gbs\": null, \"nt_skipped\": \"compiled without AVX\"");
#endif
  /* Read one element back so the copies cannot be optimised away. */
  printf(", \"check\": %.1f}\n", (double)a[n / 3]);
  return 0;
}
