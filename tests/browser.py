"""Headless Chromium (the Debian package) driven over the Chrome DevTools Protocol.

A small synchronous CDP client on ``websockets`` (already a Prefect dependency): start the
browser with a fresh profile, open a URL, wait for text or a JS condition, evaluate JS,
click, and keep a screenshot. No browser download, no npm.

    with Browser() as b:
        b.open(url)
        b.wait_for("document.body.innerText.includes('Completed')")
        b.screenshot(".agentv/screenshots/run.png")
"""
from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from websockets.sync.client import connect

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000", "--remote-debugging-port=0"]
SCREENSHOTS = Path(__file__).resolve().parents[1] / ".agentv" / "screenshots"


class Browser:
    def __init__(self, executable: str = "/usr/bin/chromium") -> None:
        self.executable = executable
        self._ids = itertools.count(1)

    def __enter__(self) -> "Browser":
        self.profile = tempfile.mkdtemp(prefix="agentv-chromium-")
        self.proc = subprocess.Popen([self.executable, *FLAGS, f"--user-data-dir={self.profile}",
                                      "about:blank"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        page = self._page_ws(port)
        self.ws = connect(page, max_size=64 * 1024 * 1024, open_timeout=10)
        self.call("Page.enable")
        self.call("Runtime.enable")
        return self

    def _page_ws(self, port: str) -> str:
        import urllib.request
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                    pages = [t for t in json.loads(r.read()) if t.get("type") == "page"]
                if pages:
                    return pages[0]["webSocketDebuggerUrl"]
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("chromium has no page target")
            time.sleep(0.2)

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method: str, **params):
        msg_id = next(self._ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"JS error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def text(self) -> str:
        return self.js("document.body ? document.body.innerText : ''") or ""

    def wait_for(self, expression: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.js(f"(() => {{ try {{ return Boolean({expression}); }} "
                          "catch (e) { return false; } })()"):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {expression!r}; page text:\n"
                                     f"{self.text()[:3000]}")
            time.sleep(0.3)

    def wait_for_text(self, *needles: str, timeout: float = 60.0) -> None:
        cond = " && ".join(f"document.body.innerText.includes({json.dumps(n)})" for n in needles)
        self.wait_for(f"document.body && {cond}", timeout)

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path = SCREENSHOTS / name
        path.write_bytes(base64.b64decode(data))
        return path


def chromium() -> str:
    """The Chromium the browser tests use (skipped locally when missing, fails under CI)."""
    import pytest
    for candidate in ("/usr/bin/chromium", shutil.which("chromium") or ""):
        if candidate and os.path.exists(candidate):
            return candidate
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: `bash setup.sh test` installs it")
    pytest.skip("chromium is not installed (`bash setup.sh test` installs it)")


def click_text(browser: Browser, text: str, exact: bool = True) -> None:
    """Click the innermost element whose visible text is ``text`` (or contains it)."""
    match = (f"e.innerText.trim() === {json.dumps(text)}" if exact
             else f"e.innerText.includes({json.dumps(text)})")
    found = browser.js(f"""(() => {{
        const all = Array.from(document.querySelectorAll('body *')).filter(
            e => e.offsetParent !== null && e.innerText && {match});
        const inner = all.filter(e => !all.some(o => o !== e && e.contains(o)));
        if (!inner.length) return false;
        inner[0].click();
        return true;
    }})()""")
    if not found:
        raise AssertionError(f"nothing to click with text {text!r}:\n{browser.text()[:2000]}")
