/* paddle_c.h: paddle's C99 API (seed #849). Load a model that `model.save` wrote, predict,
 * train, evaluate, and run forward/backward passes with your own update rule, from C or any
 * language that calls C (Go, Rust, Julia, ...).
 *
 * Build:  cc -std=c99 prog.c $(python -m paddle.capi --cflags) $(python -m paddle.capi --libs)
 *
 * Errors. Every function that can fail returns a pd_error: code 0 (PD_OK) with msg "" on
 * success; otherwise a PD_* code below and a message: "<Python exception class>: <message>"
 * for what Python refused, "<function>: <what is wrong>" for what the C layer checks first
 * (NULL pointers, counts, dtype codes, ranks, sizes).
 * No function aborts, and no exception crosses this boundary: after any error the library
 * and every model stay usable.
 *
 * Ownership, one rule per pointer kind:
 *   - pd_error.msg: owned by the library, valid until the next pd_ call on the same thread.
 *   - pd_tensor given as input (const pd_tensor*): the caller owns the struct and its data;
 *     the library reads them during the call only (no copy is kept).
 *   - pd_tensor filled by the library (outputs of predict, get_param, get_grad): the caller
 *     owns the struct, the library allocates t->data; free it with pd_tensor_free(t). Any
 *     `data` the struct held before is overwritten, not freed. On error, every tensor the
 *     call was to fill has data == NULL (pd_tensor_free on it is a no-op).
 *   - pd_model*: created by pd_model_load, owned by the caller, freed by pd_model_free.
 *     Using it after pd_model_free is undefined.
 *   - const char* from pd_model_param_name: owned by the model, valid until pd_model_free.
 *   - const char* arguments (paths, names, devices): read during the call only.
 *
 * Threads. Every function may be called from any thread, on the same model or on
 * different ones: each call takes the Python interpreter lock (GIL) and the library's call
 * lock for its duration, so calls run one at a time, whole; the kernels inside a call use
 * paddle's own OpenMP threads. The interpreter starts on the first call (whichever thread
 * makes it) and is never shut down.
 *
 * Details, examples and a Go binding: docs/c_api.md.
 */
#ifndef PADDLE_C_H
#define PADDLE_C_H

#include <stdint.h>

#if defined(__GNUC__)
#define PD_API __attribute__((visibility("default")))
#else
#define PD_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pd_error {
  int32_t code;    /* PD_OK or one of the codes below */
  const char* msg; /* "" for PD_OK; library-owned (see Ownership above) */
} pd_error;

enum {
  PD_OK = 0,
  PD_INVALID_ARGUMENT = 1, /* a NULL pointer, a bad dtype/rank/count/index, a bad value,
                              an empty batch (0 samples) */
  PD_NOT_FOUND = 2,        /* no such file, parameter name or device */
  PD_SHAPE_ERROR = 3,      /* shapes that do not fit the model (inputs, targets, params) */
  PD_CHECKPOINT_ERROR = 4, /* a damaged or foreign file, one that does not fit, or a file
                              that cannot be written */
  PD_OUT_OF_MEMORY = 5,
  PD_INTERNAL = 6 /* anything else (the message says what); the library stays usable */
};

enum { PD_FLOAT32 = 0, PD_FLOAT64 = 1, PD_INT32 = 2, PD_INT64 = 3 };

typedef struct pd_tensor {
  int32_t dtype;    /* PD_FLOAT32 ... */
  int32_t rank;     /* 0 ... 8 */
  int64_t shape[8]; /* the first `rank` entries, each >= 0 */
  void* data;       /* C-contiguous; owned by the caller for inputs, by the library for
                       tensors the library fills (free them with pd_tensor_free) */
} pd_tensor;

typedef struct pd_model pd_model; /* opaque */

/* Starts the embedded interpreter and imports paddle. Idempotent; every other function
   calls it, so calling it first is optional (it reports a broken installation early). */
PD_API pd_error pd_init(void);

/* "cpu", "gpu" or "gpu:N" for models loaded afterwards and their runs. PD_NOT_FOUND when
   the device is not available here, PD_INVALID_ARGUMENT for another string. */
PD_API pd_error pd_set_device(const char* device);

/* Loads a file `model.save` wrote (architecture, weights and, when the model was compiled,
   loss, optimizer and its state). *out is set to the model, or to NULL on error.
   PD_NOT_FOUND: no such file; PD_CHECKPOINT_ERROR: a folder, a damaged or foreign file. */
PD_API pd_error pd_model_load(const char* path, pd_model** out);

/* Writes the model (weights, loss, optimizer state) as `model.save` does; overwrites. */
PD_API pd_error pd_model_save(pd_model* m, const char* path);

/* Frees the model and its parameter names. NULL is fine. */
PD_API void pd_model_free(pd_model* m);

/* Frees t->data (library-allocated) and sets it to NULL. NULL t or t->data is fine.
   Never call it on a tensor whose data the caller allocated. */
PD_API void pd_tensor_free(pd_tensor* t);

/* The number of outputs of the model (the n_outputs predict expects). */
PD_API pd_error pd_model_num_outputs(pd_model* m, int32_t* n);

/* Predicts one batch (inference mode: no dropout, moving statistics), as Python's
   model.predict_on_batch. inputs: one tensor per model input, in model order, with the
   input's dtype (PD_INT32 is accepted for integer inputs too) and shape (batch, ...).
   outputs: n_outputs caller-owned structs that the library fills (free each with
   pd_tensor_free). n_outputs must equal pd_model_num_outputs. */
PD_API pd_error pd_model_predict(pd_model* m, const pd_tensor* inputs, int32_t n_inputs,
                                 pd_tensor* outputs, int32_t n_outputs);

/* One optimizer step on one batch, as model.train_on_batch; *loss = the batch's loss
   before the update (loss may be NULL). y: one target tensor per output, as in Python
   (integer class labels for sparse losses, float targets otherwise). The model must have
   been compiled when it was saved: PD_INVALID_ARGUMENT otherwise. */
PD_API pd_error pd_model_train_on_batch(pd_model* m, const pd_tensor* x, int32_t nx,
                                        const pd_tensor* y, int32_t ny, double* loss);

/* The loss of one batch in inference mode, as model.test_on_batch (loss may be NULL). */
PD_API pd_error pd_model_evaluate(pd_model* m, const pd_tensor* x, int32_t nx,
                                  const pd_tensor* y, int32_t ny, double* loss);

/* The training-mode loss of one batch and its gradient with respect to every trainable
   parameter (read them with pd_model_get_grad); updates nothing: no weight, no optimizer
   state, and batch-normalization moving statistics are left as they were. */
PD_API pd_error pd_model_forward_backward(pd_model* m, const pd_tensor* x, int32_t nx,
                                          const pd_tensor* y, int32_t ny, double* loss);

/* The number of trainable parameters, in the model's order (model.trainable_weights). */
PD_API pd_error pd_model_num_params(pd_model* m, int32_t* n);

/* The name of trainable parameter i (0 <= i < num_params): "<layer>/<weight>", e.g.
   "dense/kernel", as a fresh Python process names it; every model loaded from one file has
   the same names. *name is owned by the model, valid until pd_model_free. */
PD_API pd_error pd_model_param_name(pd_model* m, int32_t i, const char** name);

/* A copy of a parameter's value (trainable or not, e.g. "batch_normalization/moving_mean")
   into *out (library-allocated data). PD_NOT_FOUND for an unknown name. */
PD_API pd_error pd_model_get_param(pd_model* m, const char* name, pd_tensor* out);

/* Overwrites a parameter with a copy of *value. The shape must be the parameter's
   (PD_SHAPE_ERROR otherwise); the dtype must cast safely to the parameter's
   (float64 -> float32 is accepted, float -> int is not: PD_INVALID_ARGUMENT). */
PD_API pd_error pd_model_set_param(pd_model* m, const char* name, const pd_tensor* value);

/* The gradient of the loss with respect to a trainable parameter, from the last
   pd_model_forward_backward on this model (zeros where the loss does not depend on it).
   PD_INVALID_ARGUMENT before any forward_backward, PD_NOT_FOUND for an unknown name. */
PD_API pd_error pd_model_get_grad(pd_model* m, const char* name, pd_tensor* out);

#ifdef __cplusplus
}
#endif

#endif /* PADDLE_C_H */
