"""The static build of the table referee (``flip7ref table --static``) in a real browser,
with the network cut: Debian's chromium driven by Selenium through the system chromedriver.

The folder is served by ``python -m http.server`` (a plain file server: no flip7ref code
answers anything); once the page has loaded and its service worker has cached every file,
the server is stopped and the browser put offline, the page is reloaded from the cache, and
a whole 3-player Flip 7 round is played with a Flip Three that reveals a Second Chance.  The
transcript the page exports must be the very file the server mode saves for the same steps.

Locally the tests skip with a reason when chromium, chromedriver, Selenium, the ``[table]``
extra or Pyodide (docs/table.md) is missing; in CI (``CI=true``) they fail instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
STEP = 20  # seconds for a step answered by Pyodide
BOOT = 180  # seconds for Pyodide to start (about 10-25 s on a loaded 2-core machine)


def _missing() -> str | None:
    for module in ("selenium", "starlette", "httpx"):
        try:
            __import__(module)
        except ImportError:
            return f"the Python package {module} is not installed (pip install -e '.[dev,table]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    from flip7ref.core.errors import OptionError
    from flip7ref.table.static_build import find_pyodide

    try:
        find_pyodide()
    except OptionError as exc:
        return str(exc)
    return None


_WHY = _missing()
if _WHY is not None:
    if os.environ.get("CI"):
        raise RuntimeError(f"the static page's browser tests must run in CI, but {_WHY}")
    pytest.skip(f"static page browser tests skipped: {_WHY}", allow_module_level=True)

from browser_helpers import (  # noqa: E402
    PHONE,
    covering,
    downloaded,
    driver,
    free_port,
    tap,
    touch,
    version,
    wait_for,
    wait_listening,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from flip7ref.table.app import create_app  # noqa: E402

NAMES = ["Ann", "Bob", "Cy"]
# a whole round: Cy's Flip Three on Bob reveals a Second Chance that then saves him from a
# second 8; a card mis-entered and undone; Ann busts on a second 3 (totals 0, 26, 7)
ROUND: list[tuple[str, str | None]] = [
    ("reveal", "5"), ("reveal", "flip_three"), ("act", "target 1"), ("reveal", "8"), ("reveal", "second_chance"),
    ("reveal", "8"), ("reveal", "12"), ("undo", None), ("reveal", "0"), ("act", "hit"), ("reveal", "x2"),
    ("act", "hit"), ("reveal", "7"), ("act", "hit"), ("reveal", "3"), ("act", "stay"), ("act", "stay"),
    ("act", "hit"), ("reveal", "3"),
]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The static folder, built by the command a user runs."""
    out = tmp_path_factory.mktemp("static") / "site"
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "flip7ref", "table", "--static", str(out)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    print(f"static build: {time.perf_counter() - t0:.1f} s; {done.stdout.strip()}")
    return out


class FileServer:
    """``python -m http.server`` on the folder (nothing of flip7ref runs in it)."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", "http.server", str(self.port), "-b", "127.0.0.1", "-d", str(folder)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        self.url = f"http://127.0.0.1:{self.port}/"
        wait_listening(self.port, "http.server")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


@pytest.fixture
def files(site: Path) -> Iterator[FileServer]:
    srv = FileServer(site)
    yield srv
    srv.stop()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    """A phone (touch events, its viewport) saving downloads to ``tmp_path / "downloads"``."""
    drv = driver(tmp_path / "profile", PHONE, downloads=tmp_path / "downloads")
    yield drv
    drv.quit()


_version = version


def play(drv: WebDriver, steps: list[tuple[str, str | None]]) -> None:
    for op, arg in steps:
        if op == "reveal":
            tap(drv, f"button.card[data-card='{arg}']", STEP)
        elif op == "act":
            tap(drv, f"button.act[data-action='{arg}']", STEP)
        else:
            tap(drv, f"#{op}", STEP)


def cut_network(drv: WebDriver, files: FileServer) -> None:
    """Stop the file server and put the browser offline (DevTools)."""
    files.stop()
    drv.execute_cdp_cmd("Network.enable", {})
    drv.execute_cdp_cmd("Network.emulateNetworkConditions",
                        {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})  # fmt: skip


def load_and_cache(drv: WebDriver, files: FileServer) -> float:
    """Open the page, wait for the referee to start and the service worker to hold every file; returns the seconds taken."""
    t0 = time.perf_counter()
    drv.get(files.url)
    wait_for(drv, "#start", BOOT)
    WebDriverWait(drv, BOOT).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
    return time.perf_counter() - t0


def start_game(drv: WebDriver) -> str:
    """Start a referee game of Ann, Bob and Cy from the start page; returns its id."""
    box = wait_for(drv, "#names", STEP)
    box.clear()
    box.send_keys("\n".join(NAMES))
    drv.find_element(By.CSS_SELECTOR, "input[name=mode][value='referee']").click()
    drv.find_element(By.ID, "start").click()
    WebDriverWait(drv, 20).until(lambda d: "?game=" in d.current_url and _version(d) is not None)
    return str(drv.current_url.split("?game=")[1])


def server_files(tmp: Path, steps: list[tuple[str, str | None]]) -> tuple[str, str]:
    """The transcript file the server mode saves for the same game and steps, and its score pad's CSV."""
    folder = tmp / "server-games"
    client = TestClient(create_app(folder))
    r = client.post("/api/games", json={"edition": "flip7", "names": NAMES, "dealer": 0, "mode": "referee"})
    assert r.status_code == 200, r.text
    gid, version = r.json()["id"], r.json()["state"]["version"]
    for op, arg in steps:
        body: dict[str, Any] = {"version": version}
        if op == "reveal":
            body["card"] = arg
        elif op == "act":
            body["action"] = arg
        r = client.post(f"/api/games/{gid}/{op}", json=body)
        assert r.status_code == 200, r.text
        version = r.json()["state"]["version"]
    return (folder / f"{gid}.json").read_text(encoding="utf-8"), client.get(f"/api/games/{gid}/scores.csv").text


@pytest.mark.rules("F7-070", "F7-080", "F7-081", "F7-100", "F7-091")
def test_offline_round_exports_the_server_transcript(browser: WebDriver, files: FileServer, tmp_path: Path) -> None:
    """Loaded once, then offline: a whole round, its transcript and CSV equal to the
    server's, the game kept across a reload, the exported file imported here and on a server."""
    drv = browser
    first = load_and_cache(drv, files)
    cut_network(drv, files)
    t0 = time.perf_counter()
    drv.refresh()  # from the service worker's cache only: the server is gone
    wait_for(drv, "#start", BOOT)
    offline_start = time.perf_counter() - t0
    assert drv.execute_script("return navigator.onLine") is False
    gid = start_game(drv)
    t0 = time.perf_counter()
    play(drv, ROUND)
    per_step = (time.perf_counter() - t0) / len(ROUND)
    assert "Second Chance" in drv.find_element(By.ID, "log").text
    totals = [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#totals td")]
    assert totals == ["Total", "0", "26", "7"]
    tap_export = wait_for(drv, "#export", STEP)
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", tap_export)
    tap_export.click()
    exported = downloaded(tmp_path / "downloads", ".json")
    assert exported.name == f"{gid}.json"
    text = exported.read_text(encoding="utf-8")
    server_text, server_csv = server_files(tmp_path, ROUND)
    assert text == server_text  # byte for byte the server's file
    link = wait_for(drv, "#csv", STEP)  # a link to an /api address: answered in the browser, saved as a file
    # tapped for real: scrolled to, the link shows above the dock (the round summary), not under it
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    assert covering(drv, link) is None
    touch(drv, "#csv", timeout=STEP)
    csv = downloaded(tmp_path / "downloads", "-scores.csv")
    assert csv.read_bytes().decode("utf-8") == server_csv and server_csv.splitlines()[-1] == "total,0,26,7"
    data = json.loads(text)
    draws = [s["draw"] for s in data["steps"] if "draw" in s]
    assert draws[:6] == ["5", "flip_three", "8", "second_chance", "8", "0"] and "12" not in draws
    # saved in the browser (IndexedDB): a reload, still offline, shows the game as it was
    seats, version = drv.find_element(By.ID, "seats").text, _version(drv)
    lines = [e.text for e in drv.find_elements(By.CSS_SELECTOR, ".seat .line")]
    t0 = time.perf_counter()
    drv.refresh()
    wait_for(drv, "#seats", BOOT)
    second_reload = time.perf_counter() - t0
    assert drv.find_element(By.ID, "seats").text == seats and _version(drv) == version == len(ROUND)  # the undo too
    # the exported file imports again as the same game, here and on the server
    drv.find_element(By.ID, "home").click()
    wait_for(drv, "#import", STEP).send_keys(str(exported))
    WebDriverWait(drv, 20).until(lambda d: "?game=" in d.current_url and gid not in d.current_url and _version(d) is not None)
    assert [e.text for e in drv.find_elements(By.CSS_SELECTOR, ".seat .line")] == lines
    assert [e.text for e in drv.find_elements(By.CSS_SELECTOR, "#totals td")] == totals
    imported = drv.current_url.split("?game=")[1]
    drv.find_element(By.ID, "home").click()  # no page load: the list of saved games is read again
    wait_for(drv, f".open-saved[data-id='{imported}']", STEP).click()
    WebDriverWait(drv, 20).until(lambda d: d.current_url.endswith(f"?game={imported}") and _version(d) is not None)
    client = TestClient(create_app(tmp_path / "other-server"))
    r = client.post("/api/games/import", json={"transcript": data})
    assert r.status_code == 200, r.text
    assert r.json()["state"]["pad"]["totals"] == [0, 26, 7]
    print(f"first load {first:.1f} s, offline reloads {offline_start:.1f} s and {second_reload:.1f} s, "
          f"{per_step * 1000:.0f} ms a step")


# ------------------------------------------------------------------ a first visit over a slow line (issue 45 item 6)

RATE = 250_000  # bytes a second: 2 Mbit/s
FIRST_VISIT = 5_000_000  # bytes, compressed as the host sends them, at most


class SlowHost:
    """The folder served as a static host serves it, over a 2 Mbit/s line: gzip for every
    file a host compresses (not .png nor .zip), an ETag and 304 for a conditional request,
    ``Cache-Control: max-age=600``; one line shared by every connection (16 KB at a time);
    it counts the bytes of the bodies it sends."""

    def __init__(self, folder: Path) -> None:
        import gzip
        import hashlib
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        files: dict[str, tuple[bytes, bytes, str]] = {}  # path -> (raw, gzipped, etag)
        for p in folder.rglob("*"):
            if p.is_file():
                raw = p.read_bytes()
                files["/" + p.relative_to(folder).as_posix()] = (raw, gzip.compress(raw, 6), hashlib.sha1(raw).hexdigest()[:16])
        files["/"] = files["/index.html"]
        types = {".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
                 ".json": "application/json", ".wasm": "application/wasm", ".zip": "application/zip", ".svg": "image/svg+xml",
                 ".png": "image/png", ".webmanifest": "application/manifest+json", ".txt": "text/plain"}  # fmt: skip
        lock = threading.Lock()
        line = {"free": 0.0}
        self.sent = 0
        self.requests: list[tuple[str, int, int]] = []  # (path, status, body bytes)
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # http.server's name
                path = self.path.split("?")[0]
                if path not in files:
                    self.send_error(404)
                    return
                raw, packed, etag = files[path]
                suffix = Path(path).suffix if path != "/" else ".html"
                if self.headers.get("If-None-Match") == f'"{etag}"':
                    self.send_response(304)
                    self.send_header("ETag", f'"{etag}"')
                    self.end_headers()
                    host.requests.append((path, 304, 0))
                    return
                zipped = "gzip" in self.headers.get("Accept-Encoding", "") and suffix not in (".png", ".zip")
                body = packed if zipped else raw
                self.send_response(200)
                self.send_header("Content-Type", types.get(suffix, "application/octet-stream"))
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", f'"{etag}"')
                self.send_header("Cache-Control", "max-age=600")
                if zipped:
                    self.send_header("Content-Encoding", "gzip")
                self.end_headers()
                for start in range(0, len(body), 16384):
                    chunk = body[start : start + 16384]
                    with lock:  # one line: a chunk waits for the ones before it
                        begin = max(time.monotonic(), line["free"])
                        line["free"] = begin + len(chunk) / RATE
                    time.sleep(max(0.0, line["free"] - time.monotonic()))
                    self.wfile.write(chunk)
                    with lock:
                        host.sent += len(chunk)
                host.requests.append((path, 200, len(body)))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# every text #msg shows, in order, with whether the referee's start page was there yet
_WATCH_MSG = """
window.__msgs = [];
new MutationObserver(() => {
  const m = document.getElementById("msg");
  const text = m ? m.textContent : "";
  const last = window.__msgs[window.__msgs.length - 1];
  if (!last || last.text !== text) window.__msgs.push({ text, ready: !!document.getElementById("start") });
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def test_a_first_visit_at_2_mbit_downloads_at_most_5_mb_and_shows_its_progress(site: Path, tmp_path: Path) -> None:
    """A first visit over a 2 Mbit/s line from a host that compresses: the page, the runtime,
    the trimmed standard library and the service worker's copy of every file come to at most
    5 MB on the wire (the service worker revalidates what the page loaded: a 304, not a second
    download); the loading line changes many times, counting bytes, and reaches the total
    before the referee's start page shows."""
    host = SlowHost(site)
    drv = driver(tmp_path / "profile", PHONE)
    try:
        drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _WATCH_MSG})
        t0 = time.perf_counter()
        drv.get(host.url)
        wait_for(drv, "#start", BOOT)
        ready = time.perf_counter() - t0
        WebDriverWait(drv, BOOT).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        msgs: list[dict[str, Any]] = drv.execute_script("return window.__msgs")
        progress = drv.execute_script("return window.FLIP7REF_PROGRESS")
    finally:
        drv.quit()
        host.stop()
    full = Counter(path for path, status, _ in host.requests if status == 200)
    assert not [path for path, n in full.items() if n > 1], f"downloaded twice: {full}"
    assert host.sent <= FIRST_VISIT, f"{host.sent} bytes on the wire: {sorted(host.requests, key=lambda r: -r[2])[:6]}"
    loading = [m for m in msgs if m["text"].startswith("Loading the referee")]
    counted = [m["text"] for m in loading if " MB" in m["text"]]
    assert len(set(counted)) >= 5, counted  # real progress, not one unchanging line
    assert progress["done"] == progress["total"] > 10_000_000
    mb = f"{progress['total'] / 1e6:.1f}"
    assert counted[-1].startswith("Loading the referee into this browser (once; then it works offline)… 100 % (") and (
        f"({mb} / {mb} MB" in counted[-1]), counted[-1]
    assert not any(m["ready"] for m in loading)  # the whole total reached before the referee is ready
    print(f"first visit at 2 Mbit/s: {host.sent / 1e6:.2f} MB on the wire, ready after {ready:.1f} s, "
          f"{len(set(counted))} progress lines; {len(host.requests)} requests")
