"""OpenVINO measured as minilm's default runtime (issue 40; it stays opt-in): throughput, texts per pass, start-up.

    python benchmarks/openvino_default.py --passes --n 600 --repeats 2   # interleaved rounds
    python benchmarks/openvino_default.py --startup                      # fresh processes, 90 bundled texts

**Passes** (``--passes``): the backend as ``topics`` runs it
(:class:`topics.embedding.backends.SentenceTransformerEmbedder`, "title. abstract", long
texts as windows, fixed-shape passes) on ``--n`` papers drawn from the full ICLR lists and
on the 90 bundled papers: PyTorch bf16 at 4 texts a pass (the default before) and OpenVINO
bf16 (the default now) at 4, 8 and 16 texts a pass, in interleaved rounds in one process,
each embedder loaded (and converted) before the first round. Wall and CPU seconds per
round; the smallest cosine of each configuration's vectors to PyTorch bf16's.

**Start-up** (``--startup``): in a fresh interpreter each, the 90 bundled texts embedded
cold (no cache) the way ``topics report`` embeds them (fp32, fewer than 1,000 texts) in
PyTorch and in OpenVINO, and in bf16 in both: seconds to import and load the model, to
convert and compile it (OpenVINO), and to embed.

These 2-core machines are shared and noisy: compare the ratios within one run. Results go
to ``benchmarks/results/openvino-default-<cpu>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

from run import RESULTS, child, commit, machine  # benchmarks/run.py

CONFIGS = {  # name: (runtime, texts a pass)
    "torch-bf16-x4": ("torch", 4),
    "openvino-bf16-x4": ("openvino", 4),
    "openvino-bf16-x8": ("openvino", 8),
    "openvino-bf16-x16": ("openvino", 16),
}


def corpora(n: int) -> dict[str, list[str]]:
    from topics.io.datasets import iclr_full, iclr_sample
    from topics.pipeline import embedding_texts

    return {f"full-{n}": embedding_texts(iclr_full().sample(n=n, random_state=0)), "bundled-90": embedding_texts(iclr_sample())}


def passes(n: int, repeats: int) -> dict:
    from topics.embedding.backends import SentenceTransformerEmbedder

    texts = corpora(n)
    embedders = {name: SentenceTransformerEmbedder(precision="bf16", runtime=rt, batch_size=b) for name, (rt, b) in CONFIGS.items()}
    for embedder in embedders.values():
        embedder.encode(["A warm-up text: the model loaded and converted before any round."])
    rounds = {corpus: {name: [] for name in embedders} for corpus in texts}
    vectors = {}
    for r in range(repeats):
        for corpus, items in texts.items():
            for name, embedder in embedders.items():
                wall, cpu = time.perf_counter(), time.process_time()
                vectors[corpus, name] = embedder.encode(items)
                rounds[corpus][name].append({"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu})
                print(f"round {r + 1}/{repeats} {corpus} {name}: {rounds[corpus][name][-1]}", flush=True)
    summary = {}
    for corpus, items in texts.items():
        base = vectors[corpus, "torch-bf16-x4"]
        for name in embedders:
            best = {k: min(x[k] for x in rounds[corpus][name]) for k in ("wall_s", "cpu_s")}
            summary[f"{corpus} {name}"] = {
                "texts_per_s_wall": len(items) / best["wall_s"],
                "texts_per_s_cpu": len(items) / best["cpu_s"],
                "min_cosine_to_torch_bf16": float(np.min(np.sum(vectors[corpus, name] * base, axis=1))),
            }
        for name in embedders:  # ratios to the default before, best rounds
            summary[f"{corpus} {name}"]["ratio_wall"] = summary[f"{corpus} {name}"]["texts_per_s_wall"] / summary[f"{corpus} torch-bf16-x4"]["texts_per_s_wall"]
            summary[f"{corpus} {name}"]["ratio_cpu"] = summary[f"{corpus} {name}"]["texts_per_s_cpu"] / summary[f"{corpus} torch-bf16-x4"]["texts_per_s_cpu"]
    return {"n": n, "repeats": repeats, "rounds": rounds, "summary": summary}


STARTUP = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from topics.embedding.backends import SentenceTransformerEmbedder, padded_features, openvino_forward
from topics.io.datasets import iclr_sample
from topics.pipeline import embedding_texts
precision, runtime = sys.argv[1], sys.argv[2]
embedder = SentenceTransformerEmbedder(precision=precision, runtime=runtime)
model = embedder._load()
t1, c1 = time.perf_counter(), time.process_time()
if runtime == "openvino":
    embedder._forward = openvino_forward(model, precision, padded_features(model, ["a text"], 16, 64))
t2, c2 = time.perf_counter(), time.process_time()
embedder.encode(embedding_texts(iclr_sample()))
t3, c3 = time.perf_counter(), time.process_time()
print(json.dumps({"load_s": [t1 - t0, c1 - c0], "convert_s": [t2 - t1, c2 - c1], "embed_s": [t3 - t2, c3 - c2]}))
"""


def startup(repeats: int) -> dict:
    """Each configuration in a fresh interpreter, ``repeats`` interleaved rounds."""
    configs = [("fp32", "torch"), ("fp32", "openvino"), ("bf16", "torch"), ("bf16", "openvino")]
    rounds = {f"{p}-{r}": [] for p, r in configs}
    for i in range(repeats):
        for precision, runtime in configs:
            rounds[f"{precision}-{runtime}"].append(child(["-c", STARTUP, precision, runtime]))  # wall_s, cpu_s: the whole process
            print(f"round {i + 1}/{repeats} {precision}-{runtime}: {rounds[f'{precision}-{runtime}'][-1]}", flush=True)
    return {"repeats": repeats, "rounds": rounds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passes", action="store_true", help="texts per pass and throughput, interleaved rounds")
    parser.add_argument("--startup", action="store_true", help="the 90 bundled texts cold, in fresh processes")
    parser.add_argument("--n", type=int, default=600, help="papers drawn from the full lists (default 600)")
    parser.add_argument("--repeats", type=int, default=2, help="rounds (default 2; the best is kept)")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    results = {"date": date.today().isoformat(), "commit": commit(), "machine": machine(), "load_average_1min_before": load}
    if args.passes:
        results["passes"] = passes(args.n, args.repeats)
    if args.startup:
        results["startup"] = startup(args.repeats)
    results["load_average_1min_after"] = os.getloadavg()[0]
    tag = "avx512-bf16" if results["machine"]["native_bf16"] else "avx2"
    kind = "-".join(k for k in ("passes", "startup") if getattr(args, k))
    path = RESULTS / f"openvino-default-{kind}-{tag}.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
