"""The ``topics`` command: a thin layer over :func:`topics.analyze` and the report writer.

``topics report [INPUT ...]`` reads the inputs (default: the bundled ICLR sample),
finds topics, compares them between years (two years: what changed; three or more:
trends) or between the groups of another column (``--by venue``, ``--by status``),
writes the HTML report and, with ``--tables``, the CSV tables; it prints a short summary. Bad input exits with status 2 and a one-line
error, no traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

__all__ = ["main"]

DEFAULT_REPORT = Path("reports") / "iclr-2024-vs-2025.html"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="topics", description="Topic modelling and trend analysis of paper abstracts.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command")
    rep = sub.add_parser(
        "report",
        help="find topics, compare years or other groups, write an HTML trend report",
        description="Find topics in paper abstracts, compare their prevalence between years (two years: what changed; "
        "three or more: trends) or between the groups of another column (--by), and write a self-contained HTML "
        "report. Without INPUT, the bundled ICLR 2024/2025 files are used.",
    )
    _add_input_arguments(rep)
    rep.add_argument("-o", "--output", type=Path, default=None,
                     help=f"HTML report path (default: {DEFAULT_REPORT} for two years; reports/<venue>-<first>-<last>.html "
                          "for trends, reports/<venue>-by-<column>.html for other groupings)")
    rep.add_argument("--tables", type=Path, default=None, metavar="DIR",
                     help="also write documents.csv, topics.csv, comparison.csv, prevalence.csv (and themes.csv, theme_papers.csv with themes) here")
    rep.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    rep.add_argument("--by", default="year", metavar="COLUMN",
                     help="compare groups of this column: year (default; three or more years give trends), venue, status, "
                          "or any column of a table INPUT")
    rep.add_argument("--years", type=int, nargs="+", metavar="YEAR", default=None,
                     help="the years to use (default: all present); with --by year, two or more years to compare")
    rep.add_argument("--groups", nargs="+", metavar="GROUP", default=None,
                     help="with another --by: the groups to compare, in this order (default: every value)")
    rep.add_argument("--include-outliers", action="store_true", help="count outlier papers (topic -1) in shares")
    rep.add_argument("--reduce-outliers", action="store_true", help="reassign outlier papers to their nearest topic")
    rep.add_argument("--stability-seeds", type=int, default=0, metavar="N",
                     help="refit with N further seeds and report which topics and changes hold (default 0; each costs one topic fit)")
    rep.add_argument("--theme", action="append", default=[], metavar="NAME",
                     help="a research area to track beside the topics, e.g. --theme 'optimal transport' (repeatable)")
    rep.add_argument("--themes", type=Path, default=None, metavar="FILE",
                     help="themes from a TOML or YAML file: entries with name, phrases, examples (paper ids or titles)")
    rep.add_argument("--min-cluster-size", type=int, default=None, help="smallest topic (default: derived from corpus size)")
    rep.add_argument("--dask-scheduler", default=None, metavar="ADDRESS",
                     help="embed on this Dask cluster (e.g. tcp://10.0.0.5:8786; default: $TOPICS_DASK_SCHEDULER, "
                          "else this process); needs pip install 'topics[dask]'")
    rep.add_argument("-q", "--quiet", action="store_true", help="no progress bar, only errors and the summary")

    ev = sub.add_parser(
        "evaluate",
        help="score the topics: coherence, diversity, outliers, seed agreement, agreement with labels",
        description="Fit the topics as `topics report` does and score them (topics.evaluate): NPMI coherence, "
        "topic diversity, outlier share, agreement with refits under other seeds, and, with --labels-column, "
        "agreement with a label or keyword column of the corpus.",
    )
    _add_input_arguments(ev)
    ev.add_argument("--seed", type=int, default=0, help="random seed of the scored fit (default 0)")
    ev.add_argument("--refits", type=int, default=2, metavar="N",
                    help="refits with seeds seed+1..seed+N for the seed agreement (default 2; 0 skips it)")
    ev.add_argument("--runs", type=int, default=None, metavar="N", help="consensus UMAP runs per fit (default 20)")
    ev.add_argument("--labels-column", default=None, metavar="COL",
                    help="a column of reference labels (categories) or of ';'-separated keywords to compare with")
    ev.add_argument("--baseline", action="store_true", help="also score plain BERTopic (its defaults) on the same embeddings")
    ev.add_argument("--csv", type=Path, default=None, metavar="PATH", help="also write the scores as a tidy CSV table")
    ev.add_argument("-q", "--quiet", action="store_true", help="no progress bar, only errors and the scores")
    return parser


def _add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """What both commands read and how they embed it: INPUT, --dataset, --backend, --model, the cache."""
    from topics.embedding.backends import BACKENDS

    parser.add_argument("inputs", nargs="*", metavar="INPUT", help="paper-list .txt files, CSV/JSONL/Parquet tables, or folders")
    parser.add_argument("--dataset", choices=["sample", "full"], default=None,
                        help="bundled data when no INPUT is given: 'sample' (90 abstracts, default) or 'full' (4,364)")
    parser.add_argument("--backend", choices=BACKENDS, default="minilm",
                        help="embedding backend: minilm (all-MiniLM-L6-v2, bf16 where the CPU has it natively, default), "
                             "minilm-fp32 (exact fp32), lsa (weightless TF-IDF+SVD), hashing (weightless, per text)")
    parser.add_argument("--model", default=None, help="local folder or hub name of a sentence-transformers model (minilm backends)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="embedding cache folder (default: ~/.cache/topics or $TOPICS_CACHE_DIR)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the embedding cache")


def _load(args: argparse.Namespace):
    """The corpus named by INPUT files or --dataset, its caveats, and a description."""
    from topics.io import datasets
    from topics.io.corpus import read_corpus

    if args.inputs and args.dataset:
        raise ValueError("give INPUT files or --dataset, not both")
    if args.inputs:
        return read_corpus(args.inputs), (), ", ".join(str(p) for p in args.inputs)
    name = args.dataset or "sample"
    described = (
        "bundled ICLR sample: five paper-list files, 90 abstracts" if name == "sample"
        else "bundled full ICLR lists: ICLR 2024 (all 2,260 accepted papers) and ICLR 2025 (2,104 of 3,704)"
    )
    return datasets.load_dataset(name), datasets.dataset_caveats(name), described


def _evaluate(args: argparse.Namespace) -> int:
    import pandas as pd

    from topics.embedding.embed import embed_texts
    from topics.embedding.backends import get_embedder
    from topics.evaluate import describe_evaluation, evaluate_model, evaluate_plain_bertopic
    from topics.clustering.model import TopicModel
    from topics.pipeline import embedding_texts

    if args.refits < 0:
        raise ValueError(f"--refits must be 0 or more, got {args.refits}")
    if args.runs is not None and args.runs < 1:
        raise ValueError(f"--runs must be at least 1, got {args.runs}")
    corpus, _, described = _load(args)
    if args.labels_column is not None and args.labels_column not in corpus:
        raise ValueError(f"no column {args.labels_column!r} in {described}; columns are {', '.join(map(str, corpus.columns))}")
    embedder = get_embedder(args.backend, model=args.model) if args.model else get_embedder(args.backend)
    cache = False if args.no_cache else (args.cache_dir if args.cache_dir else True)
    embeddings = embed_texts(embedding_texts(corpus), embedder, cache=cache, show_progress=not args.quiet)
    seeds = list(range(args.seed + 1, args.seed + 1 + args.refits))
    options = {"random_state": args.seed} | ({"n_runs": args.runs} if args.runs else {})
    model = TopicModel(**options).fit(corpus, embeddings)
    tables = {"topics": evaluate_model(model, corpus, embeddings, refit_seeds=seeds, labels_column=args.labels_column)}
    if args.baseline:
        tables["plain BERTopic"] = evaluate_plain_bertopic(
            corpus, embeddings, random_state=args.seed, refit_seeds=seeds, labels_column=args.labels_column
        )
    print(f"{len(corpus)} papers from {described}; embeddings: {embedder.name}")
    print(describe_evaluation(tables))
    if args.csv:
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        tidy = pd.concat([t.assign(model=name) for name, t in tables.items()], ignore_index=True)
        tidy[["model", "metric", "value", "detail"]].to_csv(args.csv, index=False, float_format="%.10g", lineterminator="\n")
        print(f"wrote {args.csv}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from topics.embedding.backends import get_embedder
    from topics.clustering.model import TopicModel
    from topics.pipeline import analyze, write_tables
    from topics.report.render import write_report

    start = time.perf_counter()
    if args.inputs and args.dataset:
        raise ValueError("give INPUT files or --dataset, not both")
    if args.stability_seeds < 0:
        raise ValueError(f"--stability-seeds must be 0 or more, got {args.stability_seeds}")
    if args.by == "year" and args.groups:
        raise ValueError("--groups is for other --by columns; choose years with --years")
    if args.by == "year" and args.years is not None and len(args.years) < 2:
        raise ValueError(f"--years needs two or more years to compare with --by year, got {args.years[0]}")
    themes = _themes(args)
    corpus, caveats, described = _load(args)
    groups = _groups(corpus, args.by, args.groups)
    embedder = get_embedder(args.backend, model=args.model) if args.model else get_embedder(args.backend)
    cache = False if args.no_cache else (args.cache_dir if args.cache_dir else True)
    scheduler = args.dask_scheduler or _scheduler_from_env()
    model = TopicModel(random_state=args.seed, reduce_outliers=args.reduce_outliers, min_cluster_size=args.min_cluster_size)
    analysis = analyze(
        corpus, embedder=embedder, model=model, years=tuple(args.years) if args.years else None,
        include_outliers=args.include_outliers, random_state=args.seed, cache=cache, show_progress=not args.quiet,
        stability_seeds=range(args.seed + 1, args.seed + 1 + args.stability_seeds), by=args.by, groups=groups,
        themes=themes, scheduler=scheduler,
    )
    output = args.output or _default_output(analysis)
    write_report(analysis, output, caveats=caveats, dataset=described)
    written = [output]
    if args.tables:
        written += list(write_tables(analysis, args.tables).values())
    _summary(analysis, written, time.perf_counter() - start)
    return 0


def _groups(corpus, by: str, given: list[str] | None) -> list | None:
    """The --groups strings as the values of the corpus's ``by`` column (numbers stay numbers)."""
    if given is None or by == "year":
        return None
    if by not in corpus.columns:
        raise ValueError(f"--by {by}: the input has no column {by!r} (columns: {', '.join(map(str, corpus.columns))})")
    present = {str(v): v for v in corpus[by].dropna().unique()}
    unknown = [g for g in given if g not in present]
    if unknown:
        raise ValueError(f"--groups {unknown[0]}: no paper has {by} {unknown[0]!r} (values present: {', '.join(sorted(present))})")
    return [present[g] for g in given]


def _default_output(analysis) -> Path:
    """reports/<venue>-<a>-vs-<b>.html for two years, else a name that says what was compared."""
    venues = sorted(v for v in analysis.corpus["venue"].unique() if v)
    stem = analysis.comparison.file_stem("-".join(venues).lower() if venues else "topics")
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem)
    return Path("reports") / f"{safe}.html"


def _themes(args: argparse.Namespace) -> tuple:
    """The themes of ``--themes FILE`` and ``--theme NAME``, validated before any work starts."""
    from topics.themes.specs import Theme, as_themes, read_themes

    themes = list(read_themes(args.themes)) if args.themes else []
    for name in args.theme:
        if not name.strip():
            raise ValueError("--theme needs a non-empty name, got ''")
        themes.append(Theme(name))
    return as_themes(themes) if themes else ()
def _scheduler_from_env() -> str | None:
    import os

    return os.environ.get("TOPICS_DASK_SCHEDULER") or None  # topics.embedding.distributed.SCHEDULER_ENV, without importing Dask


def _summary(analysis, written, seconds: float) -> None:
    n_topics = int((analysis.topics["topic"] != -1).sum())
    print(
        f"{len(analysis.corpus)} papers ({', '.join(f'{y}: {n}' for y, n in analysis.settings['documents_per_year'].items())}); "
        f"{n_topics} topics; {100 * analysis.model.outlier_share_:.1f} % outliers"
    )
    # The report's own summary, shorter.
    for sentence in analysis.comparison.narrate(stability=analysis.stability, bursts=analysis.bursts,
                                                areas=analysis.area_comparison, max_items=3):
        print(sentence)
    if analysis.themes is not None:
        from topics.themes.tracking import narrate_themes

        for sentence in narrate_themes(analysis.themes.summary):
            print(sentence)
    for path in written:
        print(f"wrote {path}")
    print(f"done in {seconds:.1f} s")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``topics`` console script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version

        print(f"topics {version('topics')}")
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("sentence_transformers", "BERTopic", "numba", "httpx", "transformers", "distributed"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    from topics.io.corpus import CorpusError
    from topics.embedding.weights import EmbeddingError

    try:
        return _evaluate(args) if args.command == "evaluate" else _report(args)
    except (CorpusError, EmbeddingError, ValueError, OSError) as exc:
        print(f"topics: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
