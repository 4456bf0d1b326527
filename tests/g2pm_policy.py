#!/usr/bin/env python3
"""g2pm_policy.py - when should the g2pM model override our rules and defaults?

Learns it on the CPP development split only, cross-validated.  One run of
`tingshu pinyin --explain` over the split shows, for every target, how
tingshu read it (a lexicon word, a rule, the default, the sandhi, a user's
word) and, where the model was asked and disagreed, the model's reading
and its margin (its logit for its reading less its logit for ours); see
g2p.h.  A policy is a pair of thresholds: the model overrides a default
when its margin exceeds T_DEFAULT, a rule when it exceeds T_RULE.  The
thresholds are chosen on 4 folds (the best accuracy, the largest
thresholds among equals) and scored on the fifth; the folds are the
split's lines taken in turn (line i in fold i mod 5).

Prints the accuracy without the model (--upto=sandhi), with the model as
tingshu uses it now (the thresholds compiled into src/zh/g2p.c), the
cross-validated accuracy of the policy, and the thresholds chosen on the
whole split, each split by what decided the reading.

Usage: g2pm_policy.py TINGSHU DATA_DIR [--folds 5]
"""

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("cpp_score", os.path.join(HERE, "cpp_score.py"))
cpp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cpp)

MODEL_RE = re.compile(r"^model\+([0-9.]+)\((.+)=([a-z]+[1-5])\)$")
ASKED_RE = re.compile(r"^(.*)\(model=([a-z]+[1-5])\+([0-9.]+)\)$")
GRID = [x / 4 for x in range(0, 81)] + [float("inf")]


def load(data):
    with open(os.path.join(data, "dev.sent"), encoding="utf-8") as f:
        sents = f.read().split("\n")[:-1]
    with open(os.path.join(data, "dev.lb"), encoding="utf-8") as f:
        labels = [l.strip().replace("u:", "v") for l in f.read().split("\n")[:-1]]
    plain, targets = [], []
    for s in sents:
        a = s.index("\u2581")
        b = s.index("\u2581", a + 1)
        plain.append(s[:a] + s[a + 1:b] + s[b + 1:])
        targets.append(sum(1 for c in s[:a] if cpp.is_han(c)))
    return plain, targets, labels


def tokens_at_targets(tingshu, plain, targets, *opts):
    """The explained token of each target ('?' where it went missing)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sent.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(plain) + "\n")
        explain = cpp.run(tingshu, "pinyin", path, "--explain", *opts)
    out = []
    for i, text in enumerate(plain):
        tok = cpp.token_at(explain[i], text, targets[i])
        out.append(tok if tok is not None else "?")
    return out


def parse(tok):
    """(our reading, how, the model's reading or None, margin, character)."""
    if tok == "?" or "=" not in tok:
        return "?", "missing", None, 0.0, "?"
    ch, rest = tok.split("=", 1)
    syl, _, how = rest.partition("/")
    m = MODEL_RE.match(how)
    if m:
        return m.group(3), m.group(2), syl, float(m.group(1)), ch
    m = ASKED_RE.match(how)
    if m:
        return syl, m.group(1), m.group(2), float(m.group(3)), ch
    return syl, how, None, 0.0, ch


def as_run(tok):
    """(reading, decider) of a target as tingshu read it."""
    if tok == "?" or "=" not in tok:
        return "?", "missing"
    syl, _, how = tok.split("=", 1)[1].partition("/")
    return syl, "model" if MODEL_RE.match(how) else kind(parse(tok)[1])


def kind(how):
    if how.startswith("rule:"):
        return "rule"
    if how in ("default", "sandhi", "user", "missing"):
        return how
    return "word"


def read(t, policy):
    """(reading, decider) of a target under policy (t_default, t_rule, skip)."""
    ours, how, model, margin, ch = t
    k = kind(how)
    limit = policy[0] if k == "default" else policy[1] if k == "rule" else None
    if model is not None and limit is not None and margin > limit and ch not in policy[2]:
        return model, "model"
    return ours, k


def accuracy(items, labels, policy, idx):
    return sum(read(items[i], policy)[0] == labels[i] for i in idx)


def choose(items, labels, idx, frequent):
    """The policy with the best accuracy on the targets idx: the thresholds
    (each decides different targets, so each is chosen on its own; the
    largest among equals), then the frequent characters where the model
    brings nothing under them."""
    none = float("inf")
    td = max(GRID, key=lambda t: (accuracy(items, labels, (t, none, ()), idx), t))
    tr = max(GRID, key=lambda t: (accuracy(items, labels, (none, t, ()), idx), t))
    gain = {}
    for i in idx:
        r, k = read(items[i], (td, tr, ()))
        if k == "model":
            ch = items[i][4]
            gain[ch] = gain.get(ch, 0) + (r == labels[i]) - (items[i][0] == labels[i])
    return td, tr, frozenset(c for c in frequent if gain.get(c, 0) <= 0)


def report(name, readings, labels):
    n = len(labels)
    right = sum(r[0] == l for r, l in zip(readings, labels))
    print("%s: %d of %d right, %.2f%%" % (name, right, n, 100.0 * right / n))
    for k in ("word", "rule", "default", "model", "sandhi", "user", "missing"):
        sel = [(r, l) for r, l in zip(readings, labels) if r[1] == k]
        if sel:
            ok = sum(r[0] == l for r, l in sel)
            print("  %-8s decided %5d (%5.1f%%), right %5d: %6.2f%%"
                  % (k, len(sel), 100.0 * len(sel) / n, ok, 100.0 * ok / len(sel)))


def frequent_polyphones(root, top):
    """The model's polyphones, the top most frequent (jieba's counts of
    one-character words)."""
    freq = {}
    with open(os.path.join(root, "data", "jieba", "dict.txt"), encoding="utf-8") as f:
        for line in f:
            w, c = line.split()[:2]
            if len(w) == 1:
                freq[w] = int(c)
    with open(os.path.join(root, "data", "g2pm", "polyphones.tsv"), encoding="utf-8") as f:
        poly = [l.split("\t")[0] for l in f if not l.startswith("#")]
    return sorted(poly, key=lambda c: -freq.get(c, 0))[:top]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tingshu")
    ap.add_argument("data")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--top", type=int, default=150,
                    help="how many of the most frequent polyphones may be skipped")
    ap.add_argument("--write-skip", metavar="FILE",
                    help="write the characters to skip, chosen on the whole split")
    args = ap.parse_args()
    root = os.path.dirname(HERE)
    plain, targets, labels = load(args.data)
    n = len(labels)
    frequent = frequent_polyphones(root, args.top)

    before = [parse(t) for t in tokens_at_targets(args.tingshu, plain, targets, "--upto=sandhi")]
    report("without the model (--upto=sandhi)", [(t[0], kind(t[1])) for t in before], labels)
    toks = tokens_at_targets(args.tingshu, plain, targets)
    report("with the model as tingshu uses it", [as_run(t) for t in toks], labels)

    # The model's opinion wherever it was asked and disagreed, followed or
    # not, with no character skipped: every policy can be scored from it.
    with tempfile.TemporaryDirectory() as tmp:
        voices = os.path.join(tmp, "voices")
        shutil.copytree(os.path.join(os.path.dirname(args.tingshu), "voices"), voices)
        os.remove(os.path.join(voices, "zh", "g2pm_skip.txt"))
        now = [parse(t) for t in tokens_at_targets(args.tingshu, plain, targets,
                                                    "--voices-dir", voices)]
    cv = [None] * n
    for f in range(args.folds):
        pol = choose(now, labels, [i for i in range(n) if i % args.folds != f], frequent)
        print("fold %d: thresholds chosen on the other folds: default %g, rule %g; %d "
              "characters skipped" % (f, pol[0], pol[1], len(pol[2])))
        for i in range(f, n, args.folds):
            cv[i] = read(now[i], pol)
    report("cross-validated, %d folds" % args.folds, cv, labels)
    pol = choose(now, labels, range(n), frequent)
    print("chosen on the whole split: default %g, rule %g, %d characters skipped: %s"
          % (pol[0], pol[1], len(pol[2]), "".join(c for c in frequent if c in pol[2])))
    report("the whole split with them (not a held-out figure)",
           [read(t, pol) for t in now], labels)
    if args.write_skip:
        # The characters added by hand (for novels) stay, after the ones chosen.
        kept = ""
        if os.path.exists(args.write_skip):
            with open(args.write_skip, encoding="utf-8") as f:
                old = f.read()
            k = old.find(HAND_MARK)
            if k >= 0:
                kept = "\n" + old[k:]
        with open(args.write_skip, "w", encoding="utf-8") as f:
            f.write(SKIP_HEADER % (args.top, pol[0], pol[1]))
            for c in frequent:
                if c in pol[2]:
                    f.write(c + "\n")
            f.write(kept)
    return 0


HAND_MARK = "# Added by hand"
SKIP_HEADER = """\
# g2pm_skip.txt - characters the g2pM model is not asked about: of the %d
# most frequent polyphones it knows (by jieba's counts), those where on the
# CPP development split it never improved on our rules and defaults (with
# the thresholds default %g, rule %g).  Asking costs the time of reading
# the sentence, and these are in nearly every sentence.  Written by
# tests/g2pm_policy.py --write-skip; read by src/zh/lang.c (a plain list of
# words, see wordtab.h), used by src/zh/g2p.c.

"""


if __name__ == "__main__":
    sys.exit(main())
