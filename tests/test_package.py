"""The package as a new user meets it: importing it (from the wrong folder too), its
metadata and LICENSE, and what `help(paddle)` says."""
import os
import pydoc
import re
import shutil
import subprocess
import sys

import pytest

import paddle as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python(code, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_importing_the_unbuilt_source_tree_says_so_and_how_to_proceed(tmp_path):
    # A clone's root without the compiled core: Python imports it before the installed
    # package, and used to fail with "partially initialized module (circular import)".
    source = tmp_path / "paddle"
    source.mkdir()
    shutil.copy(pd.__file__, source / "__init__.py")
    done = _python("import paddle", cwd=tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ImportError: paddle: the C++ core paddle._C is not built in "
                           f"{source}"), last
    assert "unbuilt source tree" in last and "another folder" in last
    assert "pip install -e ." in last
    assert "circular import" not in done.stderr


def test_help_paddle_is_useful_on_its_own():
    # It listed module names and pointed to docs/architecture.md, which is not installed.
    text = pydoc.render_doc(pd, renderer=pydoc.plaintext)
    for words in ("high level", "low level", "Keras 3's API", "pd.Sequential", "pd.eval",
                  "from paddle.layers import Dense", "help(pd.Model.fit)", "docs/"):
        assert words in text, words
    # Every name it gives exists, and so does every guide it names.
    for name in set(re.findall(r"\bpd\.([A-Za-z_][\w.]*[A-Za-z_0-9])", pd.__doc__)):
        target = pd
        for part in name.split("."):
            assert hasattr(target, part), f"help(paddle) names pd.{name}, which does not exist"
            target = getattr(target, part)
    guides = set(re.findall(r"\b(\w+\.md)\b", pd.__doc__))
    assert {"highlevel.md", "lowlevel.md", "keras.md", "api.md"} <= guides
    for guide in guides:
        assert os.path.isfile(os.path.join(ROOT, "docs", guide)), guide


def _pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def test_the_package_has_a_license_file_and_metadata():
    project = _pyproject()
    assert project["license"] == {"text": "Apache-2.0"}
    with open(os.path.join(ROOT, "LICENSE")) as f:
        license_text = f.read()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in license_text
    classifiers = project["classifiers"]
    assert "License :: OSI Approved :: Apache Software License" in classifiers
    assert any(c.startswith("Programming Language :: Python :: 3") for c in classifiers)
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    with open(os.path.join(ROOT, "MANIFEST.in")) as f:  # the sdist carries it and the guides
        manifest = f.read().split()
    assert "LICENSE" in manifest and "docs" in manifest


GPU_ONLY = re.compile(r"^(nvidia-|cupy)", re.IGNORECASE)


def test_the_test_extra_installs_no_gpu_only_package():
    # It installed nvidia-cuda-nvrtc-cu12 (217 MB) on every Linux machine, CPU-only ones too.
    extras = _pyproject()["optional-dependencies"]
    assert not [r for r in extras["test"] if GPU_ONLY.match(r)], extras["test"]
    assert any(r.startswith("nvidia-cuda-nvrtc") for r in extras["nvrtc"])


def _readme_test_command():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    section = readme[readme.index("Install and run the tests"):]
    return re.search(r"```bash\n(.*?)\n```", section, re.S).group(1)


def test_ci_runs_the_readme_test_command_after_installing_the_nvrtc_extra():
    command = _readme_test_command()
    assert command == ('python3 -m venv .venv && .venv/bin/pip install -q ".[test,digits]" '
                       '&& .venv/bin/pytest tests -q')
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        ci = f.read().splitlines()
    assert command in ci, ".ci/run must run the README's test command verbatim"
    nvrtc = [i for i, line in enumerate(ci) if '["nvrtc"]' in line]
    assert nvrtc and nvrtc[0] < ci.index(command), "CI installs the nvrtc extra first"


def test_a_quiet_run_says_what_was_skipped_and_why(tmp_path):
    # Under -q pytest shows no skip reasons; the suite skips 2,800 `gpu` tests without a GPU.
    shutil.copy(os.path.join(ROOT, "tests", "conftest.py"), tmp_path)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    gpu: needs a GPU\n")
    (tmp_path / "test_some.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.gpu\ndef test_a():\n    pass\n\n"
        "@pytest.mark.gpu\ndef test_b():\n    pass\n\n"
        "def test_c():\n    pytest.skip('needs a download')\n\n"
        "def test_d():\n    pass\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(pd.__file__)))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    from paddle.devices import cuda
    expected = ("1 skipped: needs a download (1)" if cuda.available else
                "3 skipped: marked gpu: needs an NVIDIA GPU and CuPy (2); needs a download (1) "
                "(-rs lists each)")
    assert expected in done.stdout, done.stdout
