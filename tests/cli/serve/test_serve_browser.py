"""`ark serve`'s page in a real browser: Playwright drives Debian's headless Chromium.

Skipped with one line when Playwright or Chromium is missing (CI installs chromium). The
screenshots are taken every run; `ARK_UPDATE_SCREENSHOTS=1` also writes them to docs/serve/.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("ARK_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
DOCS = Path(__file__).resolve().parents[3] / "docs" / "serve"
QUESTION = "People who buy Klaqui gear also buy which Fans?"
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
WAIT_MS = 60_000  # an upper bound on waits, never a speed expectation

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not Path(CHROMIUM).is_file():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)


@pytest.fixture
def page(server: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        opened = context.new_page()
        opened.set_default_timeout(WAIT_MS)
        outside: list[str] = []
        opened.on("request", lambda r: None if r.url.startswith(server) else outside.append(r.url))
        opened.goto(server + "/")
        opened.wait_for_selector("#snapshot option", state="attached")
        yield opened
        browser.close()
        assert outside == [], f"the page loaded from outside the server: {outside}"


def shot(page: Any, name: str, tmp_path: Path) -> None:
    """Screenshot the page (small: palette PNG); copy it to docs/serve/ when asked."""
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path))
    try:
        from PIL import Image

        with Image.open(path) as image:
            image.convert("RGB").quantize(colors=96).save(path, optimize=True)
    except ImportError:
        pass
    assert path.stat().st_size > 5_000
    if os.environ.get("ARK_UPDATE_SCREENSHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / path.name)


def test_ask_shows_the_live_trace_and_the_answers(page: Any, tmp_path: Path) -> None:
    page.fill("#question", QUESTION)
    page.fill("#agents", "2")
    page.click("#ask-btn")
    page.wait_for_selector("#answers li.answer")
    assert page.locator("#trace li.turn").count() > 2
    assert page.locator("#trace li.tool").first.inner_text().count("search(") >= 1
    first = page.locator("#answers li.answer").first
    assert "vote" in first.inner_text()
    assert "answers in" in page.inner_text("#status")
    first.click()  # the answer's neighbourhood
    page.wait_for_selector("#graph g.node.center")
    shot(page, "ask", tmp_path)


def test_expand_a_node_and_search_as_you_type(page: Any, tmp_path: Path) -> None:
    page.fill("#search", "Klaqui")
    page.wait_for_selector("#search-results li")
    assert "Klaqui" in page.locator("#search-results li").first.inner_text()
    page.locator("#search-results li").first.click()
    page.wait_for_selector("#graph g.node.center")
    before = page.locator("#graph g.node").count()
    assert before > 1 and page.locator("#graph line.edge").count() >= before - 1
    page.locator("#graph g.node:not(.center) circle").first.click()
    page.wait_for_function(f"document.querySelectorAll('#graph g.node').length > {before}")
    colours = page.eval_on_selector_all(
        "#graph line.edge",
        "lines => new Set(lines.map(l => l.getAttribute('stroke'))).size",
    )
    assert colours >= 2 and page.locator("#legend span").count() >= 2
    shot(page, "graph", tmp_path)


def test_answer_draws_chains_with_their_passages(page: Any, tmp_path: Path) -> None:
    page.fill("#question", QUESTION)
    page.select_option("#mode", "answer")
    page.click("#ask-btn")
    page.wait_for_selector("#chains .chain svg g.node")
    assert page.inner_text("#answer-text").startswith("Answer:")
    assert page.locator("#passages li.passage").count() >= 1
    shot(page, "answer", tmp_path)


def test_upload_a_document_and_find_its_entity(page: Any, tmp_path: Path) -> None:
    page.select_option("#snapshot", "notes")
    page.wait_for_selector("#documents li")
    document = tmp_path / "turing.txt"
    document.write_text("Alan Turing met Claude Shannon at Bell Labs.")
    page.set_input_files("#doc-file", str(document))
    page.click("#upload-btn")
    page.wait_for_selector("#new-entities li:has-text('Shannon')")
    assert "done: 1 added" in page.inner_text("#job-status")
    page.wait_for_selector("#documents li[data-id='turing.txt']")
    page.fill("#search", "Shannon")
    page.wait_for_selector("#search-results li:has-text('Shannon')")
    page.locator("#new-entities li:has-text('Shannon')").click()
    page.wait_for_selector("#graph g.node.center")
    page.locator("#new-entities").scroll_into_view_if_needed()
    shot(page, "upload", tmp_path)


def test_api_docs_render_from_vendored_swagger(page: Any, server: str, tmp_path: Path) -> None:
    page.goto(server + "/docs")
    page.wait_for_selector(".swagger-ui .opblock")
    assert page.locator(".opblock-summary-path:has-text('/api/ask')").count() >= 1
    shot(page, "api-docs", tmp_path)
