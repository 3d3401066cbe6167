import logging

import pandas as pd

import topics
from topics.io.languages import detect_languages, warn_languages

FOREIGN = [
    "Wir schlagen eine neue Methode für das Lernen von Graphen vor, die auf neuronalen Netzen basiert und die Struktur "
    "der Daten nutzt, um bessere Vorhersagen zu treffen.",
    "Nous proposons une nouvelle méthode d'apprentissage profond pour les graphes, fondée sur des réseaux de neurones "
    "qui exploitent la structure des données.",
    "我们提出了一种新的图神经网络方法，利用数据的结构来获得更好的预测结果。",
    "本研究では、データの構造を利用してより良い予測を行う新しいグラフニューラルネットワークを提案する。",
]


def test_each_abstract_gets_its_language():
    found = detect_languages(["We propose a new method for learning on graphs with neural networks.", *FOREIGN])
    assert found["language"].tolist() == ["en", "de", "fr", "zh", "ja"]
    assert found["probability"].between(0, 1).all()


def test_abstracts_not_in_english_are_counted_in_one_warning(caplog):
    sample = topics.io.datasets.iclr_sample()
    extra = pd.DataFrame({"doc_id": [f"x{i}" for i in range(4)], "venue": "", "year": 2025, "title": "", "abstract": FOREIGN,
                          "source": "foreign.csv", "position": range(1, 5)})
    corpus = pd.concat([sample, extra], ignore_index=True)
    with caplog.at_level(logging.WARNING):
        english = warn_languages(corpus)
    assert english.tolist() == [True] * len(sample) + [False] * 4
    warnings = [r.getMessage() for r in caplog.records if "not to be in English" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"4 of {len(corpus)} abstracts appear not to be in English") and "foreign.csv #1 (de)" in warnings[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert warn_languages(sample).all()  # the bundled sample is English: no warning
    assert not [r for r in caplog.records if "English" in r.getMessage()]
    with caplog.at_level(logging.WARNING):
        topics.analyze(corpus, embedder="hashing", cache=False, model=topics.TopicModel(n_runs=4))
    assert any("not to be in English" in r.getMessage() for r in caplog.records)
