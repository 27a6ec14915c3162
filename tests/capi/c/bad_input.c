/* (d) bad input.  bad_input MODEL.h5 UNCOMPILED.h5 FOREIGN WEIGHTS.h5 FOLDER GPU_CODE:
   every bad call returns its documented code with a message saying what was wrong, and
   the library keeps working afterwards. MODEL is a compiled convnet on (8, 8, 1) images
   with 10 classes; FOREIGN is a text file; WEIGHTS an HDF5 file from save_weights;
   GPU_CODE what pd_set_device("gpu") returns on this machine; the working folder holds a
   FIFO named pipe.h5. Prints one line per case; exits 1 when any case failed. */
#include "common.h"

static int cases = 0, failures = 0;

static void expect(pd_error e, int32_t code, const char* part, const char* call, int line) {
  ++cases;
  int fine = e.code == code && e.msg != NULL &&
             (code == PD_OK ? e.msg[0] == '\0' : strstr(e.msg, part) != NULL);
  if (!fine) {
    ++failures;
    printf("FAIL line %d: %s: expected %d with \"%s\", received %d: %s\n", line, call,
           (int)code, part, (int)e.code, e.msg ? e.msg : "(NULL)");
  } else {
    printf("ok %d %s -> %s\n", (int)code, call, e.msg);
  }
}
#define EXPECT(call, code, part) expect((call), (code), (part), #call, __LINE__)

static void truth(int condition, const char* what, int line) {
  ++cases;
  if (!condition) {
    ++failures;
    printf("FAIL line %d: %s\n", line, what);
  } else {
    printf("ok %s\n", what);
  }
}
#define TRUTH(condition) truth((condition), #condition, __LINE__)

static float images[2 * 8 * 8];
static int64_t labels[3] = {1, 2, 3};
static int64_t bad_labels[2] = {1, 12};

static pd_tensor good_x(void) {
  pd_tensor x = {PD_FLOAT32, 4, {2, 8, 8, 1}, images};
  return x;
}

int main(int argc, char** argv) {
  if (argc != 7) die("usage: bad_input MODEL UNCOMPILED FOREIGN WEIGHTS FOLDER GPU_CODE");
  const char *path = argv[1], *uncompiled = argv[2], *foreign = argv[3], *weights = argv[4],
             *folder = argv[5];
  int32_t gpu_code = (int32_t)atoi(argv[6]);
  pd_model *m = NULL, *u = NULL, *missing = (pd_model*)1;
  for (int i = 0; i < 2 * 64; ++i) images[i] = (float)(i % 7) / 7.0f;

  /* Loading. */
  EXPECT(pd_model_load(NULL, &m), PD_INVALID_ARGUMENT, "path is NULL");
  EXPECT(pd_model_load(path, NULL), PD_INVALID_ARGUMENT, "out is NULL");
  EXPECT(pd_model_load("no/such/model.h5", &missing), PD_NOT_FOUND, "no checkpoint file");
  TRUTH(missing == NULL);
  EXPECT(pd_model_load(foreign, &m), PD_CHECKPOINT_ERROR, "CheckpointError: ");
  EXPECT(pd_model_load(weights, &m), PD_CHECKPOINT_ERROR, "no model_config");
  EXPECT(pd_model_load(folder, &m), PD_CHECKPOINT_ERROR, "is a folder");
  EXPECT(pd_set_device(NULL), PD_INVALID_ARGUMENT, "device is NULL");
  EXPECT(pd_set_device("tpu"), PD_INVALID_ARGUMENT, "expected 'cpu', 'gpu' or 'gpu:N'");
  EXPECT(pd_set_device("gpu"), gpu_code, "");
  EXPECT(pd_set_device("cpu"), PD_OK, "");
  EXPECT(pd_model_load(path, &m), PD_OK, "");
  EXPECT(pd_model_load(uncompiled, &u), PD_OK, "");
  int32_t n = -1;
  EXPECT(pd_model_num_outputs(NULL, &n), PD_INVALID_ARGUMENT, "the model is NULL");
  EXPECT(pd_model_num_outputs(m, NULL), PD_INVALID_ARGUMENT, "n is NULL");
  uint64_t not_a_model[4] = {0, 0, 0, 0};
  EXPECT(pd_model_num_outputs((pd_model*)not_a_model, &n), PD_INVALID_ARGUMENT,
         "not a live pd_model");

  /* Predicting. */
  pd_tensor x = good_x(), out, two[2];
  int sentinel = 0;
  out.data = &sentinel;
  EXPECT(pd_model_predict(NULL, &x, 1, &out, 1), PD_INVALID_ARGUMENT, "the model is NULL");
  TRUTH(out.data == NULL);
  EXPECT(pd_model_predict(m, NULL, 1, &out, 1), PD_INVALID_ARGUMENT, "inputs is NULL");
  EXPECT(pd_model_predict(m, &x, 0, &out, 1), PD_INVALID_ARGUMENT, "n_inputs = 0");
  EXPECT(pd_model_predict(m, &x, -1, &out, 1), PD_INVALID_ARGUMENT, "n_inputs is -1");
  EXPECT(pd_model_predict(m, &x, 1, NULL, 1), PD_INVALID_ARGUMENT, "outputs is NULL");
  EXPECT(pd_model_predict(m, &x, 1, two, 2), PD_INVALID_ARGUMENT, "n_outputs = 2");
  TRUTH(two[0].data == NULL && two[1].data == NULL);
  x.dtype = 7;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_INVALID_ARGUMENT, "dtype 7");
  x.dtype = PD_INT32;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_INVALID_ARGUMENT, "received PD_INT32");
  x = good_x();
  x.rank = 9;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_INVALID_ARGUMENT, "rank 9");
  x.rank = -1;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_INVALID_ARGUMENT, "rank -1");
  x = good_x();
  x.shape[1] = -8;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_INVALID_ARGUMENT, "shape[1] is -8");
  x = good_x();
  x.shape[1] = INT64_MAX / 2;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_INVALID_ARGUMENT, "overflows");
  x = good_x();
  x.data = NULL;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_INVALID_ARGUMENT, "data is NULL");
  x = good_x();
  x.shape[2] = 4; /* 2*8*4 floats: inside the buffer, but the wrong shape */
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_SHAPE_ERROR, "axis 2 should be 8");
  x = good_x();
  x.rank = 3;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_SHAPE_ERROR, "expected rank 4");
  x.rank = 0;
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_SHAPE_ERROR, "rank 0");
  TRUTH(out.data == NULL);

  /* Training. */
  x = good_x();
  pd_tensor y = {PD_INT64, 1, {2}, labels}, y3 = {PD_INT64, 1, {3}, labels};
  pd_tensor y_bad = {PD_INT64, 1, {2}, bad_labels};
  double loss = -1;
  EXPECT(pd_model_train_on_batch(u, &x, 1, &y, 1, &loss), PD_INVALID_ARGUMENT,
         "saved without compile()");
  EXPECT(pd_model_train_on_batch(m, &x, 1, &y3, 1, &loss), PD_SHAPE_ERROR,
         "x[0] has 2, y[0] has 3");
  EXPECT(pd_model_train_on_batch(m, &x, 1, &y_bad, 1, &loss), PD_INVALID_ARGUMENT,
         "is outside the 10 classes [0, 10)");
  EXPECT(pd_model_evaluate(m, &x, 1, &y_bad, 1, &loss), PD_INVALID_ARGUMENT,
         "is outside the 10 classes [0, 10)");
  EXPECT(pd_model_forward_backward(m, &x, 1, &y_bad, 1, &loss), PD_INVALID_ARGUMENT,
         "class labels must lie in [0, 10)");
  EXPECT(pd_model_train_on_batch(m, &x, -1, &y, 1, &loss), PD_INVALID_ARGUMENT, "nx is -1");
  EXPECT(pd_model_train_on_batch(m, &x, 1, NULL, 1, &loss), PD_INVALID_ARGUMENT, "y is NULL");
  EXPECT(pd_model_evaluate(m, &x, 1, &y, 2, &loss), PD_INVALID_ARGUMENT, "");
  TRUTH(loss == -1);
  EXPECT(pd_model_evaluate(NULL, &x, 1, &y, 1, &loss), PD_INVALID_ARGUMENT,
         "the model is NULL");

  /* An empty batch: refused before anything runs. */
  pd_tensor x0 = good_x(), y0 = {PD_INT64, 1, {0}, labels};
  x0.shape[0] = 0;
  EXPECT(pd_model_train_on_batch(m, &x0, 1, &y0, 1, &loss), PD_INVALID_ARGUMENT,
         "the batch is empty (0 samples)");
  EXPECT(pd_model_evaluate(m, &x0, 1, &y0, 1, &loss), PD_INVALID_ARGUMENT,
         "the batch is empty");
  EXPECT(pd_model_forward_backward(m, &x0, 1, &y0, 1, &loss), PD_INVALID_ARGUMENT,
         "the batch is empty");
  EXPECT(pd_model_predict(m, &x0, 1, &out, 1), PD_INVALID_ARGUMENT, "the batch is empty");
  TRUTH(loss == -1 && out.data == NULL);

  /* Parameters and gradients. */
  const char* name = "unchanged";
  EXPECT(pd_model_num_params(m, NULL), PD_INVALID_ARGUMENT, "n is NULL");
  EXPECT(pd_model_num_params(m, &n), PD_OK, "");
  EXPECT(pd_model_param_name(m, -1, &name), PD_INVALID_ARGUMENT, "index -1 is outside");
  TRUTH(name == NULL);
  EXPECT(pd_model_param_name(m, n, &name), PD_INVALID_ARGUMENT, "is outside [0, ");
  EXPECT(pd_model_param_name(m, 0, NULL), PD_INVALID_ARGUMENT, "name is NULL");
  EXPECT(pd_model_param_name(m, 0, &name), PD_OK, "");
  pd_tensor w;
  EXPECT(pd_model_get_grad(m, name, &w), PD_INVALID_ARGUMENT,
         "call pd_model_forward_backward first");
  EXPECT(pd_model_get_param(m, "nope", &w), PD_NOT_FOUND, "no parameter named 'nope'");
  EXPECT(pd_model_get_grad(m, "nope", &w), PD_NOT_FOUND, "no parameter named 'nope'");
  EXPECT(pd_model_get_param(m, NULL, &w), PD_INVALID_ARGUMENT, "name is NULL");
  EXPECT(pd_model_get_param(m, name, NULL), PD_INVALID_ARGUMENT, "out is NULL");
  EXPECT(pd_model_get_param(m, name, &w), PD_OK, "");
  w.shape[0] += 1;
  EXPECT(pd_model_set_param(m, name, &w), PD_SHAPE_ERROR, "has shape");
  w.shape[0] -= 1;
  w.dtype = 9;
  EXPECT(pd_model_set_param(m, name, &w), PD_INVALID_ARGUMENT, "dtype 9");
  w.dtype = PD_FLOAT32;
  EXPECT(pd_model_set_param(m, "nope", &w), PD_NOT_FOUND, "no parameter named");
  EXPECT(pd_model_set_param(m, name, NULL), PD_INVALID_ARGUMENT, "value is NULL");
  EXPECT(pd_model_set_param(m, name, &w), PD_OK, "");
  pd_tensor_free(&w);

  /* Saving. */
  char bad_path[4096];
  snprintf(bad_path, sizeof bad_path, "%s/m.h5", foreign); /* under a file */
  EXPECT(pd_model_save(m, bad_path), PD_CHECKPOINT_ERROR, "is not a folder");
  EXPECT(pd_model_save(m, "no/such/folder/m.h5"), PD_NOT_FOUND, "does not exist");
  /* The test made pipe.h5 a FIFO in the working folder: refused, and left a FIFO. */
  EXPECT(pd_model_save(m, "pipe.h5"), PD_CHECKPOINT_ERROR, "is a FIFO");
  EXPECT(pd_model_save(m, NULL), PD_INVALID_ARGUMENT, "path is NULL");
  EXPECT(pd_model_save(NULL, bad_path), PD_INVALID_ARGUMENT, "the model is NULL");
  pd_model_free(NULL);
  pd_tensor_free(NULL);
  pd_tensor_free(&w); /* data is NULL after the first free */

  /* Still working. */
  x = good_x();
  EXPECT(pd_model_predict(m, &x, 1, &out, 1), PD_OK, "");
  TRUTH(out.data != NULL && out.rank == 2 && out.shape[0] == 2 && out.shape[1] == 10);
  pd_tensor_free(&out);
  EXPECT(pd_model_train_on_batch(m, &x, 1, &y, 1, &loss), PD_OK, "");
  TRUTH(loss > 0);
  EXPECT(pd_model_forward_backward(m, &x, 1, &y, 1, &loss), PD_OK, "");
  EXPECT(pd_model_get_grad(m, name, &w), PD_OK, "");
  pd_tensor_free(&w);
  EXPECT(pd_model_evaluate(u, &x, 1, &y, 1, &loss), PD_INVALID_ARGUMENT,
         "saved without compile()");
  EXPECT(pd_model_predict(u, &x, 1, &out, 1), PD_OK, "");
  pd_tensor_free(&out);
  pd_model_free(m);
  pd_model_free(u);
  printf("%d cases, %d failed\n", cases, failures);
  return failures == 0 ? 0 : 1;
}
