#!/usr/bin/env python3
"""mkepub.py OUTDIR -- write the test EPUBs for tingshu's EPUB reader.

For every case this writes OUTDIR/<case>.epub and OUTDIR/<case>.expect, the
result the reader must give, in UTF-8:

    title: <dc:title>
    author: <dc:creator>
    chapter: <title>
    <one line per paragraph, whitespace runs collapsed to one space, trimmed>
    ...

or, for a book that must be refused, the one line "error: <phrase>", where
the phrase is part of the message tingshu prints.  Rules the .expect files
follow:
  * a chapter's own heading (the h1/h2 that starts it) is not a paragraph;
  * <br/> breaks a paragraph: the text after it is a new line;
  * blocks with no text give no line;
  * not read: <head>, script, style, img (nor its alt), rt, rp, noterefs,
    footnotes, endnotes, the nav document, the cover and copyright pages.
Output is deterministic: fixed zip timestamps, fixed order, fixed bytes.
Stdlib only.
"""
import io
import os
import struct
import sys
import zipfile
import zlib

DATE = (2020, 1, 1, 0, 0, 0)
XHTML = 'application/xhtml+xml'

# ----------------------------------------------------------------- the prose
# Chapter pool: (title, paragraphs).  Every chapter's text is its own, so a
# paragraph read into the wrong chapter shows.
CH = [
    ('第一章 渡口', [
        '天刚亮，江面上还浮着一层薄雾。老周撑着竹篙，把渡船慢慢靠向石阶。岸上已经站了三四个挑担的人。',
        '最后上船的是个背书箱的少年。他付了两文钱，便一声不响地坐在船尾。老周多看了他两眼，觉得这张脸有些眼熟。',
        '船到江心时，雾忽然散了。少年抬起头，望着对岸的青石镇，轻轻叹了一口气。']),
    ('第二章 夜雨', [
        '入夜以后，雨越下越大。客栈的掌柜早早关了门，只在柜台上留了一盏油灯。',
        '少年坐在窗边抄书，笔尖沙沙作响。隔壁房里有人咳嗽，一声接着一声，直到三更才停。']),
    ('第三章 旧宅', [
        '第二天一早，少年沿着河边往西走。镇子尽头有一座荒废的宅院，门上的铜环早已生锈。',
        '他推开半扇木门，院子里的槐树还在。树下的石桌上积着厚厚的落叶，像是很多年没有人来过。',
        '少年在石桌旁站了很久。他从怀里取出一封旧信，信封上写的正是这座宅子的地址。']),
    ('第一章 启程', [
        '北风吹了整整三天，山路上结了一层薄冰。阿禾背着干粮，跟在父亲身后出了村子。',
        '父亲话很少，只在岔路口停下来，指着远处的山口说，翻过去就是县城。']),
    ('第二章 县城', [
        '县城比阿禾想的还要热闹。卖糖人的、算命的、修鞋的挤在一条街上，吆喝声此起彼伏。',
        '父亲带他进了一家药铺。掌柜是个胖子，听完来意，笑着收下了那包晒干的草药。',
        '回去的路上，阿禾第一次尝到了桂花糕的味道。他把剩下的半块包好，说要留给妹妹。']),
    ('第一回 灯会', [
        '元宵那天，城里挂满了花灯。小满拉着姐姐的手，在人群里钻来钻去。',
        '她们在一盏走马灯前停下。灯上画着八仙过海，转得不快不慢，看得人舍不得走。']),
    ('第二回 失散', [
        '一阵鞭炮声过后，人群忽然涌动起来。小满回过头，姐姐已经不见了。',
        '她站在桥头大声喊，声音很快就被锣鼓声淹没了。卖元宵的老婆婆把她拉到摊子后面，让她别乱跑。']),
    ('第三回 寻人', [
        '天快亮的时候，巡夜的更夫带来了消息。有人在城隍庙前看见一个穿红袄的姑娘。',
        '老婆婆收了摊，牵着小满往城隍庙走。一路上，她把自己年轻时走丢的事讲了一遍。']),
    ('第四回 重逢', [
        '城隍庙前的台阶上，姐姐正抱着膝盖坐着。她的眼睛哭得通红，手里还攥着那盏兔子灯。',
        '小满扑过去，两个人抱在一起，谁也说不出话来。']),
]
# The second half of 第四回 (fragments case): a spine document of its own
# with no TOC entry, so its paragraphs belong to the chapter before it.
CH8_REST = [
    '回家的路上，太阳出来了。姐姐把兔子灯送给了老婆婆，说明年还来吃她的元宵。',
    '老婆婆笑着摆摆手，转身走进了早市的人群里。']


# ---------------------------------------------------------- markup helpers
def esc(s):
    return s.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')


def xhtml(title, body, v3=True, head='', body_attr=''):
    """A whole XHTML document: EPUB 3 (HTML5 syntax, epub namespace) or
    EPUB 2 (XHTML 1.1 doctype, no epub namespace)."""
    if v3:
        top = ('<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" '
               'xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="zh" lang="zh">\n')
    else:
        top = ('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" '
               '"http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">\n'
               '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="zh">\n')
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + top +
            f'<head>\n<title>{esc(title)}</title>\n{head}</head>\n'
            f'<body{body_attr}>\n{body}\n</body>\n</html>\n')


def paras(ps):
    return '\n'.join(f'<p>{esc(p)}</p>' for p in ps)


def chapter(title, ps, tag='h1', heading=None, v3=True, head=''):
    """A one-chapter document: its heading (default: the title) and its <p>s."""
    h = esc(heading or title)
    return xhtml(title, f'<{tag}>{h}</{tag}>\n{paras(ps)}', v3, head)


def container(opf_path):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">\n'
            f'  <rootfiles>\n    <rootfile full-path="{opf_path}" '
            'media-type="application/oebps-package+xml"/>\n  </rootfiles>\n</container>\n')


def opf(meta, items, spine, v3=True, ncx=False, extra_meta=''):
    """The package document.  meta = (title, author, uid); items =
    [(id, href, media-type, properties)]; spine = idrefs in reading order."""
    title, author, uid = meta
    lines = [f'    <item id="{i}" href="{h}" media-type="{m}"' +
             (f' properties="{p}"' if p else '') + '/>' for i, h, m, p in items]
    refs = [f'    <itemref idref="{i}"/>' for i in spine]
    if v3:
        extra_meta = '<meta property="dcterms:modified">2020-01-01T00:00:00Z</meta>\n    ' + extra_meta
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<package xmlns="http://www.idpf.org/2007/opf" version="{"3.0" if v3 else "2.0"}" '
            'unique-identifier="uid">\n'
            '  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" '
            'xmlns:opf="http://www.idpf.org/2007/opf">\n'
            f'    <dc:identifier id="uid">{uid}</dc:identifier>\n'
            f'    <dc:title>{esc(title)}</dc:title>\n'
            f'    <dc:creator>{esc(author)}</dc:creator>\n'
            '    <dc:language>zh</dc:language>\n'
            f'    {extra_meta}\n  </metadata>\n'
            '  <manifest>\n' + '\n'.join(lines) + '\n  </manifest>\n'
            '  <spine' + (' toc="ncx"' if ncx else '') + '>\n' + '\n'.join(refs) +
            '\n  </spine>\n</package>\n')


def nav_doc(toc, landmarks=''):
    """nav.xhtml: toc = [(href, label markup)]."""
    lis = '\n'.join(f'<li><a href="{h}">{label}</a></li>' for h, label in toc)
    return xhtml('目录', f'<nav epub:type="toc" id="toc">\n<h1>目录</h1>\n<ol>\n{lis}\n</ol>\n</nav>\n' + landmarks)


def ncx_doc(meta, points):
    """toc.ncx: points = [(label, src, [child points])]."""
    order = [0]

    def navpoint(p, indent):
        label, src, kids = p
        order[0] += 1
        n = order[0]
        inner = ''.join(navpoint(k, indent + '  ') for k in kids)
        return (f'{indent}<navPoint id="np{n}" playOrder="{n}">\n'
                f'{indent}  <navLabel><text>{esc(label)}</text></navLabel>\n'
                f'{indent}  <content src="{src}"/>\n{inner}{indent}</navPoint>\n')
    body = ''.join(navpoint(p, '    ') for p in points)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="zh">\n'
            f'  <head>\n    <meta name="dtb:uid" content="{meta[2]}"/>\n'
            '    <meta name="dtb:depth" content="2"/>\n  </head>\n'
            f'  <docTitle><text>{esc(meta[0])}</text></docTitle>\n'
            f'  <navMap>\n{body}  </navMap>\n</ncx>\n')


def png():
    """A valid 1x1 white PNG."""
    def chunk(kind, data):
        return (struct.pack('>I', len(data)) + kind + data +
                struct.pack('>I', zlib.crc32(kind + data)))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(b'\x00\xff\xff\xff')) + chunk(b'IEND', b''))


def noise(n, seed=1):
    """n deterministic bytes that look random (stand-in for ciphertext)."""
    return bytes((i * i * 131 + i * 17 + seed) >> 3 & 0xff for i in range(n))


def encryption(uri, algorithm, key_info=''):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
            'xmlns:enc="http://www.w3.org/2001/04/xmlenc#">\n  <enc:EncryptedData>\n'
            f'    <enc:EncryptionMethod Algorithm="{algorithm}"/>\n{key_info}'
            f'    <enc:CipherData>\n      <enc:CipherReference URI="{uri}"/>\n'
            '    </enc:CipherData>\n  </enc:EncryptedData>\n</encryption>\n')


# --------------------------------------------------------- book assembling
def epub3(meta, docs, toc, extra=(), nav_at=None, landmarks='', extra_meta=''):
    """The files of an EPUB 3 book under OEBPS/.  docs = [(href, data,
    properties)] in spine order (data None: listed but absent from the zip;
    a callable: streamed); toc = nav entries; extra = [(href, media-type,
    properties, data)] in the manifest only; nav_at = the nav document's
    place in the spine (None: not in the spine)."""
    items = [('nav', 'nav.xhtml', XHTML, 'nav')]
    spine = []
    files = [('META-INF/container.xml', container('OEBPS/content.opf')),
             ('OEBPS/nav.xhtml', nav_doc(toc, landmarks))]
    for n, (href, data, props) in enumerate(docs):
        items.append((f'doc{n}', href, XHTML, props))
        spine.append(f'doc{n}')
        if data is not None:
            files.append(('OEBPS/' + href, data))
    for n, (href, mtype, props, data) in enumerate(extra):
        items.append((f'res{n}', href, mtype, props))
        files.append(('OEBPS/' + href, data))
    if nav_at is not None:
        spine.insert(nav_at, 'nav')
    files.insert(1, ('OEBPS/content.opf', opf(meta, items, spine, extra_meta=extra_meta)))
    return files


def simple3(chs, head=''):
    """docs and toc for plain chapters ch1.xhtml, ch2.xhtml, ..."""
    docs = [(f'ch{n}.xhtml', chapter(t, ps, head=head), '') for n, (t, ps) in enumerate(chs, 1)]
    toc = [(f'ch{n}.xhtml', esc(t)) for n, (t, _) in enumerate(chs, 1)]
    return docs, toc


def expect(meta, chapters):
    lines = [f'title: {meta[0]}', f'author: {meta[1]}']
    for title, ps in chapters:
        lines.append(f'chapter: {title}')
        lines += ps
    return '\n'.join(lines) + '\n'


def uid(n):
    return f'urn:uuid:7a1c0e52-3b6d-4f0a-9c1e-0000000000{n:02d}'


def zipped(files):
    """The EPUB's bytes: mimetype first and stored, the rest deflated."""
    def info(name, method):
        zi = zipfile.ZipInfo(name, DATE)
        zi.compress_type = method
        zi.create_system = 3            # same bytes whatever the host
        zi.external_attr = 0o644 << 16
        return zi
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as z:
        z.writestr(info('mimetype', zipfile.ZIP_STORED), 'application/epub+zip')
        for name, data in files:
            if callable(data):
                with z.open(info(name, zipfile.ZIP_DEFLATED), 'w') as f:
                    data(f)
            else:
                z.writestr(info(name, zipfile.ZIP_DEFLATED), data)
    return buf.getvalue()


# ------------------------------------------------------------------- cases
def nav3():
    # Titles come from the nav labels, which differ from the in-document h1
    # (full-width space there; a <span> and a line break in one label).
    # The cover page, the nav (in the spine, linear) and the copyright page
    # (last in the spine, after 第三章) give no text.
    meta = ('青石镇旧事', '林晚舟', uid(1))
    chs = CH[0:3]
    cover = xhtml('封面', '<div><img src="../images/cover.png" alt="封面图片"/></div>',
                  body_attr=' epub:type="cover"')
    copyright_page = xhtml('版权信息', '<section epub:type="copyright-page">\n<h2>版权信息</h2>\n'
                           '<p>版权所有，2020 林晚舟。未经许可，不得转载。</p>\n</section>')
    docs = ([('text/cover.xhtml', cover, '')] +
            [(f'text/ch{n}.xhtml', chapter(t, ps, heading=t.replace(' ', '\u3000')), '')
             for n, (t, ps) in enumerate(chs, 1)] +
            [('text/copyright.xhtml', copyright_page, '')])
    toc = [('text/ch1.xhtml', '第一章 渡口'),
           ('text/ch2.xhtml', '<span>第二章</span>\n      夜雨'),
           ('text/ch3.xhtml', '  第三章 旧宅 ')]
    landmarks = ('<nav epub:type="landmarks" hidden="hidden">\n<ol>\n'
                 '<li><a epub:type="cover" href="text/cover.xhtml">封面</a></li>\n'
                 '<li><a epub:type="bodymatter" href="text/ch1.xhtml">正文</a></li>\n</ol>\n</nav>')
    extra = [('images/cover.png', 'image/png', 'cover-image', png())]
    files = epub3(meta, docs, toc, extra, nav_at=1, landmarks=landmarks,
                  extra_meta='<meta name="cover" content="res0"/>')
    return zipped(files), expect(meta, chs)


def ncx2():
    # EPUB 2, toc.ncx only, the package in book/ (not OEBPS/) and the text in
    # book/text/: hrefs resolve against the OPF's folder, NCX srcs against
    # the NCX's.  The part (卷) navPoint holds the two chapter navPoints; its
    # document has only the part heading: as in a text file, that heading
    # goes before the title of the first chapter of the part.
    meta = ('风起北山', '沈青禾', uid(2))
    part = '第一卷 风起'
    chs = CH[3:5]
    items = [('ncx', 'toc.ncx', 'application/x-dtbncx+xml', ''),
             ('part1', 'text/part1.xhtml', XHTML, '')]
    items += [(f'ch{n}', f'text/ch{n}.xhtml', XHTML, '') for n in (1, 2)]
    points = [(part, 'text/part1.xhtml',
               [(t, f'text/ch{n}.xhtml', []) for n, (t, _) in enumerate(chs, 1)])]
    files = [('META-INF/container.xml', container('book/package.opf')),
             ('book/package.opf', opf(meta, items, ['part1', 'ch1', 'ch2'], v3=False, ncx=True)),
             ('book/toc.ncx', ncx_doc(meta, points)),
             ('book/text/part1.xhtml', xhtml(part, f'<h1>{part}</h1>', v3=False))]
    files += [(f'book/text/ch{n}.xhtml', chapter(t, ps, v3=False))
              for n, (t, ps) in enumerate(chs, 1)]
    return zipped(files), expect(meta, [(f'{part} {chs[0][0]}', chs[0][1])] + chs[1:])


def fragments():
    # Three chapters in one document, found by the nav's #fragments (each an
    # <h2 id="cN">); then 第四回, whose nav entry names part2a.xhtml only:
    # part2b.xhtml follows in the spine with no entry and continues it.
    meta = ('元宵夜', '苏小满', uid(3))
    chs = CH[5:9]
    text = '\n'.join(f'<h2 id="c{n}">{t}</h2>\n{paras(ps)}' for n, (t, ps) in enumerate(chs[:3], 1))
    docs = [('text.xhtml', xhtml(meta[0], text), ''),
            ('part2a.xhtml', chapter(*chs[3]), ''),
            ('part2b.xhtml', xhtml(chs[3][0], paras(CH8_REST)), '')]
    toc = [(f'text.xhtml#c{n}', t) for n, (t, _) in enumerate(chs[:3], 1)]
    toc.append(('part2a.xhtml', chs[3][0]))
    return (zipped(epub3(meta, docs, toc)),
            expect(meta, chs[:3] + [(chs[3][0], chs[3][1] + CH8_REST)]))


NOTES_CH1 = '''<h1>第一章 账册</h1>
<p>他翻开那本旧账册<a epub:type="noteref" href="#n1">1</a>，纸页已经发黄。每一笔账都记得清清楚楚。</p>
<aside epub:type="footnote" id="n1"><p>账册：旧时店铺记录收支的本子。</p></aside>
<p>镇上的人都叫他<ruby>长<rp>(</rp><rt>zhǎng</rt><rp>)</rp></ruby>老<sup><a epub:type="noteref" href="notes.xhtml#n2">[2]</a></sup>。其实他并不老，只是头发白得早。</p>
<p>墙上挂着一幅画<img src="images/fig.png" alt="插图说明"/>，画的是江边的渡口。</p>
<script type="text/javascript">var hint = "这段脚本不应朗读";</script>
<p>他低声念道：<br/>春风又绿江南岸，<br/>明月何时照我还。</p>'''
NOTES_CH2 = '''<h1>第二章 来信</h1>
<p>傍晚时分，邮差送来一封信。信是远在北方的弟弟写来的<a epub:type="noteref" href="notes.xhtml#n3">3</a>。</p>
<p>弟弟说今年冬天一定回家，和大家<ruby>重<rp>(</rp><rt>chóng</rt><rp>)</rp>聚<rp>(</rp><rt>jù</rt><rp>)</rp></ruby>。</p>
<p>他把信读了三遍，才小心地折好，夹进了那本账册里。</p>'''
NOTES_END = '''<section epub:type="endnotes">
<h2>注释</h2>
<ol>
<li epub:type="endnote" id="n2"><p>长老：街坊对他的尊称。</p></li>
<li epub:type="endnote" id="n3"><p>北方：弟弟当兵的边城。</p></li>
</ol>
</section>'''


def notes_ruby():
    # noterefs, a footnote <aside>, an endnotes document (in the spine, not
    # in the nav), ruby (base read once, rt/rp not), an <img>, a <script>,
    # a <style> with text, <br/> splitting a paragraph.
    meta = ('旧账册', '周望川', uid(4))
    style = '<style type="text/css">/* 样式里的文字不应朗读 */ p { text-indent: 2em; }</style>\n'
    docs = [('ch1.xhtml', xhtml('第一章 账册', NOTES_CH1, head=style), 'scripted'),
            ('ch2.xhtml', xhtml('第二章 来信', NOTES_CH2), ''),
            ('notes.xhtml', xhtml('注释', NOTES_END), '')]
    toc = [('ch1.xhtml', '第一章 账册'), ('ch2.xhtml', '第二章 来信')]
    extra = [('images/fig.png', 'image/png', '', png())]
    chs = [('第一章 账册', ['他翻开那本旧账册，纸页已经发黄。每一笔账都记得清清楚楚。',
                         '镇上的人都叫他长老。其实他并不老，只是头发白得早。',
                         '墙上挂着一幅画，画的是江边的渡口。',
                         '他低声念道：', '春风又绿江南岸，', '明月何时照我还。']),
           ('第二章 来信', ['傍晚时分，邮差送来一封信。信是远在北方的弟弟写来的。',
                         '弟弟说今年冬天一定回家，和大家重聚。',
                         '他把信读了三遍，才小心地折好，夹进了那本账册里。'])]
    return zipped(epub3(meta, docs, toc, extra)), expect(meta, chs)


# Not well-formed: no XML declaration or namespace, uppercase tags, <p>s
# never closed, <br> without slash, an undefined entity, a bare '&', a stray
# </div>.  Expected lines are what a browser shows (&nbsp; taken as a space,
# collapsed and trimmed like any other).
BROKEN_CH1 = '''<html>
<head><title>第一章 雨巷</title>
<style>p { margin: 0 }</style>
</head>
<BODY>
<H1>第一章 雨巷</H1>
<P>&nbsp;&nbsp;&nbsp;&nbsp;雨下个不停。巷子里的青石板被冲得发亮。
<p>她撑着一把油纸伞，走了&nbsp;3&nbsp;里路，才找到那家裁缝铺。招牌上写着“林记&裁缝”。
<div class="shop">
<p>裁缝铺的门虚掩着。<br>里面传来缝纫机的声音。
</div></div>
<P>她收起伞，轻轻敲了敲门。
</BODY>
</html>
'''


def broken():
    meta = ('雨巷', '沈雨眠', uid(5))
    ch2 = CH[1]
    docs = [('ch1.xhtml', BROKEN_CH1, ''), ('ch2.xhtml', chapter(*ch2), '')]
    toc = [('ch1.xhtml', '第一章 雨巷'), ('ch2.xhtml', ch2[0])]
    ch1 = ('第一章 雨巷', ['雨下个不停。巷子里的青石板被冲得发亮。',
                         '她撑着一把油纸伞，走了 3 里路，才找到那家裁缝铺。招牌上写着“林记&裁缝”。',
                         '裁缝铺的门虚掩着。', '里面传来缝纫机的声音。', '她收起伞，轻轻敲了敲门。'])
    return zipped(epub3(meta, docs, toc)), expect(meta, [ch1, ch2])


def headings():
    # EPUB 2 with neither NCX nor nav (spine has no toc attribute): every
    # spine document is a chapter titled by its first heading -- h1 in
    # ch1, h2 in ch2, whose <title> is only the book's name -- and, when it
    # has no heading at all (ch3), by its <title> element.
    meta = ('青石镇旧事', '林晚舟', uid(6))
    (t1, p1), (t2, p2), (t3, p3) = CH[0:3]
    docs = [chapter(meta[0], p1, heading=t1, v3=False),
            chapter(meta[0], p2, tag='h2', heading=t2, v3=False),
            xhtml(t3, paras(p3), v3=False)]
    items = [(f'ch{n}', f'ch{n}.xhtml', XHTML, '') for n in (1, 2, 3)]
    files = [('META-INF/container.xml', container('OEBPS/content.opf')),
             ('OEBPS/content.opf', opf(meta, items, ['ch1', 'ch2', 'ch3'], v3=False))]
    files += [(f'OEBPS/ch{n}.xhtml', d) for n, d in enumerate(docs, 1)]
    return zipped(files), expect(meta, CH[0:3])


def font_obfuscation():
    # encryption.xml lists only a font, obfuscated with the IDPF algorithm:
    # that is not DRM, and the book reads as usual.
    meta = ('渡口夜雨', '林晚舟', uid(12))
    link = '<link rel="stylesheet" type="text/css" href="style.css"/>\n'
    docs, toc = simple3(CH[0:2], head=link)
    css = '@font-face { font-family: "A"; src: url(fonts/a.otf); }\nbody { font-family: "A", serif; }\n'
    extra = [('style.css', 'text/css', '', css),
             ('fonts/a.otf', 'application/vnd.ms-opentype', '', b'OTTO' + noise(60, 7))]
    files = epub3(meta, docs, toc, extra)
    files.append(('META-INF/encryption.xml',
                  encryption('OEBPS/fonts/a.otf', 'http://www.idpf.org/2008/embedding')))
    return zipped(files), expect(meta, CH[0:2])


def drm():
    # An Adobe-ADEPT-like encryption.xml over ch1.xhtml, whose bytes are noise.
    meta = ('青石镇旧事', '林晚舟', uid(11))
    docs, toc = simple3(CH[0:2])
    docs[0] = ('ch1.xhtml', noise(1500), '')
    key = ('    <KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#">\n      <resource '
           'xmlns="http://ns.adobe.com/adept">urn:uuid:00000000-0000-0000-0000-000000000000</resource>\n'
           '    </KeyInfo>\n')
    files = epub3(meta, docs, toc)
    files.append(('META-INF/encryption.xml',
                  encryption('OEBPS/ch1.xhtml', 'http://www.w3.org/2001/04/xmlenc#aes128-cbc', key)))
    return zipped(files), 'error: encrypted\n'


def missing_item():
    # ch2.xhtml is in the manifest and the spine but not in the zip.
    meta = ('青石镇旧事', '林晚舟', uid(10))
    docs, toc = simple3(CH[0:2])
    docs[1] = ('ch2.xhtml', None, '')
    return zipped(epub3(meta, docs, toc)), 'error: missing\n'


def escape():
    # A spine item whose href climbs out of the container.
    meta = ('青石镇旧事', '林晚舟', uid(13))
    docs, toc = simple3(CH[0:1])
    docs.append(('../../etc/passwd', None, ''))
    return zipped(epub3(meta, docs, toc)), 'error: outside\n'


BOMB_MB = 300


def bomb():
    # ch2.xhtml inflates to BOMB_MB MiB of spaces inside one <p>; deflated it
    # is some 300 KB.  Streamed in 1 MiB chunks, never held whole.
    meta = ('青石镇旧事', '林晚舟', uid(14))
    docs, toc = simple3(CH[0:1])
    before, after = chapter('第二章 空白', ['@']).split('@')

    def write(f):
        f.write(before.encode())
        chunk = b' ' * (1 << 20)
        for _ in range(BOMB_MB):
            f.write(chunk)
        f.write(after.encode())
    docs.append(('ch2.xhtml', write, ''))
    toc.append(('ch2.xhtml', '第二章 空白'))
    return zipped(epub3(meta, docs, toc)), 'error: too large\n'


def nopackage():
    # container.xml names OEBPS/content.opf, which is not there.
    files = [('META-INF/container.xml', container('OEBPS/content.opf')),
             ('OEBPS/ch1.xhtml', chapter(*CH[0]))]
    return zipped(files), 'error: package document\n'


def truncated():
    # nav3's bytes cut at 60%: the zip's central directory is gone.
    data = nav3()[0]
    return data[:len(data) * 6 // 10], 'error: not a valid EPUB\n'


def notzip():
    return '这不是电子书，只是一段普通的文字。\n'.encode(), 'error: not a valid EPUB\n'


# ----------------------------------------------------------- hostile text
# Text that used to be lost without a word (issue 37): deep nesting, an
# internal DTD subset, bytes not in the declared encoding, binary data,
# and package documents the XML parser gives up on.

def nested(depth):
    # ch1's second paragraph inside depth <div>s, then its third paragraph.
    meta = ('青石镇旧事', '林晚舟', uid(20))
    t, ps = CH[0]
    body = (f'<h1>{esc(t)}</h1>\n<p>{esc(ps[0])}</p>\n' + '<div>' * depth +
            f'<p>{esc(ps[1])}</p>' + '</div>' * depth + f'\n<p>{esc(ps[2])}</p>')
    docs, toc = simple3(CH[0:2])
    docs[0] = ('ch1.xhtml', xhtml(t, body), '')
    return meta, docs, toc


def deep255():
    meta, docs, toc = nested(255)
    return zipped(epub3(meta, docs, toc)), expect(meta, CH[0:2])


def deep100k():
    meta, docs, toc = nested(100000)
    return zipped(epub3(meta, docs, toc)), 'error: nested more than\n'


def dtd_subset():
    # EPUB 2 XHTML naming &nbsp; in an internal DTD subset; the text uses it.
    meta = ('青石镇旧事', '林晚舟', uid(21))
    docs, toc = simple3(CH[0:2])
    subset = ('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" '
              '"http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd" [\n'
              '  <!ENTITY nbsp "&#160;">\n]>\n')
    t, ps = CH[0]
    doc = chapter(t, ps, v3=False).replace(ps[1], ps[1] + '&nbsp;')
    doc = doc.replace(doc[doc.index('<!DOCTYPE'):doc.index('<html')], subset)
    docs[0] = ('ch1.xhtml', doc, '')
    return zipped(epub3(meta, docs, toc)), expect(meta, CH[0:2])


def gbk():
    # ch1 in GBK, with no XML declaration to say so.
    meta = ('青石镇旧事', '林晚舟', uid(22))
    docs, toc = simple3(CH[0:2])
    doc = chapter(*CH[0]).split('\n', 1)[1]
    docs[0] = ('ch1.xhtml', doc.encode('gbk'), '')
    return zipped(epub3(meta, docs, toc)), expect(meta, CH[0:2])


def binary():
    # ch2.xhtml is binary data (NUL bytes among them).
    meta = ('青石镇旧事', '林晚舟', uid(23))
    docs, toc = simple3(CH[0:2])
    docs[1] = ('ch2.xhtml', b'\0\0\0' + noise(3000), '')
    return zipped(epub3(meta, docs, toc)), 'error: ch2.xhtml is not text\n'


def opf_entities():
    # A package document whose entities expand a billion times.
    meta = ('青石镇旧事', '林晚舟', uid(24))
    docs, toc = simple3(CH[0:1])
    files = epub3(meta, docs, toc)
    ents = '<!ENTITY a0 "笑笑笑笑笑笑笑笑笑笑">\n' + ''.join(
        f'<!ENTITY a{i} "' + f'&a{i - 1};' * 10 + '">\n' for i in range(1, 10))
    for n, (name, data) in enumerate(files):
        if name.endswith('.opf'):
            data = data.replace('?>\n', f'?>\n<!DOCTYPE package [\n{ents}]>\n', 1)
            data = data.replace('</dc:title>', '&a9;</dc:title>', 1)
            files[n] = (name, data)
    return zipped(files), 'error: package document cannot be read whole\n'


def opf_deep():
    # A package document nested 300 deep before its manifest and spine.
    meta = ('青石镇旧事', '林晚舟', uid(25))
    docs, toc = simple3(CH[0:1])
    files = epub3(meta, docs, toc)
    for n, (name, data) in enumerate(files):
        if name.endswith('.opf'):
            deep = '<x>' * 300 + '</x>' * 300
            files[n] = (name, data.replace('<manifest>', deep + '\n  <manifest>', 1))
    return zipped(files), 'error: package document cannot be read whole\n'


CASES = [nav3, ncx2, fragments, notes_ruby, broken, headings, truncated, notzip,
         nopackage, missing_item, drm, font_obfuscation, escape, bomb, deep255, deep100k,
         dtd_subset, gbk, binary, opf_entities, opf_deep]


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: mkepub.py OUTDIR')
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for case in CASES:
        data, exp = case()
        with open(os.path.join(out, case.__name__ + '.epub'), 'wb') as f:
            f.write(data)
        with open(os.path.join(out, case.__name__ + '.expect'), 'w', encoding='utf-8', newline='\n') as f:
            f.write(exp)


if __name__ == '__main__':
    main()
