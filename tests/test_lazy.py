"""topics.lazy: a subpackage imports its modules when they are first read."""

import pytest

from topics.lazy import submodules


def test_a_module_is_imported_on_first_use_and_a_missing_one_is_no_attribute():
    getattr_ = submodules("topics.stats")
    assert getattr_("bursts").__name__ == "topics.stats.bursts"
    with pytest.raises(AttributeError, match="module 'topics.stats' has no attribute 'nothing'"):
        getattr_("nothing")
