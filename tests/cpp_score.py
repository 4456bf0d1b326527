#!/usr/bin/env python3
"""cpp_score.py - polyphone accuracy of `tingshu pinyin` on the CPP benchmark.

CPP (Chinese Polyphones with Pinyin, Park & Lee 2020, Apache-2.0): one
sentence a line in SPLIT.sent with the target character between ▁ marks,
its pinyin in the matching line of SPLIT.lb (tone 5 = neutral, ü as u:).

The sentences, marks removed, go through `tingshu pinyin` in one run.  The
normalizer may change a sentence (1990年 becomes 一九九零年), so the target
is found again by aligning the Han characters of the sentence with those of
`tingshu text` (its one output line per input line is the text the tokens
are made from: one token per Han character).

Usage: cpp_score.py TINGSHU DATA_DIR [--split dev] [--floor PCT] [--errors]
                    [--upto chars|words|rules|all] [--part all|held|rest]
Prints the accuracy; exits 1 when it is below the floor.  Only the dev split
is for development: the test split is held out, never tuned to.  The same
format serves tests/data/novel (sentences from novels, written for
tingshu).  --part held scores only every third sentence (the 3rd, 6th, …),
--part rest the others: a set's held-out third while rules are written.
"""

import argparse
import difflib
import os
import subprocess
import sys
import tempfile


def is_han(ch):
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF
            or 0x20000 <= cp <= 0x3134F or cp == 0x3007)


def run(tingshu, cmd, path, *opts):
    out = subprocess.run([tingshu, cmd, "-q", *opts, path], stdout=subprocess.PIPE, check=True)
    return out.stdout.decode("utf-8").split("\n")[:-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tingshu")
    ap.add_argument("data")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--floor", type=float, default=0.0, help="fail below this accuracy (%%)")
    ap.add_argument("--errors", action="store_true", help="list the misread targets")
    ap.add_argument("--upto", default="all",
                    help="stop the pronunciation after a stage: chars, words, rules, all")
    ap.add_argument("--part", default="all", choices=("all", "held", "rest"),
                    help="score every third sentence (held) or the others (rest)")
    args = ap.parse_args()

    with open(os.path.join(args.data, args.split + ".sent"), encoding="utf-8") as f:
        sents = f.read().split("\n")[:-1]
    with open(os.path.join(args.data, args.split + ".lb"), encoding="utf-8") as f:
        labels = [l.strip().replace("u:", "v") for l in f.read().split("\n")[:-1]]
    if len(sents) != len(labels):
        sys.exit("cpp_score: %s.sent and %s.lb differ in length" % (args.split, args.split))

    if args.part != "all":
        keep = [i for i in range(len(sents)) if (i % 3 == 2) == (args.part == "held")]
        sents = [sents[i] for i in keep]
        labels = [labels[i] for i in keep]

    plain, targets = [], []
    for s in sents:
        a = s.index("\u2581")
        b = s.index("\u2581", a + 1)
        text = s[:a] + s[a + 1:b] + s[b + 1:]
        plain.append(text)
        targets.append(sum(1 for c in s[:a] if is_han(c)))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sent.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(plain) + "\n")
        upto = "--upto=" + args.upto
        pinyin = run(args.tingshu, "pinyin", path, upto)
        spoken = run(args.tingshu, "text", path)
        explain = run(args.tingshu, "pinyin", path, upto, "--explain") if args.errors else pinyin
    if len(pinyin) != len(plain) or len(spoken) != len(plain):
        sys.exit("cpp_score: %d sentences but %d pinyin and %d text lines"
                 % (len(plain), len(pinyin), len(spoken)))

    right = 0
    errors = []
    for i, text in enumerate(plain):
        tokens = pinyin[i].split(" ") if pinyin[i] else []
        src = [c for c in text if is_han(c)]
        got_han = [c for c in spoken[i] if is_han(c)]
        t = targets[i]
        # Where the target went: the aligned block that holds it.
        k = None
        sm = difflib.SequenceMatcher(None, src, got_han, autojunk=False)
        for a, b, size in sm.get_matching_blocks():
            if a <= t < a + size:
                k = b + (t - a)
                break
        got = tokens[k] if k is not None and k < len(tokens) else "?"
        if got == labels[i]:
            right += 1
        else:
            how = explain[i].split(" ")[k] if k is not None and k < len(tokens) else "?"
            errors.append((src[t], labels[i], got, how, sents[i]))
    acc = 100.0 * right / len(plain)
    if args.errors:
        for e in errors:
            print("\t".join(e))
    name = "CPP" if os.path.basename(os.path.normpath(args.data)) == "cpp" else \
        os.path.basename(os.path.normpath(args.data))
    part = "" if args.part == "all" else ", " + args.part
    print("%s %s (%s%s): %d of %d polyphones read right: %.2f%%"
          % (name, args.split, args.upto, part, right, len(plain), acc))
    if acc < args.floor:
        print("cpp_score: below the floor of %.2f%%" % args.floor, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
