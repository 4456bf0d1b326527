#!/bin/bash
# e2e_slug_safety: chapter titles become file names; hostile titles (path
# traversal, control characters, tab, backslash, colon, a leading dot) must
# give plain, safe names directly inside the output folder.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

body='你好世界。今天天气很好。'
{
	printf '第一章 ../../etc/passwd\n%s\n' "$body"
	printf '第二章 a\tb\\c:d\x01e\x1b[31mf/g\x7f\n%s\n' "$body"
	printf '第三章 .hidden\n%s\n' "$body"
	printf '第四章 ..\n%s\n' "$body"
	printf '第五章 /\n%s\n' "$body"
	printf '第六章 ./../x\r\n%s\n' "$body"
} >hostile.txt
# A chapter file whose own name is odd (its title comes from the name).
mkdir -p dir
printf '%s\n' "$body" >"dir/a.."$'\t\x01'"odd:\\name.txt"
printf '%s\n' "$body" >"dir/-rf.txt"

mkdir -p work/out
cd work || e2e_die "no work dir"
run 0 book "$TINGSHU" build -q -o out ../hostile.txt
run 0 dir "$TINGSHU" build -q -o out2 ../dir
cd "$SCRATCH" || exit 1

check_folder() {
	local out=$1 want=$2 label=$3 n
	# Nothing outside the scratch tree was written: e.g. no work/etc, no ../passwd.
	[ -e "$SCRATCH/etc" ] || [ -e "$SCRATCH/work/etc" ] || [ -e "$SCRATCH/passwd" ] &&
		fail "$label: a file escaped the output folder"
	# Everything is a plain file directly inside the folder.
	local sub
	sub=$(find "$out" -mindepth 1 ! -path "$out/.tingshu" ! -path "$out/.tingshu/*" \
		\( -type d -o -path "$out/*/*" \) -printf '%P ')
	[ -z "$sub" ] || fail "$label: subfolders or nested files in $out: $sub"
	n=$(find "$out" -mindepth 1 -maxdepth 1 -type f -name '*.wav' | wc -l)
	[ "$n" -eq "$want" ] || fail "$label: $n audio files in $out, expected $want: $(ls -A "$out" | tr '\n' ' ')"
	local f b
	while IFS= read -r -d '' f; do
		b=${f##*/}
		[[ "$b" == .* ]] && fail "$label: file name starts with '.': $(printf '%q' "$b")"
		[[ "$b" =~ [[:cntrl:]] ]] && fail "$label: control character in file name: $(printf '%q' "$b")"
		# \ and : are not allowed on FAT/exFAT (USB sticks, players).
		[[ "$b" == *\\* ]] && fail "$label: backslash in file name: $(printf '%q' "$b")"
		[[ "$b" == *:* ]] && fail "$label: colon in file name: $(printf '%q' "$b")"
		[[ "$b" == -* ]] && fail "$label: file name starts with '-': $(printf '%q' "$b")"
	done < <(find "$out" -mindepth 1 -path "$out/.tingshu" -prune -o -print0)
	# The manifest names files only, each of which exists in the folder.
	jq -e . "$out/manifest.json" >/dev/null 2>&1 || { fail "$label: manifest.json not valid JSON"; return; }
	local a
	while IFS= read -r a; do
		[[ "$a" == */* || "$a" == .* || -z "$a" ]] && fail "$label: manifest audio '$a' is not a plain file name"
		[ -f "$out/$a" ] || fail "$label: manifest audio '$a' does not exist in $out"
	done < <(jq -r '.chapters[].audio' "$out/manifest.json")
	# The playlist likewise.
	while IFS= read -r a; do
		a=${a%$'\r'}
		[[ "$a" == \#* || -z "$a" ]] && continue
		[[ "$a" == */* || "$a" == .* ]] && fail "$label: playlist entry '$a' is not a plain file name"
		[ -f "$out/$a" ] || fail "$label: playlist entry '$a' does not exist"
	done <"$out/playlist.m3u"
	# Titles keep what they say (the manifest is JSON: anything can be escaped),
	# but carry no raw control characters once decoded.
	jq -e '[.chapters[].title | test("[\u0000-\u001f\u007f]")] | any | not' "$out/manifest.json" >/dev/null ||
		fail "$label: a manifest title holds control characters: $(jq -c '[.chapters[].title]' "$out/manifest.json")"
	no_temp_files "$out" "$label"
}

check_folder work/out 6 hostile-book
check_folder work/out2 2 odd-file-names
# Distinct chapters keep distinct names.
n=$(find work/out -name '*.wav' -printf '%f\n' | sort -u | wc -l)
[ "$n" -eq 6 ] || fail "hostile-book: file names collide"
jq -e '.chapters[0].title | test("passwd")' work/out/manifest.json >/dev/null ||
	fail "hostile-book: the title of chapter 1 lost its text: $(jq -c '.chapters[0].title' work/out/manifest.json)"

e2e_finish
