/* Helpers shared by the C test programs: fail loudly, move raw arrays through files. */
#ifndef PADDLE_TEST_COMMON_H
#define PADDLE_TEST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paddle_c.h"

/* Exits with the call, its code and message when it does not return PD_OK. */
#define CHECK(call)                                                                    \
  do {                                                                                 \
    pd_error e_ = (call);                                                              \
    if (e_.code != PD_OK) {                                                            \
      fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #call,        \
              (int)e_.code, e_.msg);                                                   \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static inline void die(const char* what) {
  fprintf(stderr, "%s\n", what);
  exit(1);
}

/* The whole file; *bytes is its size. The caller frees the buffer. */
static inline void* read_file(const char* path, size_t* bytes) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) die(path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  void* data = malloc(n > 0 ? (size_t)n : 1);
  if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) die(path);
  fclose(f);
  *bytes = (size_t)n;
  return data;
}

static inline void write_file(const char* path, const void* data, size_t bytes) {
  FILE* f = fopen(path, "wb");
  if (f == NULL || fwrite(data, 1, bytes, f) != bytes) die(path);
  fclose(f);
}

static inline size_t element_size(int32_t dtype) {
  return dtype == PD_FLOAT32 || dtype == PD_INT32 ? 4 : 8;
}

static inline int64_t count_of(const pd_tensor* t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->rank; ++i) n *= t->shape[i];
  return n;
}

/* A tensor over a raw file of `dtype` samples whose per-sample shape is dims[0..rank-2];
   the batch size comes from the file's size. data is malloc'ed (free it yourself). */
static inline pd_tensor tensor_from_file(const char* path, int32_t dtype, int32_t rank,
                                  const int64_t* sample_dims) {
  pd_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.rank = rank;
  size_t bytes = 0;
  t.data = read_file(path, &bytes);
  int64_t per_sample = 1;
  for (int32_t i = 1; i < rank; ++i) {
    t.shape[i] = sample_dims[i - 1];
    per_sample *= sample_dims[i - 1];
  }
  t.shape[0] = (int64_t)(bytes / element_size(dtype)) / per_sample;
  return t;
}

static inline void tensor_to_file(const char* path, const pd_tensor* t) {
  write_file(path, t->data, (size_t)count_of(t) * element_size(t->dtype));
}

#endif
