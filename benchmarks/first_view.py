"""``python -m benchmarks.first_view [--rounds N] PAGE.html ...``: where a page's first view goes.

Opens each page in a fresh headless Chromium context, the pages taken in turn every round (so
two builds of one document are paired), and reads the page's own User Timing marks
(``vista:*``) and navigation timing; then, on the loaded page, times decoding the embedded
document again step by step (base64, gunzip, ``JSON.parse`` of the packed form's head; the
page's unpacking of the compact form is between its marks ``document-parsed`` and
``document-unpacked``). Prints one
JSON line per load and the medians per page. Write the pages with ``render_html(document,
depth=1)`` of the scale documents (``benchmarks/_scale_models.py``).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from ._browser import launch, open_page

__all__ = ["main", "measure"]

_DRAWN = "document.querySelector('.vista-viewer[data-state=\"ready\"]') !== null"

# The page's marks and, timed again on the loaded page, each step of reading the document.
_STEPS = """async () => {
  const marks = Object.fromEntries(performance.getEntriesByType('mark')
    .filter((m) => m.name.startsWith('vista:')).map((m) => [m.name.slice(6), Math.round(m.startTime)]));
  const text = document.querySelector('[data-vista="graph"]').textContent.trim();
  let t = performance.now();
  const bytes = Uint8Array.fromBase64(text);
  const base64 = performance.now() - t;
  t = performance.now();
  const stream = new DecompressionStream('gzip');
  const writer = stream.writable.getWriter();
  writer.write(bytes);
  writer.close();
  const packed = new Uint8Array(await new Response(stream.readable).arrayBuffer());
  const gunzip = performance.now() - t;
  t = performance.now();
  // The packed form's head (see vista_render_html._pack): a uint32 length, then that much JSON;
  // a page of an older commit holds the whole packed form as JSON.
  let parsed;
  if (packed[0] === 0x5b) { try { parsed = JSON.parse(new TextDecoder().decode(packed)); } catch {} }
  if (parsed === undefined) {
    const length = new DataView(packed.buffer).getUint32(0, true);
    parsed = JSON.parse(new TextDecoder().decode(packed.subarray(4, 4 + length)));
  }
  const parse = performance.now() - t;
  return { marks, base64_ms: base64, gunzip_ms: gunzip, parse_ms: parse, parsed: typeof parsed,
           payload_chars: text.length, packed_bytes: packed.length };
}"""


def measure(pages: list[Path], rounds: int, log: Any = print) -> dict[str, list[dict[str, Any]]]:
    """Every page opened ``rounds`` times, in turn; the figures of each load, per page."""
    from playwright.sync_api import sync_playwright

    runs: dict[str, list[dict[str, Any]]] = {str(p): [] for p in pages}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for _ in range(rounds):
                for page in pages:
                    loaded = open_page(browser, page, _DRAWN, timeout_ms=300_000)
                    try:
                        figures: dict[str, Any] = loaded.tab.evaluate(_STEPS)
                    finally:
                        loaded.close()
                    if loaded.errors:
                        raise RuntimeError(f"{page.name}: page errors {loaded.errors[:3]}")
                    figures["first_view_ms"] = loaded.drawn_ms
                    runs[str(page)].append(figures)
                    log(page.name, json.dumps(figures))
        finally:
            browser.close()
    return runs


def _medians(samples: list[dict[str, Any]]) -> dict[str, float]:
    keys = [k for k, v in samples[0].items() if isinstance(v, (int, float))]
    out = {k: statistics.median(s[k] for s in samples) for k in keys}
    for name in samples[0]["marks"]:
        out[f"mark:{name}"] = statistics.median(s["marks"].get(name, float("nan")) for s in samples)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.first_view", description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    runs = measure(args.pages, args.rounds)
    for page, samples in runs.items():
        print(page, json.dumps({k: round(v, 1) for k, v in _medians(samples).items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
