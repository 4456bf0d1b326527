#!/usr/bin/env python3
"""novel_check.py - check the labels of a polyphone set against a second source.

The labels of tests/data/novel (SPLIT.sent with the target between ▁ marks,
SPLIT.lb its pinyin, tone 5 neutral, ü as u:) were written by the
dictionary (现代汉语词典).  This script holds each against the MIT data of
data/pinyin: the words of phrase-pinyin.txt and phrase-pinyin-cedict.txt
that contain the target in its sentence, and failing those the readings
char-pinyin.txt lists for the character.  One line a target:

    N  VERDICT  CHAR  LABEL  SENTENCE  [word=reading ...]

VERDICT is one of
    word        a longest word of the lists around the target reads it so
    word-short  only a shorter word around it does
    word-tone   the words have the syllable with another tone (the lists
                often write full tones where the dictionary has neutral ones)
    WORD-DIFF   words contain the target but none reads it so
    char        no word; the character has the reading
    char-tone   no word; the character has the syllable with another tone
    CHAR-DIFF   no word, and the character does not have the reading

Usage: novel_check.py [DATA_DIR] [--split dev] [--pinyin data/pinyin]
                      [--only-diff]
Prints a summary line at the end; exits 0 (it reports, it does not judge:
the README of the set says why each disagreement keeps its label).
"""

import argparse
import os
import sys
import unicodedata

TONE_MARKS = {"\u0304": "1", "\u0301": "2", "\u030c": "3", "\u0300": "4"}
MAX_WORD = 8


def numbered(syl):
    tone = "5"
    out = []
    for ch in unicodedata.normalize("NFD", syl.strip().lower()):
        if ch in TONE_MARKS:
            tone = TONE_MARKS[ch]
        elif ch == "\u0308":
            if not out or out[-1] != "u":
                return None
            out[-1] = "v"
        elif "a" <= ch <= "z":
            out.append(ch)
        elif ch == "\u0302":
            pass
        else:
            return None
    return "".join(out) + tone if out else None


def is_han(ch):
    cp = ord(ch)
    return 0x3400 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or cp == 0x3007


def load_chars(path):
    chars = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            code, _, readings = line.partition(":")
            ch = chr(int(code.strip()[2:], 16))
            chars[ch] = [s for s in (numbered(r) for r in readings.split(",")) if s]
    return chars


def load_phrases(path, words):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            word, _, pinyin = line.partition(":")
            word = word.strip()
            if len(word) < 2 or len(word) > MAX_WORD:
                continue
            syls = [numbered(s) for s in pinyin.split()]
            if len(syls) != len(word) or None in syls:
                continue
            r = words.setdefault(word, [])
            if syls not in r:
                r.append(syls)


def check(sent, label, chars, words):
    a = sent.index("\u2581")
    text = sent[:a] + sent[a + 1] + sent[a + 3:]
    t = a
    ch = text[t]
    # The run of Han characters around the target, and the words of the
    # lists in it that cover the target.
    lo = t
    while lo > 0 and is_han(text[lo - 1]):
        lo -= 1
    hi = t + 1
    while hi < len(text) and is_han(text[hi]):
        hi += 1
    found = []   # (length, word, [reading at the target, ...])
    for i in range(max(lo, t - MAX_WORD + 1), t + 1):
        for j in range(t + 1, min(hi, i + MAX_WORD) + 1):
            w = text[i:j]
            if len(w) >= 2 and w in words:
                found.append((len(w), w, [r[t - i] for r in words[w]]))
    base = label[:-1]
    if found:
        longest = max(n for n, _, _ in found)
        if any(label in rs for n, _, rs in found if n == longest):
            verdict = "word"
        elif any(label in rs for _, _, rs in found):
            verdict = "word-short"
        elif any(r[:-1] == base for _, _, rs in found for r in rs):
            verdict = "word-tone"
        else:
            verdict = "WORD-DIFF"
    else:
        cr = chars.get(ch, [])
        if label in cr:
            verdict = "char"
        elif any(r[:-1] == base for r in cr):
            verdict = "char-tone"
        else:
            verdict = "CHAR-DIFF"
    words_txt = " ".join("%s=%s" % (w, "/".join(sorted(set(rs)))) for _, w, rs in sorted(found))
    if not found:
        words_txt = "char=" + "/".join(chars.get(ch, []))
    return verdict, ch, words_txt


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="?", default=os.path.join(here, "data", "novel"))
    ap.add_argument("--split", default="dev")
    ap.add_argument("--pinyin", default=os.path.join(here, "..", "data", "pinyin"))
    ap.add_argument("--only-diff", action="store_true",
                    help="list only the targets where the source differs")
    args = ap.parse_args()

    chars = load_chars(os.path.join(args.pinyin, "char-pinyin.txt"))
    words = {}
    load_phrases(os.path.join(args.pinyin, "phrase-pinyin.txt"), words)
    load_phrases(os.path.join(args.pinyin, "phrase-pinyin-cedict.txt"), words)
    with open(os.path.join(args.data, args.split + ".sent"), encoding="utf-8") as f:
        sents = f.read().split("\n")[:-1]
    with open(os.path.join(args.data, args.split + ".lb"), encoding="utf-8") as f:
        labels = [l.strip().replace("u:", "v") for l in f.read().split("\n")[:-1]]
    if len(sents) != len(labels):
        sys.exit("novel_check: %s.sent and %s.lb differ in length" % (args.split, args.split))
    counts = {}
    for n, (s, lb) in enumerate(zip(sents, labels), 1):
        verdict, ch, words_txt = check(s, lb, chars, words)
        counts[verdict] = counts.get(verdict, 0) + 1
        if not args.only_diff or verdict in ("word-tone", "WORD-DIFF", "char-tone",
                                              "CHAR-DIFF"):
            print("%d\t%s\t%s\t%s\t%s\t%s" % (n, verdict, ch, lb, s, words_txt))
    order = ("word", "word-short", "char", "word-tone", "char-tone", "WORD-DIFF", "CHAR-DIFF")
    print("novel_check: %d targets: %s" % (len(sents), ", ".join(
        "%s %d" % (v, counts[v]) for v in order if v in counts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
