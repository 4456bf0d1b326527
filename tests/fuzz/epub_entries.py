#!/usr/bin/env python3
"""Each EPUB given, as the text form fuzz_epub also reads: its entries, each
after a line "=== NAME".  Usage: epub_entries.py OUTDIR FILE.epub..."""
import os
import sys
import zipfile

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for path in sys.argv[2:]:
    try:
        with zipfile.ZipFile(path) as z:
            parts = [b'=== ' + n.encode() + b'\n' + z.read(n) for n in z.namelist()]
    except zipfile.BadZipFile:  # the cases that are not zips stay as they are
        continue
    name = os.path.basename(path)[:-len('.epub')] + '.entries'
    with open(os.path.join(out, name), 'wb') as f:
        f.write(b''.join(p if p.endswith(b'\n') else p + b'\n' for p in parts))
