"""What a theme is: Theme, theme files, lists of names, and example papers."""

from __future__ import annotations

import pandas as pd
import pytest

from topics.themes.specs import Theme, as_themes, read_themes, resolve_examples


def test_themes_validate():
    with pytest.raises(ValueError, match="non-empty"):
        Theme("  ")
    with pytest.raises(ValueError, match="phrases must be a list"):
        Theme("x", phrases="wasserstein")
    with pytest.raises(ValueError, match="given more than once"):
        as_themes(["Optimal transport", "optimal-transport"])


def test_read_toml_and_yaml(tmp_path):
    (tmp_path / "t.toml").write_text(
        '[[themes]]\nname = "optimal transport"\nphrases = ["Wasserstein distance"]\nexamples = ["abc"]\n\n'
        '[[themes]]\nname = "federated learning"\n', encoding="utf-8")
    (tmp_path / "t.yaml").write_text(
        "themes:\n  - name: optimal transport\n    phrases: [Wasserstein distance]\n    examples: [abc]\n  - federated learning\n",
        encoding="utf-8")
    expected = (Theme("optimal transport", ("Wasserstein distance",), ("abc",)), Theme("federated learning"))
    assert read_themes(tmp_path / "t.toml") == expected
    assert read_themes(tmp_path / "t.yaml") == expected


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("bad.toml", "[[themes]\nname = 1", "not valid TOML"),
        ("bad.yaml", "themes: [a, b\n  - c: :", "not valid YAML"),
        ("empty.toml", "", "expected a non-empty list 'themes'"),
        ("noname.toml", '[[themes]]\nphrases = ["x"]\n', "theme 1: theme name must be a non-empty string"),
        ("key.yaml", "- name: x\n  synonyms: [y]\n", "unknown key(s) synonyms"),
        ("t.json", "{}", "use .toml, .yaml or .yml"),
        # a string where a list belongs was read as its letters: every paper named the theme
        ("string.toml", '[[themes]]\nname = "x"\nphrases = "Wasserstein distance"\n', "theme 1: phrases must be a list"),
        ("string.yaml", "- name: x\n  examples: abc\n", "theme 1: examples must be a list"),
        ("number.toml", '[[themes]]\nname = "x"\nphrases = 3\n', "theme 1: phrases must be a list"),
    ],
)
def test_bad_theme_files_give_one_line(tmp_path, name, text, message):
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_themes(tmp_path / name)
    assert message in str(info.value) and name in str(info.value) and "\n" not in str(info.value)


def test_themes_are_trimmed_and_named_first():
    theme = Theme("  optimal transport ", phrases=[" Wasserstein distance"], examples=["abc "])
    assert theme == Theme("optimal transport", ("Wasserstein distance",), ("abc",))
    assert theme.all_phrases == ("optimal transport", "Wasserstein distance")
    assert as_themes("federated learning") == (Theme("federated learning"),)
    assert as_themes([theme, "speech"]) == (theme, Theme("speech"))
    with pytest.raises(ValueError, match="no themes given"):
        as_themes([])


def test_examples_are_found_by_id_or_by_title():
    corpus = pd.DataFrame({
        "doc_id": ["a1", "b2", "c3", "d4"],
        "title": ["Optimal Transport  at Scale", "Speech", None, "Speech"],
    })
    assert not resolve_examples(Theme("x"), corpus).any()
    found = resolve_examples(Theme("x", examples=("c3", "optimal transport at scale")), corpus)
    assert found.tolist() == [True, False, True, False]  # an id, and a title with case and spacing ignored
    with pytest.raises(ValueError, match="example title 'speech' matches 2 papers; give its id"):
        resolve_examples(Theme("x", examples=("speech",)), corpus)
    with pytest.raises(ValueError, match="example 'zz' is neither a paper id nor a title"):
        resolve_examples(Theme("x", examples=("zz",)), corpus)
