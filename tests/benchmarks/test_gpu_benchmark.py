"""benchmarks/gpu.py without a GPU: the script runs end to end with paddle on the simulated
device (its figures mean nothing there), a worker that dies is reported instead of ending
the run, and the table's ratios and the issue's targets are read from the rates."""
import os
import subprocess
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks")
sys.path.insert(0, BENCHMARKS)
import gpu  # noqa: E402  (benchmarks/gpu.py)


def test_the_script_runs_on_the_simulated_gpu():
    env = dict(os.environ, BENCH_SECONDS="0.05", BENCH_ROUNDS="1")
    done = subprocess.run([sys.executable, "gpu.py", "--simulated", "mlp"], cwd=BENCHMARKS,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert [(r[0], r[1]) for r in rows] == [("mlp", "32"), ("mlp", "128"), ("mlp", "1024")]
    assert all(float(r[2].replace(",", "")) > 0 for r in rows)


def test_a_worker_that_died_is_an_error_not_a_crash():
    p = subprocess.Popen([sys.executable, "-c", "pass"], text=True, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    p.wait()
    assert gpu._ask(p, "mlp 32 1\n") == {"error": "the worker died (exit 0)"}
    assert p.stdin.closed and p.stdout.closed


def test_report_gives_ratios_and_the_targets_verdicts():
    best = {("paddle", "mlp", 32): 300.0, ("torch", "mlp", 32): 100.0, ("jax", "mlp", 32): 400.0,
            ("paddle", "mlp", 128): 500.0, ("jax", "mlp", 128): 250.0}  # torch failed at 128
    lines = gpu.report(best, ["paddle", "torch", "jax"], ["mlp"])
    assert lines[1].split()[-2:] == ["3.00", "0.75"]
    assert lines[2].split()[3] == "failed" and lines[2].split()[-2:] == ["-", "2.00"]
    assert "target mlp batch 32: paddle >= 2.0x torch: 3.00x, met" in lines
    assert "target mlp batch 32: paddle >= 1.0x jax: 0.75x, not met" in lines
    assert "target mlp batch 128: paddle >= 2.0x torch: -, no figure" in lines
    assert not [line for line in lines if "cnn" in line]


@pytest.mark.gpu
def test_the_benchmark_runs_on_the_gpu():
    env = dict(os.environ, BENCH_SECONDS="0.2", BENCH_ROUNDS="1")
    done = subprocess.run([sys.executable, "gpu.py", "mlp"], cwd=BENCHMARKS, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "mlp      128" in done.stdout
