"""A saved analysis: save -> load gives the same tables byte for byte, and a damaged,
foreign or pickled folder is refused with a one-line error."""

from __future__ import annotations

import filecmp
import json
import shutil

import numpy as np
import pandas as pd
import pytest

import topics
from topics.pipeline import Settings
from topics.store import MANIFEST, StoreError, corpus_hash, load, read_manifest, save


@pytest.fixture(scope="module")
def fitted(sample_corpus):
    """The bundled sample with a stability refit and a theme, so that every table is there."""
    return topics.analyze(sample_corpus, embedder="hashing", random_state=0, cache=False,
                          stability_seeds=[1], themes=["optimal transport"])


@pytest.fixture(scope="module")
def saved(fitted, tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "model"
    save(fitted, path, about={"dataset": "bundled sample", "backend": "hashing"})
    return path


@pytest.fixture
def copy(saved, tmp_path):
    """A copy of the saved folder to damage."""
    return shutil.copytree(saved, tmp_path / "model")


def test_loaded_analysis_writes_the_same_tables_byte_for_byte(fitted, saved, tmp_path):
    loaded = load(saved)
    before = topics.write_tables(fitted, tmp_path / "before")
    after = topics.write_tables(loaded, tmp_path / "after")
    assert sorted(before) == sorted(after) and {"stability", "themes", "theme_papers", "areas"} <= set(before)
    for name, path in before.items():
        assert filecmp.cmp(path, after[name], shallow=False), name


def test_loaded_analysis_holds_what_was_fitted(fitted, saved):
    loaded = load(saved)
    model, again = fitted.model, loaded.model
    np.testing.assert_array_equal(again.labels_, model.labels_)
    np.testing.assert_array_equal(again.confidence_, model.confidence_)
    np.testing.assert_array_equal(again.runs_, model.runs_)
    np.testing.assert_array_equal(loaded.embeddings, fitted.embeddings)
    np.testing.assert_array_equal(loaded.coords, fitted.coords)
    assert again.embeddings_ is loaded.embeddings  # one file, one array
    assert again.topic_names_ == model.topic_names_ and again.topic_terms_ == model.topic_terms_
    assert again.topic_areas_ == model.topic_areas_ and again.area_names_ == model.area_names_
    for t, centroid in model.topic_embeddings_.items():
        np.testing.assert_array_equal(again.topic_embeddings_[t], centroid)
    assert again.get_params() == model.get_params() and again.params_ == model.params_
    assert again.texts_ == model.texts_ and again.fit_texts_ == model.fit_texts_
    assert loaded.settings == fitted.settings  # int keys stay ints
    assert type(loaded.comparison) is type(fitted.comparison)
    assert loaded.comparison.groups == fitted.comparison.groups and loaded.comparison.sizes == fitted.comparison.sizes
    pd.testing.assert_frame_equal(loaded.comparison.table, fitted.comparison.table, check_exact=True)
    pd.testing.assert_frame_equal(loaded.documents, fitted.documents, check_exact=True)
    pd.testing.assert_frame_equal(loaded.corpus, fitted.corpus, check_exact=True)
    assert loaded.themes.themes == fitted.themes.themes
    assert again.bertopic_ is None


def test_settings_are_saved_as_the_flat_object_older_folders_hold(fitted, saved):
    """``Settings`` is written as the flat JSON object the 25-key dict was (the model's
    parameters beside the other keys, no ``params`` key), so a folder saved before it
    loads the same: the object read back is what the old dict held, key for key."""
    document = json.loads((saved / "analysis.json").read_text(encoding="utf-8"))
    flat = document["settings"]
    assert "params" not in flat and "update" not in flat
    assert flat["random_state"] == 0 and flat["n_runs"] == fitted.model.params_["n_runs"] and flat["by"] == "year"
    assert list(flat) == list(fitted.settings.as_dict())
    loaded = load(saved).settings
    assert isinstance(loaded, Settings) and loaded == fitted.settings
    assert loaded.params == {k: v for k, v in fitted.model.params_.items() if k != "random_state"}


def test_a_loaded_model_assigns_and_renames_like_the_fitted_one(fitted, saved, sample_corpus):
    loaded = load(saved)
    pd.testing.assert_frame_equal(
        loaded.model.transform(sample_corpus, loaded.embeddings), fitted.model.transform(sample_corpus, fitted.embeddings)
    )
    first = loaded.model.topics[-1]
    assert loaded.model.rename({first: "mine"}).topic_names_[first] == "mine"


def test_manifest_records_versions_hash_and_every_file(fitted, saved):
    manifest = read_manifest(saved)
    assert manifest["format_version"] == 1 and manifest["topics_version"]
    assert manifest["corpus"] == {"n_documents": len(fitted.corpus), "sha256": corpus_hash(fitted.corpus)}
    assert manifest["about"]["dataset"] == "bundled sample"
    on_disk = {p.name for p in saved.iterdir()} - {MANIFEST}
    assert set(manifest["files"]) == on_disk
    assert all(name.endswith((".json", ".npy", ".parquet")) for name in on_disk)


def test_corpus_hash_sees_any_change(sample_corpus):
    changed = sample_corpus.copy()
    changed.loc[3, "abstract"] += " "
    assert corpus_hash(sample_corpus) == corpus_hash(sample_corpus.copy())
    assert corpus_hash(changed) != corpus_hash(sample_corpus)


def test_a_folder_with_a_pickle_is_refused(copy, monkeypatch):
    import pickle

    (copy / "extra.pkl").write_bytes(pickle.dumps({"x": 1}))
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("a pickle was loaded"))
    monkeypatch.setattr(pickle, "load", lambda *a, **k: pytest.fail("a pickle was loaded"))
    with pytest.raises(StoreError, match=r"extra\.pkl, a pickle-like file .* refused"):
        load(copy)


def test_an_array_of_objects_is_not_saved(fitted, tmp_path):
    import dataclasses

    odd = dataclasses.replace(fitted, coords=np.array([object()] * 3))
    with pytest.raises(StoreError, match="coords: an array of Python objects"):
        save(odd, tmp_path / "odd")
    assert not (tmp_path / "odd").exists() and not list(tmp_path.iterdir())  # nothing half-written


def test_a_truncated_file_is_refused(copy):
    path = copy / "embeddings.npy"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(StoreError, match=r"embeddings\.npy is \d+ bytes, \d+ when saved: truncated"):
        load(copy)


def test_a_hand_edited_file_is_refused(copy):
    path = copy / "topics.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other content
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"topics\.parquet was changed after it was saved"):
        load(copy)


def test_an_edited_document_is_refused(copy):
    path = copy / "analysis.json"
    path.write_text(path.read_text().replace('"random_state": 0', '"random_state": 7', 1))
    with pytest.raises(StoreError, match="analysis.json"):
        load(copy)


def test_a_missing_file_is_refused(copy):
    (copy / "coords.npy").unlink()
    with pytest.raises(StoreError, match=r"coords\.npy is missing"):
        load(copy)


@pytest.mark.parametrize(
    "edit, message",
    [
        ({"topics_version": "0.0.1"}, r"saved by topics 0\.0\.1, this is topics"),
        ({"format_version": 99}, r"saved in format version 99 .* reads version 1"),
        ({"format": "something-else"}, "does not describe a saved topics analysis"),
    ],
)
def test_another_version_is_refused(copy, edit, message):
    manifest = json.loads((copy / MANIFEST).read_text())
    (copy / MANIFEST).write_text(json.dumps({**manifest, **edit}))
    with pytest.raises(StoreError, match=message):
        load(copy)


def test_a_broken_manifest_or_no_folder_is_refused(copy, tmp_path):
    (copy / MANIFEST).write_text('{"format": "topics-analysis", ')
    with pytest.raises(StoreError, match="is not valid JSON"):
        load(copy)
    (copy / MANIFEST).unlink()
    with pytest.raises(StoreError, match="no manifest.json; not a saved analysis"):
        load(copy)
    with pytest.raises(StoreError, match="no such folder"):
        load(tmp_path / "nowhere")


def test_every_error_is_one_line(copy):
    (copy / "model.labels.npy").write_bytes(b"")
    with pytest.raises(StoreError) as info:
        load(copy)
    assert "\n" not in str(info.value) and isinstance(info.value, ValueError)


def test_save_replaces_a_saved_analysis_but_no_other_folder(fitted, copy, tmp_path):
    save(fitted, copy)  # over an earlier save
    assert load(copy).model.topic_names_ == fitted.model.topic_names_
    assert not [p for p in copy.parent.iterdir() if p.name.startswith(".")]  # no work folder left
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(StoreError, match="holds other files, not a saved analysis"):
        save(fitted, other)
    assert (other / "notes.txt").read_text() == "keep me"


def test_a_loaded_model_merges_like_the_fitted_one(fitted, saved):
    loaded = load(saved)
    first, second = [t for t in fitted.model.topics if t != -1][:2]
    merged, again = fitted.model.merge([first, second]), loaded.model.merge([first, second])
    np.testing.assert_array_equal(again.labels_, merged.labels_)
    assert again.topic_names_ == merged.topic_names_ and again.topic_terms_ == merged.topic_terms_
    assert loaded.model.bertopic_ is None  # the loaded model itself is not changed


def test_saved_analysis_only_for_the_same_papers_backend_and_seed(saved, sample_corpus, tmp_path):
    from topics.store import saved_analysis

    assert saved_analysis(saved, sample_corpus, backend="hashing", random_state=0) is not None
    assert saved_analysis(saved, sample_corpus, backend="minilm", random_state=0) is None
    assert saved_analysis(saved, sample_corpus, backend="hashing", random_state=1) is None
    assert saved_analysis(saved, sample_corpus.iloc[1:], backend="hashing", random_state=0) is None
    assert saved_analysis(tmp_path / "nowhere", sample_corpus, backend="hashing") is None
    assert saved_analysis(None, sample_corpus, backend="hashing") is None


def test_analysis_key_follows_every_cell_and_setting():
    from topics.store import analysis_key

    corpus = pd.DataFrame({"doc_id": ["a", "b"], "year": [2024, 2025], "abstract": ["x y", "z w"], "title": ["T", "U"],
                           "authors": [["Ada", "Bo"], ["Cy"]]})  # a column of lists hashes too
    key = analysis_key(corpus, {"seed": 0})
    assert key == analysis_key(corpus.copy(), {"seed": 0})  # the same papers and settings: the same key
    changed = corpus.copy()
    changed.loc[1, "title"] = "V"
    assert analysis_key(changed, {"seed": 0}) != key  # a title, not only the abstract
    changed = corpus.copy()
    changed.at[0, "authors"] = ["Ada"]
    assert analysis_key(changed, {"seed": 0}) != key
    assert analysis_key(corpus, {"seed": 1}) != key
    assert analysis_key(corpus[["doc_id", "year", "abstract", "title"]], {"seed": 0}) != key  # a column fewer


def _rehash(folder) -> None:
    """Recompute the manifest's sizes and hashes after an edit, as a careless or hostile
    editor would: the hashes then no longer tell that anything changed."""
    import hashlib

    manifest = json.loads((folder / MANIFEST).read_text())
    for name in manifest["files"]:
        data = (folder / name).read_bytes()
        manifest["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (folder / MANIFEST).write_text(json.dumps(manifest))


def _edit_document(folder, change) -> None:
    document = json.loads((folder / "analysis.json").read_text())
    change(document)
    (folder / "analysis.json").write_text(json.dumps(document))


def _one_line(match: str):
    return pytest.raises(StoreError, match=match)


def test_an_unknown_key_in_the_document_is_refused_not_set_on_the_model(copy):
    _edit_document(copy, lambda d: d["model"]["$model"]["state"].update(transform=1))
    _rehash(copy)
    with _one_line(r"analysis\.json: model\.transform: Extra inputs are not permitted"):
        load(copy)


def test_embeddings_of_other_papers_are_refused(copy):
    np.save(copy / "embeddings.npy", np.load(copy / "embeddings.npy")[:10])
    _rehash(copy)
    with _one_line(r"embeddings\.npy: model\.embeddings_: shape \(10, 128\), expected 90 rows"):
        load(copy)


@pytest.mark.parametrize("table, column", [("topics", "label"), ("terms", "term"), ("representatives", "doc_id"),
                                           ("similarity", "topic_b"), ("prevalence", "share"), ("comparison.table", "label")])
def test_a_table_without_its_columns_is_refused(copy, table, column):
    pd.read_parquet(copy / f"{table}.parquet").drop(columns=column).to_parquet(copy / f"{table}.parquet")
    _rehash(copy)
    with _one_line(rf"{table}\.parquet: no column '{column}'"):
        load(copy)


@pytest.mark.parametrize("value, message", [("abc", "Input should be a valid number"), (1.5, "Input should be less than or equal to 1")])
def test_a_parameter_of_the_wrong_type_or_range_names_file_and_field(copy, value, message):
    _edit_document(copy, lambda d: d["model"]["$model"]["params"].update(outlier_share=value))
    _rehash(copy)
    with pytest.raises(StoreError, match=rf"analysis\.json: model parameter outlier_share: {message}") as error:
        load(copy)
    assert "\n" not in str(error.value)


def test_what_is_new_is_saved_and_loaded(tmp_path):
    """The emerging sub-topics and rising phrases come back from a saved folder: the tables
    and the report they write are the same, byte for byte."""
    from tests.conftest import make_planted_years
    from topics.embedding.embed import embed_texts
    from topics.pipeline import embedding_texts

    corpus = make_planted_years()
    analysis = topics.analyze(corpus, embeddings=embed_texts(embedding_texts(corpus), "hashing", cache=False), random_state=0)
    assert len(analysis.emerging) and len(analysis.rising)
    loaded = topics.load(topics.save(analysis, tmp_path / "model"))
    first, second = topics.write_tables(analysis, tmp_path / "a"), topics.write_tables(loaded, tmp_path / "b")
    for name in ("emerging", "rising"):
        assert first[name].read_bytes() == second[name].read_bytes(), name
    assert topics.render_report(analysis) == topics.render_report(loaded)


def test_the_neighbour_pool_is_saved_and_older_folders_without_it_load(copy):
    """Issue 40: ``TopicModel(neighbor_pool=...)`` is a saved parameter; a folder saved before
    it existed loads as the exact graph (``None``)."""
    assert load(copy).model.get_params()["neighbor_pool"] is None
    _edit_document(copy, lambda d: d["model"]["$model"]["params"].update(neighbor_pool=16))
    _rehash(copy)
    assert load(copy).model.neighbor_pool == 16
    _edit_document(copy, lambda d: d["model"]["$model"]["params"].pop("neighbor_pool"))
    _rehash(copy)
    assert load(copy).model.neighbor_pool is None


def test_the_vote_cut_is_saved_and_older_folders_without_it_assign_by_the_old_rule(fitted, copy, sample_corpus):
    """Session 24: ``vote_cut_`` (the calibrated least vote share of a new paper's topic) and
    ``vote_weights_`` are saved; a folder saved before they existed loads without them, and
    assigns as then, by the unweighted vote at ``outlier_share``."""
    from topics.clustering.assign import assign_documents, vote_cut

    loaded = load(copy).model
    assert loaded.vote_cut_ == fitted.model.vote_cut_ == vote_cut(fitted.model)
    new = np.asarray(fitted.embeddings)[::-1] + np.float32(1e-3)  # not the fitted vectors: the vote places them
    assert loaded.vote_weights_ == fitted.model.vote_weights_ and loaded.vote_weights_
    _edit_document(copy, lambda d: [d["model"]["$model"]["state"].pop(k) for k in ("vote_cut_", "vote_weights_")])
    _rehash(copy)
    older = load(copy).model
    assert getattr(older, "vote_cut_", None) is None and getattr(older, "vote_weights_", None) is None
    older.vote_cut_, older.vote_weights_ = older.outlier_share, None  # the old rule, by hand
    pd.testing.assert_frame_equal(assign_documents(load(copy).model, new), assign_documents(older, new))
