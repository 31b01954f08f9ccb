"""The review page at size: 100 files with 500 findings. Prints the page's size, the time to
write it, and (when Debian's chromium and chromedriver are installed) the time the browser
takes to load and lay it out, and to filter it.

    python benchmarks/review_page.py [--files 100] [--findings 500]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from review_agent.records import DiffLine, Excerpt, Finding, Report, ReviewedFile  # noqa: E402
from review_agent.report.html import render  # noqa: E402

RULES = ("debug-print", "eval-exec", "debugger", "todo-added", "secret/generic-api-key")
SEVERITIES = ("warning", "warning", "warning", "info", "error")


def synthetic(files: int, findings: int) -> Report:
    per_file = max(1, findings // files)
    reviewed, found = [], []
    for i in range(files):
        path = f"src/package_{i // 10}/module_{i}.py"
        lines = []
        for n in range(1, 61):
            kind = "+" if n % 3 == 0 else " "
            lines.append(DiffLine(kind, None if kind == "+" else n, n,
                                  f"    value_{n} = compute(item, index={n})  # line {n}"))
        reviewed.append(ReviewedFile(path, None, "M", 20, 0, (Excerpt("def handler(item):",
                                                                      tuple(lines)),)))
        for k in range(per_file):
            r = (i + k) % len(RULES)
            found.append(Finding(path, 3 * (k + 1), 3 * (k + 1), SEVERITIES[r], RULES[r],
                                 f"finding {k} of {path}: something a reviewer reads", "builtin"))
    out = {"status": "needs_review", "files_reviewed": files}
    return Report(out, tuple(found), files, (), "builtin", "1", 1.0, (), 50, "review_pipeline",
                  tuple(reviewed))


def browser_times(page: Path, runs: int) -> tuple[list[float], list[float]] | None:
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    if not browser or not driver:
        return None
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    profile = tempfile.mkdtemp()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=Service(driver), options=opts)
    drv.set_window_size(1400, 1000)
    loads, filters = [], []
    try:
        for _ in range(runs):
            drv.get(page.as_uri())
            loads.append(drv.execute_script(
                "const t = performance.getEntriesByType('navigation')[0];"
                "return t.loadEventEnd - t.startTime;") / 1000)
            filters.append(drv.execute_script(
                "const t0 = performance.now();"
                "document.querySelector('input[value=warning]').click();"
                "document.body.offsetHeight;"
                "return performance.now() - t0;") / 1000)
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return loads, filters


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--findings", type=int, default=500)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    report = synthetic(args.files, args.findings)
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        html = render(report)
        times.append(time.perf_counter() - t0)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.html"
        page.write_text(html, encoding="utf-8")
        print(f"{args.files} files, {len(report.findings)} findings: "
              f"page {len(html) / 1024:.0f} KiB, written in "
              f"{statistics.median(times) * 1000:.1f} ms (median of {args.runs})")
        measured = browser_times(page, args.runs)
        if measured is None:
            print("chromium/chromedriver/selenium not installed: no browser figures")
            return
        loads, filters = measured
        print(f"chromium: load and layout {statistics.median(loads) * 1000:.0f} ms, "
              f"a severity filter {statistics.median(filters) * 1000:.1f} ms (medians)")


if __name__ == "__main__":
    main()
