#!/usr/bin/python3
"""build-g2pm.py - compile the g2pM polyphone model into voices/zh/g2pm.bin.

g2pM (Park & Lee, Interspeech 2020; kakaobrain/g2pM, Apache-2.0) reads a
sentence as characters: embedding (64) -> one bidirectional LSTM layer (32
units a direction, PyTorch gate order i, f, g, o) -> dense 64 -> 32 with
ReLU -> dense 32 -> one logit per reading class (876).  Its input is the
sentence between a begin and an end token.  This script reads the pickled
weights (np_ckpt.pkl, char2idx.pkl, class2idx.pkl; needs numpy: Debian's
python3-numpy) and the polyphones g2pM chooses readings for
(data/g2pm/polyphones.tsv, from g2pM's digest_cedict.pkl: the model was
trained to choose among those readings only, and its scores of other
characters or readings mean nothing), and writes the binary file
src/zh/g2pm.c reads.  The format
is documented in src/zh/g2pm.h; the two change together (bump
FORMAT_VERSION when the layout changes).

Format, version 1.  Integers little-endian, floats IEEE 754 little-endian;
every section starts on a 4-byte boundary; offsets count from the file
start.
  header (72 bytes)
    char magic[8]      "TSG2PM\\0\\0"
    u32 version        1
    u32 file_size
    u32 nchar          entries of the character table
    u32 vocab          rows of the embedding
    u32 emb            embedding width (64)
    u32 hidden         LSTM units a direction (32)
    u32 dense          width of the first dense layer (32)
    u32 nclass         reading classes (876)
    u32 unk, bos, eos  embedding rows of the unknown character and of the
                       begin and end of a sentence
    u32 emb_type       0: float32 embedding; 1: float16; 2: int8, each row
                       with a float32 scale (value = scale * q)
    u32 npoly          entries of the polyphone table
    u32 off_chars      nchar pairs (u32 code point, u32 row), ascending
                       code points; a character not there is unk
    u32 off_poly       npoly records of 16 bytes, ascending code points:
                       u32 code point, u16 class[6] (its readings, 2 to 6,
                       then 0xFFFF)
    u32 off_classes    u16[nclass + 1] offsets into the string that
                       follows them: class k is str[off[k]..off[k+1]), a
                       syllable spelled as in tingshu ("lv4", tone 5 =
                       neutral)
    (the weights follow the classes, at off_weights = the next 4-byte
    boundary, which the header does not store: see below)
  weights, at the 4-byte boundary after the class strings:
    embedding          vocab x emb (float32 or float16), or for int8:
                       float32 scale[vocab], then int8 q[vocab x emb]
                       (padded with zeros to a 4-byte boundary)
    then float32 matrices, for the forward then the backward direction:
    W_ih transposed (emb x 4H: row k holds what input k adds to each gate
    unit, so that the C code adds whole rows, which the compiler
    vectorizes), W_hh transposed (H x 4H), b (4H: PyTorch's b_ih + b_hh);
    then W1 transposed (2H x dense; inputs: the forward then the backward
    hidden state), b1 (dense), W2 (nclass x dense, not transposed: only a
    few classes are scored), b2 (nclass).  The file ends there.

Other uses, for development:
  --golden FILE  write the reference forward pass (numpy, float64 from the
                 float32 weights as stored) of a few sentences: one line
                 "sentence<TAB>target index<TAB>class:logit ..." per target
                 (the index counts the sentence's characters from 0); the
                 unit test of src/zh/g2pm.c compares the C logits with them
  --eval DIR     accuracy of the model alone on DIR/dev.sent and dev.lb (the
                 CPP development split), for each embedding type, with the
                 prediction restricted to the readings data/pinyin gives
                 the character (and unrestricted)

Usage: tools/build-g2pm.py [--weights DIR] [--out FILE] [--emb-type f32|f16|i8]
                           [--polyphones TSV] [--golden FILE] [--eval DIR]
       tools/build-g2pm.py --extract-polyphones DIGEST_CEDICT_PKL [--polyphones TSV]
"""

import argparse
import os
import pickle
import struct
import sys

import numpy as np

FORMAT_VERSION = 1
MAGIC = b"TSG2PM\0\0"
HEADER_SIZE = 72
MAX_POLY_READINGS = 6
EMB_TYPES = {"f32": 0, "f16": 1, "i8": 2}
UNK_TOKEN, PAD_TOKEN, BOS_TOKEN, EOS_TOKEN = "<UNK>", "<PAD>", "\uc2dc", "\ub05d"

# Sentences for the golden file: polyphones in several contexts, with
# punctuation, digits, Latin and a character the model does not know.
GOLDEN = [
    ("他们在银行门口排了很长的队。", ["行", "了", "长"]),
    ("这个问题还没有解决，我们还得再想想。", ["还", "得"]),
    ("他背着包走了，头也不回。", ["背", "了"]),
    ("重新开始", ["重"]),
    ("大夫说他的病不重，2020年就好了", ["重", "好", "了"]),
    ("为了朝廷，他朝着东方走去，Hello。", ["为", "朝", "朝", "着"]),
    ("乐", ["乐"]),
    ("他觉得音乐很快乐，睡了一觉。", ["觉", "乐", "乐", "觉"]),
    ("𠀀䦤长", ["长"]),
]


def die(msg):
    sys.exit("build-g2pm: " + msg)


def load(wdir):
    def pk(name):
        with open(os.path.join(wdir, name), "rb") as f:
            return pickle.load(f)
    w = {k: np.asarray(v, dtype=np.float32) for k, v in pk("np_ckpt.pkl").items()}
    char2idx = pk("char2idx.pkl")
    class2idx = pk("class2idx.pkl")
    classes = [None] * len(class2idx)
    for c, i in class2idx.items():
        classes[i] = c.replace("u:", "v")
    if None in classes:
        die("class2idx.pkl: classes are not numbered 0..n-1")
    return w, char2idx, classes


class Model:
    """The forward pass in numpy (float64), from the weights as the file
    stores them (the embedding possibly quantized)."""

    def __init__(self, w, char2idx, emb):
        self.c2i = char2idx
        self.emb = emb.astype(np.float64)
        self.dirs = []
        for sfx in ("", "_reverse"):
            self.dirs.append((w["lstm.weight_ih_l0" + sfx].astype(np.float64),
                              w["lstm.weight_hh_l0" + sfx].astype(np.float64),
                              (w["lstm.bias_ih_l0" + sfx] + w["lstm.bias_hh_l0" + sfx])
                              .astype(np.float64)))
        self.w1 = w["logit_layer.0.weight"].astype(np.float64)
        self.b1 = w["logit_layer.0.bias"].astype(np.float64)
        self.w2 = w["logit_layer.2.weight"].astype(np.float64)
        self.b2 = w["logit_layer.2.bias"].astype(np.float64)

    def rows(self, sent):
        unk = self.c2i[UNK_TOKEN]
        ids = [self.c2i.get(c, unk) if c not in (BOS_TOKEN, EOS_TOKEN) else unk for c in sent]
        return [self.c2i[BOS_TOKEN]] + ids + [self.c2i[EOS_TOKEN]]

    @staticmethod
    def lstm(x, wih, whh, b):
        hdim = whh.shape[1]
        pre = x @ wih.T + b
        h = np.zeros(hdim)
        c = np.zeros(hdim)
        out = np.zeros((len(x), hdim))
        sig = lambda v: 1 / (1 + np.exp(-v))
        for t in range(len(x)):
            z = pre[t] + whh @ h
            i, f = sig(z[:hdim]), sig(z[hdim:2 * hdim])
            g, o = np.tanh(z[2 * hdim:3 * hdim]), sig(z[3 * hdim:])
            c = f * c + i * g
            h = o * np.tanh(c)
            out[t] = h
        return out

    def logits(self, sent, targets):
        """Logits (nclass) of each target index of sent."""
        x = self.emb[self.rows(sent)]
        fw = self.lstm(x, *self.dirs[0])
        bw = self.lstm(x[::-1], *self.dirs[1])[::-1]
        hid = np.concatenate([fw, bw], axis=1)[[t + 1 for t in targets]]
        d = np.maximum(hid @ self.w1.T + self.b1, 0)
        return d @ self.w2.T + self.b2


def quantized_embedding(e, kind):
    """(stored bytes, the embedding as the C code will see it)."""
    if kind == "f32":
        return e.astype("<f4").tobytes(), e
    if kind == "f16":
        h = e.astype("<f2")
        return h.tobytes(), h.astype(np.float32)
    scale = np.abs(e).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.round(e / scale[:, None]), -127, 127).astype(np.int8)
    data = scale.astype("<f4").tobytes() + q.tobytes()
    data += b"\0" * (-len(data) % 4)
    return data, (q.astype(np.float32) * scale.astype(np.float32)[:, None])


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def load_polyphones(path, classes):
    """[(code point, [class, ...])] in code point order."""
    idx = {c: i for i, c in enumerate(classes)}
    out = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            ch, _, rs = line.rstrip("\n").partition("\t")
            cls = [idx.get(r) for r in rs.split()]
            if len(ch) != 1 or None in cls or not 2 <= len(cls) <= MAX_POLY_READINGS:
                die("%s:%d: expected CHAR<TAB>2 to %d known readings" % (path, lineno,
                                                                         MAX_POLY_READINGS))
            out.append((ord(ch), cls))
    return sorted(out)


def extract_polyphones(pkl, out):
    with open(pkl, "rb") as f:
        d = pickle.load(f)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import importlib
    is_han = importlib.import_module("build-lexicon").is_han
    rows = sorted((c, v) for c, v in d.items()
                  if len(v) > 1 and len(c) == 1 and ord(c) <= 0xFFFF and is_han(c))
    with open(out, "w", encoding="utf-8") as f:
        f.write("# The polyphones g2pM chooses among readings for, and their readings: the\n"
                "# entries of more than one reading of g2pM/digest_cedict.pkl in "
                "kakaobrain/g2pM\n# (commit 170526e, Apache-2.0), BMP Han only.  Made by "
                "tools/build-g2pm.py\n# --extract-polyphones; read by it to build "
                "voices/zh/g2pm.bin.\n")
        for c, v in rows:
            f.write("%s\t%s\n" % (c, " ".join(p.replace("u:", "v") for p in v)))


def build_file(w, char2idx, classes, kind, poly):
    chars = sorted((ord(c), i) for c, i in char2idx.items()
                   if len(c) == 1 and c not in (BOS_TOKEN, EOS_TOKEN))
    emb_bytes, emb = quantized_embedding(w["embedding.weight"], kind)
    vocab, edim = w["embedding.weight"].shape
    hdim = w["lstm.weight_hh_l0"].shape[1]
    ddim = w["logit_layer.0.weight"].shape[0]
    chartab = b"".join(struct.pack("<II", cp, row) for cp, row in chars)
    polytab = b"".join(struct.pack("<I6H", cp, *(cls + [0xFFFF] * (6 - len(cls))))
                       for cp, cls in poly)
    strs = b""
    offs = [0]
    for c in classes:
        strs += c.encode("ascii")
        offs.append(len(strs))
    if offs[-1] > 0xFFFF:
        die("class strings too long")
    classtab = pad4(struct.pack("<%dH" % len(offs), *offs) + strs)
    f32 = lambda a: np.ascontiguousarray(a, dtype="<f4").tobytes()
    rest = b""
    for sfx in ("", "_reverse"):
        rest += f32(w["lstm.weight_ih_l0" + sfx].T) + f32(w["lstm.weight_hh_l0" + sfx].T)
        rest += f32(w["lstm.bias_ih_l0" + sfx] + w["lstm.bias_hh_l0" + sfx])
    rest += f32(w["logit_layer.0.weight"].T) + f32(w["logit_layer.0.bias"])
    rest += f32(w["logit_layer.2.weight"]) + f32(w["logit_layer.2.bias"])
    off_chars = HEADER_SIZE
    off_poly = off_chars + len(chartab)
    off_classes = off_poly + len(polytab)
    size = off_classes + len(classtab) + len(emb_bytes) + len(rest)
    header = MAGIC + struct.pack(
        "<16I", FORMAT_VERSION, size, len(chars), vocab, edim, hdim, ddim, len(classes),
        char2idx[UNK_TOKEN], char2idx[BOS_TOKEN], char2idx[EOS_TOKEN], EMB_TYPES[kind],
        len(poly), off_chars, off_poly, off_classes)
    assert len(header) == HEADER_SIZE
    data = header + chartab + polytab + classtab + emb_bytes + rest
    assert len(data) == size
    return data, emb


def load_candidates(path, classes):
    """char -> the class indexes of its readings in data/pinyin."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import importlib
    lex = importlib.import_module("build-lexicon")
    idx = {c: i for i, c in enumerate(classes)}
    return {ch: [idx[s] for s in syls if s in idx]
            for ch, syls in lex.load_chars(path).items()}


def evaluate(w, char2idx, classes, ddir, pinyin, poly):
    cands = load_candidates(pinyin, classes)
    with open(os.path.join(ddir, "dev.sent"), encoding="utf-8") as f:
        sents = f.read().split("\n")[:-1]
    with open(os.path.join(ddir, "dev.lb"), encoding="utf-8") as f:
        labels = [l.strip().replace("u:", "v") for l in f.read().split("\n")[:-1]]
    for kind in EMB_TYPES:
        data, emb = build_file(w, char2idx, classes, kind, poly)
        m = Model(w, char2idx, emb)
        right = right_all = 0
        for s, lb in zip(sents, labels):
            a = s.index("\u2581")
            b = s.index("\u2581", a + 1)
            text = s[:a] + s[a + 1:b] + s[b + 1:]
            lg = m.logits(text, [a])[0]
            right_all += classes[int(np.argmax(lg))] == lb
            cs = cands.get(text[a]) or list(range(len(classes)))
            right += classes[max(cs, key=lambda k: lg[k])] == lb
        n = len(sents)
        print("%s: %d bytes; dev %d of %d: %.2f%% restricted to the character's readings, "
              "%.2f%% unrestricted" % (kind, len(data), right, n, 100.0 * right / n,
                                      100.0 * right_all / n))


def golden(path, w, char2idx, classes, emb):
    m = Model(w, char2idx, emb)
    with open(path, "w", encoding="utf-8") as f:
        f.write("# made by tools/build-g2pm.py --golden: sentence, target, the logits of "
                "the 8 best classes\n")
        for sent, chars in GOLDEN:
            targets, start = [], 0
            for ch in chars:
                k = sent.index(ch, start)
                targets.append(k)
                start = k + 1
            for t, lg in zip(targets, m.logits(sent, targets)):
                best = np.argsort(-lg)[:8]
                f.write("%s\t%d\t%s\n" % (sent, t, " ".join("%s:%.6f" % (classes[k], lg[k])
                                                           for k in best)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", default=os.path.join(root, "..", "shared", "data", "g2pm"))
    ap.add_argument("--out", default=os.path.join(root, "voices", "zh", "g2pm.bin"))
    ap.add_argument("--emb-type", default="i8", choices=sorted(EMB_TYPES))
    ap.add_argument("--golden")
    ap.add_argument("--eval")
    ap.add_argument("--pinyin", default=os.path.join(root, "data", "pinyin", "char-pinyin.txt"))
    ap.add_argument("--polyphones", default=os.path.join(root, "data", "g2pm", "polyphones.tsv"))
    ap.add_argument("--extract-polyphones", metavar="DIGEST_CEDICT_PKL",
                    help="write --polyphones from g2pM's digest_cedict.pkl, and stop")
    args = ap.parse_args()
    if args.extract_polyphones:
        extract_polyphones(args.extract_polyphones, args.polyphones)
        return 0
    w, char2idx, classes = load(args.weights)
    poly = load_polyphones(args.polyphones, classes)
    if args.eval:
        evaluate(w, char2idx, classes, args.eval, args.pinyin, poly)
        return 0
    data, emb = build_file(w, char2idx, classes, args.emb_type, poly)
    if args.golden:
        golden(args.golden, w, char2idx, classes, emb)
        return 0
    with open(args.out + ".tmp", "wb") as f:
        f.write(data)
    os.replace(args.out + ".tmp", args.out)
    print("%s: %d bytes" % (args.out, len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
