"""Offline model resolution: local folders, the packaged MiniLM and its checksum, hub names."""

from pathlib import Path
import hashlib

import pytest

from topics.embedding.weights import DEFAULT_MODEL, EmbeddingError, MINILM_SHA256, resolve_model
from topics.embedding import weights


def test_packaged_model_sha_mismatch_is_refused(tmp_path, monkeypatch):
    (tmp_path / "model.safetensors").write_bytes(b"tampered weights")
    monkeypatch.setattr(weights, "_packaged_minilm", lambda: tmp_path)
    with pytest.raises(EmbeddingError, match="not the official all-MiniLM-L6-v2"):
        resolve_model(None)


def test_resolution_order(tmp_path, monkeypatch):
    (tmp_path / "model.safetensors").write_bytes(b"local weights")
    source, fp = resolve_model(tmp_path)
    assert source == str(tmp_path.resolve()) and fp == "local:" + hashlib.sha256(b"local weights").hexdigest()
    monkeypatch.setattr(weights, "_packaged_minilm", lambda: None)
    assert resolve_model(None) == (DEFAULT_MODEL, "hub:" + DEFAULT_MODEL)
    assert resolve_model("org/other-model") == ("org/other-model", "hub:org/other-model")


def test_packaged_minilm_is_the_official_model():
    source, fp = resolve_model(None)
    assert fp == "minilm:" + MINILM_SHA256
    assert hashlib.sha256((Path(source) / "model.safetensors").read_bytes()).hexdigest() == MINILM_SHA256


def test_a_local_folder_is_fingerprinted_by_its_weights(tmp_path):
    (tmp_path / "pytorch_model.bin").write_bytes(b"older weights")
    source, fp = resolve_model(str(tmp_path))
    assert source == str(tmp_path.resolve()) and fp == "local:" + hashlib.sha256(b"older weights").hexdigest()
    (tmp_path / "pytorch_model.bin").write_bytes(b"retrained weights")
    assert resolve_model(tmp_path)[1] != fp  # new weights, new cache entries


def test_short_name_and_a_broken_package_copy(tmp_path, monkeypatch):
    monkeypatch.setattr(weights, "_packaged_minilm", lambda: tmp_path)
    with pytest.raises(EmbeddingError, match="has no model.safetensors"):
        resolve_model("all-MiniLM-L6-v2")  # the short name means the packaged copy too
    official = Path(tmp_path / "model.safetensors")
    official.write_bytes(b"stand-in")
    monkeypatch.setattr(weights, "MINILM_SHA256", hashlib.sha256(b"stand-in").hexdigest())
    assert resolve_model("all-MiniLM-L6-v2") == (str(tmp_path), "minilm:" + weights.MINILM_SHA256)
