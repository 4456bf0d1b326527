#!/usr/bin/env bash
# bench/epubread.sh - what reading an EPUB costs: the seeds' text made into
# an EPUB 3 of about BENCH_EPUB_MB megabytes (default 10; chapters of about
# 60 KB of XHTML each, a nav, deflated as EPUBs are), and one of a tenth of
# that, read by `tingshu build --dry-run` (the whole EPUB: container,
# package, contents, every document parsed, its text written to TMPDIR and
# split into chapters), BENCH_RUNS times each (default 3); then the same
# text as one .txt file, for comparison.
#
# Usage: bench/epubread.sh [BUILD_DIR]          (default BUILD_DIR: build)
#
# Prints, per input: its size in MB, its chapters, characters of text, the
# median wall and CPU seconds, and the peak resident memory in MB.  Exit 0,
# or 2 when a run fails.
set -euo pipefail
export LC_ALL=C.UTF-8

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
bench_setup "${1:-build}" 3
mb=${BENCH_EPUB_MB:-10}
[[ $mb =~ ^[1-9][0-9]*$ ]] || die "BENCH_EPUB_MB must be a positive integer, not '$mb'"
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time"
command -v python3 >/dev/null || die "needs python3 to make the EPUB"
bench_workdir epubread

# make_epub MB NAME: NAME.epub of about MB megabytes, and NAME.txt of its text.
make_epub() {
	python3 - "$1" "$work/$2" "${seed_files[@]}" <<'PY'
import random, sys, zipfile
mb, out, seeds = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
paras = [l.strip() for s in seeds for l in open(s, encoding='utf-8') if len(l.strip()) > 20]
rnd = random.Random(7)
def doc(title, ps):
    body = ''.join(f'<p>{p}</p>\n' for p in ps)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
            f'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{title}</title></head>'
            f'<body><h1>{title}</h1>\n{body}</body></html>\n')
z = zipfile.ZipFile(out + '.epub', 'w', zipfile.ZIP_DEFLATED)
z.writestr(zipfile.ZipInfo('mimetype'), 'application/epub+zip', zipfile.ZIP_STORED)
z.writestr('META-INF/container.xml', '<?xml version="1.0"?><container version="1.0" '
           'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
           'full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
           '</rootfiles></container>')
txt, items, refs, links, n, size = [], [], [], [], 0, 0
while size < mb * 1e6:
    n += 1
    title = f'第{n}章'
    ps = [rnd.choice(paras) for _ in range(40)]
    z.writestr(f'OEBPS/c{n}.xhtml', doc(title, ps))
    items.append(f'<item id="c{n}" href="c{n}.xhtml" media-type="application/xhtml+xml"/>')
    refs.append(f'<itemref idref="c{n}"/>')
    links.append(f'<li><a href="c{n}.xhtml">{title}</a></li>')
    txt += [title] + ps
    size = sum(i.compress_size for i in z.infolist())
z.writestr('OEBPS/nav.xhtml', '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
           'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>目录</title></head><body>'
           '<nav epub:type="toc"><ol>' + ''.join(links) + '</ol></nav></body></html>')
z.writestr('OEBPS/content.opf', '<?xml version="1.0" encoding="UTF-8"?><package '
           'xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata '
           'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">bench</dc:identifier>'
           '<dc:title>测试</dc:title><dc:language>zh</dc:language></metadata><manifest>'
           '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
           + ''.join(items) + '</manifest><spine>' + ''.join(refs) + '</spine></package>')
z.close()
open(out + '.txt', 'w', encoding='utf-8').write('\n'.join(txt) + '\n')
PY
}

# measure FILE: "MB chapters chars wall cpu peak_MB", medians over the runs.
measure() {
	local f=$1 i walls=() cpus=() peaks=() out
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -o "$work/time" -f '%e %U %S %M' \
			"$tingshu" build --dry-run -o "$work/out" "$f" >"$work/dry" 2>"$work/err" ||
			die "failed: $tingshu build --dry-run $f ($(tail -n 3 "$work/err"))"
		read -r w u s m <"$work/time"
		walls+=("$w")
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
		peaks+=("$m")
	done
	median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
	out=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", b / 1e6 }')
	printf '%s | %s | %s | %s | %s | %s | %d\n' "$(basename "$f")" "$out" \
		"$(grep -c $'\t' "$work/dry")" "$(awk -F'\t' '{ gsub(/ chars/, "", $3); n += $3 } END { print n }' "$work/dry")" \
		"$(median "${walls[@]}")" "$(median "${cpus[@]}")" $(($(median "${peaks[@]}") / 1024))
}

make_epub "$mb" big
make_epub "$(awk -v m="$mb" 'BEGIN { printf "%.1f", m / 10 }')" small
printf '%s\n' "input | MB | chapters | characters | wall s | CPU s | peak MB"
measure "$work/small.epub"
measure "$work/big.epub"
measure "$work/big.txt"
