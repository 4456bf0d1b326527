#!/usr/bin/env python3
"""cpp_score.py - polyphone accuracy of `tingshu pinyin` on the CPP benchmark.

CPP (Chinese Polyphones with Pinyin, Park & Lee 2020, Apache-2.0): one
sentence a line in SPLIT.sent with the target character between ▁ marks,
its pinyin in the matching line of SPLIT.lb (tone 5 = neutral, ü as u:).

The sentences, marks removed, go through `tingshu pinyin` in one run.  Its
tokens in brackets are the readings of characters the normalizer said for
digits and symbols (1990年: [yi1] [jiu3] [jiu3] [ling2] nian2); the others
are one per Han character of the sentence, in order, so the target is the
token at its index, not counting Han characters beyond the BMP (which are
not read: the normalizer removes them).  A line where the tokens are not
one per character counts as a misread target, and is reported.

Usage: cpp_score.py TINGSHU DATA_DIR [--split dev] [--floor PCT] [--errors]
                    [--upto chars|words|rules|all] [--part all|held|rest]
Prints the accuracy; exits 1 when it is below the floor.  Only the dev split
is for development: the test split is held out, never tuned to.  The same
format serves tests/data/novel (sentences from novels, written for
tingshu).  --part held scores only every third sentence (the 3rd, 6th, …),
--part rest the others: a set's held-out third while rules are written.
"""

import argparse
import os
import subprocess
import sys
import tempfile


def is_han(ch):
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF
            or 0x20000 <= cp <= 0x3134F or cp == 0x3007)


def token_at(line, text, t):
    """The token of the t-th Han character of text in its line of `tingshu
    pinyin`, or None when the line is not one token per Han character."""
    tokens = [tok for tok in line.split(" ") if tok and not tok.startswith("[")]
    read = [k for k, c in enumerate(c for c in text if is_han(c)) if ord(c) < 0x10000]
    if len(tokens) != len(read) or t not in read:
        return None
    return tokens[read.index(t)]


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
        explain = run(args.tingshu, "pinyin", path, upto, "--explain") if args.errors else pinyin
    if len(pinyin) != len(plain) or len(explain) != len(plain):
        sys.exit("cpp_score: %d sentences but %d pinyin lines" % (len(plain), len(pinyin)))

    right = 0
    errors = []
    misaligned = 0
    for i, text in enumerate(plain):
        src = [c for c in text if is_han(c)]
        t = targets[i]
        got = token_at(pinyin[i], text, t)
        how = token_at(explain[i], text, t)
        if got is None:
            misaligned += 1
            got = how = "?"
        if got == labels[i]:
            right += 1
        else:
            errors.append((src[t], labels[i], got, how, sents[i]))
    if misaligned:
        print("cpp_score: %d lines have not one token per Han character" % misaligned,
              file=sys.stderr)
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
