#!/usr/bin/env python3
"""Score `tingshu speakers` on annotated dialogue.

An annotated file (*.ann) is a book whose every quotation has its speaker
in braces right after its opening mark: 玄德曰：“{刘备}……”.  The braces
are taken out to make the book; the speakers tingshu prints (with the cast
file beside the annotations) are compared with them, quotation by quotation.

usage: score.py TINGSHU FLOOR FILE.ann...   (FLOOR: the least percent right)
Prints each file's figure and the misses; exits 1 below the floor."""
import os, re, subprocess, sys, tempfile

def main():
    tingshu, floor, files = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    cast = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cast.txt")
    right = total = 0
    for path in files:
        text = open(path, encoding="utf-8").read()
        gold = re.findall(r"\{([^}]*)\}", text)
        with tempfile.TemporaryDirectory() as tmp:
            book = os.path.join(tmp, "book.txt")
            with open(book, "w", encoding="utf-8") as f:
                f.write(re.sub(r"\{[^}]*\}", "", text))
            out = subprocess.run([tingshu, "speakers", "--explain", "--cast", cast, book],
                                 capture_output=True, text=True, check=True).stdout
        got = [line.split("\t") for line in out.splitlines()]
        if len(got) != len(gold):
            print(f"{path}: {len(got)} quotations found, {len(gold)} annotated")
            return 1
        ok = sum(g[1] == w for g, w in zip(got, gold))
        for g, w in zip(got, gold):
            if g[1] != w and os.environ.get("VERBOSE"):
                print(f"  miss: {w} got {g[1]}: {g[2][:30]}  ({g[3]})")
        print(f"{os.path.basename(path)}: {ok}/{len(gold)} = {100.0 * ok / len(gold):.1f}%")
        right += ok
        total += len(gold)
    pct = 100.0 * right / total
    print(f"all: {right}/{total} = {pct:.1f}% (floor {floor}%)")
    return 0 if pct >= floor else 1

if __name__ == "__main__":
    sys.exit(main())
