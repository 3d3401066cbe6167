"""``python -m topics``."""

from __future__ import annotations


def test_python_m_topics_runs_the_command():
    """``python -m topics`` is the ``topics`` command, as for most packages with one."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "topics", "report", "--help"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("usage: topics report")
