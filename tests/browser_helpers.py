"""What the table's browser tests share (tests/test_table_browser.py, tests/test_table_static_browser.py):
the check for Chromium, chromedriver and the Python packages, a free port, a ``flip7ref table``
process, a Chromium with a phone's touch screen and viewport, and taps: real touch events,
spaced so that the page does not take a second tap on the same spot for a double tap.

Import it after the module-level skip of a browser test module (it imports Selenium).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
PHONE = (390, 844)
SMALL_PHONE = (360, 740)
PHONES = [PHONE, SMALL_PHONE]
"""The phone viewports the table is tested at (a ``size`` parameter of a test); ``PHONE_IDS`` names them."""
PHONE_IDS = ["390x844", "360x740"]
DESKTOP = (1280, 900)
SETTLE = 0.8
"""Seconds between two taps near the same spot: the page ignores a second tap there within
0.6 s of the first (a double tap, app.js ``SETTLE_MS``), unless it is the same card again."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, what: str, seconds: float = 20) -> None:
    """Wait until something accepts connections on ``port``; AssertionError naming ``what`` if not."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{what} did not start listening")


class Server:
    """A ``flip7ref table`` process on a free port: ``url`` (with the token, as printed), ``base``."""

    def __init__(self, data: Path, *extra: str) -> None:
        self.port = free_port()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        cmd = [sys.executable, "-m", "flip7ref", "table", "--no-browser", "--port", str(self.port), "--data", str(data), *extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        match = re.search(r"(http://\S+)", line)
        assert match, f"the server printed no address: {line!r}"
        self.url = match.group(1)
        self.base = f"http://127.0.0.1:{self.port}"
        wait_listening(self.port, "the server")

    def kill(self) -> None:
        """End the process at once (SIGKILL: nothing is flushed on the way out)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> str:
        """End the process (SIGTERM) and return what it printed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.proc.kill()
                self.proc.wait(10)
        assert self.proc.stdout is not None
        return self.proc.stdout.read()


def driver(profile: Path, size: tuple[int, int], downloads: Path | None = None) -> WebDriver:
    """A headless Chromium of window ``size``; below 600 px wide a phone (touch events, the
    phone's viewport and pixel ratio); files it downloads go to ``downloads``."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
        f"--window-size={size[0]},{size[1]}",
    ):  # fmt: skip
        opts.add_argument(flag)
    drv = webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))
    drv.set_window_size(*size)
    if size[0] < 600:  # a phone: touch events, the phone's viewport
        drv.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True})  # fmt: skip
    if downloads is not None:
        downloads.mkdir(parents=True, exist_ok=True)
        drv.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return drv


def version(drv: WebDriver) -> Any:
    """The game's version the page shows (None off a game's page)."""
    return drv.execute_script("return (typeof G !== 'undefined' && G) ? G.version : null")


def wait_for(drv: WebDriver, css: str, timeout: float = 10) -> Any:
    """The first element matching ``css``, once there is one."""
    return WebDriverWait(drv, timeout).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


_LAST_TAP: dict[str, float] = {"at": 0.0, "x": -1e3, "y": -1e3}


def spaced(drv: WebDriver, element: Any) -> None:
    """Wait, if need be, so that a tap does not land where the last one did within the
    page's double-tap window (the page would rightly ignore it)."""
    rect = drv.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]", element
    )
    near = abs(rect[0] - _LAST_TAP["x"]) < 48 and abs(rect[1] - _LAST_TAP["y"]) < 48
    wait = SETTLE - (time.monotonic() - _LAST_TAP["at"])
    if near and wait > 0:
        time.sleep(wait)
    _LAST_TAP.update(at=time.monotonic(), x=rect[0], y=rect[1])


def tap(drv: WebDriver, css: str, timeout: float = 10) -> None:
    """Click an element and wait for the game's version to change."""
    before = version(drv)
    element = wait_for(drv, css, timeout)
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    spaced(drv, element)
    element.click()
    _LAST_TAP["at"] = time.monotonic()
    WebDriverWait(drv, timeout).until(lambda d: version(d) != before)


def touch(drv: WebDriver, css: str, *, taps: int = 1, gap: float = 0.1, timeout: float = 10, scroll: bool = True) -> None:
    """Real touch events (a pointer of kind "touch"): ``taps`` taps on the spot where
    the element is, ``gap`` seconds apart (the page may redraw in between); the element is
    first scrolled to the middle of the screen unless ``scroll`` is False (it must be in sight)."""
    element = wait_for(drv, css, timeout)
    if scroll:
        drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    spaced(drv, element)
    builder = ActionBuilder(drv, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    builder.pointer_action.move_to(element)
    for i in range(taps):
        if i:
            builder.pointer_action.pause(gap)
        builder.pointer_action.pointer_down().pause(0.05).pointer_up()
    builder.perform()
    _LAST_TAP["at"] = time.monotonic()


def touch_step(drv: WebDriver, css: str, timeout: float = 10) -> None:
    """One real tap (touch events) on ``css``, then wait for the game's version to change."""
    before = version(drv)
    touch(drv, css, timeout=timeout)
    WebDriverWait(drv, timeout).until(lambda d: version(d) != before)


def in_view(drv: WebDriver, element: Any) -> str | None:
    """None when ``element`` is wholly inside the viewport and on top at its middle (nothing,
    not the dock, covers it); else what is wrong, with the element's box and the viewport's."""
    return drv.execute_script(  # type: ignore[no-any-return]
        """const el = arguments[0], r = el.getBoundingClientRect(), w = innerWidth, h = innerHeight;
        const box = [r.left, r.top, r.right, r.bottom].map(Math.round).join(',') + ' in ' + w + 'x' + h;
        if (!r.width || !r.height) return 'not shown';
        if (r.top < 0 || r.left < 0 || r.bottom > h || r.right > w) return 'outside the viewport: ' + box;
        const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return !top || el.contains(top) ? null : 'covered by ' + top.tagName + '#' + top.id + ': ' + box;""",
        element,
    )


LOW_CONTRAST = r"""
const parse = (s) => { const m = s.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
// the colour behind an element: its own background and its ancestors', down to the first opaque one (then white)
const behind = (el) => {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const c = parse(getComputedStyle(e).backgroundColor);
    if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  let colour = [255, 255, 255, 1];
  for (let i = layers.length - 1; i >= 0; i--) colour = over(layers[i], colour);
  return colour;
};
// WCAG 2 relative luminance and contrast ratio
const lin = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
const out = [];
let checked = 0;
for (const button of document.querySelectorAll('button, a.button, label.button')) {
  const r = button.getBoundingClientRect();
  if (!r.width || !r.height || getComputedStyle(button).visibility === 'hidden' || button.disabled) continue;
  // the button's own text and every element in it that holds text of its own
  const texts = [button, ...button.querySelectorAll('*')].filter((el) =>
    [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()));
  for (const el of texts) {
    const bg = behind(el), fg = over(parse(getComputedStyle(el).color), bg), x = ratio(fg, bg);
    checked++;
    if (x < arguments[0]) out.push((button.id || button.className || button.tagName) + ' "' + el.textContent.trim().slice(0, 20) +
      '": ' + x.toFixed(2) + ' (' + getComputedStyle(el).color + ' on rgb(' + bg.slice(0, 3).map(Math.round).join(', ') + '))');
  }
}
return [checked, out];
"""


def low_contrast(drv: WebDriver, least: float = 4.5) -> tuple[int, list[str]]:
    """Every shown, enabled button (``button``, ``a.button``, ``label.button``) whose text has a
    contrast ratio below ``least`` against the colour behind it, computed in the page: the text's
    colour and the first background that is not transparent among the element and its ancestors
    (WCAG 2 relative luminance).  Returns how many texts were checked and the failures, each as
    ``id "text": ratio (colour on background)``.  A disabled button is not checked (WCAG 1.4.3)."""
    checked, out = drv.execute_script(LOW_CONTRAST, least)
    return int(checked), list(out)


def covering(drv: WebDriver, element: Any) -> str | None:
    """What lies over the middle of ``element`` as the screen shows it now (its tag, id and
    class), or None when the element itself (or a child of it) is on top there."""
    return drv.execute_script(  # type: ignore[no-any-return]
        """const el = arguments[0], r = el.getBoundingClientRect();
        const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return !top || el.contains(top) ? null : top.tagName + '#' + top.id + '.' + top.className;""",
        element,
    )


def downloaded(folder: Path, suffix: str, timeout: float = 20) -> Path:
    """The file ending in ``suffix`` the browser saved to ``folder`` (once it is complete)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [p for p in folder.iterdir() if p.name.endswith(suffix) and not p.name.endswith(".crdownload")]
        if found:
            return found[0]
        time.sleep(0.2)
    raise AssertionError(f"no {suffix} file was downloaded")
