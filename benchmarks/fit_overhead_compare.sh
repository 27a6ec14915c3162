#!/usr/bin/env bash
# fit's overhead before and after issue 16 (Keras 3 fidelity), measured on one machine with
# the two builds taking turns, so that a change in the machine's load hits both alike.
#
#   bash benchmarks/fit_overhead_compare.sh [ROUNDS] [BEFORE] [AFTER]
#
# BEFORE defaults to 9bdc987, main's last commit before issue 16's work (its first commits
# on main, 6e07d1c "Layer.__call__ as Keras's" and 86627be "Dict inputs and outputs",
# have it as parent); AFTER defaults to HEAD. Each commit is checked out in a detached
# worktree under $WORK (default: a new temporary folder, removed at the end), its C++
# extension built in place, and benchmarks/fit_overhead.py (the same file at both commits)
# run from it, ROUNDS times (default 3) each, alternately. $PYTHON (default python3) must
# have the build and run dependencies: numpy, scipy-openblas32, pybind11, setuptools, h5py,
# tqdm (the dev venv or `pip install ".[test]"`'s). Run it on a quiet machine: each line is
# the best of fit_overhead.py's own rounds; compare the spread across ROUNDS before
# reading a difference.
set -euo pipefail
ROUNDS=${1:-3}
BEFORE=${2:-9bdc987}
AFTER=${3:-HEAD}
PYTHON=${PYTHON:-python3}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
WORK=${WORK:-$(mktemp -d)}

cleanup() {
    for name in before after; do
        if [ -d "$WORK/$name" ]; then
            git -C "$REPO" worktree remove --force "$WORK/$name"
        fi
    done
}
trap cleanup EXIT

for name in before after; do
    if [ "$name" = before ]; then commit=$BEFORE; else commit=$AFTER; fi
    git -C "$REPO" worktree add --detach "$WORK/$name" "$commit" >/dev/null
    echo "== $name: $(git -C "$WORK/$name" log -1 --format='%h %s' | cut -c1-100)"
    (cd "$WORK/$name" && "$PYTHON" setup.py -q build_ext --inplace >/dev/null)
done

for round in $(seq "$ROUNDS"); do
    for name in before after; do
        echo "== round $round, $name"
        # PYTHONPATH: that tree's paddle (the script's folder holds no package of its own).
        (cd "$WORK/$name" && PYTHONPATH="$WORK/$name" "$PYTHON" benchmarks/fit_overhead.py)
    done
done
