/* Predict with a model saved from Python, from C.
 *
 *   ./predict MODEL.h5 IMAGES.f32 D1 [D2 ...]
 *
 * IMAGES.f32 holds float32 samples of shape (D1, D2, ...), one after the other; the program
 * predicts them as one batch and prints each sample's most likely class. save_digits.py
 * writes digits.h5 and digits.f32 (8 8 1). Build and run: see the Makefile or
 * docs/c_api.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "paddle_c.h"

static int failed(pd_error e, const char* what) {
  if (e.code == PD_OK) return 0;
  fprintf(stderr, "%s failed (code %d): %s\n", what, (int)e.code, e.msg);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 4 || argc - 3 > 7) {
    fprintf(stderr, "usage: %s MODEL.h5 SAMPLES.f32 D1 [D2 ... D7]\n", argv[0]);
    return 2;
  }
  pd_tensor x = {PD_FLOAT32, (int32_t)(argc - 2), {0}, NULL};
  long per_sample = 1;
  for (int i = 3; i < argc; ++i) {
    x.shape[i - 2] = atol(argv[i]);
    per_sample *= x.shape[i - 2];
  }
  FILE* f = fopen(argv[2], "rb");
  if (f == NULL || per_sample <= 0) {
    fprintf(stderr, "cannot read %s\n", argv[2]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  rewind(f);
  x.shape[0] = bytes / (long)sizeof(float) / per_sample;
  x.data = malloc((size_t)bytes);
  if (x.data == NULL || fread(x.data, 1, (size_t)bytes, f) != (size_t)bytes) return 1;
  fclose(f);

  pd_model* model = NULL;
  pd_tensor probs = {0};
  if (failed(pd_model_load(argv[1], &model), "pd_model_load") ||
      failed(pd_model_predict(model, &x, 1, &probs, 1), "pd_model_predict")) {
    pd_model_free(model);
    free(x.data);
    return 1;
  }
  int64_t classes = probs.shape[probs.rank - 1];
  const float* p = (const float*)probs.data;
  for (int64_t n = 0; n < probs.shape[0]; ++n) {
    int64_t best = 0;
    for (int64_t k = 1; k < classes; ++k)
      if (p[n * classes + k] > p[n * classes + best]) best = k;
    printf("sample %lld: class %lld (p = %.3f)\n", (long long)n, (long long)best,
           p[n * classes + best]);
  }
  pd_tensor_free(&probs);
  pd_model_free(model);
  free(x.data);
  return 0;
}
