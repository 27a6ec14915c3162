"""Helpers of the untrusted-file tests: running a probe in a fresh interpreter (optionally
under a memory limit) and editing saved files as an attacker would."""
import json
import os
import signal
import subprocess
import sys
import textwrap

import h5py

import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(paddle.__file__)))

PRELUDE = """
import resource, sys
limit = {limit!r}
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import paddle as pd
def expect_checkpoint_error(load):
    try:
        load()
    except pd.CheckpointError as e:
        print("CheckpointError:", e)
    else:
        print("LOADED")
"""


def run_probe(body, limit=None, timeout=120):
    """Run `body` in a fresh interpreter (address space capped at `limit` bytes); return
    its output after checking that it ended by itself, not by a signal."""
    code = textwrap.dedent(PRELUDE.format(limit=limit)) + textwrap.dedent(body)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    # From ROOT, not the working directory: `python -c` puts the working directory first on
    # sys.path, and from a checkout's root that is the uncompiled source tree.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)
    output = done.stdout + done.stderr
    if done.returncode < 0:
        raise AssertionError(f"the probe was killed by {signal.Signals(-done.returncode).name}:"
                             f"\n{output}")
    assert done.returncode == 0, output
    return output


def edit_model_config(path, edit):
    """Replace a model file's model_config by edit(config) and drop its checksum (files
    without checksums load, as Keras's must)."""
    with h5py.File(path, "r+") as f:
        config = json.loads(f.attrs["model_config"])
        edit(config)
        f.attrs["model_config"] = json.dumps(config).encode("utf8")
        del f.attrs["paddle_checksum"]


def layer_entries(config):
    """The layer entries of a Sequential or Functional config."""
    return config["config"]["layers"]
