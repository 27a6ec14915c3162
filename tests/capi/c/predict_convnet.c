/* (a) predict.  predict_convnet MODEL.h5 X.f32 OUT.f32: X holds (n, 8, 8, 1) float32 images;
   writes the model's (n, 10) predictions to OUT. */
#include "common.h"

int main(int argc, char** argv) {
  if (argc != 4) die("usage: predict_convnet MODEL.h5 X.f32 OUT.f32");
  const int64_t dims[] = {8, 8, 1};
  pd_tensor x = tensor_from_file(argv[2], PD_FLOAT32, 4, dims);
  pd_model* model = NULL;
  CHECK(pd_init());
  CHECK(pd_model_load(argv[1], &model));
  int32_t n_outputs = 0;
  CHECK(pd_model_num_outputs(model, &n_outputs));
  if (n_outputs != 1) die("expected one output");
  pd_tensor y;
  CHECK(pd_model_predict(model, &x, 1, &y, 1));
  if (y.dtype != PD_FLOAT32 || y.rank != 2 || y.shape[0] != x.shape[0] || y.shape[1] != 10)
    die("unexpected output shape");
  tensor_to_file(argv[3], &y);
  pd_tensor_free(&y);
  if (y.data != NULL) die("pd_tensor_free left data");
  pd_tensor_free(&y); /* twice is fine: data is NULL now */
  pd_model_free(model);
  free(x.data);
  return 0;
}
