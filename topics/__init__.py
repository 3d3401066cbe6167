"""topics: topic modelling and trend analysis of research-paper abstracts.

The data flow is files -> corpus -> embeddings -> topics -> tables -> figures -> report,
and the subpackages follow it (``ARCHITECTURE.md`` in the repository says what each may
import)::

    import topics
    corpus = topics.datasets.iclr_sample()          # or topics.read_corpus("papers.csv")
    analysis = topics.analyze(corpus, embedder="minilm", random_state=0)
    analysis.comparison.table                       # per-topic statistics, 2024 vs 2025
    topics.compare_groups(analysis.documents, by="year")   # or three or more years, or by="status"
    topics.figures.prevalence_shift(analysis.comparison).show()
    topics.write_report(analysis, "reports/trends.html")

* :mod:`topics.io` -- reading paper lists into one validated corpus; the bundled datasets;
* :mod:`topics.embedding` -- embedding backends, the on-disk cache, the Dask engine;
* :mod:`topics.clustering` -- :class:`TopicModel` and the consensus, layout and areas it uses;
  its results as tidy tables;
* :mod:`topics.naming` -- acronyms, phrases and topic names;
* :mod:`topics.stats` -- prevalence, comparisons between groups, trends, bursts, stability, metrics;
* :mod:`topics.themes` -- guided themes tracked beside the topics;
* :mod:`topics.figures` -- Plotly figures from the tables;
* :mod:`topics.report` -- the self-contained HTML report;
* :mod:`topics.pipeline` -- :func:`analyze`, the whole flow in one call;
* :mod:`topics.store` -- :func:`save` and :func:`load`: an analysis kept in a folder, no refit.

Importing the package has no side effects and loads no model.
"""

import importlib as _importlib
from importlib import metadata as _metadata
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same names, imported for type checkers and the API reference (which read, not run)
    from topics import figures
    from topics.clustering.model import TopicModel
    from topics.clustering.tables import area_table, document_table, representative_documents, term_table, topic_similarity, topic_table
    from topics.embedding.backends import Embedder, get_embedder
    from topics.embedding.cache import EmbeddingCache
    from topics.embedding.embed import embed_texts
    from topics.embedding.weights import EmbeddingError
    from topics.io import datasets
    from topics.io.corpus import CorpusError, read_corpus
    from topics.pipeline import Analysis, Settings, analyze, write_tables
    from topics.report.render import render_report, write_report
    from topics.stats.comparison import Comparison, Groups, OneGroup, Trend, TwoGroups
    from topics.stats.groups import compare_groups
    from topics.stats.trends import compare_years, prevalence
    from topics.store import StoreError, load, save
    from topics.themes.specs import Theme

#: Where each public name lives. The package imports a module when one of its names is
#: first used (PEP 562), so that ``import topics`` and the ``topics`` command's argument
#: checks do not wait seconds for scikit-learn, BERTopic and Plotly.
_HOMES = {
    "figures": "topics.figures",
    "datasets": "topics.io.datasets",
    "TopicModel": "topics.clustering.model",
    **dict.fromkeys(["area_table", "document_table", "representative_documents", "term_table", "topic_similarity",
                     "topic_table"], "topics.clustering.tables"),
    **dict.fromkeys(["Embedder", "get_embedder"], "topics.embedding.backends"),
    "EmbeddingCache": "topics.embedding.cache",
    "embed_texts": "topics.embedding.embed",
    "EmbeddingError": "topics.embedding.weights",
    **dict.fromkeys(["CorpusError", "read_corpus"], "topics.io.corpus"),
    **dict.fromkeys(["Analysis", "Settings", "analyze", "write_tables"], "topics.pipeline"),
    **dict.fromkeys(["render_report", "write_report"], "topics.report.render"),
    **dict.fromkeys(["Comparison", "Groups", "OneGroup", "Trend", "TwoGroups"], "topics.stats.comparison"),
    "compare_groups": "topics.stats.groups",
    **dict.fromkeys(["compare_years", "prevalence"], "topics.stats.trends"),
    **dict.fromkeys(["StoreError", "load", "save"], "topics.store"),
    "Theme": "topics.themes.specs",
}


def __getattr__(name: str):
    if name not in _HOMES:  # a subpackage or module: topics.io, topics.stats, topics.cli
        try:  # each subpackage imports its modules when they are first used, in turn
            return _importlib.import_module(f"topics.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"topics.{name}":
                raise
            raise AttributeError(f"module 'topics' has no attribute {name!r}") from None
    module = _importlib.import_module(_HOMES[name])
    value = module if _HOMES[name].rsplit(".", 1)[-1] == name or name in ("datasets", "figures") else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


try:
    __version__ = _metadata.version("topics")
except _metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "Analysis",
    "Comparison",
    "CorpusError",
    "Embedder",
    "EmbeddingCache",
    "EmbeddingError",
    "Groups",
    "OneGroup",
    "Settings",
    "StoreError",
    "Theme",
    "TopicModel",
    "Trend",
    "TwoGroups",
    "analyze",
    "area_table",
    "compare_groups",
    "compare_years",
    "datasets",
    "document_table",
    "embed_texts",
    "figures",
    "get_embedder",
    "load",
    "prevalence",
    "read_corpus",
    "render_report",
    "representative_documents",
    "save",
    "term_table",
    "topic_similarity",
    "topic_table",
    "write_report",
    "write_tables",
]
