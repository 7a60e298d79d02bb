"""Headless Chromium (Debian's `chromium`), driven over the DevTools protocol: open a page from a
file, with every request from the network refused and recorded, measure it in the page's own
JavaScript, and take a screenshot.

    python -m tests.support.browser docs/images/feedback.png

grades the demo's buggy student on notebook 01 and saves the top of its feedback page there (the
picture in the README and in the docs' grading page)."""
import base64
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket  # websocket-client

NAMES = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--hide-scrollbars", "--mute-audio", "--remote-allow-origins=*")


def find():
    """The Chromium on PATH, or None."""
    return next((shutil.which(name) for name in NAMES if shutil.which(name)), None)


class Browser:
    """One headless Chromium with a fresh profile, closed on exit (use it as a context manager)."""

    def __init__(self, width=1100, height=900, timeout=60):
        executable = find()
        if not executable:
            raise RuntimeError("no Chromium on PATH (Debian: apt-get install chromium)")
        self.timeout, self.ids = timeout, itertools.count(1)
        self.profile = tempfile.mkdtemp(prefix="maskdiff-chromium-")
        self.process = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={self.profile}",
                                         "--remote-debugging-port=0", f"--window-size={width},{height}",
                                         "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = self._port()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            page = next(t for t in json.load(answer) if t["type"] == "page")
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=timeout,
                                                  suppress_origin=True)
        self.events, self.requests = [], []
        for domain in ("Page", "Network", "Runtime"):
            self.send(f"{domain}.enable")
        self.send("Network.setBlockedURLs", urls=["http://*", "https://*", "ws://*", "wss://*"])
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def _port(self):
        active = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if active.is_file() and active.read_text().strip():
                return int(active.read_text().split()[0])
            if self.process.poll() is not None:
                raise RuntimeError(f"Chromium stopped at start (exit {self.process.returncode})")
            time.sleep(0.1)
        raise RuntimeError("Chromium did not open its DevTools port")

    def send(self, method, **params):
        """One DevTools command; its result (events that arrive meanwhile are kept)."""
        ident = next(self.ids)
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._event(message)

    def _event(self, message):
        self.events.append(message.get("method"))
        if message.get("method") == "Network.requestWillBeSent":
            params = message["params"]
            self.requests.append((params.get("type", ""), params["request"]["url"]))

    def open(self, path):
        """Load a file and wait for its load event (and for the fonts)."""
        self.events.clear()
        self.send("Page.navigate", url=Path(path).resolve().as_uri())
        deadline = time.monotonic() + self.timeout
        while "Page.loadEventFired" not in self.events:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{path} did not finish loading")
            self._event(json.loads(self.socket.recv()))
        self.evaluate("document.fonts.ready.then(() => true)")

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path):
        """The window as it shows now, as a PNG at path."""
        Path(path).write_bytes(base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"]))
        return Path(path)

    def close(self):
        try:
            self.socket.close()
        except Exception:  # noqa: BLE001 - closing what may already be gone
            pass
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# What a reader of the page sees, measured in the page: each a JavaScript expression.
MATHS = """(() => {
  const all = [...document.querySelectorAll('math')];
  // typeset: a subscript sits lower than its base (a browser without MathML puts them on one line)
  const subscripts = [...document.querySelectorAll('msub')].filter(s => s.children.length == 2);
  const lowered = subscripts.filter(s => s.children[1].getBoundingClientRect().bottom >
                                         s.children[0].getBoundingClientRect().bottom + 1);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('pre, code, script, style, math, .input_area')) continue;
    const found = node.textContent.match(/\\$[^$\\s][^$]*?\\$|\\\\(?:frac|alpha|bar|sum)\\b/);
    if (found) raw.push(found[0]);
  }
  return {math: all.length, mathml: typeof MathMLElement !== 'undefined' && all.every(m => m instanceof MathMLElement),
          subscripts: subscripts.length, lowered: lowered.length, raw_tex: raw.slice(0, 10)};
})()"""

OVERFLOW = """(() => {
  const boxes = [...document.querySelectorAll('pre, .output_subarea, .rendered_html, .panel-heading, .panel-footer, #toc li, .panel-body')];
  const over = boxes.filter(b => b.scrollWidth > b.clientWidth + 1 && getComputedStyle(b).overflowX != 'auto'
                                 || b.getBoundingClientRect().right > document.documentElement.clientWidth + 1);
  return {boxes: boxes.length, page_wider: document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
          over: over.map(b => b.className + ': ' + b.textContent.slice(0, 80))};
})()"""


def demo_page(folder):
    """The demo's buggy student graded on notebook 01 in folder: the path of their feedback page."""
    from maskdiff_solutions.course.term import demo
    from maskdiff_solutions.course.run.batch import grade
    from maskdiff_solutions.course.layout import Course
    course = Course.find(Path(__file__).resolve().parents[2])
    submissions = Path(folder) / "collected"
    demo.build_submissions(course, submissions)
    for student in ("reference", "untouched"):
        shutil.rmtree(submissions / student)
    grade(course, submissions, Path(folder) / "ws", progress=False, notebooks=["01"], canary=False)
    return next((Path(folder) / "ws" / "feedback" / "buggy").rglob("01_*.html"))


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images/feedback.png")
    with tempfile.TemporaryDirectory() as scratch, Browser(width=1000, height=760) as browser:
        browser.open(demo_page(scratch))
        target.parent.mkdir(parents=True, exist_ok=True)
        print(browser.screenshot(target), os.path.getsize(target), "bytes")
