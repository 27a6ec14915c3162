/* (c) forward_backward + a hand-written SGD.  hand_sgd MODEL.h5 X.f32 Y.i64 STEPS BATCH LR
   OUT_DIR: STEPS times pd_model_forward_backward, then w -= LR * grad for every trainable
   parameter with get/set_param; writes OUT_DIR/losses.f64 and every parameter (trainable
   first, then the names given after OUT_DIR) as OUT_DIR/<name with / as _>.f32. Also checks
   that forward_backward updates nothing: run twice, same loss, same parameters. */
#include "common.h"

static void save_param(pd_model* model, const char* name, const char* dir) {
  char path[4096];
  pd_tensor w;
  CHECK(pd_model_get_param(model, name, &w));
  int k = snprintf(path, sizeof path, "%s/", dir);
  for (const char* c = name; *c && k < (int)sizeof path - 5; ++c) path[k++] = *c == '/' ? '_' : *c;
  snprintf(path + k, sizeof path - (size_t)k, ".f32");
  tensor_to_file(path, &w);
  pd_tensor_free(&w);
}

static int same_param(pd_model* model, const char* name, const pd_tensor* before) {
  pd_tensor now;
  CHECK(pd_model_get_param(model, name, &now));
  int same = count_of(&now) == count_of(before) &&
             memcmp(now.data, before->data, (size_t)count_of(&now) * 4) == 0;
  pd_tensor_free(&now);
  return same;
}

int main(int argc, char** argv) {
  if (argc < 8) die("usage: hand_sgd MODEL.h5 X.f32 Y.i64 STEPS BATCH LR OUT_DIR [NAMES]");
  const int64_t dims[] = {8, 8, 1};
  pd_tensor x_all = tensor_from_file(argv[2], PD_FLOAT32, 4, dims);
  pd_tensor y_all = tensor_from_file(argv[3], PD_INT64, 1, NULL);
  int steps = atoi(argv[4]);
  int64_t batch = atol(argv[5]);
  float lr = (float)atof(argv[6]);
  if (steps > 64 || steps * batch > x_all.shape[0]) die("bad STEPS or BATCH");
  pd_model* model = NULL;
  CHECK(pd_model_load(argv[1], &model));
  int32_t n = 0;
  CHECK(pd_model_num_params(model, &n));
  double losses[64];
  for (int s = 0; s < steps; ++s) {
    pd_tensor x = x_all, y = y_all;
    x.shape[0] = y.shape[0] = batch;
    x.data = (float*)x_all.data + s * batch * 64;
    y.data = (int64_t*)y_all.data + s * batch;
    CHECK(pd_model_forward_backward(model, &x, 1, &y, 1, &losses[s]));
    if (s == 0) { /* again: nothing may have moved */
      double again = 0;
      pd_tensor first;
      const char* name = NULL;
      CHECK(pd_model_param_name(model, 0, &name));
      CHECK(pd_model_get_param(model, name, &first));
      for (int k = 8; k < argc; ++k) { /* the moving statistics too */
        pd_tensor stat;
        CHECK(pd_model_get_param(model, argv[k], &stat));
        CHECK(pd_model_forward_backward(model, &x, 1, &y, 1, &again));
        if (!same_param(model, argv[k], &stat)) die("forward_backward moved a statistic");
        pd_tensor_free(&stat);
      }
      CHECK(pd_model_forward_backward(model, &x, 1, &y, 1, &again));
      if (again != losses[0]) die("forward_backward is not repeatable");
      if (!same_param(model, name, &first)) die("forward_backward moved a parameter");
      pd_tensor_free(&first);
    }
    for (int32_t i = 0; i < n; ++i) {
      const char* name = NULL;
      pd_tensor w, g;
      CHECK(pd_model_param_name(model, i, &name));
      CHECK(pd_model_get_param(model, name, &w));
      CHECK(pd_model_get_grad(model, name, &g));
      if (g.dtype != PD_FLOAT32 || count_of(&g) != count_of(&w)) die("gradient shape");
      float* wd = (float*)w.data;
      const float* gd = (const float*)g.data;
      for (int64_t j = 0; j < count_of(&w); ++j) wd[j] -= lr * gd[j];
      CHECK(pd_model_set_param(model, name, &w));
      pd_tensor_free(&w);
      pd_tensor_free(&g);
    }
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/losses.f64", argv[7]);
  write_file(path, losses, sizeof(double) * (size_t)steps);
  for (int32_t i = 0; i < n; ++i) {
    const char* name = NULL;
    CHECK(pd_model_param_name(model, i, &name));
    save_param(model, name, argv[7]);
  }
  for (int k = 8; k < argc; ++k) save_param(model, argv[k], argv[7]);
  pd_model_free(model);
  free(x_all.data);
  free(y_all.data);
  return 0;
}
