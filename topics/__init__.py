"""topics: topic modelling and trend analysis of research-paper abstracts.

The data flow is files -> corpus -> embeddings -> topics -> tables -> figures -> report::

    import topics
    corpus = topics.datasets.iclr_sample()          # or topics.read_corpus("papers.csv")
    analysis = topics.analyze(corpus, embedder="minilm", random_state=0)
    analysis.comparison                             # per-topic statistics, 2024 vs 2025
    topics.compare_groups(analysis.documents, by="year")   # or three or more years, or by="status"
    topics.plots.prevalence_shift(analysis.comparison).show()
    topics.write_report(analysis, "reports/trends.html")

Each step is also a public function of its module (``topics.corpus``, ``topics.embed``,
``topics.model``, ``topics.tables``, ``topics.trends``, ``topics.groups``, ``topics.bursts``,
``topics.stability``, ``topics.plots``, ``topics.report``, ``topics.themes``). Importing the package has no side effects and loads no model.
"""

from importlib import metadata as _metadata

from topics import bursts, datasets, evaluate, groups, plots, stability, themes
from topics.corpus import CorpusError, read_corpus
from topics.embed import EmbeddingCache, EmbeddingError, embed_texts, get_embedder
from topics.groups import compare_groups
from topics.model import TopicModel, map_coordinates, size_rule
from topics.narrate import narrate, narrate_areas, narrate_themes
from topics.pipeline import Analysis, analyze, write_tables
from topics.report import render_report, write_report
from topics.tables import area_table, document_table, representative_documents, term_table, topic_similarity, topic_table
from topics.trends import compare_years, prevalence

try:
    __version__ = _metadata.version("topics")
except _metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "Analysis",
    "CorpusError",
    "EmbeddingCache",
    "EmbeddingError",
    "TopicModel",
    "analyze",
    "area_table",
    "bursts",
    "compare_groups",
    "compare_years",
    "datasets",
    "document_table",
    "embed_texts",
    "evaluate",
    "get_embedder",
    "groups",
    "map_coordinates",
    "narrate",
    "narrate_areas",
    "narrate_themes",
    "plots",
    "prevalence",
    "read_corpus",
    "render_report",
    "representative_documents",
    "size_rule",
    "stability",
    "term_table",
    "themes",
    "topic_similarity",
    "topic_table",
    "write_report",
    "write_tables",
]
