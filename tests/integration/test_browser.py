"""Neo4j Browser end to end: headless Chromium (Debian's package) opens the Browser the
local server serves, connects, applies graphmem's style, runs an exploration query and
takes a screenshot; the graph view must show the memories as nodes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest

from graphmem import browser
from graphmem.api import GraphMem
from graphmem.base.settings import load_settings
from graphmem.graph.server import LocalServer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = Path(os.environ.get("GRAPHMEM_SHOTS", Path(__file__).resolve().parents[2] / ".shots"))


@pytest.fixture
def chromium() -> str:
    """Debian's Chromium, or a skip (a failure when GRAPHMEM_REQUIRE_CHROMIUM=1, as in CI)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        playwright_missing = True
    else:
        playwright_missing = False
    if CHROMIUM is None or playwright_missing:
        why = "no chromium on PATH" if CHROMIUM is None else "playwright is not installed"
        if os.environ.get("GRAPHMEM_REQUIRE_CHROMIUM") == "1":
            pytest.fail(f"GRAPHMEM_REQUIRE_CHROMIUM=1 but {why}", pytrace=False)
        pytest.skip(why)
    return CHROMIUM


def _run(page, command: str) -> None:
    page.click("#monaco-main-editor")
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    page.keyboard.insert_text(command)
    page.click('[data-testid="editor-Run"]')


def test_browser_draws_an_exploration_query_in_graphmem_colours(
        mem: GraphMem, chromium: str, local_server: None) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    mem.remember([
        {"id": "b1", "text": "The mobile app talks to the GraphQL gateway", "session": "s"},
        {"id": "b2", "text": "The GraphQL gateway caches queries in Redis", "session": "s",
         "links": [{"id": "b1", "weight": 0.9}]},
        {"id": "b3", "text": "Run the gateway locally with make dev", "kind": "procedural",
         "links": [{"id": "b2", "weight": 0.8}]},
    ])
    settings = mem.settings
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / "browser-strongest-associations.png"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = b.new_page(viewport={"width": 1400, "height": 900})
            page.goto(browser.url(settings), wait_until="networkidle")
            page.wait_for_selector('input[data-testid="boltaddress"]', timeout=60_000)
            page.select_option('select[data-testid="bolt-scheme-select"]', "bolt://")
            host = settings.neo4j_uri.split("://", 1)[1]
            page.fill('input[data-testid="boltaddress"]', host)
            page.fill('input[data-testid="username"]', settings.neo4j_user)
            page.fill('input[data-testid="password"]',
                      settings.neo4j_password.get_secret_value())
            page.click('button[data-testid="connect"]')
            page.wait_for_selector('[data-testid="frameCommand"]:has-text(":play start")',
                                   timeout=30_000)
            _run(page, browser.style_command())
            _run(page, f":param scope => \"{settings.scope}\"")
            # Browser sets a parameter by asking the server to evaluate it; on a busy
            # machine a query sent before the answer runs without $scope.
            page.wait_for_selector(
                '[data-testid="frame"]:has-text("Successfully set your parameters")',
                timeout=30_000)
            body = browser.paste("explore/strongest_associations", {}).strip()
            _run(page, " ".join(body.split()))
            try:
                page.wait_for_selector("svg g.node", timeout=30_000)
            except PlaywrightTimeout:
                shown = page.locator('[data-testid="frame"]').first.inner_text()
                pytest.fail(f"no graph drawn; the query's frame shows: {shown[:500]!r}")
            page.wait_for_timeout(1500)  # let the force layout settle for the picture
            page.screenshot(path=str(shot))
            nodes = page.locator("svg g.node").count()
            overview = page.locator('[data-testid="frame"]').first.inner_text()
        finally:
            b.close()
    assert nodes == 3
    assert "Procedural (1)" in overview and "Episodic (2)" in overview
    assert shot.stat().st_size > 20_000


def test_the_local_servers_discovery_names_its_own_bolt_port() -> None:
    # Browser's connect form takes the Bolt address from the server's discovery document;
    # on other ports it offered 7687, which may be another server's.
    settings = load_settings()
    local = LocalServer(settings)
    if not local.status().running:
        pytest.skip("no server that `graphmem server start` started")
    found = httpx.get(f"http://127.0.0.1:{settings.server_http_port}/", timeout=10).json()
    assert found["bolt_direct"].endswith(f":{settings.server_bolt_port}"), found
