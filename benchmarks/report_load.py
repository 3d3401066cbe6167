"""Size and load time of report (or map) HTML files in headless Chromium.

    .venv/bin/python benchmarks/report_load.py /tmp/full.html [MORE.html ...] [--runs 5] [--out FILE.json]

Each file is opened `--runs` times from file://, each time in a fresh browser context
(no cache), on a 1400 x 900 window. Two times per run, from the start of navigation:

- **load**: the page's `load` event (every inline script ran; plotly.js parsed);
- **explorer**: the paper explorer answers (its data parsed and unpacked, the first rows
  drawn), for a page that has one;
- **ready**: what a reader can use. A `topics` report is ready when its paper explorer
  says so (`#papers[data-ready="1"]`: its data parsed and unpacked, the first rows drawn),
  plotly.js is unpacked and every chart has drawn its SVG (`<html data-charts="drawn">`); a datamapplot page when its loading screen is
  gone and its deck.gl canvas exists; any other page at its load event.

It also counts console errors, uncaught exceptions, requests to anything but file:,
data: and blob: URLs, and Content-Security-Policy violations. Medians are printed, and
every run is written to `--out` (default `benchmarks/results/report-load.json`).
Needs Playwright and Chromium (`make browser`).
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
from pathlib import Path

# Times are taken inside the page (performance.now(), from the start of navigation): a
# probe checks every 25 ms, between the page's own tasks, so it is late by at most one task.
# (Asking from outside would wait until the page's main thread is free: after every chart.)
PROBE = """
window.__load = {};
window.addEventListener('load', () => { window.__load.load = performance.now(); });
const __ready = READY;
const __probe = setInterval(() => {
  if (window.__load.explorer === undefined && document.querySelector('#papers[data-ready="1"]')) window.__load.explorer = performance.now();
  if (window.__load.ready === undefined && document.readyState !== 'loading' && __ready()) {
    window.__load.ready = performance.now();
    clearInterval(__probe);
  }
}, 25);
"""

READY = """() => {
  if (document.getElementById('explorer-data')) {
    return document.querySelector('#papers[data-ready="1"]') !== null && document.documentElement.dataset.charts === 'drawn' &&
      Array.from(document.querySelectorAll('div.js-plotly-plot')).every(d => d.querySelector('svg.main-svg'));
  }
  const loading = document.getElementById('loading');
  if (loading && document.getElementById('deck-container')) {
    return loading.style.display === 'none' && document.querySelector('#deck-container canvas, canvas') !== null;
  }
  return document.readyState === 'complete';
}"""


def measure(browser, path: Path, *, timeout_ms: int = 120_000) -> dict:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    seen = {"console_errors": [], "page_errors": [], "requests": [], "csp": []}

    def on_console(message):
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            seen["csp"].append(message.text[:300])
        elif message.type == "error":
            seen["console_errors"].append(message.text[:300])

    page.on("console", on_console)
    page.on("pageerror", lambda e: seen["page_errors"].append(str(e)[:300]))
    page.add_init_script(PROBE.replace("READY", READY))
    page.on("request", lambda r: seen["requests"].append(r.url[:200]) if not r.url.startswith(("file:", "data:", "blob:")) else None)
    page.goto(path.resolve().as_uri(), wait_until="load", timeout=timeout_ms)
    try:
        page.wait_for_function("window.__load && window.__load.ready !== undefined", timeout=timeout_ms, polling=100)
    except Exception:  # noqa: BLE001 - a page that never gets ready is a result, not a crash
        pass
    times = page.evaluate("window.__load")
    context.close()

    def seconds(key):
        return round(times[key] / 1000, 3) if times.get(key) is not None else None

    return {"load_s": seconds("load"), "explorer_s": seconds("explorer"), "ready_s": seconds("ready"), **seen}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("html", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "report-load.json")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        version = browser.version
        for path in args.html:
            runs = [measure(browser, path) for _ in range(args.runs)]
            ready = [r["ready_s"] for r in runs if r["ready_s"] is not None]
            row = {
                "file": str(path), "bytes": path.stat().st_size,
                "load_s_median": statistics.median(r["load_s"] for r in runs),
                "explorer_s_median": statistics.median(r["explorer_s"] for r in runs) if runs[0]["explorer_s"] is not None else None,
                "ready_s_median": statistics.median(ready) if len(ready) == len(runs) else None,
                "console_errors": sorted({e for r in runs for e in r["console_errors"] + r["page_errors"]}),
                "requests": sorted({u for r in runs for u in r["requests"]}),
                "csp_violations": sorted({c for r in runs for c in r["csp"]})[:10],
                "runs": runs,
            }
            results.append(row)
            print(f"{path.name}: {row['bytes'] / 1e6:.2f} MB, load {row['load_s_median']:.2f} s, explorer {row['explorer_s_median'] if row['explorer_s_median'] is None else round(row['explorer_s_median'], 2)} s, "
                  f"ready {row['ready_s_median'] if row['ready_s_median'] is None else round(row['ready_s_median'], 2)} s, "
                  f"{len(row['console_errors'])} errors, {len(row['requests'])} outside requests, "
                  f"{len(row['csp_violations'])} CSP violations")
        browser.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"chromium": version, "cpu": platform.processor() or platform.machine(),
                                    "runs": args.runs, "files": results}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
