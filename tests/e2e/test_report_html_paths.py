"""The review page's file list shows every path as it is written, in a real headless
Chromium: a leading dot (`.github/...`) stays at the start, a long path is cut at its start
(the file name stays visible), and a screenshot of the list is kept for a look."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Repo
from tests.e2e.test_report_html import _render, browser  # noqa: F401 - the fixture

PATHS = [
    ".github/CONTRIBUTING.md",
    ".pre-commit-config.yaml",
    "docs/.vuepress/config.js",
    "src/(legacy)/a-b_c.py",
    "deep/" + "nested_directory/" * 8 + "the_file_name_that_stays.py",
    "notes/ünïcödé — ok.txt",
]
# each path's first and last character as the browser places them, and its box
_GEOMETRY = """
return Array.from(document.querySelectorAll('nav.files .path')).map(el => {
  const text = el.textContent, walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const nodes = []; while (walker.nextNode()) nodes.push(walker.currentNode);
  const rect = (node, i) => { const r = document.createRange();
    r.setStart(node, i); r.setEnd(node, i + 1); return r.getBoundingClientRect(); };
  const first = nodes.find(n => n.data.trim().length), last = nodes[nodes.length - 1];
  const f = rect(first, first.data.search(/\\S/)), l = rect(last, last.data.length - 1);
  const box = el.getBoundingClientRect();
  return [text, f.left, l.right, box.left, box.right, el.scrollWidth > el.clientWidth];
});"""


def test_the_file_list_shows_paths_as_written(repo_with_commit: Repo, tmp_path: Path,
                                              browser) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    repo = repo_with_commit
    repo.stage({p: "print('x')\n" for p in PATHS})
    page = tmp_path / "page.html"
    _render(repo, page)
    browser.get(page.as_uri())
    browser.set_window_size(1400, 1000)
    shot = tmp_path / "file-list.png"
    browser.find_element("css selector", "nav.files").screenshot(str(shot))
    assert shot.stat().st_size > 1000  # kept with the test's files for a human to look at
    shown = {row[0].strip("\u200e\u200f\u2066\u2067\u2068\u2069"): row
             for row in browser.execute_script(_GEOMETRY)}
    assert set(PATHS) <= set(shown), sorted(shown)
    for path in PATHS:
        text, first_left, last_right, box_left, box_right, cut = shown[path]
        assert text.strip() == path or path in text  # the text itself is untouched
        # the first character is drawn left of the last one: ".github/..." never turns
        # into "github/....", whatever direction the list uses to cut long paths
        assert first_left < last_right, (path, shown[path])
        # the end of a path (its file name) is always in view; a long one is cut at its start
        assert last_right <= box_right + 1, (path, shown[path])
        if not cut:
            assert first_left >= box_left - 1, (path, shown[path])
    assert shown[PATHS[4]][5], "the long path must overflow its box for this check"
