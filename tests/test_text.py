import pytest

from topics.text import (
    clean_for_terms,
    first_sentence,
    normalize,
    normalize_whitespace,
    paper_title,
    plain_text,
    singular,
    singular_words,
    text_hash,
)


def test_latex_is_removed_but_words_kept():
    raw = r"We use $\mathcal{D}$ and $x^2$ with \textit{optimal transport} and \alpha-scaling, ``quoted'' \cite{x}."
    out = clean_for_terms(raw)
    for junk in ("$", "\\", "mathcal", "textit", "``", "''", "alpha", "cite", "{", "}"):
        assert junk not in out
    assert "optimal transport" in out


def test_bold_letters_glued_to_words_become_words():
    raw = r"$\textbf{Disentangled}$ $\textbf{S}$elf-$\textbf{S}$upervised $\textbf{L}$earning"
    assert clean_for_terms(raw) == "Disentangled Self-Supervised Learning"


def test_whitespace_and_hash():
    assert normalize_whitespace("  a \n\t b  ") == "a b"
    assert text_hash("a  b") == text_hash("a b\n")
    assert text_hash("a b") != text_hash("a c")


def test_first_sentence_shortens():
    assert first_sentence("First one. Second one.") == "First one."
    long = "word " * 100
    out = first_sentence(long, max_chars=50)
    assert len(out) <= 50 and out.endswith("…")


def test_normalize_folds_accents_and_makes_punctuation_one_space():
    assert normalize("Schrödinger Bridges, Café") == "schrodinger bridges cafe"
    assert normalize("Self-Supervised  Learning (SSL)!") == "self supervised learning ssl"
    assert normalize("  --GPT-4o...  ") == "gpt 4o"
    assert normalize("self-supervised") == normalize("Self Supervised") == normalize("self_supervised")


@pytest.mark.parametrize(
    "word, expected",
    [
        ("studies", "study"), ("processes", "process"), ("models", "model"), ("boxes", "box"), ("patches", "patch"),
        ("LLMs", "LLM"), ("loss", "loss"), ("corpus", "corpus"), ("analysis", "analysis"), ("model", "model"),
    ],
)
def test_singular(word, expected):
    assert singular(word) == expected


def test_singular_keeps_words_that_are_their_own_plural():
    assert singular("series") == "series" and singular("species") == "species"


def test_singular_words_lets_singular_and_plural_phrases_meet():
    assert singular_words("Diffusion-Models for graph studies") == "diffusion model for graph study"
    assert singular_words("diffusion model") == singular_words("DIFFUSION MODELS")
    assert singular_words("a case study") == singular_words("A Case-Studies")
    assert singular_words("") == ""


@pytest.mark.parametrize(
    "text, expected",
    [
        (r"$D$istributed training of $k$-Means.", "Distributed training of k-Means."),
        (r"With $\alpha = 0.5$ and \textit{optimal transport}.", "With α = 0.5 and optimal transport."),
        ("At 50 % of AT&T's C++ code.", "At 50 % of AT&T's C++ code."),  # no LaTeX: untouched, % no comment
        (r"At 50\% and $50%$ of it.", "At 50% and 50% of it."),
        ("No markup at all.", "No markup at all."),
    ],
)
def test_plain_text_shows_latex_as_the_characters_it_stands_for(text, expected):
    assert plain_text(text) == expected


def test_paper_title_is_the_title_else_the_first_sentence_as_plain_text():
    assert paper_title("", r"$D$istributed $k$-Means. A second sentence.") == "Distributed k-Means."
    assert paper_title(float("nan"), "One sentence. Two.") == "One sentence."
    assert paper_title(r"The $\ell_1$ title", "Abstract.") == "The ℓ_1 title"
