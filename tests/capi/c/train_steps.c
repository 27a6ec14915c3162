/* (b) train_on_batch.  train_steps MODEL.h5 X.f32 Y.i64 STEPS BATCH OUT_DIR SAVED.h5:
   STEPS calls of pd_model_train_on_batch on consecutive batches of BATCH samples; writes
   OUT_DIR/losses.f64, then every trainable parameter to OUT_DIR/<i>.f32, and saves the
   model to SAVED.h5. */
#include "common.h"

int main(int argc, char** argv) {
  if (argc != 8) die("usage: train_steps MODEL.h5 X.f32 Y.i64 STEPS BATCH OUT_DIR SAVED.h5");
  const int64_t dims[] = {8, 8, 1};
  pd_tensor x_all = tensor_from_file(argv[2], PD_FLOAT32, 4, dims);
  pd_tensor y_all = tensor_from_file(argv[3], PD_INT64, 1, NULL);
  int steps = atoi(argv[4]);
  int64_t batch = atol(argv[5]);
  if (steps * batch > x_all.shape[0]) die("not enough samples");
  pd_model* model = NULL;
  CHECK(pd_model_load(argv[1], &model));
  double losses[64];
  if (steps > 64) die("at most 64 steps");
  for (int s = 0; s < steps; ++s) {
    pd_tensor x = x_all, y = y_all;
    x.shape[0] = y.shape[0] = batch;
    x.data = (float*)x_all.data + s * batch * 64;
    y.data = (int64_t*)y_all.data + s * batch;
    CHECK(pd_model_train_on_batch(model, &x, 1, &y, 1, &losses[s]));
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/losses.f64", argv[6]);
  write_file(path, losses, sizeof(double) * (size_t)steps);
  int32_t n = 0;
  CHECK(pd_model_num_params(model, &n));
  for (int32_t i = 0; i < n; ++i) {
    const char* name = NULL;
    pd_tensor w;
    CHECK(pd_model_param_name(model, i, &name));
    CHECK(pd_model_get_param(model, name, &w));
    snprintf(path, sizeof path, "%s/%d.f32", argv[6], (int)i);
    tensor_to_file(path, &w);
    printf("%s\n", name);
    pd_tensor_free(&w);
  }
  CHECK(pd_model_save(model, argv[7]));
  pd_model_free(model);
  free(x_all.data);
  free(y_all.data);
  return 0;
}
