"""tools/fuzz/ (the bad-input fuzzer, `python tools/fuzz_inputs.py`) without running its
2,000-odd cases: both entry points list the same cases, none was lost when the one file
became a package, every area module contributes, and one small area runs clean."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "tools", "fuzz_inputs.py")

# The cases tools/fuzz_inputs.py generated when it was one file (SWEEP 40, BITFLIPS 24);
# a new case raises the count, a lost one fails here.
CASES_WHEN_SPLIT = 2369
AREAS_WHEN_SPLIT = 40


def _list(*command, cwd):
    done = subprocess.run([sys.executable, *command, "--list"], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_both_entry_points_list_the_same_cases_and_none_was_lost(tmp_path):
    names = _list(SCRIPT, cwd=tmp_path)
    assert names == _list("-m", "tools.fuzz", cwd=ROOT)
    assert len(names) == len(set(names))
    assert len(names) >= CASES_WHEN_SPLIT
    areas = {name.split("/")[0] for name in names}
    assert len(areas) >= AREAS_WHEN_SPLIT
    for area in ("ops.unary", "ops.shape", "ops.conv", "ops.rnn", "executor", "graph",
                 "layers.ctor", "layers.input", "model.fit", "saving", "saving.untrusted",
                 "reader", "internal", "catalog.layers", "export", "sweep"):
        assert area in areas, area


def test_every_area_module_is_generated():
    code = ("import pkgutil, tools.fuzz as f, tools.fuzz.cli as cli; "
            "listed = {g.__module__.rsplit('.', 1)[1] for g in cli.GENERATORS}; "
            "mods = {m.name for m in pkgutil.iter_modules(f.__path__)} - "
            "{'core', 'prelude', 'runner', 'cli', '__main__'}; "
            "print(sorted(mods - listed))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", "area modules whose cases are never generated"


def test_one_area_runs_clean_in_forked_children(tmp_path):
    done = subprocess.run([sys.executable, SCRIPT, "--filter", "internal/", "--jobs", "2"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    total = [line.split() for line in done.stdout.splitlines() if line.startswith("total")]
    assert total, done.stdout
    _, ok, *not_ok = total[0]  # OK, BAD MESSAGE, CRASH, HANG, GARBAGE
    assert int(ok) >= 21 and not_ok == ["0", "0", "0", "0"], done.stdout
