#!/usr/bin/env bash
# paddle on a CUDA machine, in one command: build, smoke check, the GPU tests, the GPU
# benchmark. Every stage has a time limit and writes its log into one folder; the last
# lines say how each stage ended. Works offline: what the build needs and the machine lacks
# comes from a folder of wheels (fetch them beforehand with --fetch-wheels, where the
# package index can be reached).
#
#   tools/gpu_check.sh                          # on the GPU machine, from anywhere
#   tools/gpu_check.sh --wheels DIR --logs DIR  # wheels from DIR, logs into DIR
#   tools/gpu_check.sh --fetch-wheels DIR       # beforehand, with the package index
#
# Stages (seconds, out of a budget of GPU_CHECK_SECONDS, 480 by default):
#   env     the machine: GPU, driver, Python, CuPy's configuration (env.log)
#   build   paddle built in place (python setup.py build_ext --inplace; build.log)
#   smoke   tools/gpu_smoke.py: kernels compile and load, products and steps captured as
#           CUDA graphs, GPU steps equal the CPU's (smoke.log)
#   core    the most telling `gpu` tests: tests/test_gpu.py, tests/devices/cuda (core.log)
#   bench   benchmarks/gpu.py: paddle beside PyTorch eager and JAX jit (bench.log)
#   nccl    on a machine with two GPUs or more: the NCCL tests, one MPI rank per GPU
#           (tests/distributed: NCCL collectives, two ranks training against one; nccl.log)
#   all     every `gpu` test of the suite, in parallel when pytest-xdist is there (all.log)
# The exit status is the number of stages that failed. docs/gpu.md says what to expect.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WHEELS=${GPU_CHECK_WHEELS:-$ROOT/build/gpu-wheels}
LOGS=${GPU_CHECK_LOGS:-$ROOT/build/gpu-check-logs}
BUDGET=${GPU_CHECK_SECONDS:-480}
PY=${PYTHON:-$(command -v python3)}

fetch_wheels() {  # what a CUDA machine's Python 3.12 may lack to build paddle
  mkdir -p "$1"
  "$PY" -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$1" "scipy-openblas32>=0.3.27" setuptools wheel \
    pybind11
}

while [ $# -gt 0 ]; do
  case "$1" in
    --wheels) WHEELS=$2; shift 2 ;;
    --logs) LOGS=$2; shift 2 ;;
    --fetch-wheels) fetch_wheels "$2"; exit $? ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    *) echo "gpu_check.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

mkdir -p "$LOGS"
cd "$ROOT" || exit 2
SECONDS=0
FAILED=0
SUMMARY=()

left() {  # the smaller of $1 and what is left of the budget (at least 10 s)
  local r=$((BUDGET - SECONDS))
  [ "$r" -lt 10 ] && r=10
  [ "$r" -lt "$1" ] && echo "$r" || echo "$1"
}

stage() {  # stage NAME LIMIT COMMAND...: run with a time limit, log to NAME.log
  local name=$1 limit start rc
  limit=$(left "$2"); shift 2
  start=$SECONDS
  echo "== $name (limit ${limit}s)"
  timeout -k 10 "$limit" bash -c '"$@"' stage "$@" > "$LOGS/$name.log" 2>&1
  rc=$?
  [ $rc -eq 124 ] && echo "(stopped at its ${limit}s limit)" >> "$LOGS/$name.log"
  [ $rc -ne 0 ] && FAILED=$((FAILED + 1))
  SUMMARY+=("$(printf '%-6s rc=%-3s %4ss' "$name" "$rc" $((SECONDS - start)))")
  return $rc
}

# Each process here reads the in-place build of this tree; the machine's own packages
# (CuPy, PyTorch, JAX) stay in use.
SITE=$ROOT/build/gpu-check-site
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}
export PADDLE_BUILD_JOBS=${PADDLE_BUILD_JOBS:-$(nproc)}
export XLA_PYTHON_CLIENT_PREALLOCATE=false  # JAX leaves memory to the others
export PYTHONUNBUFFERED=1
[ -z "${CUDA_PATH:-}" ] && [ -d /usr/local/cuda/include ] && export CUDA_PATH=/usr/local/cuda
if [ "$(id -u)" = 0 ]; then  # Open MPI's mpiexec refuses root without these
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

environment() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  echo "cpus $(nproc)"; "$PY" -V; echo "CUDA_PATH=${CUDA_PATH:-}"
  "$PY" -c "import cupy; cupy.show_config()"
}

build() {
  local need=()
  for module in scipy_openblas32 setuptools wheel pybind11; do
    "$PY" -c "import $module" 2>/dev/null || need+=("${module//_/-}")
  done
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing ${need[*]} from $WHEELS into $SITE"
    "$PY" -m pip install -q --no-index --find-links "$WHEELS" --target "$SITE" "${need[@]}" \
      || { echo "missing wheels: run tools/gpu_check.sh --fetch-wheels $WHEELS beforehand"; return 3; }
  fi
  "$PY" setup.py -q build_ext --inplace
}

export -f environment build  # the stages run them under `timeout`, in a child bash
export PY WHEELS SITE

PYTEST=(-m gpu -q -rfE -p no:cacheprovider -p no:benchmark --durations=15)
XDIST=()
"$PY" -c "import xdist" 2>/dev/null && XDIST=(-n "$(( $(nproc) > 12 ? 12 : $(nproc) ))")

stage env 60 environment
export PYTHONPATH=$SITE:$PYTHONPATH
if stage build 300 build; then
  stage smoke 120 "$PY" tools/gpu_smoke.py
  stage core 150 "$PY" -m pytest tests/test_gpu.py tests/devices/cuda "${PYTEST[@]}"
  stage bench 150 env BENCH_FRAMEWORKS=paddle,torch,jax BENCH_ROUNDS=2 BENCH_SECONDS=1 \
    "$PY" benchmarks/gpu.py
  GPUS=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU ")
  if [ "${GPUS:-0}" -ge 2 ]; then
    stage nccl 120 "$PY" -m pytest tests/distributed/test_nccl.py \
      tests/distributed/test_training.py "${PYTEST[@]}"
  fi
  stage all 240 "$PY" -m pytest tests "${PYTEST[@]}" "${XDIST[@]}"
fi

for name in smoke core bench nccl all; do  # the telling lines of each log
  [ -f "$LOGS/$name.log" ] || continue
  echo "-- $name"
  grep -E "^\[FAIL\]|smoke done|passed|failed|^FAILED|^ERROR|target |^(model|mlp|cnn) " \
    "$LOGS/$name.log" | head -60
done
{ printf '%s\n' "${SUMMARY[@]}"; echo "total ${SECONDS}s, ${FAILED} stage(s) failed"; } \
  | tee "$LOGS/summary.log"
exit "$FAILED"
