"""Faster MiniLM runtimes on the CPU (issue 40): throughput on the same windowed pieces, and what users see.

    python benchmarks/embedding_runtimes.py --throughput --n 200 --repeats 3   # interleaved rounds, texts/s
    python benchmarks/embedding_runtimes.py --embed openvino-bf16 --out v.npy  # the full lists' vectors
    python benchmarks/embedding_runtimes.py --fit v.npy --out fit.pkl          # consensus topics, names, themes
    python benchmarks/embedding_runtimes.py --compare ref.pkl fit.pkl ...      # one pair of fits each
    python benchmarks/embedding_runtimes.py --table today=a.pkl,b.pkl ov=c.pkl,d.pkl --control fp32  # distributions
    python benchmarks/embedding_runtimes.py --diagnose today.npy other.npy     # where the vectors differ

**Throughput.** Every runtime embeds the same pieces ("title. abstract" of ``--n`` papers
drawn from the full ICLR lists, long texts as their windows) in the same fixed-shape
passes the ``minilm`` backend runs (:func:`topics.embedding.backends.fixed_shape_batches`),
in interleaved rounds, as ratios to today's PyTorch bf16 path in the same run:
PyTorch fp32 and bf16 (``torch.autocast``), ONNX Runtime fp32 and static int8 (QDQ,
per-channel int8 weights, uint8 activations, calibrated on other abstracts; embeddings, the last layer and
LayerNorm kept in fp32), and OpenVINO fp32 and bf16 (``INFERENCE_PRECISION_HINT``). The
smallest cosine of each piece's vector to its PyTorch fp32 vector is reported beside.
ONNX Runtime needs ``onnx``, ``onnxscript`` and ``onnxruntime``; a runtime that is not
installed is skipped.

**Equivalence.** The consensus topics of today's vectors (PyTorch bf16, from the cache)
against those of a candidate's: ARI, the share of topics back (one-to-one match, Jaccard >=
0.5) and back with the same name, the clear 2024-vs-2025 changes that hold, and theme
membership (:func:`topics.themes.tracking.track` on the five themes of
``tests/data/theme_check.csv``: Jaccard of each theme's members). The bar (issue 40): as
close as two seeds of today's fit are to each other (mean seed ARI 0.964, every topic back).

These 2-core machines are shared and noisy: compare the ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
NAMES = ("input_ids", "attention_mask", "token_type_ids")


def pieces_and_passes(texts: list[str], batch_size: int = 4):
    """The backend's windows of ``texts`` and its fixed-shape passes over them, tokenised
    (``batch_size`` texts of the model's full length a pass; 4 in the backend)."""
    from topics.embedding.backends import SentenceTransformerEmbedder, fixed_shape_batches, padded_features

    torch_bf16 = SentenceTransformerEmbedder(precision="bf16", runtime="torch", batch_size=batch_size)
    st = torch_bf16._load()
    pieces, owner = torch_bf16._windows(texts)
    limit = int(st.max_seq_length)
    shapes = fixed_shape_batches(torch_bf16._token_counts(st, pieces), pass_pieces=torch_bf16.batch_size * limit, limit=limit)
    passes = [(padded_features(st, [pieces[i] for i in members], length, rows), members) for length, rows, members in shapes]
    return st, pieces, owner, passes


def torch_runner(st, bf16: bool):
    import contextlib

    import torch

    def run(features):
        context = torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
        with torch.inference_mode(), context:
            return st(dict(features))["sentence_embedding"].float().numpy()

    return run


def onnx_runners(st, example, calibration, folder: Path) -> dict:
    """ONNX Runtime fp32 and static int8 sessions, exported from ``st`` into ``folder``."""
    try:
        import onnxruntime as ort
        import torch
        from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    except ImportError as exc:
        print(f"ONNX Runtime skipped: {exc}")
        return {}
    from topics.embedding.backends import mean_pooled_module

    folder.mkdir(parents=True, exist_ok=True)
    fp32, int8 = folder / "minilm.onnx", folder / "minilm-int8.onnx"
    torch.onnx.export(mean_pooled_module(st), tuple(example[k] for k in NAMES), str(fp32), input_names=list(NAMES),
                      output_names=["embedding"], dynamic_axes={**{k: {0: "b", 1: "s"} for k in NAMES}, "embedding": {0: "b"}},
                      opset_version=17, dynamo=False)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter([{k: f[k].numpy() for k in NAMES} for f in calibration])

        def get_next(self):
            return next(self.items, None)

    import onnx

    graph = onnx.load(str(fp32)).graph
    keep = [n.name for n in graph.node if "embeddings" in n.name or "layer.5" in n.name or "LayerNorm" in n.name or "pool" in n.name]
    quantize_static(str(fp32), str(int8), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm"],
                    nodes_to_exclude=keep)
    out = {}
    for name, path in (("onnxruntime-fp32", fp32), ("onnxruntime-int8", int8)):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        out[name] = lambda f, s=session: s.run(None, {k: f[k].numpy() for k in NAMES})[0]
    return out


def openvino_runners(st, example) -> dict:
    from topics.embedding.backends import openvino_available, openvino_forward

    if not openvino_available():
        print("OpenVINO skipped: not installed")
        return {}
    return {f"openvino-{p}": openvino_forward(st, p, example) for p in ("fp32", "bf16")}


def openvino_int8(st, example, calibration) -> dict:
    """OpenVINO int8: NNCF post-training quantisation (transformer preset) of the converted
    model, calibrated on ``calibration`` passes; skipped where nncf is not installed."""
    from topics.embedding.backends import import_without_telemetry, mean_pooled_module

    try:  # openvino and nncf without their usage telemetry, as the package imports them
        openvino = import_without_telemetry("openvino")
        nncf = import_without_telemetry("nncf")
        import torch
    except ImportError as exc:
        print(f"OpenVINO int8 skipped: {exc}")
        return {}

    with torch.no_grad():
        converted = openvino.convert_model(mean_pooled_module(st), example_input={k: example[k] for k in NAMES})
    data = nncf.Dataset([{k: f[k].numpy() for k in NAMES} for f in calibration])
    quantized = nncf.quantize(converted, data, model_type=nncf.ModelType.TRANSFORMER, subset_size=len(calibration))
    request = openvino.Core().compile_model(quantized, "CPU", {"PERFORMANCE_HINT": "LATENCY"}).create_infer_request()
    return {"openvino-int8": lambda f: np.asarray(next(iter(request.infer({k: f[k].numpy() for k in NAMES}).values())))}


def throughput(n: int, repeats: int, int8: bool, wide: int) -> dict:
    from topics.io.datasets import iclr_full
    from topics.pipeline import embedding_texts

    corpus = iclr_full()
    texts = embedding_texts(corpus.sample(n=n, random_state=0))
    st, pieces, _, passes = pieces_and_passes(texts)
    runners = {"torch-fp32": torch_runner(st, False), "torch-bf16": torch_runner(st, True)}
    runners.update(openvino_runners(st, passes[-1][0]))
    if int8:
        calibration = pieces_and_passes(embedding_texts(corpus.drop(corpus.sample(n=n, random_state=0).index).sample(n=64, random_state=1)))[3]
        calibration = [f for f, _ in calibration]
        runners.update(openvino_int8(st, passes[-1][0], calibration))
        runners.update(onnx_runners(st, passes[-1][0], calibration, Path(".") / "onnx-models"))
    runners = {name: (run, passes) for name, run in runners.items()}
    if wide and "openvino-bf16" in runners:  # wider fixed-shape passes: fewer calls, the same padding per bucket
        runners[f"openvino-bf16-x{wide}"] = (runners["openvino-bf16"][0], pieces_and_passes(texts, wide)[3])
    seconds, vectors = {k: [] for k in runners}, {}
    for run, some in runners.values():
        run(some[0][0])  # warm up
    for r in range(repeats):
        for name, (run, some) in runners.items():
            start = time.perf_counter()
            vectors[name] = embed_passes(run, some, len(pieces))
            seconds[name].append(time.perf_counter() - start)
            print(f"round {r + 1}/{repeats} {name}: {n / seconds[name][-1]:.1f} texts/s", flush=True)
    exact, base = vectors["torch-fp32"], float(np.median(seconds["torch-bf16"]))
    return {name: {"texts_per_s": n / float(np.median(s)), "ratio_to_torch_bf16": base / float(np.median(s)), "rounds_s": s,
                   "min_cosine_to_fp32": float((vectors[name] * exact).sum(1).min())} for name, s in seconds.items()}


def embed_passes(run, passes, n_pieces: int) -> np.ndarray:
    out = np.empty((n_pieces, 384), dtype=np.float32)
    for features, members in passes:
        out[members] = run(features)[: len(members)]
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def embed_full(runtime: str, out: Path) -> None:
    """The full lists embedded by the backend with ``runtime`` ("openvino-bf16", "torch-bf16", ...)."""
    from topics.embedding.backends import SentenceTransformerEmbedder
    from topics.io.datasets import iclr_full
    from topics.pipeline import embedding_texts

    from topics.embedding.embed import embed_texts

    name, precision = runtime.rsplit("-", 1)
    embedder = SentenceTransformerEmbedder(precision=precision, runtime=name)
    texts = embedding_texts(iclr_full())
    start = time.perf_counter()
    vectors = embed_texts(texts, embedder, cache=True)  # today's vectors come from the shared cache
    print(f"{embedder.name}: {len(texts) / (time.perf_counter() - start):.1f} texts/s", flush=True)
    np.save(out, vectors)


def fit(vectors: Path, out: Path, runtime: str, seed: int = 0, pool: int | None = None, n_jobs: int = -1) -> None:
    """Consensus topics (``seed``; ``pool``: ``TopicModel(neighbor_pool=...)``), their names, the
    2024-vs-2025 comparison and theme members."""
    import pandas as pd

    import topics
    from topics.embedding.backends import SentenceTransformerEmbedder
    from topics.io.datasets import iclr_full
    from topics.stats.trends import compare_years
    from topics.themes.tracking import track

    corpus, embeddings = iclr_full(), np.load(vectors)
    start = time.perf_counter()
    model = topics.TopicModel(random_state=seed, neighbor_pool=pool, n_jobs=n_jobs).fit(corpus, embeddings)
    seconds = time.perf_counter() - start
    documents = pd.DataFrame({"year": corpus["year"].to_numpy(), "topic": model.labels_})
    comparison = compare_years(documents, 2024, 2025)
    themes = list(dict.fromkeys(pd.read_csv(HERE.parent / "tests" / "data" / "theme_check.csv")["theme"]))
    name, precision = runtime.rsplit("-", 1)
    tracking = track(corpus, embeddings, themes, embedder=SentenceTransformerEmbedder(precision=precision, runtime=name))
    members = tracking.members
    saved = {"seed": seed, "runtime": runtime, "pool": pool, "seconds": seconds, "labels": model.labels_, "names": dict(model.topic_names_),
             "terms": {t: [w for w, _ in terms] for t, terms in model.topic_terms_.items()}, "comparison": comparison,
             "themes": {t: set(members.loc[members["theme"] == t, "doc_id"]) for t in themes}}
    out.write_bytes(pickle.dumps(saved))


def pair_figures(corpus, ref: dict, other: dict) -> dict:
    """What a user sees change from the fit ``ref`` to the fit ``other`` (both from :func:`fit`)."""
    from topics.stats.alignment import align_topics
    from topics.stats.metrics import clear_changes_held, seed_agreement
    from topics.stats.stability import labeling_stability

    agree = seed_agreement([ref["labels"], other["labels"]])
    matches = align_topics(ref["labels"], other["labels"], min_jaccard=0.5)
    matches = matches[(matches["topic"] != -1) & matches["matched"]]
    same = sum(ref["names"].get(t) == other["names"].get(m) for t, m in zip(matches["topic"], matches["match"]))
    ref["comparison"].table["label"] = ref["comparison"].table["topic"].astype(str)
    stability = labeling_stability(corpus, ref["labels"], ref["comparison"], [other["labels"]], seeds=[1])
    jaccard = {t: len(a & other["themes"][t]) / max(len(a | other["themes"][t]), 1) for t, a in ref["themes"].items()}
    return {"topics": int(len(set(other["labels"].tolist()) - {-1})), "ari": agree["mean_ari"],
            "topics_back": agree["topics_recovered"], "same_name": same / len(set(ref["labels"].tolist()) - {-1}),
            "changes_held": clear_changes_held(stability, ref["comparison"]), "theme_jaccard": jaccard}


def compare(reference: Path, others: list[Path]) -> list[dict]:
    from topics.io.datasets import iclr_full

    corpus, ref = iclr_full(), pickle.loads(reference.read_bytes())
    rows = []
    for path in others:
        rows.append({"vectors": path.stem, **pair_figures(corpus, ref, pickle.loads(path.read_bytes()))})
        print(json.dumps(rows[-1]), flush=True)
    return rows


FIGURES = ("ari", "topics_back", "same_name", "changes_held")


def summary(values) -> dict:
    values = np.asarray(values, dtype=float)
    return {"n": int(len(values)), "mean": float(values.mean()), "sd": float(values.std(ddof=1)) if len(values) > 1 else 0.0,
            "min": float(values.min()), "max": float(values.max())}


def judge(pairs: list[dict], today: str = "today", control: str | None = None) -> dict:
    """The rule of ``benchmarks/README.md`` ("The rule, set before this round's fits") over
    ``pairs`` (``reference`` and ``other``: (group, seed) each, and :func:`pair_figures`):
    the seed bar of ``today``'s ordered seed pairs, each other group's same-seed and
    other-seed pairs against it, theme members against the ``control`` group's."""
    bar = [p for p in pairs if p["other"][0] == today]
    out = {"seed_bar": {f: summary([p[f] for p in bar]) for f in FIGURES}, "groups": {}}
    themes = {}
    for group in sorted({p["other"][0] for p in pairs} - {today}):
        mine = [p for p in pairs if p["other"][0] == group]
        themes[group] = float(np.mean([np.mean(list(p["theme_jaccard"].values())) for p in mine]))
        verdict = {"theme_jaccard_mean": themes[group]}
        for kind, chosen in (("same_seed", [p for p in mine if p["other"][1] == p["reference"][1]]),
                             ("other_seed", [p for p in mine if p["other"][1] != p["reference"][1]])):
            verdict[kind] = {}
            for f in FIGURES:
                stats, seed = summary([p[f] for p in chosen]), out["seed_bar"][f]
                stats["gap_in_sd"] = (stats["mean"] - seed["mean"]) / seed["sd"] if seed["sd"] else float("nan")
                stats["passes"] = bool(stats["mean"] >= seed["mean"] - seed["sd"] - 1e-12)
                verdict[kind][f] = stats
        out["groups"][group] = verdict
    for group, verdict in out["groups"].items():
        theme_ok = control is None or group == control or themes[group] >= themes[control] - 0.01
        verdict["themes_pass"] = bool(theme_ok)
        verdict["passes"] = theme_ok and all(verdict[k][f]["passes"] for k in ("same_seed", "other_seed") for f in FIGURES)
    return out


def markdown(results: dict) -> str:
    """The equivalence table of :func:`table`'s ``results`` as Markdown rows: each figure's
    mean (sample sd; min-max) over the seed bar's pairs and each group's same-seed and
    other-seed pairs."""

    def cell(stats: dict, percent: bool) -> str:
        f = (lambda v: f"{100 * v:.1f} %") if percent else (lambda v: f"{v:.3f}")
        return f"{f(stats['mean'])} ({f(stats['sd'])}; {f(stats['min'])}-{f(stats['max'])})"

    head = "| pairs | n | ARI | topics back | back with the same name | clear changes held | theme members (mean Jaccard) |"
    lines = [head, "|" + "---|" * 7]
    bar = results["seed_bar"]
    lines.append(f"| today's seeds, s != t (the seed bar) | {bar['ari']['n']} | "
                 + " | ".join(cell(bar[f], f != "ari") for f in FIGURES) + " | 1.000 |")
    for group, verdict in results["groups"].items():
        for kind in ("same_seed", "other_seed"):
            stats = verdict[kind]
            marks = [cell(stats[f], f != "ari") + ("" if stats[f]["passes"] else " **below**") for f in FIGURES]
            lines.append(f"| {group}, {kind.replace('_', ' ')} | {stats['ari']['n']} | " + " | ".join(marks)
                         + f" | {verdict['theme_jaccard_mean']:.3f} |")
    return "\n".join(lines)


def spectral_init(vectors: np.ndarray, k: int = 15, dim: int = 5) -> np.ndarray:
    """UMAP's spectral initialisation of the exact neighbour graph of ``vectors``, as every
    run of the consensus starts from it (standardised per axis)."""
    from umap.spectral import spectral_layout
    from umap.umap_ import fuzzy_simplicial_set

    from topics.clustering.neighbors import nearest_neighbors

    indices, similarities = nearest_neighbors(vectors, n_neighbors=k)
    graph = fuzzy_simplicial_set(vectors, k, np.random.RandomState(0), "cosine", knn_indices=indices,
                                 knn_dists=np.clip(1 - similarities, 0, None).astype(np.float32))[0]
    layout = spectral_layout(vectors, graph, dim, np.random.RandomState(0))
    return (layout - layout.mean(0)) / layout.std(0)


def diagnose(reference: Path, others: list[Path], k: int = 15) -> list[dict]:
    """How far each of ``others`` (vectors, .npy) is from ``reference`` where the consensus
    reads it: cosine, the exact ``k``-neighbour graph, and UMAP's spectral initialisation."""
    from scipy.linalg import orthogonal_procrustes

    from topics.clustering.neighbors import nearest_neighbors

    base = np.load(reference).astype(np.float32)
    base_graph, base_init = nearest_neighbors(base, n_neighbors=k)[0], spectral_init(base, k)
    rows = []
    for path in others:
        other = np.load(path).astype(np.float32)
        cosine = (base * other).sum(1) / np.linalg.norm(base, axis=1) / np.linalg.norm(other, axis=1)
        shared = np.array([len(set(a) & set(b)) for a, b in zip(base_graph, nearest_neighbors(other, n_neighbors=k)[0])])
        init = spectral_init(other, k)
        rotation = orthogonal_procrustes(init, base_init)[0]
        rows.append({"vectors": path.stem, "min_cosine": float(cosine.min()), "median_cosine": float(np.median(cosine)),
                     "papers_with_other_neighbours": int((shared < k).sum()), "slots_changed": float(1 - shared.sum() / (k * len(base))),
                     "init_axis_correlation": [float(abs(np.corrcoef(base_init[:, j], init[:, j])[0, 1])) for j in range(init.shape[1])],
                     "init_residual": float(np.linalg.norm(init @ rotation - base_init) / np.linalg.norm(base_init))})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def fit_seed(path: Path) -> int:
    """The seed a fit was made with: saved in it, else the ``seed<N>`` of its file name."""
    import re

    saved = pickle.loads(path.read_bytes())
    return int(saved["seed"]) if "seed" in saved else int(re.search(r"seed(\d+)", path.stem).group(1))


def table(groups: dict[str, list[Path]], today: str = "today", control: str | None = None) -> dict:
    """Every pair (today's fit with seed s, a fit of any group with seed t != s where the
    group is today's), its figures, and :func:`judge`'s verdict."""
    from topics.io.datasets import iclr_full

    corpus = iclr_full()
    fits = {(g, fit_seed(p)): p for g, paths in groups.items() for p in paths}
    pairs = []
    for (g, s), path in fits.items():
        if g != today:
            continue
        ref = pickle.loads(path.read_bytes())
        for (h, t), other in fits.items():
            if (h, t) != (g, s):
                pairs.append({"reference": (g, s), "other": (h, t), **pair_figures(corpus, ref, pickle.loads(other.read_bytes()))})
                print(json.dumps(pairs[-1]), flush=True)
    return {"pairs": pairs, **judge(pairs, today, control)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--throughput", action="store_true", help="interleaved rounds of every runtime on the same pieces")
    parser.add_argument("--n", type=int, default=200, help="papers drawn from the full lists (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds (default 3; medians are reported)")
    parser.add_argument("--wide", type=int, default=16, help="also OpenVINO bf16 with this many full-length texts a pass (0: not)")
    parser.add_argument("--int8", action="store_true", help="also ONNX Runtime fp32 and static int8 (needs onnxruntime)")
    parser.add_argument("--embed", metavar="RUNTIME", help="embed the full lists: torch-bf16, openvino-bf16, openvino-fp32, ...")
    parser.add_argument("--fit", metavar="VECTORS", type=Path, help="fit the full lists on these vectors (.npy)")
    parser.add_argument("--runtime", default="torch-bf16", help="with --fit: the runtime that embeds the themes' queries")
    parser.add_argument("--seed", type=int, default=0, help="with --fit: the consensus fit's random state (default 0)")
    parser.add_argument("--pool", type=int, help="with --fit: TopicModel(neighbor_pool=...); default the exact graph")
    parser.add_argument("--jobs", type=int, default=-1, help="with --fit: processes of the consensus runs (default every core)")
    parser.add_argument("--compare", nargs="+", type=Path, metavar="FIT", help="the reference fit, then the others")
    parser.add_argument("--table", nargs="+", metavar="GROUP=FIT,FIT", help="the equivalence table over groups of fits "
                        "(seeds read from the fits): today=a.pkl,b.pkl openvino-bf16=c.pkl,... (the first group is today's)")
    parser.add_argument("--diagnose", nargs="+", type=Path, metavar="VECTORS", help="the reference vectors (.npy), then "
                        "others: cosine, the exact neighbour graph and UMAP's spectral initialisation compared")
    parser.add_argument("--control", help="with --table: the group whose theme members are the themes' bar (fp32)")
    parser.add_argument("--out", type=Path, help="where --embed, --fit, --table and --throughput write")
    args = parser.parse_args(argv)
    if args.throughput:
        results = throughput(args.n, args.repeats, args.int8, args.wide)
        print(json.dumps(results, indent=1))
        if args.out:
            args.out.write_text(json.dumps(results, indent=1) + "\n")
    elif args.embed:
        embed_full(args.embed, args.out)
    elif args.fit:
        fit(args.fit, args.out, args.runtime, args.seed, args.pool, args.jobs)
    elif args.compare:
        compare(args.compare[0], args.compare[1:])
    elif args.diagnose:
        diagnose(args.diagnose[0], args.diagnose[1:])
    elif args.table:
        groups = {g: [Path(p) for p in paths.split(",")] for g, paths in (item.split("=", 1) for item in args.table)}
        results = table(groups, today=next(iter(groups)), control=args.control)
        print(json.dumps({k: v for k, v in results.items() if k != "pairs"}, indent=1))
        print(markdown(results))
        if args.out:
            args.out.write_text(json.dumps(results, indent=1, default=list) + "\n")
    else:
        parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
