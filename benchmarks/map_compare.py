"""The report's Plotly map against a datamapplot map of the same papers (issue 20).

datamapplot is not a dependency of `topics`; run its step in a separate virtual
environment that has it (`python -m venv /tmp/dmp && /tmp/dmp/bin/pip install datamapplot`).
Its offline mode inlines deck.gl, Arrow, d3, jQuery and DataTables from a cache that
`datamapplot.offline_mode_caching.cache_js_files()` fills from unpkg.com and
cdn.datatables.net (or, without a network, from the same files out of `npm pack`).

    # 1. project venv: the full lists' coordinates, names and titles, and the Plotly map alone
    .venv/bin/python benchmarks/map_compare.py export --dataset full --out /tmp/map-input
    # 2. datamapplot's venv: its map of the same papers, as is and with the report's CSP added
    /tmp/dmp/bin/python benchmarks/map_compare.py datamapplot /tmp/map-input
    # 3. project venv: size and load time of each (benchmarks/report_load.py)
    .venv/bin/python benchmarks/report_load.py /tmp/map-input/*.html

Step 2 imports nothing of `topics`, so it runs without it.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def report_csp() -> str:
    """The Content-Security-Policy of the report's template."""
    template = (ROOT / "topics" / "report" / "templates" / "report.html.j2").read_text(encoding="utf-8")
    return re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', template).group(1)


def export(dataset: str, out: Path, backend: str) -> None:
    import topics

    write_inputs(topics.analyze(topics.io.datasets.load_dataset(dataset), embedder=backend), out)


def write_inputs(analysis, out: Path) -> None:
    """The map's inputs from an analysis, and the report's Plotly map alone with plotly.js."""
    import numpy as np

    from topics.figures import MAP_MAX_POINTS, topic_map

    docs = analysis.documents
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "coords.npy", np.asarray(analysis.coords, dtype=np.float32))
    titles = docs["title"].fillna("").astype(str).tolist()
    (out / "papers.json").write_text(json.dumps({
        "title": titles, "year": docs["year"].astype(int).tolist(),
        "topic_label": [lbl if t != -1 else "Unlabelled" for t, lbl in zip(docs["topic"], docs["topic_label"])],
        "area_label": [lbl if a != -1 else "Unlabelled" for a, lbl in zip(docs["area"], docs["area_label"])],
    }), encoding="utf-8")
    fig = topic_map(docs, analysis.coords, max_points=MAP_MAX_POINTS)
    fig.write_html(out / "plotly-map.html", include_plotlyjs=True, full_html=True, config={"displaylogo": False})
    print(f"wrote {out} ({len(docs):,} papers)")


def datamapplot_map(folder: Path) -> None:
    import datamapplot
    import numpy as np

    coords = np.load(folder / "coords.npy")
    papers = json.loads((folder / "papers.json").read_text(encoding="utf-8"))
    plot = datamapplot.create_interactive_plot(
        coords,
        np.asarray(papers["area_label"]),  # coarse layer: areas
        np.asarray(papers["topic_label"]),  # fine layer: topics
        hover_text=np.asarray([f"{t} ({y})" for t, y in zip(papers["title"], papers["year"])]),
        inline_data=True, offline_mode=True, enable_search=True, font_family="sans-serif",
        title="Topic map", sub_title=f"{len(coords):,} papers",
    )
    html = str(plot)
    (folder / "datamapplot.html").write_text(html, encoding="utf-8")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{report_csp()}">'
    with_csp = re.sub(r"<head>", "<head>\n" + meta, html, count=1)
    (folder / "datamapplot-csp.html").write_text(with_csp, encoding="utf-8")
    print(f"wrote {folder / 'datamapplot.html'} and datamapplot-csp.html")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    e = sub.add_parser("export")
    e.add_argument("--dataset", default="full", choices=["sample", "full"])
    e.add_argument("--out", type=Path, default=Path("/tmp/map-input"))
    e.add_argument("--backend", default="minilm", help="embedding backend (default minilm; lsa needs no model)")
    d = sub.add_parser("datamapplot")
    d.add_argument("folder", type=Path, nargs="?", default=Path("/tmp/map-input"))
    args = parser.parse_args()
    if args.step == "export":
        export(args.dataset, args.out, args.backend)
    else:
        datamapplot_map(args.folder)


if __name__ == "__main__":
    main()
