import pytest

from topics.text import clean_for_terms, first_sentence, normalize, normalize_whitespace, singular, singular_words, text_hash


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
