"""The docs keep up with the code: every docstring example runs, and docs/api.md is the
reference that docs/make_api.py generates from the current docstrings."""
import doctest
import importlib
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys

import pytest

import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = sorted(m.name for m in pkgutil.walk_packages(paddle.__path__, "paddle.")
                 if not m.name.endswith("._C") and ".dataset" not in m.name
                 and ".reader" not in m.name)  # those two have their own docstring tests


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    module = importlib.import_module(name)
    for package in getattr(module, "OPTIONAL_REQUIREMENTS", ()):
        pytest.importorskip(package)  # examples of an optional extra need it installed
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"


def test_the_docstring_test_attempts_examples():
    # An empty MODULES (a walk that finds nothing) would skip every case above and pass:
    # the package's modules are found and most carry examples (125 of 175 when written).
    finder = doctest.DocTestFinder()
    with_examples = [name for name in MODULES
                     if any(t.examples for t in finder.find(importlib.import_module(name)))]
    assert len(MODULES) >= 100, f"only {len(MODULES)} modules of paddle found"
    assert len(with_examples) >= len(MODULES) // 2, (
        f"only {len(with_examples)} of {len(MODULES)} modules have a docstring example")


def test_api_reference_is_up_to_date():
    script = os.path.join(ROOT, "docs", "make_api.py")
    done = subprocess.run([sys.executable, script, "--check"], capture_output=True, text=True)
    assert done.returncode == 0, "docs/api.md is stale: run python docs/make_api.py"


# ---- the code blocks of the README and the guides --------------------------------------
# Every fenced block of README.md and docs/*.md runs as written: a document's `python`
# blocks run in order in one fresh interpreter (a guide builds on its earlier blocks, as its
# reader does), in an empty folder; a block in doctest form (`>>>`) is checked as a
# doctest; `bash` blocks run in bash. A block the test cannot run says why on the line
# before it, and is reported as a skipped test with that reason:
#     <!-- doc-test: skip: needs a download (MNIST) -->
#     <!-- doc-test: gpu -->            (runs only where an NVIDIA GPU and CuPy are)
#     <!-- doc-test: needs dot -->      (runs only where the program `dot` is on PATH)
# `text` blocks are output, listings and pictures: not code.

DOCUMENTS = ["README.md"] + sorted(os.path.join("docs", name)
                                   for name in os.listdir(os.path.join(ROOT, "docs"))
                                   if name.endswith(".md"))
RUNS = ("python", "bash")
NOT_CODE = ("text",)
MARK = re.compile(r"^<!-- doc-test: (gpu|needs \S+|skip: .+) -->$")


class Block:
    """A fenced code block: its document, the line of its opening fence (from 1), its
    language, its text, and the reason it is not run here (None: it runs)."""

    def __init__(self, document, line, language, body, mark):
        self.document, self.line, self.language, self.body = document, line, language, body
        self.mark = mark

    @property
    def where(self):
        return f"{self.document}:{self.line}"

    def skip_reason(self, gpu):
        if self.mark is None:
            return None
        if self.mark == "gpu":
            return None if gpu else "needs an NVIDIA GPU and CuPy"
        if self.mark.startswith("needs "):
            program = self.mark[len("needs "):]
            return None if shutil.which(program) else f"needs the program {program!r} on PATH"
        return self.mark[len("skip: "):]


def code_blocks(document):
    """The fenced blocks of a Markdown file, with the `<!-- doc-test: ... -->` line before
    each, if any."""
    with open(os.path.join(ROOT, document), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        start, language = i, lines[i][3:].strip()
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        assert end is not None, f"{document}:{start + 1}: a code block that is never closed"
        before = lines[start - 1].strip() if start else ""
        mark = MARK.match(before)
        blocks.append(Block(document, start + 1, language, "\n".join(lines[start + 1:end]) + "\n",
                            mark.group(1) if mark else None))
        i = end + 1
    return blocks


def _gpu():
    from paddle.devices import cuda
    return cuda.available


ALL_BLOCKS = [block for document in DOCUMENTS for block in code_blocks(document)]
MARKED = [block for block in ALL_BLOCKS if block.mark is not None]

# Runs in the child: the blocks in order, in one namespace; stops at the first that fails,
# with a traceback that names the document and its line.
DRIVER = r'''
import doctest, json, subprocess, sys
blocks = json.load(open(sys.argv[1]))
scope = {"__name__": "__main__"}
for document, line, language, body in blocks:
    if language == "bash":
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", body])
        if done.returncode:
            sys.exit(f"{document}:{line}: the bash block exited with {done.returncode}")
    elif body.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(body, scope, document, document, line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        if runner.run(test, clear_globs=False).failed:
            sys.exit(f"{document}:{line}: the doctest block failed (above)")
    else:  # padded so that a traceback names the line of the document
        exec(compile("\n" * line + body, document, "exec"), scope)
    print(f"doc-test ran {document}:{line}", flush=True)
'''


def _run_in_order(blocks, tmp_path):
    script = tmp_path / "blocks.json"
    script.write_text(json.dumps([[b.document, b.line, b.language, b.body] for b in blocks]))
    root = os.path.dirname(os.path.dirname(os.path.abspath(paddle.__file__)))
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
               PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]]))
    work = tmp_path / "work"
    work.mkdir()
    return subprocess.run([sys.executable, "-c", DRIVER, str(script)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.mark.parametrize("document", [d for d in DOCUMENTS
                                      if any(b.language in RUNS for b in code_blocks(d))])
def test_the_code_blocks_of_the_document_run_as_written(document, tmp_path):
    blocks = [b for b in code_blocks(document) if b.language in RUNS]
    runs = [b for b in blocks if b.skip_reason(_gpu()) is None]
    if not runs:
        pytest.skip("every block of the document is marked (the marked blocks' skips say why)")
    done = _run_in_order(runs, tmp_path)
    output = (done.stdout + done.stderr)[-4000:]
    assert done.returncode == 0, f"a code block of {document} failed:\n{output}"
    ran = [line for line in done.stdout.splitlines() if line.startswith("doc-test ran ")]
    assert ran == [f"doc-test ran {b.where}" for b in runs], output  # each block, in order


@pytest.mark.parametrize("block", MARKED, ids=[b.where for b in MARKED])
def test_a_marked_block_is_skipped_with_its_reason(block):
    reason = block.skip_reason(_gpu())
    if block.mark == "gpu" or block.mark.startswith("needs "):
        if reason is None:
            return  # it ran with its document
    assert reason.strip(), f"{block.where}: {block.mark!r} gives no reason"
    pytest.skip(reason)


def test_every_code_block_runs_or_says_why_not():
    # A block in a language the test cannot run (c, rust, an install command...) must be
    # marked with the reason; a block without a language must say `text` if it is output.
    unmarked = [f"{b.where} ({b.language or 'no language'})" for b in ALL_BLOCKS
                if b.mark is None and b.language not in RUNS + NOT_CODE]
    assert not unmarked, ("code blocks the doc test cannot run, without a "
                          f"'<!-- doc-test: skip: reason -->' line before them: {unmarked}")
    bad = [b.where for b in ALL_BLOCKS if b.mark is not None and b.language in NOT_CODE]
    assert not bad, f"text blocks are not run, so their marks mean nothing: {bad}"


def test_the_doc_test_attempts_the_guides_blocks():
    # The test must fail when it attempts nothing (a parser that finds no blocks, every
    # block marked away): the README's first block and the main guides' blocks run.
    readme = [b for b in code_blocks("README.md") if b.language == "python"]
    assert readme and readme[0].mark is None, "the README's first python block must run"
    for guide in ("highlevel.md", "lowlevel.md", "callbacks.md", "saving.md", "data.md"):
        runs = [b for b in code_blocks(os.path.join("docs", guide))
                if b.language == "python" and b.mark is None]
        assert runs, f"docs/{guide}: no python block runs"
    runs = [b for b in ALL_BLOCKS if b.language in RUNS and b.mark is None]
    assert len(runs) >= len(ALL_BLOCKS) // 2, (
        f"only {len(runs)} of the {len(ALL_BLOCKS)} code blocks run")
