/* Which f32 register tile an AVX-512 core sustains: IREE 3.13's data-tiled matmul tile against a
 * wider one, on operands that stay in L1, in interleaved rounds (median of each).
 *
 * IREE packs f32 matmuls on AVX-512 into 16x16x1 tiles: per step of K, one 16-float load of the
 * right-hand side and 16 broadcast loads of the left, for 16 FMAs.  A 12x32 tile needs 2 loads
 * and 12 broadcasts for 24 FMAs.  Where loads, not FMAs, bound the loop, the first runs at about
 * half the FMA peak whatever IREE's flags; benchmarks/README.md has the figures per machine.
 *
 *     gcc -O3 -march=native benchmarks/register_tile.c -o /tmp/register_tile && /tmp/register_tile
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { K = 128, CALLS = 100000, ROUNDS = 5 };

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* IREE's tile: lhs is packed 16 rows per K step, rhs 16 columns per K step. */
__attribute__((noinline)) static void tile_16x16(const float *lhs, const float *rhs, float *out) {
  __m512 acc[16];
  for (int i = 0; i < 16; i++) acc[i] = _mm512_setzero_ps();
  for (int k = 0; k < K; k++) {
    __m512 column = _mm512_load_ps(rhs + 16 * k);
    for (int i = 0; i < 16; i++)
      acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(lhs[16 * k + i]), column, acc[i]);
  }
  for (int i = 0; i < 16; i++) _mm512_store_ps(out + 16 * i, acc[i]);
}

/* 12 rows by 32 columns: 24 accumulators, as hand-written f32 kernels use. */
__attribute__((noinline)) static void tile_12x32(const float *lhs, const float *rhs, float *out) {
  __m512 acc[24];
  for (int i = 0; i < 24; i++) acc[i] = _mm512_setzero_ps();
  for (int k = 0; k < K; k++) {
    __m512 left = _mm512_load_ps(rhs + 32 * k), right = _mm512_load_ps(rhs + 32 * k + 16);
    for (int i = 0; i < 12; i++) {
      __m512 row = _mm512_set1_ps(lhs[12 * k + i]);
      acc[2 * i] = _mm512_fmadd_ps(row, left, acc[2 * i]);
      acc[2 * i + 1] = _mm512_fmadd_ps(row, right, acc[2 * i + 1]);
    }
  }
  for (int i = 0; i < 24; i++) _mm512_store_ps(out + 16 * i, acc[i]);
}

static double gflops(void (*tile)(const float *, const float *, float *), int rows, int columns,
                     const float *lhs, const float *rhs, float *out) {
  double start = seconds();
  for (int call = 0; call < CALLS; call++) tile(lhs, rhs, out);
  return 2.0 * rows * columns * K * CALLS / (seconds() - start) / 1e9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  float *lhs = aligned_alloc(64, sizeof(float) * 16 * K);
  float *rhs = aligned_alloc(64, sizeof(float) * 32 * K);
  float *out = aligned_alloc(64, sizeof(float) * 24 * 16);
  for (int i = 0; i < 16 * K; i++) lhs[i] = 1e-3f * (float)(i % 7);
  for (int i = 0; i < 32 * K; i++) rhs[i] = 1e-3f * (float)(i % 5);
  double iree[ROUNDS], wide[ROUNDS];
  for (int round = 0; round < ROUNDS; round++) {
    iree[round] = gflops(tile_16x16, 16, 16, lhs, rhs, out);
    wide[round] = gflops(tile_12x32, 12, 32, lhs, rhs, out);
  }
  qsort(iree, ROUNDS, sizeof(double), by_value);
  qsort(wide, ROUNDS, sizeof(double), by_value);
  printf("single thread, K=%d, median of %d interleaved rounds:\n", K, ROUNDS);
  printf("  16x16x1 (IREE's f32 AVX-512 tile): %6.1f GFLOP/s\n", iree[ROUNDS / 2]);
  printf("  12x32x1:                           %6.1f GFLOP/s  (%.2fx)\n", wide[ROUNDS / 2],
         wide[ROUNDS / 2] / iree[ROUNDS / 2]);
  free(lhs);
  free(rhs);
  free(out);
  return 0;
}
