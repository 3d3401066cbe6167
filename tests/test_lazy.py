"""topics.lazy: a subpackage imports its modules when they are first read."""

import pytest

from topics.lazy import submodules


def test_a_module_is_imported_on_first_use_and_a_missing_one_is_no_attribute():
    getattr_ = submodules("topics.stats")
    assert getattr_("bursts").__name__ == "topics.stats.bursts"
    with pytest.raises(AttributeError, match="module 'topics.stats' has no attribute 'nothing'"):
        getattr_("nothing")


def test_preload_imports_in_a_background_thread_while_the_caller_goes_on(tmp_path, monkeypatch):
    import sys
    import threading
    import time

    from topics.lazy import preload

    (tmp_path / "slow_to_import.py").write_text(
        "import threading, time\nTHREAD = threading.current_thread().name\ntime.sleep(1.0)\n", encoding="utf-8")
    (tmp_path / "broken_on_import.py").write_text("raise RuntimeError('broken')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    start = time.perf_counter()
    thread = preload("slow_to_import")
    assert time.perf_counter() - start < 0.5 and thread.is_alive() and thread.daemon
    import slow_to_import  # waits for the import under way instead of starting another

    assert slow_to_import.THREAD == thread.name != threading.current_thread().name
    thread.join()
    # a module that fails is left for the step that needs it to report
    failed = preload("broken_on_import", "json")
    failed.join()
    assert "broken_on_import" not in sys.modules
    monkeypatch.delitem(sys.modules, "slow_to_import")
