"""The HTML review page: built by the real CLI on a real repository, checked as text and
in a real headless Chromium (Debian's chromium + chromium-driver, which .ci/run installs)."""

from __future__ import annotations

import json
import re
import secrets
import shutil
import string
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.helpers import run_cli

HOSTILE_LINE = "# </script><img src=x onerror=alert(1)><b>bold</b>"
HOSTILE_NAME = "conf <b>&x.py"


def _aws_key_id() -> str:
    return "AKIA" + "".join(secrets.choice(string.ascii_uppercase + "234567") for _ in range(16))


def _page_repo(repo: Repo) -> tuple[Repo, str]:
    repo.commit("initial", {
        "app.py": "def f(x):\n    return x\n",
        "lib/util.js": "export function g(a) {\n  return a;\n}\n",
    })
    key = _aws_key_id()
    repo.stage({
        "app.py": ("def f(x):\n    print(x)\n    eval(x)\n    breakpoint()\n    return x\n"
                   f"{HOSTILE_LINE}\n"),
        "lib/util.js": "export function g(a) {\n  debugger;\n  return a;\n}\n",
        HOSTILE_NAME: f"aws_access_key_id = {key}\n",
    })
    return repo, key


def _json_findings(repo: Repo) -> list[dict[str, object]]:
    proc = run_cli(repo.path, "review", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    findings: list[dict[str, object]] = json.loads(proc.stdout)["findings"]
    return findings


def _render(repo: Repo, out: Path, *extra: str) -> str:
    proc = run_cli(repo.path, "review", "--format", "html", "--output", str(out), *extra)
    assert proc.returncode == 0, proc.stderr
    return out.read_text(encoding="utf-8")


def test_page_is_self_contained_escaped_and_masked(repo_with_commit: Repo, tmp_path: Path
                                                    ) -> None:
    repo, key = _page_repo(repo_with_commit)
    page = _render(repo, tmp_path / "page.html")
    assert page.startswith("<!doctype html>")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # no resource from anywhere: every src/href is a fragment
    for attr in re.findall(r'(?:src|href|action)\s*=\s*"([^"]*)"', page):
        assert attr.startswith("#"), attr
    assert "<link" not in page and "@import" not in page and "url(" not in page
    # nothing from the diff or a path is markup
    assert "<img" not in page and "<b>bold" not in page
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "conf &lt;b&gt;&amp;x.py" in page
    assert key not in page and key[:8] not in page  # shown only masked (first 4, last 3)
    assert f"{key[:4]}…{key[-3:]}" in page
    expected = _json_findings(repo)
    assert {"debug-print", "eval-exec", "debugger", "secret/aws-access-key-id"} <= {
        str(f["rule"]) for f in expected}
    assert sorted(re.findall(r'class="finding [^"]*" id="f\d+" tabindex="-1" '
                             r'data-severity="\w+" data-rule="([^"]+)"', page)) == sorted(
        str(f["rule"]) for f in expected)


def test_run_page_shows_proposal_and_critique(repo_with_commit: Repo, tmp_path: Path) -> None:
    proc = run_cli(repo_with_commit.path, "run", "--task",
                   "Write pytest tests for add() in src/app.py covering negative numbers",
                   "--context", "src/app.py", "--format", "html")
    assert proc.returncode == 0, proc.stderr
    page = proc.stdout
    assert 'id="team-specialist_artifact"' in page or 'id="team-message"' in page
    assert "<script>" in page and "def test_" in page


def _chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip("chromium and chromedriver are not installed (.ci/run installs them)")
    pytest.importorskip("selenium")
    return browser, driver


@pytest.fixture
def browser(tmp_path: Path):  # type: ignore[no-untyped-def]
    binary, driver_path = _chromium()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    drv = webdriver.Chrome(service=Service(driver_path), options=opts)
    drv.set_window_size(1400, 1000)
    try:
        yield drv
    finally:
        drv.quit()


def _requests(drv, page_url: str) -> list[str]:  # type: ignore[no-untyped-def]
    urls = []
    for entry in drv.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            url = msg["params"]["request"]["url"]
            if msg["params"].get("documentURL") == page_url and url != page_url:
                urls.append(url)
    return urls


_VISIBLE = "return Array.from(document.querySelectorAll('.finding')).filter(" \
           "f => f.offsetParent !== null).map(f => f.dataset.rule)"


def test_page_in_headless_chromium(repo_with_commit: Repo, tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    repo, key = _page_repo(repo_with_commit)
    expected = _json_findings(repo)
    total = len(expected)
    warnings = sum(f["severity"] == "warning" for f in expected)
    path = tmp_path / "page.html"
    _render(repo, path)
    url = path.as_uri()
    browser.get(url)
    drv = browser

    # the diff: every shown line has its numbers; app.py's added lines are there in order
    rows = drv.execute_script(
        "return Array.from(document.querySelectorAll('#file-0 tr.line')).map(r => "
        "[r.className, r.cells[0].textContent, r.cells[1].textContent, r.cells[3].innerText])")
    added = [r for r in rows if "add" in r[0]]
    assert [r[2] for r in added] == ["2", "3", "4", "6"]
    assert added[0][3] == "    print(x)"
    assert added[-1][3] == HOSTILE_LINE  # shown as text, not markup
    assert drv.execute_script("return document.images.length") == 0

    # each finding sits right after the line it names
    placed = drv.execute_script("""
        return Array.from(document.querySelectorAll('tr.finding')).map(f => {
          let p = f.previousElementSibling;
          while (p && p.classList.contains('finding')) p = p.previousElementSibling;
          return [f.dataset.rule, p ? p.cells[1].textContent : null];
        });""")
    assert ["debug-print", "2"] in placed and ["eval-exec", "3"] in placed
    assert ["debugger", "4"] in placed
    assert sorted(placed) == sorted([str(f["rule"]), str(f["line"])] for f in expected)

    # filters hide and show
    all_rules = drv.execute_script(_VISIBLE)
    assert sorted(all_rules) == sorted(str(f["rule"]) for f in expected)
    drv.find_element(By.CSS_SELECTOR, 'input[name="severity"][value="warning"]').click()
    left = drv.execute_script(_VISIBLE)
    assert len(left) == total - warnings and "eval-exec" not in left
    assert "secret/aws-access-key-id" in left
    drv.find_element(By.CSS_SELECTOR, 'input[name="severity"][value="warning"]').click()
    drv.find_element(By.CSS_SELECTOR, 'input[name="source"][value="secrets"]').click()
    assert "secret/aws-access-key-id" not in drv.execute_script(_VISIBLE)
    drv.find_element(By.CSS_SELECTOR, 'input[name="source"][value="secrets"]').click()
    drv.execute_script("const s = document.getElementById('rule'); s.value = 'eval-exec';"
                       "s.dispatchEvent(new Event('change'));")
    assert drv.execute_script(_VISIBLE) == ["eval-exec"]
    drv.execute_script("const s = document.getElementById('rule'); s.value = '';"
                       "s.dispatchEvent(new Event('change'));")

    # keyboard: j goes forward, k back, wrapping
    body = drv.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    first = drv.execute_script("return document.querySelector('.finding.current').dataset.rule")
    body.send_keys("j")
    second = drv.execute_script("return document.querySelector('.finding.current').dataset.rule")
    body.send_keys("k")
    back = drv.execute_script("return document.querySelector('.finding.current').dataset.rule")
    assert first != second and back == first
    assert drv.find_element(By.ID, "pos").text == f"1 / {total}"

    # copy as Markdown: the shown findings, one list item each, the secret masked
    drv.find_element(By.CSS_SELECTOR, 'input[name="severity"][value="error"]').click()
    drv.find_element(By.ID, "copy").click()
    md = drv.execute_script("return window.__copiedMarkdown")
    errors_n = sum(f["severity"] == "error" for f in expected)
    assert md.startswith(f"# review-agent findings ({total - errors_n})")
    assert md.count("\n- `") == total - errors_n
    assert "`app.py:3` **warning** [eval-exec]" in md
    assert "secret/" not in md and key not in md

    drv.save_screenshot(str(tmp_path / "page-1400x1000.png"))
    drv.set_window_size(390, 844)
    overflow = drv.execute_script(
        "return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1  # nothing wider than a phone's screen
    drv.save_screenshot(str(tmp_path / "page-390x844.png"))
    assert (tmp_path / "page-390x844.png").stat().st_size > 1000

    assert _requests(drv, url) == []  # no request left the page
    assert drv.execute_script("return performance.getEntriesByType('resource').length") == 0
    errors = [e for e in drv.get_log("browser") if e.get("level") == "SEVERE"]
    assert errors == []
