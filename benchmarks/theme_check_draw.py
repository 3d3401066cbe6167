"""Draw the candidate papers of the labelled theme check set (tests/data/theme_check.csv).

Run once, before any membership rule existed; the labels in theme_check.csv were then
set by reading each title and abstract. Kept so that the draw can be repeated and
audited::

    python benchmarks/theme_check_draw.py > /tmp/candidates.csv

For each of five themes, 40 papers from the full ICLR lists, in four disjoint strata
(taken in this order, so a paper is in the first stratum it qualifies for):

* ``phrase``   -- the title or abstract contains the theme's name (case-insensitive,
  hyphens read as spaces, plural allowed): 12 papers;
* ``similar``  -- the 150 papers without the phrase whose MiniLM embedding is most
  similar to the embedding of the theme's name: 7 from ranks 1-30, 7 from 31-150;
* ``adjacent`` -- papers with words of the theme or of neighbouring areas (regexes
  below) that are in neither stratum above: 8 papers;
* ``random``   -- every other paper: 6 papers.

Where a stratum has fewer papers than asked (long-tailed recognition has 3 phrase
holders), the shortfall goes to ``similar`` and ``adjacent``. ``stratum_size`` is each
stratum's size in the corpus, so population-weighted estimates can be computed.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

import topics
from topics.text import clean_for_terms

SEED = 20250101
NAME = {
    "optimal transport": r"optimal transport",
    "long-tailed recognition": r"long tailed recognition",
    "self-supervised learning": r"self supervised learning",
    "diffusion models": r"diffusion models?\b",
    "federated learning": r"federated learning",
}
ADJACENT = {
    "optimal transport": r"wasserstein|sinkhorn|schr[oö]dinger bridge|earth mover|gromov|barycent|monge|flow matching|coupling",
    "long-tailed recognition": r"long tail|imbalanc|minority class|tail class|head class|rare class|few shot|class incremental",
    "self-supervised learning": r"self supervis|contrastive|masked autoencod|pretext|jepa|dino\b|simclr|byol|representation learning|semi supervised",
    "diffusion models": r"diffusion|score based|denoising|flow matching|consistency model|generative model",
    "federated learning": r"federated|decentrali|client|distributed training|privacy|communication efficient",
}
ASK = {"phrase": 12, "similar": 14, "adjacent": 8, "random": 6}


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    rng = np.random.default_rng(SEED)
    corpus = topics.io.datasets.iclr_full()
    text = (corpus["title"] + ". " + corpus["abstract"]).str.lower().str.replace("-", " ", regex=False)
    emb = topics.embed_texts([clean_for_terms(t) for t in corpus["abstract"]], "minilm", cache=True)
    names = topics.embed_texts(list(NAME), "minilm", cache=False)
    rows = []
    for k, (theme, pattern) in enumerate(NAME.items()):
        phrase = text.str.contains(pattern).to_numpy()
        sim = emb @ names[k]
        order = [i for i in np.argsort(-sim) if not phrase[i]][:150]
        similar = np.zeros(len(corpus), bool)
        similar[order] = True
        adjacent = text.str.contains(ADJACENT[theme]).to_numpy() & ~phrase & ~similar
        rest = ~phrase & ~similar & ~adjacent
        take = {"phrase": min(ASK["phrase"], int(phrase.sum()))}
        short = ASK["phrase"] - take["phrase"]
        take["similar"] = ASK["similar"] + (short + 1) // 2
        take["adjacent"] = ASK["adjacent"] + short // 2
        take["random"] = ASK["random"]
        picks = {
            "phrase": rng.choice(np.flatnonzero(phrase), take["phrase"], replace=False),
            "similar": np.concatenate([rng.choice(order[:30], take["similar"] // 2, replace=False),
                                       rng.choice(order[30:], take["similar"] - take["similar"] // 2, replace=False)]),
            "adjacent": rng.choice(np.flatnonzero(adjacent), take["adjacent"], replace=False),
            "random": rng.choice(np.flatnonzero(rest), take["random"], replace=False),
        }
        sizes = {"phrase": int(phrase.sum()), "similar": 150, "adjacent": int(adjacent.sum()), "random": int(rest.sum())}
        for stratum, idx in picks.items():
            for i in idx:
                rows.append({"theme": theme, "id": corpus["doc_id"].iat[i], "title": corpus["title"].iat[i],
                             "stratum": stratum, "stratum_size": sizes[stratum], "abstract": corpus["abstract"].iat[i]})
    out = pd.DataFrame(rows)
    # Shuffle within each theme so that the labeller does not read the strata in order.
    out["_order"] = rng.permutation(len(out))
    out = out.sort_values(["theme", "_order"], key=lambda col: col.map(list(NAME).index) if col.name == "theme" else col)
    out = out.drop(columns="_order")
    out.to_csv(sys.stdout, index=False)


if __name__ == "__main__":
    main()
