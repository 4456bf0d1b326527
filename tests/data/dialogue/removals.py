#!/usr/bin/env python3
"""One damaged mark changes at most its own sentence (issue 36).

A chapter of the development set (an annotated file, braces taken out) is
read by `tingshu speakers`; then, in each of N places chosen at random
(a fixed seed), one quotation mark is removed and the book is read again.
Every quotation outside the sentence of the removed mark must come out as
it did from the whole text: the same span (shifted by the removed mark)
and the same speaker; no quotation may appear or vanish there.  --straight
first makes every mark a straight one (" and '), as text found online has
them, where a mark says nothing of which way it goes.

usage: removals.py [--straight] TINGSHU FILE.ann [N] [SEED]
Prints how many removals changed something outside their sentence (and,
with VERBOSE=1, what); exits 1 when any did."""
import os, random, re, subprocess, sys, tempfile

MARKS = "\"'“”‘’「」『』"
ENDS = "。！？!?\n"


def speakers(tingshu, cast, text, tmp):
    book = os.path.join(tmp, "book.txt")
    with open(book, "w", encoding="utf-8") as f:
        f.write(text)
    out = subprocess.run([tingshu, "speakers", "--cast", cast, book],
                         capture_output=True, text=True, check=True).stdout
    quotes, cursor = [], 0
    for line in out.splitlines():
        _, who, quote = line.split("\t", 2)
        at = text.find(quote, cursor)
        if at < 0:
            raise SystemExit(f"a quotation not in the text: {quote}")
        quotes.append((at, at + len(quote), who))
        cursor = at + len(quote)
    return quotes


def sentence(text, m):
    """The sentence of the mark at m: [start, end) in text."""
    s = m
    if s > 0 and text[s - 1] in ENDS:  # a closing mark after its sentence
        s -= 1
    while s > 0 and text[s - 1] not in ENDS:
        s -= 1
    e = m + 1
    while e < len(text) and text[e] not in ENDS:
        e += 1
    while e < len(text) and (text[e] in ENDS[:-1] or text[e] in MARKS):
        e += 1
    return s, e


def main():
    args = [a for a in sys.argv[1:] if a != "--straight"]
    straight = len(args) < len(sys.argv) - 1
    tingshu, ann = args[0], args[1]
    n = int(args[2]) if len(args) > 2 else 100
    seed = int(args[3]) if len(args) > 3 else 36
    cast = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cast.txt")
    text = re.sub(r"\{[^}]*\}", "", open(ann, encoding="utf-8").read())
    if straight:
        text = re.sub("[“”「」]", '"', re.sub("[‘’『』]", "'", text))
    marks = [i for i, c in enumerate(text) if c in MARKS]
    places = sorted(random.Random(seed).sample(marks, min(n, len(marks))))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        whole = speakers(tingshu, cast, text, tmp)
        for m in places:
            zs, ze = sentence(text, m)
            got = speakers(tingshu, cast, text[:m] + text[m + 1:], tmp)
            # the damaged text's quotations in the whole text's positions
            back = lambda i: i + (i >= m)
            got = {(back(s), back(e) if e > m else e, w) for s, e, w in got}
            outside = lambda q: q[1] <= zs or q[0] >= ze
            want = {q for q in whole if outside(q)}
            diff = sorted(want ^ {q for q in got if outside(q)})
            if diff:
                bad += 1
                if os.environ.get("VERBOSE"):
                    print(f"removed {text[m]} at {m}: {text[max(zs, m - 20):m]}|{text[m + 1:m + 20]}")
                    for s, e, w in diff:
                        side = "lost" if (s, e, w) in want else "new"
                        print(f"  {side}: {w} {text[s:e][:30]}")
    print(f"{os.path.basename(ann)}: {bad} of {len(places)} removals changed a quotation "
          f"outside their sentence")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
