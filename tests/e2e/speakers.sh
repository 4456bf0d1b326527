#!/bin/bash
# e2e_speakers: 'tingshu speakers' prints N<TAB>speaker<TAB>quotation for
# every quotation in book order, N numbered as a build numbers the chapter
# files (000 for front matter, so 0 here); a cast.txt beside the book, or
# --cast, prints the cast's first name; a cast's bad lines are warnings
# naming FILE:LINE; --explain adds a fourth field; a quoted word and a
# poem are "-", a quotation nobody can be told to say "?"; a missing
# straight mark changes no other quotation and is a warning naming
# FILE:LINE (issue 36).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"

mkdir book
cat >book/book.txt <<'TXT'
三国故事

第一回 桃园结义

刘备字玄德。玄德曰：“吾乃汉室宗亲。”张飞曰：“我愿同举大事。”
“好！”

第二回 三顾茅庐

孔明笑曰：“将军请坐。”后人有诗叹曰：“大梦谁先觉？平生我自知。”
他把“仁义”二字挂在嘴边。
TXT
run 0 speakers "$TINGSHU" speakers book/book.txt
want=$(printf '1\t刘备\t“吾乃汉室宗亲。”\n1\t张飞\t“我愿同举大事。”\n1\t刘备\t“好！”\n2\t孔明\t“将军请坐。”\n2\t-\t“大梦谁先觉？平生我自知。”\n2\t-\t“仁义”')
[ "$(cat "$RUN_OUT")" = "$want" ] || fail "speakers: got
$(cat "$RUN_OUT")
want
$want"
[ -s "$RUN_ERR" ] && fail "speakers wrote to stderr: $(head -c 300 "$RUN_ERR")"

# --explain: a fourth field on every line.
run 0 explain "$TINGSHU" speakers --explain book/book.txt
awk -F'\t' 'NF != 4 { bad = 1 } END { exit bad }' "$RUN_OUT" || fail "--explain: not 4 fields"
grep -q '曰' "$RUN_OUT" || fail "--explain does not name the verb"

# A front matter is chapter 0, as in the file names of a build.
printf '三国故事\n曹操曰：“宁教我负天下人。”\n\n第一回 开始\n\n刘备曰：“不可。”\n' >book/front.txt
run 0 front "$TINGSHU" speakers book/front.txt
[ "$(cut -f1,2 "$RUN_OUT" | tr '\t\n' ' |')" = "0 曹操|1 刘备|" ] ||
	fail "front matter: $(cat "$RUN_OUT")"
run 0 dry "$TINGSHU" build --dry-run -o out book/front.txt
[ "$(cut -c1-3 "$RUN_OUT" | grep -E '^[0-9]' | tr '\n' ' ')" = "000 001 " ] ||
	fail "a build numbers the chapters otherwise: $(cat "$RUN_OUT")"

# A cast beside the book, its bad lines warned of with FILE:LINE.
printf '# the cast\n诸葛亮 孔明 卧龙\tcmn\n张飞 翼德\n关羽\t\n' >book/cast.txt
run 0 cast "$TINGSHU" speakers book/book.txt
grep -q "	诸葛亮	“将军请坐。”" "$RUN_OUT" || fail "cast.txt beside the book not used: $(cat "$RUN_OUT")"
grep -q 'book/cast.txt:3: .*TAB' "$RUN_ERR" || fail "no FILE:LINE warning for line 3: $(cat "$RUN_ERR")"
grep -q 'book/cast.txt:4: ' "$RUN_ERR" || fail "no FILE:LINE warning for line 4: $(cat "$RUN_ERR")"
run 0 cast-q "$TINGSHU" speakers -q book/book.txt
[ -s "$RUN_ERR" ] && fail "-q still warns: $(cat "$RUN_ERR")"

# --cast FILE instead; one that cannot be read is an error.
printf '刘备 玄德\tcmn-m3\n' >other.txt
run 0 cast-opt "$TINGSHU" speakers --cast other.txt book/book.txt
grep -q "	孔明	“将军请坐。”" "$RUN_OUT" || fail "--cast: the cast.txt beside the book was read too"
run 1 cast-missing "$TINGSHU" speakers --cast nowhere.txt book/book.txt
grep -q 'nowhere.txt' "$RUN_ERR" || fail "a missing cast is not named: $(cat "$RUN_ERR")"

# Nobody to tell: ?
printf '“你来了？”\n' >alone.txt
run 0 alone "$TINGSHU" speakers alone.txt
[ "$(cut -f2 "$RUN_OUT")" = "?" ] || fail "an unattributed quotation: $(cat "$RUN_OUT")"

# A closing mark lost: the quotations after it are still theirs, and a
# warning names the line.
printf '第一回 测试\n\n张三笑道:"这事不难,交给我。李四道:"那你去办。"王五道:"好。"\n' >marks.txt
run 0 marks "$TINGSHU" speakers marks.txt
[ "$(cut -f2 "$RUN_OUT" | tr '\n' ' ')" = "张三 李四 王五 " ] ||
	fail "a lost mark changed the quotations after it: $(cat "$RUN_OUT")"
grep -q 'marks.txt:3: quotation marks that do not pair' "$RUN_ERR" ||
	fail "no FILE:LINE warning of the lost mark: $(cat "$RUN_ERR")"

# A file that cannot be read: exit 1, the rest still printed.
run 1 missing "$TINGSHU" speakers nothere.txt alone.txt
[ "$(cut -f2 "$RUN_OUT")" = "?" ] || fail "the readable file was not printed"
e2e_finish
