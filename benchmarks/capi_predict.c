/* The C side of benchmarks/capi.py: microseconds per pd_model_predict call.
 *   capi_predict MODEL.h5 SAMPLES.f32 BATCH CALLS [BATCH CALLS ...]
 * SAMPLES holds float32 (8, 8, 1) images; for each BATCH, CALLS calls are timed one by one
 * (after a warm-up call) and "BATCH FASTEST_US MEDIAN_US" is printed. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "paddle_c.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static int check(pd_error e) {
  if (e.code != PD_OK) fprintf(stderr, "paddle error %d: %s\n", (int)e.code, e.msg);
  return e.code != PD_OK;
}

int main(int argc, char** argv) {
  if (argc < 5 || argc % 2 != 1) {
    fprintf(stderr, "usage: capi_predict MODEL.h5 SAMPLES.f32 BATCH CALLS...\n");
    return 2;
  }
  FILE* f = fopen(argv[2], "rb");
  if (f == NULL) return 1;
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  rewind(f);
  float* samples = malloc((size_t)bytes);
  if (samples == NULL || fread(samples, 1, (size_t)bytes, f) != (size_t)bytes) return 1;
  fclose(f);
  pd_model* model = NULL;
  if (check(pd_model_load(argv[1], &model))) return 1;
  for (int b = 3; b < argc; b += 2) {
    int calls = atoi(argv[b + 1]);
    double* times = malloc(sizeof(double) * (size_t)(calls > 0 ? calls : 1));
    if (times == NULL || calls <= 0) return 1;
    pd_tensor x = {PD_FLOAT32, 4, {atol(argv[b]), 8, 8, 1}, samples}, y;
    if (x.shape[0] * 64 * (long)sizeof(float) > bytes) return 1;
    if (check(pd_model_predict(model, &x, 1, &y, 1))) return 1;
    pd_tensor_free(&y);
    for (int c = 0; c < calls; ++c) {
      double t0 = now();
      if (check(pd_model_predict(model, &x, 1, &y, 1))) return 1;
      pd_tensor_free(&y);
      times[c] = now() - t0;
    }
    qsort(times, (size_t)calls, sizeof(double), by_value);
    printf("%ld %.2f %.2f\n", (long)x.shape[0], times[0] * 1e6, times[calls / 2] * 1e6);
    free(times);
  }
  pd_model_free(model);
  free(samples);
  return 0;
}
