"""Choose names by a rule fitted across venue-years, not hand-set? (issue 37, round 4)

    python benchmarks/names_ranker.py dump ICLR:2023 NeurIPS:2022 ... [--together]  # minutes each
    python benchmarks/names_ranker.py evaluate                           # seconds
    python benchmarks/names_ranker.py rescore                            # round 4's picks, today's judge

The naming step (:func:`topics.naming.fields.name_fields`) picks each topic's and area's
name among candidates with measured properties by hand-set bars and an order of steps.
This script asks whether a small ranker fitted on those properties picks better, held out
twice over:

* ``dump``: for each venue-year of ``../shared/data/bigcorpus.parquet`` given, with the
  keyphrase counts and keyword profiles built **without** it (as
  ``benchmarks/names_keywords.py`` builds them, kept in ``.work``), its static fit (10
  consensus runs, seed 0, kept in ``.work``) is named by today's rule, and every
  candidate of every topic and area is written with its features and its label: whether
  it matches one of the group's 8 most chosen author keywords (strictly, as
  :func:`names_keywords.score` matches). Candidates: the group's own name and its parts
  (:func:`topics.naming.labels.name_groups`), its 15 best c-TF-IDF terms, the 15 author
  keywords the profiles expect most of it (F1 of its share and its share of the
  choosers) and every keyword of the profiles that a quarter of its papers write; and
  today's name. Plain BERTopic's name (the first c-TF-IDF word with BERTopic's default
  vectorizer) is scored beside them. Writes ``.work/candidates-<venue>-<year>.parquet``.
* ``evaluate``: leave one venue-year out: a logistic regression over the features
  (:data:`FEATURES`, standardised) is fitted on the candidates of the other venue-years,
  and each group of the held-out one takes its best-scored candidate that passes the
  hard constraints (:func:`allowed`), areas first, one name per group, a topic not
  taking its area's name unless it holds more than half of the area. Prints, per
  venue-year, topics and areas in their top-8 keywords by today's rule, the ranker, plain
  BERTopic and the best any candidate could do, and the pooled figure with a bootstrap
  interval (over venue-years' groups); writes ``results/names-ranker-round5.json``
  (round 4's, without the rivals below, is ``results/names-ranker.json``).

Round 5 measures one more signal beside the profiles: the **embedding contrast**
(:func:`contrast`), the cosine of a keyword's (or candidate's) static vector to the
group's centroid less its mean cosine to the other groups' centroids. It enters (a) the
ranker as a 17th feature (:data:`CONTRAST_FEATURES`, the same protocol), and (b) today's
rule in place of the profiles' F-measure as the order in which (group, keyword) pairs are
taken (:func:`contrast_rule`: the same bars). ``rescore`` judges round 4's picks again with
today's ``names_keywords.matches`` (``results/names-ranker-round4-rescored.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
WORK = HERE / ".work"
RESULTS = HERE / "results"
DATA = Path(os.environ.get("TOPICS_BIGCORPUS", HERE.parent.parent / "shared" / "data" / "bigcorpus.parquet"))

#: The features the ranker reads, one row per (group, candidate).
FEATURES = (
    "coverage", "precision", "name_fit", "expected", "expected_precision", "keyword_fit", "log_lift",
    "keyphraseness", "keyphraseness_unknown", "in_profiles", "words", "ctfidf", "own_name", "transferred",
    "acronym", "area",
)
#: Round 5: the same and the candidate's embedding contrast (:func:`contrast`).
CONTRAST_FEATURES = FEATURES + ("embedding_contrast",)
#: The names compared, each a column of the picks: ``<who>`` the name, ``<who>_hit`` whether
#: it is in the group's top-8 keywords.
RIVALS = ("ranker", "contrast_ranker", "contrast_rule")


def _uses_data() -> None:
    import keyphrases
    import keyword_profiles
    import names_keywords

    for module in (keyphrases, keyword_profiles, names_keywords):
        module.BIGCORPUS = DATA


def held_out(exclude: list[tuple[str, int]], kind: str) -> Path:
    """Keyphrase counts or keyword profiles (``kind``) built without the venue-years
    ``exclude``, kept in :data:`WORK`: ``names_keywords.py``'s files for one venue-year;
    for several, one build that leaves them all out (each takes minutes)."""
    import names_keywords as nk
    from keyphrases import counts
    from keyword_profiles import profiles

    if len(exclude) == 1:
        return nk.held_out(*exclude[0], kind)
    path = WORK / (f"{kind}-" + "+".join(f"{v}:{y}" for v, y in exclude) + ".tsv.gz")
    if not path.exists():
        WORK.mkdir(exist_ok=True)
        (counts if kind == "keyphrases" else profiles)(exclude).write(path)
    return path


def fitted(venue: str, year: int, exclude: list[tuple[str, int]] | None = None):
    """The held-out static fit of ``venue`` ``year`` (10 runs, seed 0), with the keyphrase
    counts and keyword profiles built without it (and without the rest of ``exclude``)
    in force (environment variables)."""
    import tempfile

    import topics
    from topics.naming.fields import ENVIRON as PROFILES
    from topics.naming.keyphrases import ENVIRON
    from topics.store import save, saved_analysis

    exclude = exclude or [(venue, year)]
    os.environ[ENVIRON] = str(held_out(exclude, "keyphrases"))
    os.environ[PROFILES] = str(held_out(exclude, "profiles"))
    frame = pd.read_parquet(DATA)
    frame = frame[(frame.venue == venue) & (frame.year == year)].reset_index(drop=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{venue.lower()}{year}.parquet"
        frame.to_parquet(path)
        corpus = topics.read_corpus(path)
        kept = WORK / f"fit-{venue.lower()}-{year}-static-0-10runs"
        analysis = saved_analysis(kept, corpus, backend="static", random_state=0)
        if analysis is None:
            model = topics.TopicModel(n_runs=10, random_state=0)
            analysis = topics.analyze(corpus, embedder="static", model=model, random_state=0)
            save(analysis, kept, about={"backend": "static"})
    return analysis, corpus


class Groups:
    """One venue-year's fit, its papers' keywords and what the naming step knows of it."""

    def __init__(self, analysis, corpus):
        import names_keywords as nk
        from sklearn.feature_extraction.text import CountVectorizer

        from topics.clustering.model import rebuild_bertopic
        from topics.naming.coverage import PhraseIndex
        from topics.naming.fields import name_fields, reference
        from topics.naming.labels import class_terms, name_groups
        from topics.naming.terms import PhraseAnalyzer
        import topics

        model = analysis.model
        self.texts, self.labels, self.acronyms = model.fit_texts_, np.asarray(model.labels_), model.acronyms_
        self.areas = np.array([model.topic_areas_.get(int(t), -1) for t in self.labels])
        self.topic_areas = dict(model.topic_areas_)
        self.keywords = [nk.keyword_keys(k, self.acronyms) for k in corpus["keywords"]]
        bertopic = rebuild_bertopic(model)
        self.terms = {int(t): [(w, float(x)) for w, x in ts if w] for t, ts in bertopic.get_topics().items()}
        analyzer = PhraseAnalyzer(acronyms=self.acronyms, remember=True)
        self.index = PhraseIndex(self.texts, self.acronyms)
        self.words = name_groups(self.terms, self.labels, self.topic_areas, self.texts, analyzer=analyzer, index=self.index)
        self.rule = name_fields(self.terms, self.labels, self.topic_areas, self.texts, analyzer=analyzer, index=self.index, words=self.words)
        inside = self.areas != -1
        self.area_terms = class_terms([self.texts[i] for i in np.flatnonzero(inside)], self.areas[inside], analyzer)
        self.bertopic = nk.first_terms(bertopic, self.texts, self.labels, vectorizer=CountVectorizer(stop_words="english"))
        self.profiles = reference()
        self.chances = self.profiles.predict(self.texts)
        self.embedder = topics.get_embedder("static")  # the held-out fits' backend
        self.vectors = np.asarray(model.embeddings_, dtype=np.float32)
        self._vectors: dict[str, np.ndarray] = {}
        self.keyword_vectors = self.embed([spelled(k) for k in self.profiles.keywords])
        self.contrast_rule = contrast_rule(self, analyzer)

    def embed(self, strings: list[str]) -> np.ndarray:
        """The static vectors of ``strings`` (each embedded once)."""
        new = sorted({s for s in strings if s not in self._vectors})
        if new:
            self._vectors.update(zip(new, self.embedder.encode(new)))
        return np.vstack([self._vectors[s] for s in strings]) if strings else np.zeros((0, self.vectors.shape[1]), dtype=np.float32)

    def members(self, level: str, g: int) -> np.ndarray:
        return (self.labels if level == "topic" else self.areas) == g

    def top8(self, members: np.ndarray) -> list[str]:
        import names_keywords as nk

        return nk.top_keywords([self.keywords[i] for i in np.flatnonzero(members) if self.keywords[i]], 8)

    def hit(self, name: str, top: list[str]) -> bool:
        import names_keywords as nk

        return any(nk.matches(p, k) for p in nk.name_keys(name, self.acronyms) for k in top)


def contrast(vectors: np.ndarray, labels: np.ndarray, groups, targets: np.ndarray) -> np.ndarray:
    """How much nearer each of ``targets`` (vectors of keywords or names) is to each of
    ``groups``' centroid than to the other groups' (groups x targets): the cosine to the
    group's centroid less the mean cosine to the centroids of every other group of
    ``labels`` (-1 left out), a class-based weighting like c-TF-IDF's, in the embedding
    space. Centroids are the means of the papers' unit vectors."""
    from topics.vectors import unit_rows

    labels = np.asarray(labels)
    every = sorted(set(labels.tolist()) - {-1})
    unit = unit_rows(vectors)
    centroids = unit_rows(np.vstack([unit[labels == g].mean(axis=0) for g in every]))
    cos = centroids @ unit_rows(targets).T
    others = (cos.sum(axis=0, keepdims=True) - cos) / max(len(every) - 1, 1)
    row = {g: i for i, g in enumerate(every)}
    return (cos - others)[[row[g] for g in groups]]


def spelled(keyword: str) -> str:
    """A profile keyword as its authors spell it ("bias" for the key "bia"), to be embedded."""
    from topics.naming.fields import spellings

    return spellings().get(keyword, keyword)


def contrast_rule(groups: Groups, analyzer) -> tuple[dict, dict]:
    """Today's rule (:func:`topics.naming.fields.name_fields`) with the keywords of each
    call ordered by :func:`contrast` instead of the profiles' F-measure: the same bars
    (expected choosers, transfer, what may name a group), another order."""
    from topics.naming import fields

    original = fields.field_names

    def by_contrast(chances, labels, names, index, profiles, **options):
        score = contrast(groups.vectors, labels, names, groups.keyword_vectors)
        return original(chances, labels, names, index, profiles, score=score, **options)

    fields.field_names = by_contrast
    try:
        return fields.name_fields(groups.terms, groups.labels, groups.topic_areas, groups.texts, analyzer=analyzer, index=groups.index, words=groups.words)
    finally:
        fields.field_names = original


def candidates(groups: Groups, level: str, g: int, written: set[str]) -> list[tuple[str, str]]:
    """``(candidate, source)`` pairs of one group, each candidate once (first source kept)."""
    from topics.naming.coverage import COMPOUND, name_parts, phrase_key

    words = groups.words[0 if level == "topic" else 1][g]
    rule = (groups.rule[0] if level == "topic" else groups.rule[1])[g].name
    terms = (groups.terms if level == "topic" else groups.area_terms).get(g, [])
    out = [(words, "own name")] + [(p, "own name part") for p in name_parts(words)] if COMPOUND in words else [(words, "own name")]
    out += [(t, "c-TF-IDF") for t, _ in terms[:15]]
    out += [(k, "profiles") for k in _expected_best(groups, level, g)]
    out += [(k, "written keyword") for k in sorted(written)]
    out += [(rule, "today's rule")]
    seen, kept = set(), []
    for name, source in out:
        key = phrase_key(name) if COMPOUND not in name else name
        if key and key not in seen:
            seen.add(key)
            kept.append((name, source))
    return kept


def _expected_best(groups: Groups, level: str, g: int, n: int = 15) -> list[str]:
    members = groups.members(level, g)
    expected = groups.chances[members].sum(axis=0)
    recall = expected / max(members.sum(), 1)
    precision = expected / np.maximum(groups.chances.sum(axis=0), 1e-12)
    fit = 2 * recall * precision / np.maximum(recall + precision, 1e-12)
    fit[recall < 0.02] = 0
    best = np.argsort(-fit, kind="stable")[:n]
    return [groups.profiles.keywords[k] for k in best if fit[k] > 0]


def features(groups: Groups, level: str, g: int, name: str, source: str) -> dict:
    """The measured properties of ``name`` as a name of the group (one row of the dump)."""
    from topics.naming.coverage import name_parts, name_precision, phrase_key
    from topics.naming.keyphrases import reference as keyphraseness
    from topics.naming.labels import is_broad, is_vague, name_fit, named

    members = groups.members(level, g)
    vocabulary = {k: j for j, k in enumerate(groups.profiles.keywords)}
    key = phrase_key(name)
    k = vocabulary.get(key)
    size = max(int(members.sum()), 1)
    if k is not None:
        inside = float(groups.chances[members, k].sum())
        total = float(groups.chances[:, k].sum())
        expected, expected_precision = inside / size, inside / max(total, 1e-12)
        rest = (total - inside) / max(len(groups.texts) - size, 1)
    else:
        expected = expected_precision = rest = 0.0
    kw_fit = 2 * expected * expected_precision / max(expected + expected_precision, 1e-12)
    chosen = keyphraseness()(name) if len(name_parts(name)) == 1 else None
    terms = [t for t, _ in (groups.terms if level == "topic" else groups.area_terms).get(g, [])]
    rank = next((i for i, t in enumerate(terms) if phrase_key(t) == key), None)
    the_name = named(groups.index, name, members, keyword=k is not None)
    vector = groups.embed([spelled(key) if k is not None else name])
    near = float(contrast(groups.vectors, groups.labels if level == "topic" else groups.areas, [g], vector)[0, 0])
    parts = name_parts(name)
    words_name = groups.words[0 if level == "topic" else 1][g]
    return {
        "coverage": the_name.coverage, "precision": name_precision(groups.index, name, members),
        "name_fit": name_fit(groups.index, name, members), "expected": expected, "expected_precision": expected_precision,
        "keyword_fit": kw_fit, "log_lift": float(np.log((expected + 1e-3) / (rest + 1e-3))),
        "keyphraseness": chosen if chosen is not None else 0.0, "keyphraseness_unknown": float(chosen is None),
        "in_profiles": float(k is not None), "words": float(min(len(key.split()), 3)),
        "ctfidf": 1.0 / (rank + 1) if rank is not None else 0.0, "own_name": float(name == words_name),
        "transferred": float(the_name.transferred), "acronym": float(key in {phrase_key(v) for v in groups.acronyms.values()}),
        "area": float(level == "area"), "embedding_contrast": near,
        "compound": len(parts) > 1,
        "vague": any(is_vague(p) or (" " not in p and is_broad(p)) for p in parts),
        "joined": " and " in f" {key} ",
        "source": source,
    }


def dump(venue: str, year: int, exclude: list[tuple[str, int]] | None = None) -> pd.DataFrame:
    """Every candidate of every topic and area of the venue-year, its features and label
    (``exclude``: :func:`fitted`'s)."""
    from topics.naming.coverage import coverage
    from topics.naming.labels import FLOOR

    analysis, corpus = fitted(venue, year, exclude)
    groups = Groups(analysis, corpus)
    rows = []
    for level, names in (("area", groups.rule[1]), ("topic", groups.rule[0])):
        for g in sorted(n for n in names if n != -1):
            members = groups.members(level, g)
            top = groups.top8(members)
            written = {k for k in groups.profiles.keywords if coverage(groups.index, k, members) >= FLOOR and (groups.index.uses(k) & members).sum() >= 2}
            area = groups.topic_areas.get(g, -1) if level == "topic" else -1
            share = float((groups.labels[groups.areas == area] == g).mean()) if area != -1 else 0.0
            context = {
                "venue": venue, "year": year, "level": level, "group": int(g), "papers": int(members.sum()),
                "with_keywords": int(sum(bool(groups.keywords[i]) for i in np.flatnonzero(members))),
                "parent": int(area), "share_of_parent": share, "top8": "; ".join(top),
                "rule_name": (groups.rule[0] if level == "topic" else groups.rule[1])[g].name,
                "bertopic_name": groups.bertopic.get(int(g), "") if level == "topic" else "",
            }
            context["contrast_rule_name"] = (groups.contrast_rule[0] if level == "topic" else groups.contrast_rule[1])[g].name
            context["contrast_rule_hit"] = groups.hit(context["contrast_rule_name"], top)
            context["rule_hit"] = groups.hit(context["rule_name"], top)
            context["bertopic_hit"] = groups.hit(context["bertopic_name"], top) if context["bertopic_name"] else False
            for name, source in candidates(groups, level, g, written):
                rows.append({**context, "candidate": name, **features(groups, level, g, name, source), "label": groups.hit(name, top)})
    return pd.DataFrame(rows)


def weak(frame: pd.DataFrame) -> np.ndarray:
    """:func:`topics.naming.fields.weak_name` of each candidate, judged by the keyphrase
    counts its venue-year was named with (built without it): "A / B", a vague or broad
    word, or one that fewer than a tenth of the papers writing it choose as a keyword
    ("neural network", "machine learning", "classification")."""
    from topics.naming.fields import weak_name
    from topics.naming.keyphrases import ENVIRON

    out = np.zeros(len(frame), dtype=bool)
    for (venue, year), rows in frame.groupby(["venue", "year"]).indices.items():
        os.environ[ENVIRON] = str(_built_without(venue, year, "keyphrases"))
        out[rows] = [weak_name(c) for c in frame["candidate"].to_numpy()[rows]]
    os.environ.pop(ENVIRON, None)
    return out


def _built_without(venue: str, year: int, kind: str) -> Path:
    """The file of keyphrase counts or profiles (``kind``) in :data:`WORK` built without ``venue`` ``year``."""
    alone = WORK / f"{kind}-{venue}:{year}.tsv.gz"
    if alone.exists():
        return alone
    return next(p for p in WORK.glob(f"{kind}-*+*.tsv.gz") if f"{venue}:{year}" in p.name.split("-", 1)[1].removesuffix(".tsv.gz").split("+"))


def chosen_by(frame: pd.DataFrame) -> np.ndarray:
    """How many papers of the reference corpus (its venue-year left out) chose each
    candidate as a keyword (0 where the profiles do not hold it): how broad a field it is."""
    from topics.naming.coverage import phrase_key
    from topics.naming.fields import KeywordProfiles

    out = np.zeros(len(frame))
    for (venue, year), rows in frame.groupby(["venue", "year"]).indices.items():
        profiles = KeywordProfiles.read(_built_without(venue, year, "profiles"))
        papers = dict(zip(profiles.keywords, profiles.papers.tolist()))
        out[rows] = [papers.get(phrase_key(c), 0) for c in frame["candidate"].to_numpy()[rows]]
    return out


def allowed(frame: pd.DataFrame) -> np.ndarray:
    """The hard constraints a candidate must pass: not weak (:func:`weak`: no "A / B",
    which names a group only where nothing else is left, flagged mixed; no vague or broad
    word; no word authors seldom choose as a keyword), no keywords joined by "and", a name
    its papers do not write for a quarter of them only as a marked transferred keyword a
    twentieth of them are expected to choose."""
    own_written = frame["transferred"].eq(0) & ((frame["in_profiles"] == 1) | (frame["coverage"] >= 0.25))
    moved = frame["transferred"].eq(1) & (frame["expected"] >= 0.05)
    return (~frame["weak"] & ~frame["vague"] & ~frame["joined"] & ~frame["compound"] & (own_written | moved)).to_numpy()


def choose(frame: pd.DataFrame, scores: np.ndarray) -> dict[tuple[str, int], pd.Series]:
    """Each group's name: its best-scored allowed candidate, areas first, one group per
    name, a topic not taking its area's name unless it holds more than half of the area;
    a group with none allowed keeps its own name (:func:`topics.naming.labels.name_groups`)."""
    from topics.naming.coverage import phrase_key

    frame = frame.assign(score=np.where(allowed(frame), scores, -np.inf))
    chosen: dict[tuple[str, int], pd.Series] = {}
    for level in ("area", "topic"):
        part = frame[frame.level == level].sort_values(["score", "group", "candidate"], ascending=[False, True, True])
        taken: set[str] = set()
        for _, row in part.iterrows():
            key = (level, int(row.group))
            name = phrase_key(row.candidate)
            parent = chosen.get(("area", int(row.parent)))
            banned = parent is not None and row.share_of_parent <= 0.5 and phrase_key(parent.candidate) == name
            if key in chosen or name in taken or banned or not np.isfinite(row.score):
                continue
            chosen[key] = row
            taken.add(name)
        for g in part.group.unique():
            if (level, int(g)) not in chosen:  # nothing allowed is left: its own name, flagged mixed if "A / B"
                own = part[(part.group == g) & (part.source == "own name")]
                chosen[(level, int(g))] = own.iloc[0] if len(own) else part[part.group == g].iloc[0]
    return chosen


def fit_ranker(frame: pd.DataFrame, features: tuple[str, ...] = FEATURES):
    """A logistic regression over ``features`` (standardised), on allowed candidates."""
    from sklearn.linear_model import LogisticRegression

    train = frame[allowed(frame)]
    X = train[list(features)].to_numpy(dtype=float)
    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-9
    model = LogisticRegression(C=1.0, max_iter=2000).fit((X - mean) / scale, train["label"].to_numpy())
    return mean, scale, model.coef_[0], float(model.intercept_[0]), features


def ranker_scores(frame: pd.DataFrame, ranker) -> np.ndarray:
    mean, scale, coef, intercept, features = ranker
    return ((frame[list(features)].to_numpy(dtype=float) - mean) / scale) @ coef + intercept


def evaluate(frames: dict[str, pd.DataFrame], *, seed: int = 0) -> dict:
    """Leave one venue-year out: per venue-year and pooled, the share of topics and areas
    whose name is in their top-8 keywords by today's rule, the ranker, plain BERTopic, and
    the best candidate (the ceiling)."""
    # today's name is a candidate only where another source proposes it too: the ranker
    # must stand without the rule it would replace
    frames = {k: f[f.source != "today's rule"].reset_index(drop=True) for k, f in frames.items()}
    frames = {k: f.assign(weak=weak(f)) for k, f in frames.items()}
    per, picks = {}, []
    for held, test in frames.items():
        train = pd.concat([f for k, f in frames.items() if k != held], ignore_index=True)
        chosen = choose(test, ranker_scores(test, fit_ranker(train)))
        with_contrast = choose(test, ranker_scores(test, fit_ranker(train, CONTRAST_FEATURES)))
        for (level, g), row in chosen.items():
            group = test[(test.level == level) & (test.group == g)]
            other = with_contrast[(level, g)]
            picks.append({
                "venue_year": held, "level": level, "group": g, "papers": int(row.papers), "top8": row.top8,
                "rule": row.rule_name, "rule_hit": bool(row.rule_hit), "ranker": row.candidate, "ranker_hit": bool(row.label),
                "ranker_transferred": bool(row.transferred), "venue": row.venue, "year": int(row.year), "bertopic": row.bertopic_name, "bertopic_hit": bool(row.bertopic_hit),
                "contrast_ranker": other.candidate, "contrast_ranker_hit": bool(other.label),
                "contrast_rule": row.contrast_rule_name, "contrast_rule_hit": bool(row.contrast_rule_hit),
                "ceiling": bool(group.label.any()), "ceiling_allowed": bool(group[allowed(group)].label.any()),
            })
    picks = pd.DataFrame(picks)
    for who in ("rule", *RIVALS):
        picks[f"{who}_chosen_by"] = chosen_by(picks.assign(candidate=picks[who]))
    for held, part in picks.groupby("venue_year", sort=False):
        per[held] = {level: _shares(p) for level, p in part.groupby("level")}
    pooled = {level: _shares(p, seed=seed, interval=True) for level, p in picks.groupby("level")}
    every = pd.concat(frames.values(), ignore_index=True)
    return {"per_venue_year": per, "pooled": pooled, "picks": picks.to_dict("records"),
            "coefficients": dict(zip(FEATURES, fit_ranker(every)[2].round(3).tolist())),
            "coefficients_with_contrast": dict(zip(CONTRAST_FEATURES, fit_ranker(every, CONTRAST_FEATURES)[2].round(3).tolist()))}


def _shares(part: pd.DataFrame, *, seed: int = 0, interval: bool = False) -> dict:
    out = {"groups": len(part)}
    rivals = [who for who in RIVALS if f"{who}_hit" in part]  # round 4's picks: the ranker alone
    for column in ("rule_hit", *(f"{who}_hit" for who in rivals), "bertopic_hit", "ceiling", "ceiling_allowed"):
        out[column] = float(part[column].mean())
    for who in ("rule", *rivals):  # how broad the names are: the median reference papers that chose them
        out[f"{who}_chosen_by_median"] = float(part[f"{who}_chosen_by"].median())
    for who in rivals:
        prefix = "" if who == "ranker" else f"{who}_"
        out[f"{who}_better"] = int((part[f"{who}_hit"] & ~part.rule_hit).sum())
        out[f"{who}_worse"] = int((~part[f"{who}_hit"] & part.rule_hit).sum())
        if interval:  # the difference rival - rule, bootstrap over groups within venue-years
            out |= {f"{prefix}{k}": v for k, v in _bootstrap(part, f"{who}_hit", seed=seed).items()}
    if interval:
        rng = np.random.default_rng(seed)
        strata = [np.flatnonzero(part.venue_year.to_numpy() == v) for v in part.venue_year.unique()]
        for column in ("rule_hit", *(f"{who}_hit" for who in rivals)):
            values = part[column].astype(float).to_numpy()
            boots = [np.mean(np.concatenate([values[rng.choice(s, len(s))] for s in strata])) for _ in range(2000)]
            out[f"{column}_95"] = [float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))]
    return out


def _bootstrap(part: pd.DataFrame, column: str, *, seed: int) -> dict:
    """``column`` less the rule's hits: the mean and its 95 % bootstrap interval (2,000
    draws of groups, resampled within venue-years)."""
    rng = np.random.default_rng(seed)
    diff = (part[column].astype(float) - part.rule_hit.astype(float)).to_numpy()
    strata = [np.flatnonzero(part.venue_year.to_numpy() == v) for v in part.venue_year.unique()]
    boots = [np.mean(np.concatenate([diff[rng.choice(s, len(s))] for s in strata])) for _ in range(2000)]
    return {"difference": float(diff.mean()), "difference_95": [float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))]}


def rescore(result: dict, *, seed: int = 0) -> dict:
    """``result``'s picks (names and top-8 keywords) judged again by today's
    ``names_keywords.matches``, and its tables recomputed. The fits' acronyms are not in
    the picks, so names are read without them: the judge of round 4 so reproduces all of
    round 4's recorded hits."""
    import names_keywords as nk

    picks = pd.DataFrame(result["picks"])
    for who in ("rule", "bertopic", *RIVALS):
        if who in picks:
            picks[f"{who}_hit"] = [
                bool(name) and any(nk.matches(k, t) for k in nk.name_keys(name, {}) for t in (top.split("; ") if top else []))
                for name, top in zip(picks[who], picks["top8"])
            ]
    per = {held: {level: _shares(p) for level, p in part.groupby("level")} for held, part in picks.groupby("venue_year", sort=False)}
    pooled = {level: _shares(p, seed=seed, interval=True) for level, p in picks.groupby("level")}
    return {"per_venue_year": per, "pooled": pooled, "picks": picks.to_dict("records")}


def table(result: dict) -> str:
    """Per venue-year and pooled, topics then areas in their top-8 keywords: today's rule,
    the rule ordered by the embedding contrast, round 4's ranker, the ranker with the
    contrast, plain BERTopic (topics) and the best candidate."""
    who = ("rule", "contrast_rule", "ranker", "contrast_ranker")
    head = "today's rule | rule by contrast | ranker (round 4) | ranker + contrast"
    lines = [f"| venue-year | topics | {head} | plain BERTopic | best candidate | areas | {head} |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    rows = {**result["per_venue_year"], "pooled": result["pooled"]}
    for held, s in rows.items():
        t, a = s["topic"], s.get("area", {})
        cells = " | ".join(f"{t[f'{w}_hit']:.0%}" if f"{w}_hit" in t else "" for w in who)
        area_cells = " | ".join(f"{a[f'{w}_hit']:.0%}" if f"{w}_hit" in a else "" for w in who)
        lines.append(f"| {held} | {t['groups']} | {cells} | {t['bertopic_hit']:.0%} | {t['ceiling']:.0%} | {a.get('groups', 0)} | {area_cells} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    global DATA
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["dump", "evaluate", "rescore"])
    parser.add_argument("venue_years", nargs="*", metavar="VENUE:YEAR")
    parser.add_argument("--together", action="store_true", help="one build of counts and profiles leaves all the venue-years out (else one each)")
    parser.add_argument("--data", type=Path, default=DATA, help=f"the big corpus (default {DATA})")
    parser.add_argument("--tag", default="", help="evaluate: results/names-ranker-round5-TAG.json")
    args = parser.parse_args(argv)
    if args.step == "dump":
        DATA = args.data
        _uses_data()
        pairs = [(item.split(":")[0], int(item.split(":")[1])) for item in args.venue_years]
        for venue, year in pairs:
            frame = dump(venue, year, pairs if args.together else None)
            frame.to_parquet(WORK / f"candidates-{venue.lower()}-{year}.parquet")
            print(f"{venue} {year}: written", flush=True)
        return 0
    if args.step == "rescore":  # round 4's picks under today's judge
        result = rescore(json.loads((RESULTS / "names-ranker.json").read_text()))
        (RESULTS / "names-ranker-round4-rescored.json").write_text(json.dumps(result, indent=1, default=float) + "\n")
        print(table(result))
        print(json.dumps(result["pooled"], indent=1))
        return 0
    paths = sorted(WORK.glob("candidates-*.parquet"))
    frames = {}
    for path in paths:
        frame = pd.read_parquet(path)
        frames[f"{frame.venue.iloc[0]} {frame.year.iloc[0]}"] = frame
    if args.venue_years:  # only these (round 5 chose its variant on four before the other six were seen)
        frames = {k: f for k, f in frames.items() if k.replace(" ", ":") in args.venue_years}
    result = evaluate(frames)
    RESULTS.mkdir(exist_ok=True)
    tag = f"-{args.tag}" if args.tag else ""
    (RESULTS / f"names-ranker-round5{tag}.json").write_text(json.dumps(result, indent=1, default=float) + "\n")
    print(table(result))
    print(json.dumps({k: v for k, v in result.items() if k in ("pooled", "coefficients")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
