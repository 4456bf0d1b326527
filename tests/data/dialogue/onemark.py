#!/usr/bin/env python3
"""Whether one lost quotation mark stays in its own quotation (issue 36):
remove one mark (" or ') at each of N places drawn at random (fixed seed)
in an annotated file, run `tingshu speakers` on each copy, and compare who
each annotated quotation is given to with the undamaged file's run.  The
quotation the mark belongs to may change; any other that changes has
inherited the damage (a - quotation read as narration is no change: the
narrator reads both).  Scored by place as score.py --spans does.

usage: onemark.py [--cast FILE] [--places N] TINGSHU FILE.ann
Prints each place that changes another quotation (FILE:LINE of the mark and
of the quotations changed) and exits 1 if there is one."""
import os, random, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import parse, run_tingshu, owners_from_output, score_spans  # noqa: E402


def attribution(tingshu, cast, book, gold, name):
    """Who each annotated quotation is given to (the most of its text)."""
    owner, why = owners_from_output(book, run_tingshu(tingshu, cast, book), name)
    return [r[3] for r in score_spans(book, gold, owner, why)]


def narrator(who):
    """- and narration are read alike (by the narrator)."""
    return "-" if who is None else who


def main():
    argv, cast, places = sys.argv[1:], None, 100
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt == "--cast":
            cast = argv.pop(0)
        elif opt == "--places":
            places = int(argv.pop(0))
        else:
            sys.exit(__doc__)
    tingshu, path = argv
    name = os.path.basename(path)
    cast = cast or os.path.join(os.path.dirname(os.path.abspath(__file__)), "cast.txt")
    book, gold = parse(open(path, encoding="utf-8").read())
    before = attribution(tingshu, cast, book, gold, name)
    marks = [i for i, c in enumerate(book) if c in "\"'“”‘’「」『』"]
    picked = sorted(random.Random("onemark:" + name).sample(marks, min(places, len(marks))))
    bad = 0
    for p in picked:
        shifted = [[w, s - (s > p), e - (e > p), line] for w, s, e, line in gold]
        after = attribution(tingshu, cast, book[:p] + book[p + 1:], shifted, name)
        own = [k for k, (_, s, e, _) in enumerate(gold) if s - 1 <= p <= e]
        changed = [k for k in range(len(gold))
                   if k not in own and narrator(after[k]) != narrator(before[k])]
        if changed:
            bad += 1
            line = book.count("\n", 0, p) + 1
            print(f"{name}:{line}: the mark before {book[p + 1:p + 9]!r} changes "
                  + ", ".join(f"line {gold[k][3]} {before[k]}->{after[k]}" for k in changed[:6])
                  + (f" and {len(changed) - 6} more" if len(changed) > 6 else ""))
    print(f"{name}: {bad} of {len(picked)} marks removed one at a time change another quotation")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
