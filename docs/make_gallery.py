"""Regenerate the gallery's screenshots (docs/gallery/*.png) from a report of the bundled files.

    .venv/bin/python docs/make_gallery.py              # MiniLM, as `make report` does
    .venv/bin/python docs/make_gallery.py --backend lsa  # quick, weightless

It fits the bundled ICLR 2024/2025 sample with three themes, writes the report, opens it
in headless Chromium (Debian's, through Playwright, as the browser tests do), waits until
every chart is drawn, and screenshots each section. The PNGs are reduced to a 96-colour
palette so the whole gallery stays a few hundred KB; docs/gallery.md shows them.
"""

from __future__ import annotations

import argparse
import io
import logging
import shutil
import tempfile
from pathlib import Path

from PIL import Image

import topics

OUT = Path(__file__).resolve().parent / "gallery"
THEMES = ["optimal transport", "long-tailed recognition", "self-supervised learning"]
#: file name -> CSS selector of the part of the report it shows
SHOTS = {
    "summary": "#summary",
    "areas": "#areas",
    "themes": "#themes",
    "map": "#section-map",
    "comparison": "#comparison",
    "topics": "#topics",
    "papers": "#papers",
}
WIDTH = 1000
MAX_HEIGHT = 900
COLOURS = 96
log = logging.getLogger("make_gallery")


def small_png(raw: bytes, path: Path) -> int:
    """Crop to MAX_HEIGHT, quantise to a palette, write; returns the file's size in bytes."""
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    image = image.crop((0, 0, image.width, min(image.height, MAX_HEIGHT)))
    image = image.quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    image.save(path, optimize=True)
    return path.stat().st_size


def shoot(report: Path, out: Path) -> dict[str, int]:
    """Screenshot each section of ``report`` into ``out``; returns the sizes written."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    sizes = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": WIDTH, "height": 800}, device_scale_factor=1)
        page.goto(report.resolve().as_uri(), wait_until="load")
        page.wait_for_function("document.documentElement.dataset.charts === 'drawn'", timeout=120_000)
        page.wait_for_timeout(500)
        # the sticky navigation and table heads would cover the top of every screenshot
        page.add_style_tag(content="nav, th { position: static !important; }")
        for name, selector in SHOTS.items():
            element = page.locator(selector).first
            if not element.count() or not element.is_visible():
                log.warning("the report has no visible %s; skipped", selector)
                continue
            if name == "papers":  # open one paper, as a reader would
                page.locator("#explorer-rows a, #explorer-rows button").first.click()
                page.wait_for_timeout(300)
            element.scroll_into_view_if_needed()
            sizes[name] = small_png(element.screenshot(), out / f"{name}.png")
        browser.close()
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="minilm", help="embedding backend (default minilm, as make report)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    analysis = topics.analyze(topics.datasets.iclr_sample(), embedder=args.backend, random_state=0, themes=THEMES)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        report = topics.write_report(analysis, Path(tmp) / "report.html")
        sizes = shoot(report, args.out)
    for name, size in sizes.items():
        log.info("%s.png: %.0f KB", name, size / 1024)
    log.info("in all: %.0f KB", sum(sizes.values()) / 1024)


if __name__ == "__main__":
    main()
