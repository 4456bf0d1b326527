#!/usr/bin/env python3
"""The read-along page (OUT/index.html) in headless Chromium.

Builds a small two-chapter book with the real tingshu binary, so the page
plays real audio.  A chapter's text is a script beside its audio
(NNN-x.js), which the page loads when it shows the chapter.  Each chapter's cues come from the .vtt tingshu wrote
beside its audio when there is one; otherwise this test writes one (one
cue per sentence, spread over the chapter's duration from manifest.json,
with a cue text that tries to break out of the page).  make_page, a thin
wrapper of the library's chapter scripts and ts_readalong_html(), then
makes test.html from those files (in a folder of its own) under a hostile
book title, and the test drives it through chromedriver
(WebDriver over HTTP, spoken with urllib: no pip, no npm):

  - the page loads with no console errors and no request outside OUT;
    every src/href is relative; nothing plays on load;
  - the hostile title and cue text stay text (no script runs, no element
    is made of them);
  - Tab goes skip links -> player -> text (one tab stop) -> chapter list;
  - pressing the play button plays, and the highlighted sentence follows
    the audio: several distinct, increasing sentences, each the last cue
    started at that time;
  - clicking a later sentence seeks to its start and highlights it,
    playing on; Enter and Space on a focused sentence seek too, and the
    arrow keys move between sentences;
  - a seek from the audio controls scrolls the sentence into view without
    taking the focus;
  - the next-chapter button and the chapter list switch chapters.
tingshu's own index.html is then checked to load cleanly and list the
chapters of the manifest, with the sentences of the chapter shown from the
script tingshu wrote beside its audio.

Last, a book of 3,000 chapters made without synthesis (make_page --book:
a few seconds of silence each, a cue a second): its index.html is under
512 KB and opens; the search box finds chapter 2,999 by its number and
Enter opens it, and a chapter by its title; it plays with its sentences highlighted in turn; at its
end chapter 3,000 plays with its own sentences; reloaded, the page is
back at that chapter and time.

Usage: readalong_test.py --tingshu BIN --make-page BIN --scratch DIR
Exit 0 pass, 1 fail, 77 skipped (no chromium or chromedriver; under CI,
that is, with the CI environment variable set, a failure instead).
"""

import argparse
import html
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

SKIP = 77
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # W3C WebDriver element key
KEY_TAB, KEY_ENTER, KEY_SPACE, KEY_DOWN = "\ue004", "\ue007", "\ue00d", "\ue015"

HOSTILE_TITLE = "</script><script>window.pwned=1</script><b>书</b> & \"引号\" '单'"
HOSTILE_CUE = "<img src=x onerror=\"window.pwned=2\"></script><script>window.pwned=3</script>"

BOOK = """《读书测试》

第一章 清晨
天刚亮，村口的老槐树下站着一个少年。他背着一个旧包袱，望着远方的山路。山路弯弯曲曲，一直通到云里。
风从山谷里吹来，带着青草的味道。少年深深吸了一口气。他想起了母亲昨晚说的话。
“出门在外，要照顾好自己。”母亲一边说，一边替他缝好了衣角。他点点头，没有说话。
太阳慢慢升起来了，照亮了整个村子。少年迈开步子，向山路走去。

第二章 山路
山路很长，少年走了整整一个上午。路边的野花开得正好。他在一块大石头上坐下来歇脚。
"""

# The long book: chapters of a few seconds of silence, a cue a second.
BIG = 3000
BIG_SECONDS = 4
PAGE_LIMIT = 512 * 1024

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def ok(msg):
    print("ok: " + msg)


def check(cond, msg):
    if cond:
        ok(msg)
    else:
        fail(msg)
    return cond


# ---- WebVTT: reading the files tingshu writes, writing our own ----

def vtt_time(s):
    parts = s.replace(",", ".").split(":")
    secs = float(parts[-1])
    mins = int(parts[-2])
    hours = int(parts[-3]) if len(parts) == 3 else 0
    return hours * 3600 + mins * 60 + secs


def read_vtt(path):
    """Cues [start, end, text] of a WebVTT file, sorted by start, with text
    as the page should show it (tags removed, references decoded)."""
    with open(path, encoding="utf-8") as f:
        blocks = re.split(r"\n\s*\n", f.read().replace("\r\n", "\n").replace("\r", "\n"))
    cues = []
    for block in blocks[1:]:
        lines = block.strip("\n").split("\n")
        for k, line in enumerate(lines[:2]):
            m = re.match(r"\s*([\d:.,]+)\s+-->\s+([\d:.,]+)", line)
            if m:
                text = "".join(re.sub(r"<[^>]*>", "", l).strip() for l in lines[k + 1:])
                text = html.unescape(text)
                if text:
                    cues.append([vtt_time(m.group(1)), vtt_time(m.group(2)), text])
                break
    cues.sort(key=lambda c: c[0])
    return cues


def stamp(t):
    ms = int(round(t * 1000))
    return "%02d:%02d:%02d.%03d" % (ms // 3600000, ms // 60000 % 60, ms // 1000 % 60, ms % 1000)


def vtt_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def make_cues(title, body, duration):
    """Cues for a chapter: the title, then each sentence, their lengths in
    proportion to their characters (plus a pause), over the audio."""
    sentences = [title] + [s.strip() for s in re.findall(r"[^。！？]+[。！？]”?", body)]
    weights = [len(s) + 4 for s in sentences]
    start, end = 0.3, max(duration - 1.0, 1.0)
    scale = (end - start) / sum(weights)
    cues, t = [], start
    for s, w in zip(sentences, weights):
        cues.append([round(t, 3), round(t + w * scale - 0.1, 3), s])
        t += w * scale
    return cues


def write_vtt(path, cues):
    with open(path, "w", encoding="utf-8") as f:
        f.write("WEBVTT\n\n")
        for start, end, text in cues:
            f.write("%s --> %s\n%s\n\n" % (stamp(start), stamp(end), vtt_escape(text)))


# ---- a WebDriver client on urllib ----

class WebDriverError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self, chromium, driver, scratch, args):
        port = free_port()
        self.base = "http://127.0.0.1:%d" % port
        self.log_path = os.path.join(scratch, "chromedriver.log")
        self.proc = subprocess.Popen(
            [driver, "--port=%d" % port, "--log-path=" + self.log_path],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.sid = None
        deadline = time.time() + 20
        while True:
            try:
                if self.call("GET", "/status").get("ready"):
                    break
            except (OSError, WebDriverError):
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                raise WebDriverError("chromedriver did not start (log: %s)" % self.log_path)
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args},
            "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"},
        }}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.load(r)["value"]
        except urllib.error.HTTPError as e:
            try:
                v = json.load(e)["value"]
                msg = "%s: %s" % (v.get("error"), v.get("message", "").split("\n")[0])
            except ValueError:
                msg = str(e)
            raise WebDriverError("%s %s: %s" % (method, path, msg)) from None

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.sid, path), body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        return self.s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def ref(self, el):
        return {ELEMENT: el}

    def click(self, el):
        self.s("POST", "/element/%s/click" % el, {})

    def keys(self, el, text):
        self.s("POST", "/element/%s/value" % el, {"text": text})

    def press(self, key):
        """A key pressed wherever the focus is."""
        self.s("POST", "/actions", {"actions": [{
            "type": "key", "id": "keyboard",
            "actions": [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]})

    def log(self, kind):
        return self.s("POST", "/se/log", {"type": kind})

    def quit(self):
        try:
            if self.sid:
                self.s("DELETE", "")
        except (OSError, WebDriverError):
            pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# ---- page helpers ----

STATE_JS = """
var a = document.getElementById('audio');
var cur = document.querySelectorAll('#text .s.cur');
return {t: a.currentTime, paused: a.paused,
        hi: cur.length === 1 ? +cur[0].getAttribute('data-i') : (cur.length ? -2 : -1),
        ncur: cur.length,
        aria: cur.length ? cur[0].getAttribute('aria-current') : null,
        active: document.activeElement ? (document.activeElement.id ||
                document.activeElement.getAttribute('data-i') ||
                document.activeElement.tagName) : null};
"""


def state(b):
    return b.js(STATE_JS)


def index_at(cues, t):
    r = -1
    for i, c in enumerate(cues):
        if c[0] <= t + 0.002:
            r = i
    return r


def wait_for(b, cond_js, timeout=5.0, *args):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if b.js(cond_js, *args):
            return True
        time.sleep(0.05)
    return False


def check_console(b, label):
    entries = b.log("browser")
    severe = [e for e in entries if e.get("level") == "SEVERE"]
    for e in entries:
        if e.get("level") != "SEVERE":
            print("  console %s: %s" % (e.get("level"), e.get("message")))
    check(not severe, "%s: no console errors%s" % (
        label, "" if not severe else ": " + "; ".join(e["message"] for e in severe)))


def check_requests(b, outdir, label):
    """Every request was for a file in outdir (or a data: URL of the
    browser's own media controls), and the page's resource timings too."""
    out_url = "file://" + urllib.parse.quote(outdir) + "/"
    bad = []
    for e in b.log("performance"):
        m = json.loads(e["message"])["message"]
        if m.get("method") != "Network.requestWillBeSent":
            continue
        url = m["params"]["request"]["url"]
        doc = m["params"].get("documentURL", "")
        scheme = url.split(":", 1)[0]
        if scheme in ("http", "https", "ws", "wss", "ftp"):
            bad.append(url)
        elif scheme == "file" and not urllib.parse.unquote(url).startswith("file://" + outdir + "/"):
            bad.append(url)
        elif urllib.parse.unquote(doc).startswith("file://" + outdir + "/") and \
                scheme not in ("file", "data"):
            bad.append(url)
    check(not bad, "%s: no request outside the output folder%s" % (
        label, "" if not bad else ": " + ", ".join(bad[:5])))
    names = b.js("return performance.getEntriesByType('resource').map(function (e) "
                 "{ return e.name; });")
    outside = [n for n in names if not n.startswith(out_url)]
    check(not outside, "%s: resource timings only in the output folder%s" % (
        label, "" if not outside else ": " + ", ".join(outside[:5])))
    links = b.js("""
        var out = [];
        document.querySelectorAll('[src], [href]').forEach(function (e) {
          out.push(e.getAttribute('src') || e.getAttribute('href'));
        });
        return out;""")
    absolute = [u for u in links if re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|/)", u)]
    check(links and not absolute, "%s: all %d src/href are relative%s" % (
        label, len(links), "" if not absolute else ": " + ", ".join(absolute[:5])))


def check_loaded_quiet(b, label):
    """Nothing plays after load."""
    time.sleep(1.0)
    media = b.js("""return Array.prototype.map.call(document.querySelectorAll('audio, video'),
        function (m) { return [m.paused, m.autoplay, m.currentTime, m.preload]; });""")
    check(len(media) == 1, "%s: one media element (%d)" % (label, len(media)))
    check(all(m[0] and not m[1] and m[2] == 0 for m in media),
          "%s: nothing autoplays: %s" % (label, media))
    check(all(m[3] == "none" for m in media), "%s: preload=none" % label)


# ---- the test ----

def find_program(env, path, name):
    p = os.environ.get(env)
    if p:
        return p if os.access(p, os.X_OK) else None
    if os.access(path, os.X_OK):
        return path
    return shutil.which(name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tingshu", required=True)
    ap.add_argument("--make-page", required=True)
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--show", action="store_true", help="print every sample while playing")
    opt = ap.parse_args()

    chromium = find_program("CHROMIUM", "/usr/bin/chromium", "chromium")
    driver = find_program("CHROMEDRIVER", "/usr/bin/chromedriver", "chromedriver")
    if not chromium or not driver:
        what = "chromium" if not chromium else "chromedriver"
        if os.environ.get("CI"):
            print("FAIL: %s is not installed, and CI must run this test "
                  "(apt-get install chromium chromium-driver)" % what, file=sys.stderr)
            return 1
        print("SKIP: %s is not installed (apt-get install chromium chromium-driver)" % what)
        return SKIP

    scratch = os.path.realpath(opt.scratch)
    if "browser" not in scratch:
        print("refusing to use %s as scratch (expected 'browser' in the path)" % scratch)
        return 2
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    outdir = os.path.join(scratch, "out")
    book = os.path.join(scratch, "book.txt")
    with open(book, "w", encoding="utf-8") as f:
        f.write(BOOK)
    env = dict(os.environ, LC_ALL="C.UTF-8")
    r = subprocess.run([opt.tingshu, "build", "-q", "-j2", "-o", outdir, book], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        print("FAIL: tingshu build failed (%d): %s" % (r.returncode, r.stderr), file=sys.stderr)
        return 1
    with open(os.path.join(outdir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    chapters = manifest["chapters"]
    titles = [c["title"] for c in chapters]
    if not check(titles[-2:] == ["第一章 清晨", "第二章 山路"], "the chapters: %s" % titles):
        return 1
    check(os.path.exists(os.path.join(outdir, "index.html")), "tingshu wrote index.html")

    # Timing files: tingshu's own where it made them, else ours, in a
    # folder of their own with the audio (make_page writes the chapters'
    # scripts beside it: tingshu's stay as they are).
    pagedir = os.path.join(scratch, "page")
    os.makedirs(pagedir)
    bodies = dict(s.split("\n", 1) for s in BOOK.split("\n\n")[1:])
    cues, own = [], []
    for ch in chapters:
        os.link(os.path.join(outdir, ch["audio"]), os.path.join(pagedir, ch["audio"]))
        body = bodies.get(ch["title"], "")  # the front matter has its title only
        vtt = os.path.splitext(ch["audio"])[0] + ".vtt"
        path = os.path.join(pagedir, vtt)
        if os.path.exists(os.path.join(outdir, vtt)):
            own.append(True)
            shutil.copyfile(os.path.join(outdir, vtt), path)
        else:
            own.append(False)
            c = make_cues(ch["title"], body, ch["duration_s"])
            if ch["title"] == "第一章 清晨":
                c[4][2] = HOSTILE_CUE  # a sentence that tries to become markup
            write_vtt(path, c)
        cues.append(read_vtt(path))
        ch["vtt"] = vtt
    print("timing files: %s" % ", ".join(
        "%s (%s, %d cues)" % (c["vtt"], "tingshu's" if o else "the test's", len(q))
        for c, o, q in zip(chapters, own, cues)))
    for ch in chapters:
        js = os.path.splitext(ch["audio"])[0] + ".js"
        check(os.path.exists(os.path.join(outdir, js)), "tingshu wrote the script %s" % js)
    args = [opt.make_page, pagedir, os.path.join(pagedir, "test.html"), HOSTILE_TITLE]
    for ch in chapters:
        args += [str(ch["index"]), ch["audio"], ch["vtt"], "%.3f" % ch["duration_s"],
                 ch["title"]]
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 or r.stderr:
        print("FAIL: make_page: %s" % r.stderr, file=sys.stderr)
        return 1

    # A book of BIG chapters, made without synthesis, in memory where it can
    # be (thousands of files: made and removed at once on tmpfs, where a
    # busy disk took seconds to remove them).
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    bigdir = tempfile.mkdtemp(prefix="tingshu-browser-big.", dir=shm or scratch)
    t0 = time.time()
    r = subprocess.run([opt.make_page, "--book", bigdir, str(BIG), str(BIG_SECONDS)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 or r.stderr:
        print("FAIL: make_page --book: %s" % r.stderr, file=sys.stderr)
        shutil.rmtree(bigdir, ignore_errors=True)
        return 1
    print("make_page --book (%.1f s): %s" % (time.time() - t0, r.stdout.strip().replace("\n", "; ")))

    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--mute-audio", "--autoplay-policy=no-user-gesture-required",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-default-apps", "--window-size=480,640",
             "--user-data-dir=" + os.path.join(scratch, "profile")]
    t0 = time.time()
    try:
        b = Browser(chromium, driver, scratch, flags)
    except (OSError, WebDriverError) as e:
        print("FAIL: cannot start a browser session: %s" % e, file=sys.stderr)
        shutil.rmtree(bigdir, ignore_errors=True)
        return 1
    try:
        run_checks(b, outdir, pagedir, chapters, cues, own, manifest, opt.show)
        t1 = time.time()
        run_big(b, bigdir)
        print("the %d-chapter book took %.1f s in the browser" % (BIG, time.time() - t1))
    except WebDriverError as e:
        fail("WebDriver: %s" % e)
    finally:
        b.quit()
        shutil.rmtree(bigdir, ignore_errors=True)
    print("browser part took %.1f s" % (time.time() - t0))
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


def run_checks(b, outdir, pagedir, chapters, cues, own, manifest, show):
    m = len(chapters) - 2  # 第一章, after the front matter: the page opens there
    c0 = cues[m]
    page = "file://" + urllib.parse.quote(os.path.join(pagedir, "test.html"))
    b.go(page + "#ch-%d" % chapters[m]["index"])

    # Loads quietly, hostile text stays text.
    check_loaded_quiet(b, "test.html")
    got = b.js("""return {h1: document.querySelector('h1').textContent, title: document.title,
        pwned: window.pwned === undefined ? null : window.pwned,
        scripts: document.scripts.length, imgs: document.images.length,
        bold: document.querySelectorAll('b').length};""")
    check(got["h1"] == HOSTILE_TITLE and got["title"] == HOSTILE_TITLE,
          "the hostile title is shown as text: %r" % got["h1"])
    check(got["pwned"] is None, "no injected script ran (window.pwned = %r)" % got["pwned"])
    check(got["scripts"] == 1 and got["imgs"] == 0 and got["bold"] == 0,
          "no element made of book text (%d scripts, %d img, %d b)" % (
              got["scripts"], got["imgs"], got["bold"]))
    texts = b.js("return Array.prototype.map.call(document.querySelectorAll('#text .s'), "
                 "function (s) { return s.textContent; });")
    check(texts == [c[2] for c in c0],
          "#ch-N opens that chapter, its %d sentences as written (got %d)" % (
              len(c0), len(texts)))
    if not own[m]:
        check(HOSTILE_CUE in texts, "the hostile sentence is shown as text")
    attrs = b.js("""return Array.prototype.map.call(document.querySelectorAll('#text .s'),
        function (s) { return [s.getAttribute('role'), s.tabIndex,
                               +s.getAttribute('data-start'), +s.getAttribute('data-end')]; });""")
    check(all(a[0] == "button" for a in attrs), "sentences have role=button")
    check([a[1] for a in attrs].count(0) == 1, "one sentence is the tab stop")
    check(all(abs(a[2] - c[0]) < 0.0015 and abs(a[3] - c[1]) < 0.0015
              for a, c in zip(attrs, c0)), "sentences carry their cue times")
    labels = b.js("""var a = document.getElementById('audio');
        return [a.getAttribute('aria-label'), document.getElementById('play').textContent,
                document.querySelector('#text').getAttribute('aria-labelledby'),
                document.querySelector('nav').getAttribute('aria-labelledby'),
                document.documentElement.lang];""")
    check(all(labels) and labels[4] == "zh", "controls and regions are labelled: %s" % labels)

    # Focus order with Tab from the top of the page.
    b.js("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    seen = []
    for _ in range(14):
        b.press(KEY_TAB)
        a = b.js("""var e = document.activeElement;
            if (!e || e === document.body) return 'body';
            if (e.closest('.skip')) return 'skip:' + e.getAttribute('href');
            if (e.closest('#toc')) return 'toc';
            if (e.classList.contains('s')) return 'sentence:' + e.getAttribute('data-i');
            return e.id || e.tagName.toLowerCase();""")
        if not seen or seen[-1] != a:
            seen.append(a)
    want = ["skip:#text", "skip:#toc", "play", "prev", "next", "audio", "sentence:0", "toc"]
    order = [w for w in seen if w in want]
    check(order[:len(want)] == want, "Tab order: %s" % " -> ".join(seen))

    # Play: the highlight follows the audio.
    b.js("window.scrollTo(0, 0); document.activeElement.blur();")
    b.click(b.find("#play"))
    samples = []
    t_end = time.time() + 7.0
    while time.time() < t_end:
        st = state(b)
        samples.append((st["t"], st["hi"], st["ncur"]))
        if show:
            print("  t=%.3f hi=%d" % (st["t"], st["hi"]))
        time.sleep(0.1)
    times = [s[0] for s in samples]
    his = [s[1] for s in samples if s[1] >= 0]
    distinct = [h for i, h in enumerate(his) if i == 0 or his[i - 1] != h]
    check(times[-1] - times[0] > 4.0,
          "audio time advances while playing (%.2f s -> %.2f s)" % (times[0], times[-1]))
    check(len(distinct) >= 2 and distinct == sorted(distinct) and len(set(distinct)) ==
          len(distinct), "highlighted sentence moves forward: %s" % distinct)
    wrong = [(t, h) for t, h, n in samples
             if n > 1 or (h != index_at(c0, t) and not
                          (h == index_at(c0, t) - 1 and t - c0[h + 1][0] < 0.3))]
    check(not wrong, "highlight is the last cue started, in %d samples%s" % (
        len(samples), "" if not wrong else ": wrong at " + str(wrong[:5])))

    # Click a later sentence: seeks there, highlighted, playing on.
    k = len(c0) - 3
    b.click(b.find('#text .s[data-i="%d"]' % k))
    time.sleep(0.3)
    st = state(b)
    check(c0[k][0] - 0.01 <= st["t"] <= c0[k][0] + 1.0,
          "click on sentence %d seeks to %.3f (at %.3f)" % (k, c0[k][0], st["t"]))
    check(st["hi"] == k and st["aria"] == "true" and st["ncur"] == 1,
          "clicked sentence is highlighted, aria-current (hi=%d)" % st["hi"])
    check(not st["paused"], "still playing after the click")

    # Keyboard: Enter on a focused sentence seeks; arrows move; Space seeks.
    j = 2
    el = b.find('#text .s[data-i="%d"]' % j)
    b.js("arguments[0].focus();", b.ref(el))
    b.keys(el, KEY_ENTER)
    time.sleep(0.3)
    st = state(b)
    check(c0[j][0] - 0.01 <= st["t"] <= c0[j][0] + 1.0 and st["hi"] == j,
          "Enter on sentence %d seeks to %.3f (at %.3f, hi=%d)" % (j, c0[j][0], st["t"], st["hi"]))
    check(st["active"] == str(j), "focus stays on the sentence (%s)" % st["active"])
    b.press(KEY_DOWN)
    st = state(b)
    check(st["active"] == str(j + 1), "ArrowDown moves to the next sentence (%s)" % st["active"])
    b.press(KEY_SPACE)
    time.sleep(0.3)
    st = state(b)
    check(c0[j + 1][0] - 0.01 <= st["t"] <= c0[j + 1][0] + 1.0 and st["hi"] == j + 1,
          "Space on sentence %d seeks (at %.3f, hi=%d)" % (j + 1, st["t"], st["hi"]))
    tabstops = b.js("return Array.prototype.filter.call(document.querySelectorAll('#text .s'),"
                    " function (s) { return s.tabIndex === 0; }).length;")
    check(tabstops == 1, "still one tab stop in the text (%d)" % tabstops)

    # A seek from the audio controls with the page scrolled to the top:
    # the sentence comes into view, the focus stays on the play button.
    last = len(c0) - 1
    b.js("document.getElementById('play').focus(); window.scrollTo(0, 0);")
    b.js("document.getElementById('audio').currentTime = arguments[0];", c0[last][0] + 0.05)
    visible = wait_for(b, """var s = document.querySelector('#text .s.cur');
        if (!s) return false;
        var r = s.getBoundingClientRect(), p = document.getElementById('player');
        return r.top >= p.getBoundingClientRect().bottom - 1 && r.bottom <= innerHeight + 1;""",
                       3.0)
    st = state(b)
    scrolled = b.js("return window.scrollY;")
    check(st["hi"] == last and visible and scrolled > 0,
          "last sentence highlighted and scrolled into view (hi=%d, scrollY=%d)" % (
              st["hi"], scrolled))
    check(st["active"] == "play", "the focus stayed on the play button (%s)" % st["active"])

    # Pause, then the next chapter: its sentences, its audio, still paused.
    b.click(b.find("#play"))
    time.sleep(0.2)
    check(state(b)["paused"], "the play button pauses")
    b.click(b.find("#next"))
    time.sleep(0.3)
    got = b.js("""var a = document.getElementById('audio');
        return {now: document.getElementById('now').textContent, src: a.getAttribute('src'),
                paused: a.paused, n: document.querySelectorAll('#text .s').length,
                cur: document.querySelector('#toc a[aria-current="true"]').textContent,
                hash: location.hash};""")
    nxt = chapters[m + 1]
    check(got["now"] == nxt["title"] and got["cur"] == nxt["title"]
          and urllib.parse.unquote(got["src"]) == nxt["audio"]
          and got["n"] == len(cues[m + 1]) and got["paused"],
          "next chapter: title, audio, %d sentences, paused: %s" % (len(cues[m + 1]), got))
    check(got["hash"] == "#ch-%d" % nxt["index"], "the URL names the chapter")
    b.click(b.find('#toc a[data-ch="%d"]' % chapters[m]["index"]))
    time.sleep(0.3)
    got = b.js("""return {now: document.getElementById('now').textContent,
        active: document.activeElement.id, n: document.querySelectorAll('#text .s').length};""")
    check(got["now"] == chapters[m]["title"] and got["n"] == len(c0) and got["active"] == "now",
          "chapter list: back to %s, focus on its heading: %s" % (chapters[m]["title"], got))

    # Following scrolls smoothly, or at once when the reader asks for
    # reduced motion: a sentence clicked from the top of the page (by
    # script, so that WebDriver does not scroll it into view first) is in
    # view right after the click only then.
    follow_js = """window.scrollTo(0, 0);
        var s = document.querySelectorAll('#text .s')[arguments[0]];
        s.click();
        var r = s.getBoundingClientRect();
        return r.top >= document.getElementById('player').getBoundingClientRect().bottom - 1 &&
               r.bottom <= innerHeight + 1;"""
    at_once = b.js(follow_js, last)
    later = wait_for(b, """var s = document.querySelector('#text .s.cur');
        return s.getBoundingClientRect().bottom <= innerHeight + 1 && scrollY > 0;""", 3.0)
    check(not at_once and later, "following scrolls smoothly by default")
    b.s("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia", "params": {
        "features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}})
    check(b.js(follow_js, last - 1), "with prefers-reduced-motion it jumps at once")

    # Opened again, the page comes back to where the listener was, paused.
    b.go(page)
    time.sleep(0.5)
    got = b.js("""var a = document.getElementById('audio');
        return {now: document.getElementById('now').textContent, t: a.currentTime,
                paused: a.paused, status: document.getElementById('status').textContent};""")
    st = state(b)
    check(got["now"] == chapters[m]["title"] and abs(got["t"] - c0[last - 1][0]) < 0.01 and
          got["paused"] and st["hi"] == last - 1 and got["status"],
          "reopened: same chapter, same sentence, paused: %s, hi=%d" % (got, st["hi"]))
    b.click(b.find("#play"))
    time.sleep(0.8)
    st = state(b)
    check(not st["paused"] and c0[last - 1][0] + 0.2 < st["t"] < c0[last - 1][0] + 2,
          "play goes on from there (at %.3f)" % st["t"])
    b.click(b.find("#play"))

    check_console(b, "test.html")
    check_requests(b, pagedir, "test.html")

    # tingshu's own page.
    b.go("file://" + urllib.parse.quote(os.path.join(outdir, "index.html")))
    check_loaded_quiet(b, "index.html")
    wait_for(b, "return !document.querySelector('#text .empty') || "
             "document.querySelector('#text .empty').textContent.indexOf('载入') < 0;", 3.0)
    got = b.js("""return {h1: document.querySelector('h1').textContent,
        toc: Array.prototype.map.call(document.querySelectorAll('#toc a'),
                                      function (a) { return a.textContent; }),
        n: document.querySelectorAll('#text .s').length,
        empty: !!document.querySelector('#text .empty')};""")
    check(got["h1"] == manifest["title"], "index.html: the book's title")
    check(got["toc"] == [c["title"] for c in chapters], "index.html: lists the chapters")
    if own[0]:
        check(got["n"] == len(cues[0]), "index.html: the first chapter's %d sentences, "
              "from its script (%d)" % (len(cues[0]), got["n"]))
    else:
        check(got["n"] > 0, "index.html: the first chapter's sentences, from its script")
    check_console(b, "index.html")
    check_requests(b, outdir, "index.html")


NOW_JS = """var a = document.getElementById('audio'), s = document.querySelectorAll('#text .s');
var cur = document.querySelector('#text .s.cur');
return {now: document.getElementById('now').textContent, t: a.currentTime, paused: a.paused,
        src: decodeURIComponent(a.getAttribute('src') || ''),
        texts: Array.prototype.map.call(s, function (x) { return x.textContent; }),
        hi: cur ? +cur.getAttribute('data-i') : -1, hash: location.hash,
        status: document.getElementById('status').textContent,
        scripts: document.scripts.length};"""


def big_title(n):
    return "第%d章 夜雨山路" % n


def big_texts(n):
    return [big_title(n)] + ["第%d章第%d句。" % (n, k) for k in range(1, BIG_SECONDS)]


def play_and_watch(b, seconds):
    """Highlighted sentences while the audio plays for a while."""
    seen = []
    t_end = time.time() + seconds
    while time.time() < t_end:
        st = b.js(NOW_JS)
        if st["hi"] >= 0 and (not seen or seen[-1] != st["hi"]):
            seen.append(st["hi"])
        time.sleep(0.1)
    return seen


def run_big(b, bigdir):
    """The page of a book of BIG chapters: small, quick to open, a chapter
    found by its number, played with its sentences highlighted, on into
    the next chapter, and back where the listener stopped after a reload."""
    index = os.path.join(bigdir, "index.html")
    size = os.path.getsize(index)
    check(size < PAGE_LIMIT, "%d chapters: index.html is %d bytes (< %d)" % (BIG, size, PAGE_LIMIT))
    page = "file://" + urllib.parse.quote(index)
    b.s("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia", "params": {
        "features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}})
    t0 = time.time()
    b.go(page)
    loaded = b.js("var n = performance.getEntriesByType('navigation')[0];"
                  "return n ? n.loadEventEnd : -1;")
    print("  index.html of %d chapters loaded in %.0f ms (WebDriver: %.2f s)" % (
        BIG, loaded, time.time() - t0))
    got = b.js("return {n: document.querySelectorAll('#toc li').length, "
               "find: !document.getElementById('find').parentNode.hidden};")
    check(got["n"] == BIG and got["find"], "%d chapters listed, the search box shown: %s" % (
        BIG, got))
    check(wait_for(b, "return document.querySelectorAll('#text .s').length === %d;" %
                   BIG_SECONDS, 3.0), "the first chapter's sentences come with its script")

    # Find chapter 2999 by its number; Enter opens it.
    target = BIG - 1
    find = b.find("#find")
    b.click(find)
    b.keys(find, str(target))
    got = b.js("""var shown = Array.prototype.filter.call(document.querySelectorAll('#toc li'),
            function (li) { return !li.hidden; });
        return {n: shown.length, first: shown.length ? shown[0].textContent : '',
                found: document.getElementById('found').textContent};""")
    check(got["n"] >= 1 and got["first"].startswith(big_title(target)) and got["found"],
          "the search box finds chapter %d: %s" % (target, got))
    b.keys(find, KEY_ENTER)
    check(wait_for(b, "return document.querySelectorAll('#text .s').length === %d && "
                   "document.getElementById('now').textContent === arguments[0];" % BIG_SECONDS,
                   3.0, big_title(target)), "Enter opens chapter %d with its sentences" % target)
    st = b.js(NOW_JS)
    check(st["texts"] == big_texts(target) and st["hash"] == "#ch-%d" % target and
          st["src"].startswith("%04d-" % target),
          "chapter %d: its audio, its sentences as written, the URL names it: %s" % (
              target, {k: st[k] for k in ("now", "src", "hash", "texts")}))
    # By a part of its title (not a number): that chapter alone.
    b.js("document.getElementById('find').value = ''; "
         "document.getElementById('find').dispatchEvent(new Event('input'));")
    b.keys(find, "第%d章 夜雨" % BIG)
    got = b.js("""return Array.prototype.filter.call(document.querySelectorAll('#toc li'),
        function (li) { return !li.hidden; }).map(function (li) {
            return li.querySelector('a').textContent; });""")
    check(got == [big_title(BIG)], "the search box finds a chapter by its title: %s" % got)
    b.js("document.getElementById('find').value = ''; "
         "document.getElementById('find').dispatchEvent(new Event('input'));")
    check(b.js("return Array.prototype.every.call(document.querySelectorAll('#toc li'), "
               "function (li) { return !li.hidden; });"), "emptied, the box shows every chapter")

    # Play: the highlight moves with the audio.
    b.click(b.find("#play"))
    seen = play_and_watch(b, 2.6)
    check(len(seen) >= 2 and seen == sorted(seen) and len(set(seen)) == len(seen),
          "chapter %d plays and its highlighted sentence moves forward: %s" % (target, seen))

    # Clicking a sentence seeks there; at the end, the next chapter plays.
    last = BIG_SECONDS - 1
    b.click(b.find('#text .s[data-i="%d"]' % last))
    st = b.js(NOW_JS)
    check(st["hi"] == last and last - 0.05 < st["t"] < last + 0.6,
          "a click on the last sentence seeks there (t=%.2f, hi=%d)" % (st["t"], st["hi"]))
    nxt = target + 1
    went = wait_for(b, "return document.getElementById('now').textContent === arguments[0] && "
                    "!document.getElementById('audio').paused && "
                    "document.querySelectorAll('#text .s').length === %d;" % BIG_SECONDS,
                    4.0, big_title(nxt))
    check(went, "at its end, playback goes on into chapter %d, with its sentences" % nxt)
    seen = play_and_watch(b, 1.8)
    st = b.js(NOW_JS)
    check(st["texts"] == big_texts(nxt) and st["src"].startswith("%04d-" % nxt) and
          len(seen) >= 2 and seen == sorted(seen),
          "chapter %d: its audio and sentences, highlighted as it plays: %s" % (nxt, seen))
    check(st["scripts"] == 1, "the chapters' scripts do not stay in the page (%d scripts)" %
          st["scripts"])

    # Paused, then opened again: back at that chapter and time.
    b.click(b.find("#play"))
    time.sleep(0.2)
    st = b.js(NOW_JS)
    check(st["paused"] and st["t"] > 0.5, "paused in chapter %d at %.2f s" % (nxt, st["t"]))
    b.go(page)
    ok_back = wait_for(b, "return document.querySelectorAll('#text .s.cur').length === 1;", 3.0)
    back = b.js(NOW_JS)
    check(ok_back and back["now"] == big_title(nxt) and abs(back["t"] - st["t"]) < 0.3 and
          back["paused"] and back["hi"] == int(st["t"] - 0.1) and back["status"],
          "reloaded: chapter %d, at %.2f s (was %.2f), sentence %d highlighted, paused: %s" % (
              nxt, back["t"], st["t"], back["hi"], back["status"]))
    b.click(b.find("#play"))
    time.sleep(0.6)
    st2 = b.js(NOW_JS)
    check(not st2["paused"] and st2["now"] == big_title(nxt) and st2["t"] > back["t"] + 0.2,
          "play goes on from there (%.2f s)" % st2["t"])
    b.click(b.find("#play"))
    check_console(b, "index.html of %d chapters" % BIG)
    check_requests(b, bigdir, "index.html of %d chapters" % BIG)


if __name__ == "__main__":
    sys.exit(main())
