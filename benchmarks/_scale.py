"""Scale: how the Vista page behaves on documents of 2k to 100k nodes (see ``_scale_models``).

``bench_scale(document)`` renders the page (``depth=1``), opens it in headless Chromium (network
blocked, see ``_browser``) and measures, in one fresh page:

- ``first_view_ms``: navigation start → the first graph drawn;
- ``expand_all_ms``: a click on Open all → the viewer's next ``vista:drawn`` mark and the frame
  after it (the last drawn frame), with ``items`` the number of boxes the viewer then shows;
- ``toggle_close_ms`` / ``toggle_open_ms``: − then + on the biggest open module drawn that
  holds at most 1% of the nodes (a block, a layer), on the fully open graph;
- ``jump_ms``: ``select()`` of the document's last operation (what a search hit does) until its
  box is in the DOM and a frame drawn; ``fit_ms``: the Fit button until the next frame;
- ``frames``: the intervals between animation frames while the wheel zooms in and out and the
  mouse drags the graph (at the fit view, so every node is in the picture): median, p95, max
  and how many exceeded 50 ms;
- ``long_task_max_ms``: the longest main-thread task (``longtask`` entries) during the clicks;
- ``marks_ms``: per action, when the viewer's marks came after its start: ``layout-requested``
  (the request sent), ``layout-arrived`` (the worker's answer reached the page), ``filled`` (the last
  frame of a window filled over several frames, when it was),
  ``layout-received`` (unpacked) and ``drawn``;
- memory after Open all: the renderer process's resident set (``VmRSS`` of Chromium's
  ``--type=renderer`` processes started by this benchmark), the JavaScript heap and the DOM
  node count (CDP ``Performance.getMetrics``).

Figures, not pass/fail limits; ``_report`` states the issue's targets against them.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ._browser import open_page

__all__ = ["bench_scale", "renderer_rss_bytes"]

_VISTA_DRAWN = "document.querySelector('.vista-viewer[data-state=\"ready\"]') !== null"

# Starts collecting long tasks and animation-frame intervals (read by _READ_FRAMES).
_OBSERVE = """
() => {
  globalThis.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) __longTasks.push(e.duration); })
    .observe({ type: 'longtask' });
  globalThis.__frames = null;
}
"""

# Runs ACTION (a function body, may await), then waits frame by frame until DONE holds after a
# new `vista:drawn` mark (when WAIT_DRAWN) and returns the elapsed ms and the longest task.
_TIMED = """
async ([action, done, waitDrawn, arg]) => {
  const act = new (Object.getPrototypeOf(async function () {}).constructor)('arg', action);
  const check = new Function('arg', done);
  const drawn = () => performance.getEntriesByName('vista:drawn').length;
  const before = drawn();
  __longTasks.length = 0;
  const start = performance.now();
  const acted = act(arg);
  for (;;) {
    await new Promise(requestAnimationFrame);
    if ((!waitDrawn || drawn() > before) && check(arg)) break;
    if (performance.now() - start > 300000) throw new Error('timed out: ' + action);
  }
  // The frame after the one that showed it: that one's style, layout and paint are done.
  await new Promise(requestAnimationFrame);
  const ms = performance.now() - start;
  await acted;
  const at = (name) => { const e = performance.getEntriesByName('vista:' + name).at(-1);
                         return e === undefined || e.startTime < start ? null : Math.round(e.startTime - start); };
  await new Promise((r) => setTimeout(r, 50));
  return [ms, Math.max(0, ...__longTasks), Object.fromEntries(
    ['layout-requested', 'layout-arrived', 'layout-received', 'drawn', 'filled'].map((m) => [m, at(m)]))];
}
"""

_READY = "return document.querySelector('.vista-viewer').dataset.state === 'ready';"

_FRAMES_START = """
() => {
  globalThis.__frames = [];
  let last = performance.now();
  const tick = (t) => {
    if (__frames === null) return;
    __frames.push(t - last);
    last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
"""

_FRAMES_STOP = "() => { const f = __frames; __frames = null; return f; }"

_CLICK = "document.querySelector('.vista-viewer button[data-action=\"{action}\"]').click();"

# The boxes the viewer shows (its data-items, or where it sets none, the nodes in the DOM).
_ITEMS = ("() => Number(document.querySelector('.vista-viewer').dataset.items)"
          " || document.querySelectorAll('.vista-viewer g.vista-node').length")

_METRICS = ("JSHeapUsedSize", "JSHeapTotalSize", "Nodes")


def renderer_rss_bytes() -> int | None:
    """The largest ``VmRSS`` among Chromium renderer processes descended from this process."""
    import os

    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    best: int | None = None
    stack = list(children.get(os.getpid(), []))
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            cmdline = (Path("/proc") / str(pid) / "cmdline").read_bytes()
            if b"--type=renderer" not in cmdline:
                continue
            for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                    best = rss if best is None else max(best, rss)
        except OSError:
            continue
    return best


def _block_modules(document: dict[str, Any]) -> dict[str, int]:
    """Module calls below the root holding at most 1% of the nodes, with their node counts: the
    biggest of them drawn is the one clicked (a block, a layer; not the model's body, whose −
    is Close all)."""
    parent = {m["id"]: m["parent"] for m in document["modules"]}
    counts: dict[str, int] = dict.fromkeys(parent, 0)
    for node in document["nodes"]:
        current: str | None = node["module"]
        while current is not None:  # a loop: modules nest 10,000 deep in the extremes
            counts[current] += 1
            current = parent[current]
    limit = max(1, len(document["nodes"]) // 100)
    return {m: n for m, n in counts.items() if parent[m] is not None and 0 < n <= limit}


def _last_op(document: dict[str, Any]) -> str:
    ops = [n["id"] for n in document["nodes"] if n["kind"] == "op"]
    if not ops:
        raise ValueError("the document has no operation to jump to")
    return ops[-1]


def bench_scale(document: dict[str, Any], *, timeout_ms: float = 300_000) -> dict[str, Any]:
    """Measure one fresh page of ``document``; see the module docstring for the figures."""
    from playwright.sync_api import sync_playwright

    from vista_render_html import render_html

    from ._browser import launch

    html = render_html(document, depth=1)
    target = _last_op(document)
    figures: dict[str, Any] = {"nodes": len(document["nodes"]), "modules": len(document["modules"]),
                               "page_bytes": len(html.encode("utf-8"))}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        path = Path(tmp) / "page.html"
        path.write_text(html, encoding="utf-8")
        browser = launch(p)
        try:
            loaded = open_page(browser, path, _VISTA_DRAWN, timeout_ms=timeout_ms)
            try:
                tab = loaded.tab
                figures["first_view_ms"] = round(loaded.drawn_ms, 1)
                tab.evaluate(_OBSERVE)

                def timed(name: str, action: str, done: str = _READY, arg: object = None, drawn: bool = True) -> None:
                    ms, longest, marks = tab.evaluate(_TIMED, [action, done, drawn, arg])
                    figures[f"{name}_ms"] = round(ms, 1)
                    if any(at is not None for at in marks.values()):
                        figures.setdefault("marks_ms", {})[name] = marks
                    figures.setdefault("long_task_ms", {})[name] = round(longest, 1)

                timed("expand_all", _CLICK.format(action="expand-all"))
                figures["items"] = int(tab.evaluate(_ITEMS))
                figures["renderer_rss_bytes"] = renderer_rss_bytes()
                cdp = tab.context.new_cdp_session(tab)
                cdp.send("Performance.enable")
                metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
                cdp.detach()
                figures.update({f"js_{name}": metrics.get(name) for name in _METRICS})
                box = tab.evaluate("""(sizes) => [...document.querySelectorAll(
                    '.vista-viewer g.vista-module[data-state="expanded"]')].map((g) => g.dataset.id)
                    .filter((id) => id in sizes).sort((a, b) => sizes[b] - sizes[a])[0] ?? null""",
                                   _block_modules(document))
                if box is not None:
                    figures["toggled_module"] = box
                    toggle = ("const root = document.querySelector('.vista-viewer');"
                              "root.querySelector(`g.vista-module[data-id=\"${arg[0]}\"] [data-action=\"toggle\"]`)"
                              ".dispatchEvent(new MouseEvent('click', { bubbles: true }));")
                    state = ("const root = document.querySelector('.vista-viewer');"
                             "const g = root.querySelector(`g.vista-module[data-id=\"${arg[0]}\"]`);"
                             "return root.dataset.state === 'ready' && g !== null && g.dataset.state === arg[1];")
                    timed("toggle_close", toggle, state, [box, "collapsed"])
                    timed("toggle_open", toggle, state, [box, "expanded"])
                timed("jump", "await document.querySelector('[data-vista=root]').vistaHandle.select(arg);",
                      "return document.querySelector(`.vista-viewer g.vista-node[data-id=\"${arg}\"]`) !== null;",
                      target, drawn=False)
                timed("fit", _CLICK.format(action="fit"),
                      "return true;", drawn=False)
                figures["frames"] = _frames(tab)
                figures["long_task_ms"]["pan_zoom"] = round(max(tab.evaluate("() => __longTasks"), default=0.0), 1)
            finally:
                loaded.close()
            if loaded.network or loaded.errors:
                raise RuntimeError(f"the page misbehaved: network requests {loaded.network[:3]}, "
                                   f"page errors {loaded.errors[:3]}")
        finally:
            browser.close()
    figures["us_per_node"] = {key: round(1000 * figures[key] / figures["nodes"], 1)
                              for key in ("first_view_ms", "expand_all_ms") if figures.get(key) is not None}
    return figures


def _frames(tab: Any) -> dict[str, Any]:
    """Frame intervals while the wheel zooms in 8 steps at the centre, the mouse drags the graph
    around, and the wheel zooms back out."""
    box = tab.locator(".vista-viewer svg").first.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    tab.evaluate("() => { __longTasks.length = 0; }")
    tab.mouse.move(cx, cy)
    tab.evaluate(_FRAMES_START)
    for _ in range(8):
        tab.mouse.wheel(0, -240)
        time.sleep(0.03)
    tab.mouse.down()
    for step in range(30):
        tab.mouse.move(cx + 12 * step, cy + 6 * step)
        time.sleep(0.016)
    tab.mouse.up()
    for _ in range(8):
        tab.mouse.wheel(0, 240)
        time.sleep(0.03)
    time.sleep(0.3)
    frames: list[float] = tab.evaluate(_FRAMES_STOP)[1:]  # the first interval starts before the gesture
    if not frames:
        return {}
    ordered = sorted(frames)
    return {"count": len(frames), "median_ms": round(statistics.median(frames), 1),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1), "max_ms": round(ordered[-1], 1),
            "over_50ms": sum(1 for f in frames if f > 50)}


def _median_of(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Each number the median over ``samples``, nested dicts likewise; other values from the first."""
    first = samples[0]
    out: dict[str, Any] = {}
    for key, value in first.items():
        values = [s.get(key) for s in samples]
        if isinstance(value, dict):
            out[key] = _median_of([v for v in values if isinstance(v, dict)])
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            numbers = [v for v in values if isinstance(v, (int, float))]
            out[key] = round(statistics.median(numbers), 1) if numbers else None
        else:
            out[key] = value
    return out


def measure_scale(cases: dict[str, tuple[str, int, Any]], repeats: int, log: Any = print) -> dict[str, Any]:
    """``{"cases": [...]}``: per case its document built once, then ``repeats`` fresh pages of
    :func:`bench_scale`, every figure the median over them (``runs`` keeps each page's)."""
    rows: list[dict[str, Any]] = []
    for name, (model, approx, build) in cases.items():
        row: dict[str, Any] = {"case": name, "model": model, "approx_nodes": approx}
        try:
            start = time.perf_counter()
            document = build()
            row["trace_s"] = round(time.perf_counter() - start, 1)
            samples = [bench_scale(document) for _ in range(repeats)]
            row.update(_median_of(samples))
            row["runs"] = samples
            del document
            log(f"  {name}: {row['nodes']:,} nodes, first view {row.get('first_view_ms')} ms, Open all "
                f"{row.get('expand_all_ms')} ms, −/+ {row.get('toggle_close_ms')}/{row.get('toggle_open_ms')} ms, "
                f"max frame {row.get('frames', {}).get('max_ms')} ms, "
                f"RSS {(row.get('renderer_rss_bytes') or 0) / 2**20:.0f} MiB")
        except Exception as exc:  # a case that fails is reported; the others still run  # noqa: BLE001
            row["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
            log(f"  {name}: FAILED {row['error']}")
        rows.append(row)
    return {"cases": rows}
