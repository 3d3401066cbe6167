"""The repository as a newcomer's commands leave it: what they write is ignored by git."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_everything_the_readme_and_docs_write_under_reports_is_ignored():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]  # the README's commands live in the docs
    paths = sorted({p for page in pages for p in re.findall(r"reports/[A-Za-z0-9_.-]+", page.read_text(encoding="utf-8"))})
    paths = [p for p in paths if p != "reports/README.md"]
    assert {"reports/again", "reports/assigned", "reports/model-2024", "reports/model-2025", "reports/update-2025"} <= set(paths)
    for path in paths:
        for probe in (path, f"{path}/documents.csv"):  # a file, or a folder of them
            done = subprocess.run(["git", "check-ignore", "-q", "--no-index", probe], cwd=ROOT)
            assert done.returncode == 0, f"{probe} is not ignored by git"
    tracked = subprocess.run(["git", "check-ignore", "-q", "--no-index", "reports/README.md"], cwd=ROOT)
    assert tracked.returncode == 1  # the folder's README stays in the repository


def test_the_license_is_an_spdx_string():
    """`make setup` printed three setuptools warnings: "project.license as a TOML table is deprecated"."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "MIT"
    assert "setuptools>=77" in project["build-system"]["requires"]  # the first to read an SPDX string
