/* (e) threads.  threads MODEL.h5 XA.f32 XB.f32 REFA.f32 REFB.f32 ROUNDS: two threads start
   at once with no pd_ call made before (both race to start the interpreter), each loads
   its own model and predicts its batch ROUNDS times; then both predict ROUNDS times on one
   shared model. Every prediction must equal the reference bit for bit. */
#include <pthread.h>

#include "common.h"

typedef struct job {
  const char* model_path;
  pd_model* shared; /* NULL: load a model of the thread's own */
  pd_tensor x;
  const float* ref;
  int rounds, wrong, errors;
} job;

static void* work(void* arg) {
  job* j = (job*)arg;
  pd_model* model = j->shared;
  if (model == NULL && pd_model_load(j->model_path, &model).code != PD_OK) {
    j->errors++;
    return NULL;
  }
  for (int r = 0; r < j->rounds; ++r) {
    pd_tensor y;
    pd_error e = pd_model_predict(model, &j->x, 1, &y, 1);
    if (e.code != PD_OK) {
      fprintf(stderr, "predict: %s\n", e.msg);
      j->errors++;
      continue;
    }
    if (memcmp(y.data, j->ref, (size_t)count_of(&y) * sizeof(float)) != 0) j->wrong++;
    pd_tensor_free(&y);
  }
  if (j->shared == NULL) pd_model_free(model);
  return NULL;
}

static int run_pair(job* a, job* b) {
  pthread_t ta, tb;
  if (pthread_create(&ta, NULL, work, a) != 0 || pthread_create(&tb, NULL, work, b) != 0)
    die("pthread_create");
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  printf("wrong %d %d, errors %d %d\n", a->wrong, b->wrong, a->errors, b->errors);
  return a->wrong + b->wrong + a->errors + b->errors;
}

int main(int argc, char** argv) {
  if (argc != 7) die("usage: threads MODEL.h5 XA.f32 XB.f32 REFA.f32 REFB.f32 ROUNDS");
  const int64_t dims[] = {8, 8, 1};
  size_t bytes = 0;
  job a = {argv[1], NULL, tensor_from_file(argv[2], PD_FLOAT32, 4, dims), NULL, 0, 0, 0};
  job b = {argv[1], NULL, tensor_from_file(argv[3], PD_FLOAT32, 4, dims), NULL, 0, 0, 0};
  a.ref = (const float*)read_file(argv[4], &bytes);
  b.ref = (const float*)read_file(argv[5], &bytes);
  a.rounds = b.rounds = atoi(argv[6]);
  int bad = run_pair(&a, &b);
  pd_model* shared = NULL;
  CHECK(pd_model_load(argv[1], &shared));
  a.shared = b.shared = shared;
  bad += run_pair(&a, &b);
  pd_model_free(shared);
  free(a.x.data);
  free(b.x.data);
  free((void*)a.ref);
  free((void*)b.ref);
  return bad == 0 ? 0 : 1;
}
