from topics.text import clean_for_terms, first_sentence, normalize_whitespace, text_hash


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
