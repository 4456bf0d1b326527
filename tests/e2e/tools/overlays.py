#!/usr/bin/env python3
"""overlays.py EPUB OUTDIR: check a tingshu EPUB's Media Overlays against
the book's timing files.  For chapter k of manifest.json: every <par> of its
SMIL document pairs the text element of one sentence with its clip of the
chapter's audio; the pars, in order, are the cues of the chapter's .vtt:
clipBegin/clipEnd equal to the cue's start/end (within 1 ms) and the text
element's text equal to the cue's text (WebVTT's entities decoded).  The package's title is the book's.
Prints one line per problem and exits 1 if there is any."""
import html
import json
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = {"smil": "http://www.w3.org/ns/SMIL", "x": "http://www.w3.org/1999/xhtml",
      "opf": "http://www.idpf.org/2007/opf", "dc": "http://purl.org/dc/elements/1.1/"}


def clock(v):
    h, m, s = v.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def vtt_cues(path):
    cues, lines = [], open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"(\d+):(\d\d):(\d\d\.\d+) --> (\d+):(\d\d):(\d\d\.\d+)", line)
        if m:
            g = m.groups()
            start = int(g[0]) * 3600 + int(g[1]) * 60 + float(g[2])
            end = int(g[3]) * 3600 + int(g[4]) * 60 + float(g[5])
            text = []
            for t in lines[i + 1:]:
                if not t.strip():
                    break
                text.append(t)
            cues.append((start, end, html.unescape(" ".join(text))))
    return cues


def main():
    epub, outdir = sys.argv[1], sys.argv[2]
    man = json.load(open(outdir + "/manifest.json", encoding="utf-8"))
    z = zipfile.ZipFile(epub)
    bad = []
    names = z.namelist()
    if names[0] != "mimetype" or z.getinfo("mimetype").compress_type != zipfile.ZIP_STORED:
        bad.append("mimetype is not the first entry, stored")
    opf = ET.fromstring(z.read("EPUB/package.opf"))
    title = opf.find("opf:metadata/dc:title", NS).text
    if title != man["title"]:
        bad.append("the package's title is %r, the book's %r" % (title, man["title"]))
    chapters = man["chapters"]
    for k, ch in enumerate(chapters):
        cues = vtt_cues(outdir + "/" + ch["timing"]["vtt"])
        smil = ET.fromstring(z.read("EPUB/c%03d.smil" % (k + 1)))
        doc = ET.fromstring(z.read("EPUB/c%03d.xhtml" % (k + 1)))
        by_id = {e.get("id"): "".join(e.itertext()) for e in doc.iter() if e.get("id")}
        pars = smil.findall(".//smil:par", NS)
        if len(pars) != len(cues):
            bad.append("chapter %d: %d pars, %d cues" % (k + 1, len(pars), len(cues)))
        for j, (par, cue) in enumerate(zip(pars, cues)):
            text = par.find("smil:text", NS).get("src")
            audio = par.find("smil:audio", NS)
            b, e = clock(audio.get("clipBegin")), clock(audio.get("clipEnd"))
            if abs(b - cue[0]) > 0.001 or abs(e - cue[1]) > 0.001:
                bad.append("chapter %d par %d: clip %.3f-%.3f, cue %.3f-%.3f"
                           % (k + 1, j + 1, b, e, cue[0], cue[1]))
            said = by_id.get(text.split("#")[1])
            if said != cue[2]:
                bad.append("chapter %d par %d: text %r, cue %r" % (k + 1, j + 1, said, cue[2]))
            if audio.get("src") not in ("audio/c%03d.mp3" % (k + 1), "audio/c%03d.m4a" % (k + 1)):
                bad.append("chapter %d par %d: audio %s" % (k + 1, j + 1, audio.get("src")))
    for b in bad[:20]:
        print(b)
    print("%d chapters, %d problems" % (len(chapters), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
