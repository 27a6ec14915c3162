"""tools/gpu_check.sh and tools/gpu_smoke.py without a GPU: the smoke script's steps run on
the simulated device (its products, its three models' steps against the CPU's) and it
exits 0; the check script parses, documents itself and stops on an unknown argument. On a
GPU, tools/gpu_check.sh itself is the test (docs/gpu.md)."""
import os
import subprocess
import sys

import pytest

TOOLS = os.path.join(os.path.dirname(__file__), "..", "..", "tools")


@pytest.mark.slow
def test_the_smoke_script_passes_on_the_simulated_gpu():
    done = subprocess.run([sys.executable, os.path.join(TOOLS, "gpu_smoke.py"), "--simulated"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for model in ("mlp", "cnn", "lstm"):
        assert any(line.startswith("[ok]") and f"{model}: GPU steps equal the CPU's" in line
                   for line in lines), done.stdout
    assert any("products in every layout" in line and line.startswith("[ok]")
               for line in lines), done.stdout
    assert lines[-1].startswith("smoke done") and lines[-1].endswith("0 failed")


@pytest.mark.skipif(not os.path.exists("/bin/bash"), reason="needs bash")
def test_the_check_script_parses_and_explains_itself():
    script = os.path.join(TOOLS, "gpu_check.sh")
    assert subprocess.run(["bash", "-n", script]).returncode == 0
    done = subprocess.run(["bash", script, "--help"], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0 and "--fetch-wheels" in done.stdout and "smoke" in done.stdout
    done = subprocess.run(["bash", script, "--bogus"], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 2 and "unknown argument --bogus" in done.stderr
