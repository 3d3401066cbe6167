"""The bundled report as a reader sees it, in headless Chromium: every label readable.

No two area names on the map overlap, no axis label is clipped by its chart or runs into
another panel, no axis title touches a legend, and the header's text meets WCAG AA
contrast (4.5:1, WCAG 2.1's relative luminance).
"""

import pytest

import topics
from tests.report.test_browser import browser, open_report  # noqa: F401  (the fixture)

pytestmark = pytest.mark.browser

# Every text box of a chart, as {kind, chart, text, box: [left, top, right, bottom]} in page pixels:
# tick labels, axis titles, legends, the plot areas (Plotly's drag rectangles) and annotations.
BOXES_JS = """() => {
  const out = [];
  const box = (node) => { const r = node.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  document.querySelectorAll("div.js-plotly-plot").forEach((chart) => {
    const id = chart.id || chart.parentNode.id;
    const push = (kind, node, extra) => { const b = box(node); if (b[2] > b[0] && b[3] > b[1]) out.push(Object.assign({kind, chart: id, text: node.textContent, box: b}, extra || {})); };
    push("svg", chart.querySelector("svg.main-svg"));
    chart.querySelectorAll("g.xaxislayer-above text, g.yaxislayer-above text").forEach((n) => {
      const sub = n.closest("g.subplot"); push("tick", n, {subplot: sub ? sub.getAttribute("class") : ""});
    });
    chart.querySelectorAll("text.xtitle, text.ytitle, text[class^='x'][class$='title'], text[class^='y'][class$='title']").forEach((n) => push("title", n));
    chart.querySelectorAll("g.legend rect.bg").forEach((n) => push("legend", n));
    chart.querySelectorAll("g.draglayer g[class] rect.nsewdrag").forEach((n) => push("plot", n, {subplot: n.parentNode.getAttribute("class")}));
    chart.querySelectorAll("g.annotation").forEach((n) => {
      const i = Number(n.getAttribute("data-index"));
      const a = (chart.layout.annotations || [])[i] || {};
      push("annotation", n.querySelector("g.annotation-text-g") || n, {name: a.name || ""});
    });
  });
  return out;
}"""


def _overlap(a, b, gap=0.0) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _subplot(cls: str) -> str:
    """'xy', 'x2y2', ... from a Plotly subplot group's class ("subplot x2y2" or "x2y2")."""
    return cls.replace("subplot", "").split()[0] if cls.strip() else ""


def label_problems(boxes: list[dict]) -> list[str]:
    """What a reader could not read: overlapping map names, clipped or colliding axis labels."""
    problems = []
    by_chart: dict[str, list[dict]] = {}
    for b in boxes:
        by_chart.setdefault(b["chart"], []).append(b)
    for chart, items in by_chart.items():
        svg = next(b["box"] for b in items if b["kind"] == "svg")
        names = [b for b in items if b["kind"] == "annotation" and b["name"] == "area"]
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if _overlap(a["box"], b["box"]):
                    problems.append(f"{chart}: map names {a['text']!r} and {b['text']!r} overlap")
        plots = {_subplot(b["subplot"]): b["box"] for b in items if b["kind"] == "plot"}
        for t in (b for b in items if b["kind"] == "tick"):
            l, top, r, bottom = t["box"]
            if l < svg[0] - 0.5 or r > svg[2] + 0.5 or top < svg[1] - 0.5 or bottom > svg[3] + 0.5:
                problems.append(f"{chart}: axis label {t['text']!r} is clipped by the chart's edge")
            own = _subplot(t["subplot"])
            for name, plot in plots.items():
                if name != own and _overlap(t["box"], plot):
                    problems.append(f"{chart}: axis label {t['text']!r} ({own}) runs into the panel {name}")
                    break
        legends = [b["box"] for b in items if b["kind"] == "legend"]
        for title in (b for b in items if b["kind"] == "title"):
            if any(_overlap(title["box"], legend, gap=4) for legend in legends):
                problems.append(f"{chart}: axis title {title['text']!r} touches the legend")
    return problems


# The header's text: each element with text of its own, its colour, the backgrounds from the
# header down to it, and the opacities on the way (which blend text and background with the header).
HEADER_JS = """() => {
  const header = document.querySelector("header");
  const rgba = (c) => (c.match(/[\\d.]+/g) || []).map(Number).concat([1]).slice(0, 4);
  const out = [];
  header.querySelectorAll("*").forEach((node) => {
    const own = Array.from(node.childNodes).some((c) => c.nodeType === 3 && c.textContent.trim());
    if (!own) return;
    const chain = [];
    for (let n = node; n && n !== header.parentNode; n = n.parentNode) chain.unshift(n);
    out.push({
      text: node.textContent.trim().slice(0, 40),
      color: rgba(getComputedStyle(node).color),
      backgrounds: chain.map((n) => rgba(getComputedStyle(n).backgroundColor)),
      opacity: chain.slice(1).reduce((o, n) => o * Number(getComputedStyle(n).opacity), 1),
    });
  });
  return out;
}"""


def _over(top, bottom):
    """Colour ``top`` (r, g, b, alpha 0-1) composited over the opaque ``bottom``."""
    alpha = top[3]
    return [alpha * t + (1 - alpha) * b for t, b in zip(top[:3], bottom[:3])]


def _luminance(rgb) -> float:
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """WCAG 2.1 contrast ratio of two opaque colours."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def header_contrasts(items: list[dict]) -> dict[str, float]:
    out = {}
    for item in items:
        base = item["backgrounds"][0][:3]  # the header's own background (opaque)
        background = base
        for layer in item["backgrounds"][1:]:
            background = _over(layer, background)
        text = _over(item["color"], background)
        o = item["opacity"]  # an ancestor's opacity blends the whole group with the header
        text = [o * t + (1 - o) * h for t, h in zip(text, base)]
        background = [o * t + (1 - o) * h for t, h in zip(background, base)]
        out[item["text"]] = contrast(text, background)
    return out


def test_the_checks_see_what_they_should():
    """The geometry and colour rules on hand-made cases: they can fail."""
    assert contrast([255, 255, 255], [0, 0, 0]) == pytest.approx(21.0)
    assert contrast([119, 119, 119], [255, 255, 255]) == pytest.approx(4.48, abs=0.01)  # #777 on white: just under AA
    chip = {"text": "topics", "color": [255, 255, 255, 1], "opacity": 0.85,
            "backgrounds": [[11, 46, 89, 1], [0, 0, 0, 0], [243, 243, 243, 1]]}
    assert header_contrasts([chip])["topics"] < 1.5  # white on a light grey chip, as the header had it
    boxes = [
        {"kind": "svg", "chart": "c", "text": "", "box": [0, 0, 500, 400]},
        {"kind": "annotation", "chart": "c", "text": "a", "name": "area", "box": [10, 10, 110, 30]},
        {"kind": "annotation", "chart": "c", "text": "b", "name": "area", "box": [100, 20, 200, 40]},
        {"kind": "plot", "chart": "c", "text": "", "subplot": "xy", "box": [50, 50, 200, 300]},
        {"kind": "plot", "chart": "c", "text": "", "subplot": "x2y2", "box": [250, 50, 450, 300]},
        {"kind": "tick", "chart": "c", "text": "long term", "subplot": "subplot x2y2", "box": [180, 60, 248, 70]},
        {"kind": "tick", "chart": "c", "text": "cut", "subplot": "subplot xy", "box": [-5, 60, 48, 70]},
        {"kind": "title", "chart": "c", "text": "share", "box": [100, 330, 200, 345]},
        {"kind": "legend", "chart": "c", "text": "", "box": [90, 347, 300, 370]},
    ]
    problems = label_problems(boxes)
    assert len(problems) == 4, problems
    assert any("'a' and 'b' overlap" in p for p in problems) and any("runs into the panel xy" in p for p in problems)
    assert any("'cut' is clipped" in p for p in problems) and any("touches the legend" in p for p in problems)


PLACED = "document.getElementById('chart-map').dataset.labels === 'placed'"


def _check_report(browser, analysis, path):  # noqa: F811
    """At 1,280 pixels wide, then at 1,024 (the charts redraw, the map places its names again)."""
    topics.write_report(analysis, path)
    page, events = open_report(browser, path)
    page.wait_for_function(PLACED, timeout=30_000)
    problems = label_problems(page.evaluate(BOXES_JS))
    low = {text: round(c, 2) for text, c in header_contrasts(page.evaluate(HEADER_JS)).items() if c < 4.5}
    page.evaluate("document.getElementById('chart-map').dataset.labels = ''")
    page.set_viewport_size({"width": 1024, "height": 768})
    page.wait_for_function(PLACED, timeout=30_000)
    page.wait_for_timeout(300)
    problems += [f"at 1,024 pixels: {p}" for p in label_problems(page.evaluate(BOXES_JS))]
    page.close()
    assert events["errors"] == []
    assert problems == []
    assert low == {}, f"header text under WCAG AA contrast 4.5:1: {low}"


def test_labels_are_readable_in_the_sample_report(browser, sample_analysis, tmp_path):  # noqa: F811
    _check_report(browser, sample_analysis, tmp_path / "report.html")


@pytest.mark.slow
def test_labels_are_readable_in_the_bundled_report(browser, tmp_path, sample_minilm):  # noqa: F811
    """The report `make report` writes: MiniLM on the bundled sample, four stability seeds
    (its vectors from the default cache, where ``sample_minilm`` embedded them for the run)."""
    analysis = topics.analyze(topics.io.datasets.iclr_sample(), embedder="minilm", random_state=0, stability_seeds=[1, 2, 3, 4])
    _check_report(browser, analysis, tmp_path / "report.html")
