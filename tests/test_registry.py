"""The one shape of the package's registries: backends, the report's kinds and its charts."""

import pytest

from topics.registry import find, register


def test_a_name_is_registered_once_in_the_order_given_and_found_again():
    registry = {}
    assert register(registry, "b", 2, what="number") == 2
    register(registry, "a", 1, what="number")
    assert list(registry) == ["b", "a"] and find(registry, "a", what="number") == 1
    with pytest.raises(ValueError, match="number 'a' exists already"):
        register(registry, "a", 3, what="number")
    assert registry["a"] == 1


def test_a_missing_name_is_named_with_the_choices_or_the_fix():
    registry = {"b": 2, "a": 1}
    with pytest.raises(ValueError, match="unknown number 'c'; choose one of b, a$"):
        find(registry, "c", what="number")
    with pytest.raises(ValueError, match="unknown number 'c'; count higher$"):
        find(registry, "c", what="number", fix="count higher")


def test_the_three_registries_share_the_shape():
    """Each ``register_*`` refuses a taken name with the same words and returns what it registered."""
    from topics.embedding.backends import BACKENDS, register_backend
    from topics.report.charts import CHARTS, register_chart
    from topics.report.kinds import KINDS, register_kind

    for registry, register_one, what in ((BACKENDS, register_backend, "embedding backend"),
                                         (CHARTS, register_chart, "chart"), (KINDS, register_kind, "kind of comparison")):
        name, item = next(iter(registry.items()))
        with pytest.raises(ValueError, match=f"^{what} {name!r} exists already$"):
            register_one(item)
