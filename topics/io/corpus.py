"""Read paper lists and tables into one validated corpus frame.

A *corpus* is a :class:`pandas.DataFrame` with one row per abstract and the columns
:data:`CORPUS_COLUMNS` (other columns from a table are kept after them):

========== ==========================================================================
doc_id     stable identifier: the table's ``id`` if given, else ``"h" + text_hash``
venue      e.g. ``"ICLR"`` (empty string where unknown)
year       integer year, a whole number from 1900 to next year (:data:`FIRST_YEAR`, :func:`last_year`)
title      paper title, empty string where unknown
abstract   the abstract exactly as read (whitespace-trimmed)
source     the file name the row came from
position   1-based paragraph number (text files) or row number (tables)
========== ==========================================================================

Supported inputs
----------------
* Paper-list text files (``.txt``): the first non-empty line is a header that
  names the venue and year, in English or Chinese ("ICLR 2025 Papers",
  "ICLR 2025 论文列表"); then one abstract per paragraph, paragraphs separated by blank
  lines. CRLF line ends, a byte-order mark, trailing spaces and runs of blank lines are
  accepted.
* Tables: CSV (``.csv``, ``.csv.gz``), JSON Lines (``.jsonl``, ``.ndjson``, optionally
  ``.gz``) and Parquet (``.parquet``, ``.pq``) with an ``abstract`` and a ``year``
  column; ``title``, ``venue`` and ``id`` are optional.
* A folder: every supported file inside it (not recursive), in name order; each other
  file is named in a logged warning and skipped.

Every problem with an input raises :class:`CorpusError` whose message names the file
(and the row or line where there is one). An abstract longer than
:data:`LONG_ABSTRACT_CHARS` characters is read with a logged warning.
"""

from __future__ import annotations

import datetime
import gzip
import logging
import re
from collections.abc import Iterable
from os import PathLike
from pathlib import Path

import pandas as pd

from topics.io.duplicates import drop_near_duplicates
from topics.text import normalize_whitespace, text_hash

__all__ = [
    "CORPUS_COLUMNS", "FIRST_YEAR", "LONG_ABSTRACT_CHARS", "CorpusError", "last_year", "read_corpus", "read_paper_list", "read_table",
]

logger = logging.getLogger(__name__)

CORPUS_COLUMNS = ["doc_id", "venue", "year", "title", "abstract", "source", "position"]

TEXT_SUFFIXES = (".txt",)
CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv")
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")
SUPPORTED_SUFFIXES = TEXT_SUFFIXES + CSV_SUFFIXES + JSONL_SUFFIXES + PARQUET_SUFFIXES

# "ICLR 2025 Papers", "ICLR 2025 论文列表", "NeurIPS 2023 accepted papers", "2024 ICML".
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_VENUE = re.compile(r"[A-Za-z][A-Za-z0-9&\-]*")
_HEADER_WORDS = {"papers", "paper", "list", "accepted", "abstracts", "abstract", "of", "the"}
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")

PathLikeStr = str | PathLike[str]

#: The earliest plausible year of a paper; the latest is :func:`last_year`.
FIRST_YEAR = 1900

#: Abstracts longer than this (characters) are read with a warning: they are embedded as
#: many windows, which is slow and takes memory in proportion to the length.
LONG_ABSTRACT_CHARS = 20_000


def last_year() -> int:
    """The latest plausible year of a paper: next year (papers accepted for it)."""
    return datetime.date.today().year + 1


def _year_rule() -> str:
    return f"years must be whole numbers from {FIRST_YEAR} to {last_year()}"


class CorpusError(ValueError):
    """An input file cannot be read as a corpus; the message names the file and the fix.

    Examples
    --------
    >>> try:
    ...     topics.read_corpus("no-such-file.csv")
    ... except topics.CorpusError as exc:
    ...     print("no-such-file.csv" in str(exc))
    True
    """


def read_corpus(
    paths: PathLikeStr | Iterable[PathLikeStr], *, deduplicate: bool = True, keep_near_duplicates: bool = False
) -> pd.DataFrame:
    """Read one or more files or folders into one validated corpus frame.

    Parameters
    ----------
    paths
        A file, a folder, or a list of them. Folders contribute every supported file
        they hold directly, in name order.
    deduplicate
        Keep only the first occurrence of an abstract that occurs more than once (after
        whitespace normalisation); one warning says how many were dropped, with an example.
    keep_near_duplicates
        Keep the abstracts that nearly repeat an earlier one (another case, other
        spacing, a few words added); by default they are dropped, with one warning
        (:func:`topics.io.duplicates.drop_near_duplicates`). Without ``deduplicate``,
        nothing is dropped.

    Returns
    -------
    pandas.DataFrame
        The corpus: columns :data:`CORPUS_COLUMNS` then any extra table columns, one
        row per abstract, in input order, with a fresh ``RangeIndex``.

    Raises
    ------
    topics.CorpusError
        For a missing, empty or unreadable file, a table without ``abstract`` or ``year``,
        a bad year, a repeated ``id``: the message names the file and the fix.

    Examples
    --------
    >>> import pandas as pd
    >>> pd.DataFrame({"title": ["A", "B"], "abstract": ["One abstract.", "Another one."],
    ...               "year": [2024, 2025]}).to_csv("papers.csv", index=False)
    >>> papers = topics.read_corpus("papers.csv")
    >>> papers[["title", "year"]].values.tolist()
    [['A', 2024], ['B', 2025]]
    """
    if isinstance(paths, (str, PathLike)):
        paths = [paths]
    files = _expand(paths)
    frames = [_read_one(f) for f in files]
    corpus = pd.concat(frames, ignore_index=True, sort=False)
    corpus = _order_columns(corpus)
    _warn_long_abstracts(corpus)
    if deduplicate:
        corpus = _drop_duplicates(corpus, corpus["abstract"])  # every reader normalised the whitespace already
        if not keep_near_duplicates:
            corpus = drop_near_duplicates(corpus)
    dup_ids = corpus["doc_id"][corpus["doc_id"].duplicated()]
    if len(dup_ids):
        raise CorpusError(
            f"doc_id {dup_ids.iloc[0]!r} occurs more than once across {', '.join(sorted(set(corpus['source'])))}: "
            "ids must be unique (give each row its own 'id', or drop the 'id' column to derive ids from the text)"
        )
    return corpus.reset_index(drop=True)


def _warn_long_abstracts(corpus: pd.DataFrame) -> None:
    """One warning per file with abstracts over :data:`LONG_ABSTRACT_CHARS` characters."""
    lengths = corpus["abstract"].str.len()
    long = lengths > LONG_ABSTRACT_CHARS
    for source, rows in lengths[long].groupby(corpus["source"][long], sort=False):
        i = rows.idxmax()
        logger.warning(
            "file %s: %d abstract%s over %s characters (the longest, #%d, has %s); long texts are embedded "
            "as many windows, slowly and with memory growing with the length: is the column an abstract?",
            source, len(rows), "s" if len(rows) > 1 else "", f"{LONG_ABSTRACT_CHARS:,}", corpus.at[i, "position"], f"{rows[i]:,}",
        )


def drop_duplicate_abstracts(corpus: pd.DataFrame) -> pd.DataFrame:
    """Drop repeated abstracts (after whitespace normalisation), with one warning."""
    return _drop_duplicates(corpus, corpus["abstract"].map(normalize_whitespace))


def _drop_duplicates(corpus: pd.DataFrame, key: pd.Series) -> pd.DataFrame:
    dup = key.duplicated(keep="first")
    if dup.any():  # one warning, not one per copy
        i = corpus.index[dup][0]
        j = corpus.index[~dup & (key == key[i])][0]
        logger.warning(
            "%d duplicate abstract%s dropped: e.g. %s #%d repeats %s #%d", int(dup.sum()), "s" if dup.sum() > 1 else "",
            corpus.at[i, "source"], corpus.at[i, "position"], corpus.at[j, "source"], corpus.at[j, "position"],
        )
    return corpus.loc[~dup].reset_index(drop=True)


def _expand(paths: Iterable[PathLikeStr]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            inside = []
            for f in sorted(f for f in p.iterdir() if f.is_file()):
                if _suffix(f) in SUPPORTED_SUFFIXES:
                    inside.append(f)
                else:
                    logger.warning("folder %s: %s skipped (not a supported type)", p, f.name)
            if not inside:
                raise CorpusError(f"folder {p}: no supported files ({', '.join(SUPPORTED_SUFFIXES)})")
            files.extend(inside)
        elif p.exists():
            files.append(p)
        else:
            raise CorpusError(f"file {p}: not found")
    if not files:
        raise CorpusError("no input files given")
    return files


def _suffix(path: Path) -> str:
    name = path.name.lower()
    for s in sorted(SUPPORTED_SUFFIXES, key=len, reverse=True):
        if name.endswith(s):
            return s
    return path.suffix.lower()


def _read_one(path: Path) -> pd.DataFrame:
    suffix = _suffix(path)
    if suffix in TEXT_SUFFIXES:
        return read_paper_list(path)
    if suffix in CSV_SUFFIXES + JSONL_SUFFIXES + PARQUET_SUFFIXES:
        return read_table(path)
    raise CorpusError(
        f"file {path}: unsupported type {suffix or '(no suffix)'!r}; "
        f"use one of {', '.join(SUPPORTED_SUFFIXES)}"
    )


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"file {path}: cannot be read ({exc.strerror})") from exc
    if path.name.lower().endswith(".gz"):
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"file {path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8"
        ) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_header(line: str) -> tuple[str, int] | None:
    """Venue and year from a header line such as "ICLR 2025 Papers"; None without a year."""
    m = _YEAR.search(line)
    if m is None:
        return None
    venue_words = [w for w in _VENUE.findall(line.replace(m.group(0), " ")) if w.lower() not in _HEADER_WORDS]
    return (venue_words[0] if venue_words else ""), int(m.group(0))


def read_paper_list(path: PathLikeStr) -> pd.DataFrame:
    """Read one paper-list text file (header line, then one abstract per paragraph).

    Returns
    -------
    pandas.DataFrame
        Corpus columns, ``title`` empty, ``position`` the 1-based paragraph number after
        the header.
    """
    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"file {path}: not found")
    text = _read_text(path)
    lines = text.split("\n")
    header_at = next((i for i, line in enumerate(lines) if line.strip()), None)
    if header_at is None:
        raise CorpusError(f"file {path}: empty")
    header = lines[header_at].strip()
    parsed = parse_header(header)
    if parsed is None:
        raise CorpusError(
            f"file {path}: header {header[:60]!r} on line {header_at + 1} names no year; "
            "start the file with a line such as 'ICLR 2025 Papers'"
        )
    venue, year = parsed
    if not FIRST_YEAR <= year <= last_year():
        raise CorpusError(f"file {path}: header {header[:60]!r} on line {header_at + 1}: year {year} is out of range; {_year_rule()}")
    body = "\n".join(lines[header_at + 1 :])
    paragraphs = [normalize_whitespace(p) for p in _PARAGRAPH_BREAK.split(body)]
    abstracts = [p for p in paragraphs if p]
    if not abstracts:
        raise CorpusError(f"file {path}: header {header!r} but no abstracts after it")
    return pd.DataFrame(
        {
            "doc_id": ["h" + text_hash(a) for a in abstracts],
            "venue": venue,
            "year": year,
            "title": "",
            "abstract": abstracts,
            "source": path.name,
            "position": range(1, len(abstracts) + 1),
        }
    )


#: Rows read at a time from Parquet and CSV tables, so that a large table is never held
#: as raw bytes, decoded text and parsed frame at once.
TABLE_CHUNK_ROWS = 50_000


def read_table(path: PathLikeStr) -> pd.DataFrame:
    """Read one CSV, JSON Lines or Parquet table with ``abstract`` and ``year`` columns.

    Parquet and CSV tables are read ``TABLE_CHUNK_ROWS`` rows at a time, each chunk
    validated and normalised before the next is read, so a table of 100,000 abstracts
    never exists as raw bytes, decoded text and parsed frame all at once.

    Returns
    -------
    pandas.DataFrame
        Corpus columns then the table's other columns; ``position`` is the 1-based row
        number. Rows whose abstract is empty are dropped with a logged warning.
    """
    path = Path(path)
    suffix = _suffix(path)
    if not path.is_file():
        raise CorpusError(f"file {path}: not found")
    if path.stat().st_size == 0:
        raise CorpusError(f"file {path}: empty")
    try:
        chunks = [_table_chunk(chunk, path) for chunk in _raw_chunks(path, suffix)]
    except CorpusError:
        raise
    except UnicodeDecodeError as exc:
        raise CorpusError(f"file {path}: not UTF-8 text ({exc.reason} at byte 0x{exc.object[exc.start]:02x}); save it as UTF-8") from exc
    except Exception as exc:  # pandas/pyarrow raise many types for malformed files
        raise CorpusError(f"file {path}: cannot be parsed as {suffix} ({type(exc).__name__}: {exc})") from exc
    if not chunks or sum(n for _, n in chunks) == 0:
        raise CorpusError(f"file {path}: no rows")
    out = pd.concat([c for c, _ in chunks], ignore_index=True) if len(chunks) > 1 else chunks[0][0]
    if out.empty:
        raise CorpusError(f"file {path}: every 'abstract' is empty")
    n_empty = sum(n for _, n in chunks) - len(out)
    if n_empty:
        logger.warning("file %s: %d row%s with an empty abstract skipped", path, n_empty, "" if n_empty == 1 else "s")
    return out.reset_index(drop=True)


def _raw_chunks(path: Path, suffix: str):
    """The table's rows as DataFrames of at most ``TABLE_CHUNK_ROWS`` rows, indexed by row number."""
    if suffix in PARQUET_SUFFIXES:
        import pyarrow.parquet as pq

        offset = 0
        with pq.ParquetFile(path) as handle:
            for batch in handle.iter_batches(batch_size=TABLE_CHUNK_ROWS):
                frame = batch.to_pandas()
                frame.index = pd.RangeIndex(offset, offset + len(frame))
                offset += len(frame)
                yield frame
        return
    if suffix in JSONL_SUFFIXES:
        from io import StringIO

        text = _read_text(path)
        if not text.strip():
            raise CorpusError(f"file {path}: empty")
        try:
            frame = pd.read_json(StringIO(text), lines=True, dtype=False)
        except (ValueError, TypeError) as exc:  # pandas names a character position: find the line
            raise _jsonl_error(path, text) or exc
        yield frame
        return
    reader = pd.read_csv(
        path, sep="\t" if suffix == ".tsv" else ",", dtype=str, keep_default_na=False, encoding="utf-8-sig",
        compression="gzip" if path.name.lower().endswith(".gz") else None, chunksize=TABLE_CHUNK_ROWS,
    )
    try:
        with reader:
            yield from reader
    except pd.errors.EmptyDataError as exc:
        raise CorpusError(f"file {path}: empty") from exc


def _jsonl_error(path: Path, text: str) -> CorpusError | None:
    """The first line of a JSON Lines text that is not a JSON object, as an error naming it."""
    import json

    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            return CorpusError(f"file {path}: line {number}: not valid JSON ({exc.msg}, column {exc.colno})")
        if not isinstance(value, dict):
            return CorpusError(f"file {path}: line {number}: a JSON {type(value).__name__}, expected an object with 'abstract' and 'year'")
    return None


def _separator_hint(columns) -> str:
    """Where a table's header read as one column holds another separator (a spreadsheet's
    semicolons, tabs in a .csv), what to do about it; else nothing."""
    if len(columns) != 1:
        return ""
    found = next((name for sep, name in ((";", "';'"), ("\t", "tabs"), ("|", "'|'")) if sep in str(columns[0])), None)
    if found is None:
        return ""
    return (f"; the header reads as one column separated by {found}: a .csv is read with commas, a .tsv with tabs, "
            f"so save it with commas{' or rename it .tsv' if found == 'tabs' else ''}")


def _table_chunk(table: pd.DataFrame, path: Path) -> tuple[pd.DataFrame, int]:
    """One chunk of a table as corpus rows (empty abstracts dropped), and its row count."""
    table.columns = [str(c).strip().lower() for c in table.columns]
    for required in ("abstract", "year"):
        if required not in table.columns:
            raise CorpusError(
                f"file {path}: no {required!r} column (columns: {', '.join(table.columns) or 'none'})"
                + _separator_hint(table.columns)
            )
    out = pd.DataFrame(index=table.index)
    abstracts = table["abstract"].map(lambda v: "" if _missing(v) else normalize_whitespace(str(v)))
    years = pd.to_numeric(table["year"], errors="coerce")
    fractional = years.isna() | (years % 1 != 0)
    bad_year = (fractional | ~years.between(FIRST_YEAR, last_year())) & (abstracts != "")  # empty rows are skipped
    if bad_year.any():
        row = int(bad_year.idxmax())
        value = table["year"].loc[row]
        if _missing(value) or (isinstance(value, str) and not value.strip()):
            raise CorpusError(f"file {path}: row {row + 1}: no year; every paper with an abstract needs one ({_year_rule()})")
        shown = repr(value) if isinstance(value, str) else str(value)
        why = "is not a whole number" if fractional.loc[row] else "is out of range"
        raise CorpusError(f"file {path}: row {row + 1}: year {shown} {why}; {_year_rule()}")
    years = years.where(abstracts != "", FIRST_YEAR)  # the rows dropped below need a whole number too
    if "id" in table.columns:
        ids = table["id"].map(lambda v: "" if _missing(v) else str(v).strip())
        missing = ids == ""
        ids[missing] = "h" + abstracts[missing].map(text_hash)
        out["doc_id"] = ids
    else:
        out["doc_id"] = "h" + abstracts.map(text_hash)
    out["venue"] = table["venue"].map(lambda v: "" if _missing(v) else str(v).strip()) if "venue" in table else ""
    out["year"] = years.astype(int)
    out["title"] = table["title"].map(lambda v: "" if _missing(v) else normalize_whitespace(str(v))) if "title" in table else ""
    out["abstract"] = abstracts
    out["source"] = path.name
    out["position"] = table.index + 1
    extra = [c for c in table.columns if c not in out.columns and c != "id"]
    out = pd.concat([out, table[extra]], axis=1)
    return out.loc[out["abstract"] != ""], len(table)


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value is pd.NA


def _order_columns(corpus: pd.DataFrame) -> pd.DataFrame:
    corpus = corpus.copy()
    for col in ("venue", "title"):
        corpus[col] = corpus[col].fillna("").astype(str)
    corpus["year"] = corpus["year"].astype(int)
    corpus["position"] = corpus["position"].astype(int)
    extra = [c for c in corpus.columns if c not in CORPUS_COLUMNS]
    return corpus[CORPUS_COLUMNS + extra]
