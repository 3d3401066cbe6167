"""The documentation: every code block of README.md and docs/ runs or is parsed, every
public name has a complete docstring whose example runs, the site builds with warnings as
errors, and its pages open offline in headless Chromium.

How a code block is checked, by its language:

* ``python``: run, the blocks of one page in order in one namespace, in a scratch folder
  that holds links to the repository's ``topics/``, ``tests/`` and ``notebooks/`` folders;
* ``bash`` / ``console``: each command is checked without running it: ``topics ...`` (and
  ``.venv/bin/topics``, ``python -m topics.cli``) is parsed by the CLI's own argument
  parser, ``make X`` must name a target of the Makefile; any other command needs the
  block to be marked not runnable;
* ``toml`` / ``yaml``: read as a themes file by :func:`topics.themes.specs.read_themes`;
* ``text``: a command synopsis; each ``--flag`` in it must be one the CLI's parser knows.

An HTML comment on the line before a block changes that: ``<!-- docs-test: skip REASON -->``
(not runnable, and why) or ``<!-- docs-test: slow -->`` (runs only where slow tests run:
the real model).
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import topics
from topics.cli import build_parser
from topics.themes.specs import read_themes

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MARK = re.compile(r"<!--\s*docs-test:\s*(?P<what>skip|slow)\b\s*(?P<reason>.*?)\s*-->")
SHELL = {"bash", "sh", "console", "shell"}


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = _hooks()


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    code: str
    mark: str = ""
    reason: str = ""

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def code_blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page (markdown-it, CommonMark), with the
    ``docs-test`` mark of the line before each."""
    from markdown_it import MarkdownIt

    text = page.read_text(encoding="utf-8")
    lines = text.splitlines()
    blocks = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence":
            continue
        start = token.map[0]
        before = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
        mark = MARK.search(before)
        blocks.append(Block(page, start + 1, token.info.split()[0] if token.info else "", token.content,
                            mark.group("what") if mark else "", mark.group("reason") if mark else ""))
    return blocks


ALL_BLOCKS = [b for page in PAGES for b in code_blocks(page)]


def shell_commands(code: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, comments and prompts dropped."""
    joined = re.sub(r"\\\n\s*", " ", code)
    commands = []
    for line in joined.splitlines():
        line = re.sub(r"^\$\s+", "", line.strip())
        if line and not line.startswith("#"):
            commands.append(line)
    return commands


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z][\w-]*):", text, re.M))


def check_command(command: str) -> None:
    words = shlex.split(command, comments=True)
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # VAR=value before a command
        words = words[1:]
    if not words:
        return
    if words[0] in {"topics", ".venv/bin/topics"}:
        argv = words[1:]
    elif words[:3] in (["python", "-m", "topics.cli"], [".venv/bin/python", "-m", "topics.cli"]):
        argv = words[3:]
    elif words[0] == "make":
        unknown = set(words[1:]) - makefile_targets()
        if unknown:
            pytest.fail(f"make: no target {sorted(unknown)} in the Makefile")
        return
    else:
        pytest.fail(f"cannot check {command!r}: mark the block <!-- docs-test: skip REASON -->")
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"the CLI's parser refuses {command!r} (exit {exc.code})")


def cli_flags() -> set[str]:
    flags = set()
    parser = build_parser()
    for action in parser._subparsers._group_actions[0].choices.values():  # argparse keeps no public list
        for a in action._actions:
            flags.update(a.option_strings)
    return flags


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder that looks like the repository's root for paths, but where the examples'
    outputs (reports/, tables) are written away from the working tree."""
    folder = tmp_path_factory.mktemp("docs")
    for name in ("topics", "tests", "notebooks"):
        (folder / name).symlink_to(ROOT / name)
    (folder / "reports").mkdir()
    return folder


@pytest.fixture(scope="module")
def namespaces():
    return {}


def _params():
    for b in ALL_BLOCKS:
        marks = [pytest.mark.slow] if b.mark == "slow" else []
        yield pytest.param(b, id=b.id, marks=marks)


@pytest.mark.parametrize("block", list(_params()))
def test_code_block(block: Block, scratch, namespaces, monkeypatch, request):
    if block.mark == "skip":
        assert block.reason, f"{block.id}: a skipped block must say why"
        pytest.skip(block.reason)
    if block.lang == "python":
        monkeypatch.chdir(scratch)
        if block.mark != "slow":  # the real model's blocks share the embeddings `make report` cached
            monkeypatch.setenv("TOPICS_CACHE_DIR", str(scratch / ".cache"))
        else:  # and the run's one embedding of the bundled sample, in the same default cache
            request.getfixturevalue("sample_minilm")
        namespace = namespaces.setdefault(block.page, {"__name__": "__docs__"})
        exec(compile(block.code, block.id, "exec"), namespace)
    elif block.lang in SHELL:
        for command in shell_commands(block.code):
            check_command(command)
    elif block.lang in {"toml", "yaml"}:
        path = scratch / f"themes.{block.lang}"
        path.write_text(block.code)
        assert read_themes(path)
    elif block.lang == "text":
        flags = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", block.code))
        unknown = flags - cli_flags()
        assert not unknown, f"{block.id}: flags the CLI does not know: {sorted(unknown)}"
    else:
        pytest.fail(f"{block.id}: a ```{block.lang}``` block is neither run nor checked; mark it "
                    "<!-- docs-test: skip REASON -->")


def test_every_page_has_a_checked_block_language():
    """A block without a language would be silently unchecked."""
    bare = [b.id for b in ALL_BLOCKS if not b.lang and b.mark != "skip"]
    assert not bare


def test_a_command_the_cli_no_longer_takes_fails(tmp_path):
    """The shell check has teeth: an unknown flag and an unknown subcommand fail."""
    for command in ("topics report --no-such-flag", "topics summarise papers.csv", "make no-such-target",
                    "rm -rf reports"):
        with pytest.raises(pytest.fail.Exception):
            check_command(command)
    check_command("topics report papers.csv --years 2023 2025 --tables reports/tables")


def test_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    assert "make report" in readme and "make test" in readme


# -- docstrings and the API page ---------------------------------------------------------

def test_public_names_have_complete_docstrings():
    assert hooks.all_docstring_problems() == []


def test_docstring_problems_finds_gaps():
    def bare(corpus, *, years=None):
        """Do something."""

    problems = hooks.docstring_problems("bare", bare)
    assert any("Examples" in p for p in problems)
    assert any("Parameters" in p for p in problems)
    assert any("Returns" in p for p in problems)


@pytest.mark.parametrize("name", topics.__all__)
def test_docstring_example_runs(name, sample_corpus, sample_analysis, tmp_path, monkeypatch):
    """Each public name's example runs and prints what it says. Like numpy's ``np``, the
    examples find ``topics``, ``corpus`` (the bundled sample) and ``analysis`` (its LSA
    analysis, seed 0: the conftest's ``sample_analysis``) defined; the API page says so."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOPICS_CACHE_DIR", str(tmp_path / "cache"))
    obj = getattr(topics, name)
    finder = doctest.DocTestFinder(recurse=False)
    globs = {"topics": topics, "corpus": sample_corpus, "analysis": sample_analysis}
    tests = [t for t in finder.find(obj, name, globs=globs) if t.examples]
    assert tests, f"{name}: no doctest"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        report = []
        result = runner.run(test, out=report.append)
        assert result.failed == 0, "".join(report)


def test_one_group_is_exported():
    from topics.stats.comparison import OneGroup

    assert topics.OneGroup is OneGroup and "OneGroup" in topics.__all__


# -- benchmarks ----------------------------------------------------------------------------

def test_benchmark_tables_come_from_benchmarks_readme():
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    headings = [m.group("heading") for m in hooks.BENCH_MARK.finditer(page)]
    assert len(headings) >= 4
    source = (ROOT / "benchmarks" / "README.md").read_text()
    for heading in headings:
        table = hooks.benchmark_table(heading)
        assert table in source and table.count("\n") >= 2
    with pytest.raises(KeyError):
        hooks.benchmark_table("No such heading")


# -- the built site ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                            cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def test_site_builds_strict_and_lists_every_public_name(site):
    api = (site / "api.html").read_text()
    missing = [name for name in topics.__all__ if f'id="topics.{name}"' not in api]
    assert not missing


def test_site_loads_nothing_from_outside(site):
    """Nothing the pages load (scripts, styles, images, fonts) comes from the network;
    plain links out are allowed."""
    loaded = re.compile(r'<(?:script|img|iframe|source)\b[^>]*\bsrc="(https?:[^"]*)"|<link\b[^>]*\bhref="(https?:[^"]*)"')
    outside = {}
    for page in site.rglob("*.html"):
        hits = [m.group(1) or m.group(2) for m in loaded.finditer(page.read_text())]
        if hits:
            outside[str(page.relative_to(site))] = hits
    assert not outside
    css = " ".join(p.read_text() for p in site.rglob("*.css"))
    assert not re.search(r"url\(\s*['\"]?https?:", css)


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.mark.browser
def test_getting_started_opens_offline_in_chromium(site):
    if not Path(CHROMIUM).exists():
        if os.environ.get("TOPICS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"chromium not found at {CHROMIUM}; `make browser` installs it")
        pytest.skip("chromium is not installed (make browser)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        page = browser.new_page()
        errors, outside = [], []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(("file:", "data:", "blob:", "about:")) else None)
        page.goto((site / "getting-started.html").as_uri(), wait_until="load")
        page.wait_for_timeout(500)
        assert "Getting started" in page.title()
        # the search runs from file:// (the vendored iframe-worker shim)
        page.locator(".md-search__input").first.click(force=True)
        page.keyboard.type("themes")
        page.wait_for_function(
            "(document.querySelector('.md-search-result__meta') || {}).textContent?.includes('matching')",
            timeout=20_000)
        assert page.locator(".md-search-result__item").count() > 0
        browser.close()
    assert errors == []
    assert outside == []
