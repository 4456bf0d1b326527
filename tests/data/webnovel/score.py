#!/usr/bin/env python3
"""Score tingshu's dropping of web-novel boilerplate on a labelled set.

Usage: score.py TINGSHU [--min-drop R] [--min-keep R] FILE.tsv...

Each FILE.tsv holds LABEL<TAB>LINE (see README).  The lines, without their
labels, are written to a text file and read by `tingshu text` (one output
line per input line: an empty one is a line not spoken) and by
`tingshu text --dropped` (what it lists).  A boilerplate line (D) counts as
silent when its output line is empty and the listing names it; a story
line (K, N) as spoken when its output line is not empty and the listing
does not name it; a heading with a request (T) must be spoken and its
request listed as a dropped part.  Prints the figures; with --min-drop or
--min-keep, exits 1 when a rate is below its floor, listing the lines
that missed."""
import os
import subprocess
import sys
import tempfile

# Characters written only in traditional Chinese: enough to tell which
# lines of the set are traditional (for the README's figure).
TRAD = set("們這個說書來時對為無與從於會過還長開門頁點讀網記閱發關話後實東車馬學將見"
           "體認樣邊總麼聽裡寫歡謝給誰請讓層幾麗歲嗎隻鬆雙變當經聲廣處員氣電區團國"
           "華夢頭陽風飛龍鳳雲愛筆費號響葉燈節貝買賣貴錢銀鐵錯訂閱賞幣權戰陣紅綠線"
           "級紙結繼續維難離顏題類願顧驛劍護觀讀誤論議譯試評讚輕轉辦選遠遲鄰醫釋")


def run(tingshu, args):
    p = subprocess.run([tingshu] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("tingshu %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def score_file(tingshu, path, tally, misses):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            label, _, text = line.partition("\t")
            if label not in ("K", "N", "D", "T"):
                sys.exit("%s:%d: label %r is not K, N, D or T" % (path, n, label))
            rows.append((label, text, n))
    with tempfile.TemporaryDirectory() as tmp:
        txt = os.path.join(tmp, os.path.basename(path) + ".txt")
        with open(txt, "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for _, t, _ in rows))
        spoken = run(tingshu, ["text", txt]).split("\n")
        listing = {}
        for line in run(tingshu, ["text", "--dropped", txt]).splitlines():
            head, _, _ = line.partition(": dropped")
            kind = "part" if line[len(head):].startswith(": dropped part") else "whole"
            listing[int(head.rsplit(":", 1)[1])] = kind
    for i, (label, text, n) in enumerate(rows, 1):
        heard = i <= len(spoken) and spoken[i - 1].strip() != ""
        listed = listing.get(i)
        if label == "D":
            ok = not heard and listed == "whole"
        elif label == "T":
            ok = heard and listed == "part"
        else:
            ok = heard and listed is None
        tally[label] = tally.get(label, 0) + 1
        tally[label + "ok"] = tally.get(label + "ok", 0) + ok
        tally["trad"] = tally.get("trad", 0) + any(c in TRAD for c in text)
        if not ok:
            misses.append("%s:%d: %s %s: %s" % (path, n, label,
                                                "spoken" if heard else "silent", text))


def main(argv):
    tingshu, files, floors = argv[1], [], {}
    args = iter(argv[2:])
    for a in args:
        if a in ("--min-drop", "--min-keep"):
            floors[a] = float(next(args))
        else:
            files.append(a)
    tally, misses = {}, []
    for f in files:
        score_file(tingshu, f, tally, misses)
    g = tally.get
    d, dok = g("D", 0) + g("T", 0), g("Dok", 0) + g("Tok", 0)
    k, kok = g("K", 0) + g("N", 0) + g("T", 0), g("Kok", 0) + g("Nok", 0) + g("Tok", 0)
    lines = g("D", 0) + g("K", 0) + g("N", 0) + g("T", 0)
    drop = dok / d if d else 1.0
    keep = kok / k if k else 1.0
    print("%d lines (%d boilerplate, %d story of which %d near misses, %d headings with a "
          "request; %d in traditional characters, %.0f%%)"
          % (lines, g("D", 0), g("K", 0) + g("N", 0), g("N", 0), g("T", 0), g("trad", 0),
             100.0 * g("trad", 0) / max(lines, 1)))
    print("boilerplate silent: %d/%d = %.1f%%" % (dok, d, 100 * drop))
    print("story spoken:       %d/%d = %.1f%% (near misses %d/%d)"
          % (kok, k, 100 * keep, g("Nok", 0), g("N", 0)))
    for m in misses:
        print("  missed " + m)
    low = (drop < floors.get("--min-drop", 0)) or (keep < floors.get("--min-keep", 0))
    if low:
        print("below the floor: drop %.3f (at least %.3f), keep %.3f (at least %.3f)"
              % (drop, floors.get("--min-drop", 0), keep, floors.get("--min-keep", 0)))
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
