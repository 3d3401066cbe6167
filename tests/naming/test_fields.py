import numpy as np
import scipy.sparse as sp

from topics.naming.coverage import PhraseIndex
from topics.naming.fields import KeywordProfiles, expected_keywords, field_names, text_terms


def profiles(rows: dict[str, dict[str, float]], intercept: float = -4.0) -> KeywordProfiles:
    terms = sorted({t for row in rows.values() for t in row})
    column = {t: j for j, t in enumerate(terms)}
    data, r, c = [], [], []
    for k, row in enumerate(rows.values()):
        for t, w in row.items():
            data.append(w)
            r.append(k)
            c.append(column[t])
    weights = sp.csr_matrix((data, (r, c)), shape=(len(rows), len(terms)))
    return KeywordProfiles(tuple(rows), tuple(terms), weights, np.full(len(rows), intercept), np.full(len(rows), 20))


VISION = [
    "Object detection in images with a new backbone.",
    "We segment each image into objects and pixels.",
    "A detector of objects in images at night.",
    "Image classification with pixel features.",
]
BANDITS = [
    "Multi-armed bandits with a regret bound.",
    "We bound the regret of multi-armed bandits with delays.",
    "Contextual multi-armed bandits: regret and exploration.",
    "Regret of online learning under adversaries.",
]


def test_text_terms_are_words_and_two_word_phrases_as_keys():
    assert text_terms("Graph Neural Networks.") == {"graph", "neural", "network", "graph neural", "neural network"}


def test_profiles_round_trip_through_their_file(tmp_path):
    p = profiles({"computer vision": {"image": 3.0, "object": 2.5}, "multi-armed bandit": {"regret": 3.0}})
    p.write(tmp_path / "p.tsv.gz")
    q = KeywordProfiles.read(tmp_path / "p.tsv.gz")
    assert q.keywords == p.keywords
    texts = VISION + BANDITS
    np.testing.assert_allclose(q.predict(texts), p.predict(texts), rtol=1e-4)


def test_a_group_is_named_by_the_keyword_its_papers_are_expected_to_give():
    """The vision group writes "image" and "object", never "computer vision": the keyword
    is transferred and marked so; the bandit group writes its keyword and is not marked."""
    p = profiles({
        "computer vision": {"image": 4.0, "object": 3.0},
        "multi-armed bandit": {"regret": 3.0, "multi-armed bandit": 3.0},
        "parameters": {"image": 5.0, "regret": 5.0},  # what authors never choose: vague by the counts
    })
    texts = VISION + BANDITS
    labels = np.array([0] * 4 + [1] * 4)
    chances = p.predict(texts)
    assert expected_keywords(chances, labels, [0, 1]).shape == (2, 3)
    names = field_names(chances, labels, [0, 1], PhraseIndex(texts), p)
    assert names[0].name == "computer vision" and names[0].transferred and names[0].coverage == 0
    assert names[1].name == "multi-armed bandit" and not names[1].transferred and names[1].coverage == 0.75


def test_a_keyword_neither_written_nor_expected_enough_names_nothing():
    p = profiles({"computer vision": {"image": 4.0, "object": 3.0}})
    texts = VISION + BANDITS
    labels = np.array([0] * 4 + [1] * 4)
    chances = p.predict(texts)
    # no transfer allowed: the vision group's papers never write "computer vision"
    assert field_names(chances, labels, [0, 1], PhraseIndex(texts), p, transfer=float("inf")) == {}
    # one group per keyword, and a forbidden keyword is not taken
    assert field_names(chances, labels, [0, 1], PhraseIndex(texts), p, forbidden={0: {"computer vision"}}) == {}


def test_a_keyword_the_counts_call_vague_names_nothing():
    """"parameters" is written everywhere and chosen as a keyword almost never
    (topics.naming.keyphrases): even a profile that predicts it names no group."""
    p = profiles({"parameters": {"image": 5.0}, "computer vision": {"image": 3.0}})
    texts = VISION + BANDITS
    labels = np.array([0] * 4 + [1] * 4)
    names = field_names(p.predict(texts), labels, [0, 1], PhraseIndex(texts), p)
    assert [n.name for n in names.values()] == ["computer vision"]


def test_a_keyword_is_written_as_the_texts_write_it_more_often():
    from topics.naming.fields import written_form

    texts = ["Graph neural networks (GNNs) are popular.", "We train graph neural networks and one graph neural network."]
    assert written_form("graph neural network", texts) == "graph neural networks"
    assert written_form("computer vision", texts) == "computer vision"  # written nowhere: as the authors' keyword
    assert written_form("ai ethic", texts, "AI ethics") == "AI ethics"  # written nowhere: as its authors spell it
    assert written_form("graph neural network", texts, "GNNs") == "graph neural networks"  # the texts' form first
    assert written_form("gnn", texts, "GNNs") == "GNNs"  # in the authors' capitals


def test_shipped_spellings_turn_keys_back_into_words():
    """Round 4 named groups "ai ethic": a key of the singular rule, not a word."""
    from topics.naming.coverage import phrase_key
    from topics.naming.fields import reference, spellings

    spelled = spellings()
    assert set(spelled) == set(reference().keywords)  # one spelling for each keyword of the shipped profiles
    assert not {"rob", "etf", "gtep", "s"} & set(spelled)  # IJCAI's area codes are no keywords
    assert spelled["ai ethic"] == "AI ethics" and spelled["physic"] == "physics" and spelled["time-sery"] == "time-series"
    assert spelled["pac-baye"] == "PAC-bayes" and spelled["graph neural network"] == "graph neural networks"
    assert all(phrase_key(v) == k for k, v in spelled.items())


def test_a_transferred_keyword_is_shown_as_its_authors_spell_it():
    """A keyword the texts never write is named as its authors spell it ("AI ethics"), not
    as its key ("ai ethic", a name of round 4)."""
    from topics.naming.fields import name_fields

    texts = [
        "Unfair outcomes of language models across demographic groups.",
        "Demographic disparities and unfair treatment in model outputs.",
        "We audit unfair and demographic stereotypes in generated text.",
        "Stereotypes of demographic groups in chat assistants.",
    ] + BANDITS
    labels = np.array([0] * 4 + [1] * 4)
    p = profiles({"ai ethic": {"demographic": 5.0, "unfair": 3.0}, "multi-armed bandit": {"regret": 3.0}})
    words = ({0: "demographic groups / stereotypes", 1: "regret"}, {0: "demographic groups / stereotypes", 1: "regret"})
    topics, _ = name_fields({}, labels, {0: 0, 1: 1}, texts, profiles=p, words=words)
    assert topics[0].name == "AI ethics" and topics[0].transferred


def test_a_group_keeps_its_own_phrase_that_half_its_papers_write():
    """On the bundled files, the long-tailed topic was renamed "representation learning"
    by a keyword its papers are expected to choose; a phrase half of them write stays."""
    from topics.naming.fields import name_fields

    texts = [
        "Long-tailed recognition with representation learning of tail classes.",
        "Long-tailed recognition by logit adjustment and representation learning.",
        "Representation learning for balanced tail classes.",
    ] + BANDITS
    labels = np.array([0] * 3 + [1] * 4)
    p = profiles({"representation learning": {"representation learning": 4.0}, "multi-armed bandit": {"regret": 3.0}})
    words = ({0: "long-tailed recognition", 1: "regret"}, {0: "long-tailed recognition", 1: "regret"})
    areas = {0: 0, 1: 1}
    kept, _ = name_fields({}, labels, areas, texts, profiles=p, words=words)
    assert kept[0].name == "long-tailed recognition" and kept[1].name == "multi-armed bandits"
    renamed, _ = name_fields({}, labels, areas, texts, profiles=p, words=words, keep_held=False)
    assert renamed[0].name == "representation learning"


def test_a_glued_or_vague_name_gives_way_to_a_keyword_fewer_papers_are_expected_to_give():
    """Issue 37: a group the words name "A / B" or by a vague word takes the keyword that
    fits it best where a twentieth of its papers are expected to choose it (RESCUE), marked
    transferred; a group whose own name is neither keeps it at the usual bar (TRANSFER)."""
    from topics.naming.fields import RESCUE, TRANSFER, name_fields, weak_name

    p = profiles({"computer vision": {"pixel": 2.6}, "bandit theory": {"regret": 2.2}})
    texts = VISION * 3 + BANDITS * 3  # twelve papers a group: one of them is expected to choose each keyword
    labels = np.array([0] * 12 + [1] * 12)
    expected = expected_keywords(p.predict(texts), labels, [0, 1]) / 12
    assert RESCUE <= expected[0, 0] < TRANSFER and RESCUE <= expected[1, 1] < TRANSFER
    words = ({0: "images / objects", 1: "multi-armed bandits"}, {0: "images / objects", 1: "multi-armed bandits"})
    assert weak_name("images / objects") and weak_name("parameters") and not weak_name("multi-armed bandits")
    assert weak_name("classification")  # a word authors seldom choose as a keyword (0.04 of those who write it)
    before, _ = name_fields({}, labels, {0: 0, 1: 1}, texts, profiles=p, words=words, rescue=None)
    assert before[0].name == "images / objects" and before[0].mixed
    topics, areas = name_fields({}, labels, {0: 0, 1: 1}, texts, profiles=p, words=words)
    assert topics[0].name == "computer vision" and topics[0].transferred and not topics[0].mixed
    assert areas[0].name == "computer vision"  # the area of the same papers: its field too
    assert topics[1].name == "multi-armed bandits"  # not weak: keeps its own name


def test_a_glued_name_gives_way_to_its_part_that_a_quarter_of_its_papers_write():
    from topics.naming.fields import name_fields

    p = profiles({"bandit theory": {"regret": 2.2}})
    texts = VISION + BANDITS
    labels = np.array([0] * 4 + [1] * 4)
    words = ({0: "object detection", 1: "multi-armed bandits / delays"}, {0: "object detection", 1: "multi-armed bandits / delays"})
    topics, _ = name_fields({}, labels, {0: 0, 1: 1}, texts, profiles=p, words=words)
    assert topics[1].name == "multi-armed bandits" and not topics[1].mixed and topics[1].coverage == 0.75
    kept, _ = name_fields({}, labels, {0: 0, 1: 1}, texts, profiles=p, words=words, rescue=None)
    assert kept[1].name == "multi-armed bandits / delays" and kept[1].mixed
