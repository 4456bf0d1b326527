/* The read-along page's script (readalong.c puts it in index.html).
   One <audio> plays the chapter chosen in the list.  The chapter's cues
   ([start, end, text] per sentence) come in its own script, NNN-x.js
   beside its audio, loaded with a script element when the chapter is
   shown (fetch does not work from file://): it calls tingshuCues() with
   them, and document.currentScript says which chapter they are.  They
   become one element per sentence; while the audio plays, the sentence
   being read (the last one whose start has passed) is highlighted (class
   "cur" and aria-current) and kept in view, without moving the keyboard
   focus.  Clicking a sentence, or Enter/Space on it, seeks there; the
   arrow keys, Home and End move between sentences (one tab stop for the
   whole text).  At the end of a chapter the next one plays (its script
   is loaded ahead).  The search box above the list shows the chapters
   whose number or title matches.  Nothing plays until the listener asks.
   The chapter and position are remembered in localStorage, and the URL's
   #ch-N picks a chapter. */
(function () {
  'use strict';
  var PARA_GAP = 0.6;       /* s of silence between cues that start a paragraph */
  var EPS = 0.002;          /* s: a seek may land this far before a cue's start */
  var FOLLOW_PAUSE = 4000;  /* ms without following after the reader scrolls */
  var SAVE_EVERY = 5000;    /* ms between saves of the position while playing */
  var KEEP_TEXTS = 4;       /* chapters' cues kept loaded */

  var audio = document.getElementById('audio');
  var textEl = document.getElementById('text');
  var nowEl = document.getElementById('now');
  var playBtn = document.getElementById('play');
  var prevBtn = document.getElementById('prev');
  var nextBtn = document.getElementById('next');
  var statusEl = document.getElementById('status');
  var player = document.getElementById('player');
  var skipText = document.querySelector('.skip a[href="#text"]');
  var toc = document.querySelector('#toc ol');
  var links = Array.prototype.slice.call(document.querySelectorAll('#toc a[data-ch]'));
  var findEl = document.getElementById('find');
  var foundEl = document.getElementById('found');
  var motion = window.matchMedia ? window.matchMedia('(prefers-reduced-motion: reduce)') : null;
  var store = null;
  try {
    store = window.localStorage;
  } catch (e) {
    store = null;
  }
  var storeKey = 'tingshu:' + window.location.pathname; /* one book per folder */

  var cur = -1;       /* chapter shown: index in links */
  var cues = [];      /* its cues */
  var spans = [];     /* one element per cue */
  var hi = -1;        /* highlighted cue */
  var tabStop = null; /* the sentence that Tab reaches */
  var raf = 0, scrolledAt = 0, savedAt = 0;
  var texts = {};     /* chapter index -> its cues, as loaded */
  var loading = {};   /* chapter index -> its script element */

  if (!audio || !textEl || !links.length)
    return;
  [playBtn, prevBtn, nextBtn].forEach(function (b) { b.hidden = false; });

  function setStatus(msg) {
    statusEl.textContent = msg;
  }

  function clock(t) {
    t = Math.max(0, Math.round(t));
    var s = t % 60, m = Math.floor(t / 60) % 60, h = Math.floor(t / 3600);
    return (h ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (s < 10 ? '0' : '') + s;
  }

  function squash(s) {
    return s.replace(/\s+/g, '');
  }

  function validCue(c) {
    return Array.isArray(c) && typeof c[0] === 'number' && typeof c[1] === 'number' &&
      typeof c[2] === 'string';
  }

  /* The name of a chapter's script: data-js when the page gives one
     ("" when there is none), else the audio's with .js for its
     extension. */
  function scriptOf(a) {
    if (a.hasAttribute('data-js'))
      return a.getAttribute('data-js');
    return a.getAttribute('href').replace(/\.[^.\/]*$/, '') + '.js';
  }

  /* Called by a chapter's script: its cues. */
  window.tingshuCues = function (list) {
    var s = document.currentScript;
    var i = s ? s.tsChapter : undefined;
    if (typeof i !== 'number' || !Array.isArray(list))
      return;
    texts[i] = list.filter(validCue);
    Object.keys(texts).forEach(function (k) {
      if (Object.keys(texts).length > KEEP_TEXTS && +k !== cur && +k !== cur + 1 && +k !== i)
        delete texts[k];
    });
  };

  /* Load the script of chapter i unless it is loaded or on its way; when
     it is there (or cannot be), the chapter is shown if it is current. */
  function loadText(i) {
    if (i < 0 || i >= links.length || texts[i] || loading[i])
      return;
    var src = scriptOf(links[i]);
    if (!src) {
      texts[i] = [];
      return;
    }
    var s = document.createElement('script');
    s.tsChapter = i;
    s.onload = s.onerror = function () {
      delete loading[i];
      if (s.parentNode)
        s.parentNode.removeChild(s);
      if (i === cur)
        showText(true);
    };
    s.src = src;
    loading[i] = s;
    document.head.appendChild(s);
  }

  /* The current chapter's text: its sentences, or that they are on their
     way, or that it has none. */
  function showText(arrived) {
    var list = texts[cur];
    if (!list && !arrived) {
      textEl.textContent = '';
      cues = [];
      spans = [];
      hi = -1;
      tabStop = null;
      var p = document.createElement('p');
      p.className = 'empty';
      p.textContent = '正在载入文字……';
      textEl.appendChild(p);
      return;
    }
    render(list || [], links[cur].textContent);
    if (list)
      highlight(indexAt(audio.currentTime), true);
  }

  /* The sentences of a chapter as elements; the first cue, when it is the
     chapter's title (or the end of it after a space), gets a line of its
     own. */
  function render(list, title) {
    cues = list;
    spans = [];
    hi = -1;
    tabStop = null;
    textEl.textContent = '';
    if (!list.length) {
      var p = document.createElement('p');
      p.className = 'empty';
      p.textContent = '这一章没有同步文字，只有音频。';
      textEl.appendChild(p);
      return;
    }
    var para = null, breakNext = false, prevEnd = 0, prevText = '';
    /* tingshu's timing files mark the cues that start a paragraph; for
     * others, a long pause between cues is taken for one. */
    var marked = list.some(function (x) { return x[3] === 1; });
    for (var i = 0; i < list.length; i++) {
      var c = list[i];
      /* A chapter after its volume's first says only the end of its
         title (第2章 下山 of 第一卷 潜龙在渊 第2章 下山). */
      var isTitle = i === 0 && (squash(c[2]) === squash(title) ||
                                (' ' + title.trim()).slice(-c[2].length - 1) === ' ' + c[2]);
      var starts = marked ? c[3] === 1 : c[0] - prevEnd >= PARA_GAP;
      if (!para || breakNext || isTitle || starts) {
        para = document.createElement('p');
        if (isTitle)
          para.className = 'title';
        textEl.appendChild(para);
      } else if (/[!-~]$/.test(prevText) && /^[!-~]/.test(c[2])) {
        para.appendChild(document.createTextNode(' '));
      }
      breakNext = isTitle;
      var s = document.createElement('span');
      s.className = 's';
      s.setAttribute('role', 'button');
      s.tabIndex = -1;
      s.setAttribute('data-i', String(i));
      s.setAttribute('data-start', c[0].toFixed(3));
      s.setAttribute('data-end', c[1].toFixed(3));
      s.textContent = c[2];
      if (c[4]) {
        s.setAttribute('data-speaker', c[4]);
        s.title = c[4];
      }
      para.appendChild(s);
      spans.push(s);
      prevEnd = c[1];
      prevText = c[2];
    }
    rove(spans[0]);
  }

  /* Make s the one sentence the Tab key reaches. */
  function rove(s) {
    if (tabStop === s)
      return;
    if (tabStop)
      tabStop.tabIndex = -1;
    tabStop = s;
    if (s)
      s.tabIndex = 0;
  }

  /* The last cue that starts at or before t, or -1. */
  function indexAt(t) {
    var lo = 0, up = cues.length - 1, r = -1;
    while (lo <= up) {
      var m = (lo + up) >> 1;
      if (cues[m][0] <= t + EPS) {
        r = m;
        lo = m + 1;
      } else {
        up = m - 1;
      }
    }
    return r;
  }

  function keepInView(s) {
    if (Date.now() - scrolledAt < FOLLOW_PAUSE)
      return; /* the reader is looking elsewhere */
    var r = s.getBoundingClientRect();
    var top = player.getBoundingClientRect().bottom; /* the player stays on top */
    var bottom = window.innerHeight || document.documentElement.clientHeight;
    if (r.top >= top && r.bottom <= bottom)
      return;
    s.scrollIntoView({
      block: 'center',
      inline: 'nearest',
      behavior: motion && motion.matches ? 'auto' : 'smooth'
    });
  }

  function highlight(i, scroll) {
    if (i === hi)
      return;
    var old = spans[hi];
    if (old) {
      old.classList.remove('cur');
      old.removeAttribute('aria-current');
    }
    hi = i;
    var s = spans[i];
    if (!s)
      return;
    s.classList.add('cur');
    s.setAttribute('aria-current', 'true');
    if (!textEl.contains(document.activeElement))
      rove(s);
    if (scroll)
      keepInView(s);
  }

  function sync(scroll) {
    highlight(indexAt(audio.currentTime), scroll);
  }

  /* Between timeupdate events (4 a second), follow every frame. */
  function tick() {
    raf = 0;
    sync(true);
    if (!audio.paused && !audio.ended)
      raf = window.requestAnimationFrame(tick);
  }

  function startLoop() {
    if (!raf)
      raf = window.requestAnimationFrame(tick);
  }

  function stopLoop() {
    if (raf)
      window.cancelAnimationFrame(raf);
    raf = 0;
  }

  function save() {
    savedAt = Date.now();
    if (!store || cur < 0)
      return;
    try {
      store.setItem(storeKey, JSON.stringify({
        ch: links[cur].getAttribute('data-ch'),
        t: audio.ended ? 0 : audio.currentTime
      }));
    } catch (e) {
      /* private mode or full: nothing to remember */
    }
  }

  function restore() {
    try {
      var v = store && JSON.parse(store.getItem(storeKey) || 'null');
      return v && typeof v.ch === 'string' && typeof v.t === 'number' ? v : null;
    } catch (e) {
      return null;
    }
  }

  function play() {
    var p = audio.play();
    if (p && p.catch) {
      p.catch(function (e) {
        if (e && e.name !== 'AbortError')
          setStatus('无法播放：' + e.message);
      });
    }
  }

  function seekTo(i) {
    if (!cues[i])
      return;
    audio.currentTime = cues[i][0]; /* goes on playing if it was */
    highlight(i, true);
    save();
  }

  function chapterOf(ch) {
    for (var i = 0; i < links.length; i++) {
      if (links[i].getAttribute('data-ch') === ch)
        return i;
    }
    return -1;
  }

  function fromHash() {
    var m = /^#ch-(\d+)$/.exec(window.location.hash);
    return m ? chapterOf(m[1]) : -1;
  }

  function setHash() {
    var h = '#ch-' + links[cur].getAttribute('data-ch');
    if (window.location.hash === h)
      return;
    try {
      window.history.replaceState(null, '', h);
    } catch (e) {
      /* some file:// pages may not change their URL; no matter */
    }
  }

  /* Show chapter i.  opt.time: position to start from; opt.play: start
     playing; opt.focus: move the focus to the chapter's heading. */
  function show(i, opt) {
    opt = opt || {};
    if (i < 0 || i >= links.length)
      return;
    var a = links[i];
    if (i !== cur) {
      stopLoop();
      cur = i;
      var src = a.getAttribute('href');
      if (audio.getAttribute('src') !== src)
        audio.setAttribute('src', src);
      nowEl.textContent = a.textContent;
      var was = toc.querySelector('a[aria-current]');
      if (was)
        was.removeAttribute('aria-current');
      a.setAttribute('aria-current', 'true');
      prevBtn.disabled = i === 0;
      nextBtn.disabled = i === links.length - 1;
      playBtn.textContent = '播放';
      setStatus('');
      showText(false);
      loadText(i);
      loadText(i + 1); /* ahead, for going on into it */
    }
    if (opt.time > 0) {
      audio.currentTime = opt.time;
      highlight(indexAt(opt.time), true); /* or when the text comes */
    }
    if (opt.play)
      play();
    if (opt.focus)
      nowEl.focus();
  }

  /* Show chapter i at the listener's request: remembered, and in the URL. */
  function go(i, opt) {
    show(i, opt);
    setHash();
    save();
  }

  audio.addEventListener('play', function () {
    playBtn.textContent = '暂停';
    startLoop();
  });
  audio.addEventListener('playing', startLoop);
  audio.addEventListener('pause', function () {
    playBtn.textContent = '播放';
    stopLoop();
    sync(false);
    save();
  });
  audio.addEventListener('timeupdate', function () {
    sync(true);
    if (Date.now() - savedAt > SAVE_EVERY)
      save();
  });
  audio.addEventListener('seeked', function () {
    sync(true);
  });
  audio.addEventListener('ended', function () {
    if (cur + 1 < links.length)
      go(cur + 1, { play: true });
  });
  audio.addEventListener('error', function () {
    setStatus('无法打开这一章的音频文件：' + decodeURIComponent(links[cur].getAttribute('href')));
  });

  playBtn.addEventListener('click', function () {
    if (audio.paused)
      play();
    else
      audio.pause();
  });
  prevBtn.addEventListener('click', function () {
    go(cur - 1, { play: !audio.paused });
  });
  nextBtn.addEventListener('click', function () {
    go(cur + 1, { play: !audio.paused });
  });
  links.forEach(function (a, i) {
    a.tsIndex = i;
  });
  toc.addEventListener('click', function (e) {
    var a = e.target.closest ? e.target.closest('a[data-ch]') : null;
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey)
      return; /* open the audio file itself */
    e.preventDefault();
    go(a.tsIndex, { play: !audio.paused, focus: true });
  });

  /* Finding a chapter: by its number (as in the file names) or by a part
     of its title; Enter in the box opens the chapter of that number, or
     the first found. */
  var names = null; /* the chapters' titles in lower case, once asked */

  function matches(q) {
    var num = /^\d+$/.test(q) ? String(+q) : null, low = q.toLowerCase(), found = [];
    names = names || links.map(function (a) { return a.textContent.toLowerCase(); });
    links.forEach(function (a, i) {
      if (!q || a.getAttribute('data-ch') === num || names[i].indexOf(low) >= 0)
        found.push(i);
    });
    if (num) { /* the chapter of that number first */
      found.sort(function (x, y) {
        return (links[y].getAttribute('data-ch') === num) -
          (links[x].getAttribute('data-ch') === num) || x - y;
      });
    }
    return found;
  }

  function filter() {
    var q = findEl.value.trim(), found = matches(q), shown = {};
    found.forEach(function (i) { shown[i] = true; });
    links.forEach(function (a, i) { a.parentNode.hidden = !shown[i]; });
    foundEl.textContent = !q ? '' : found.length ? '找到 ' + found.length + ' 章' : '没有找到';
    return found;
  }

  if (findEl && foundEl) {
    findEl.parentNode.hidden = false;
    findEl.addEventListener('input', filter);
    findEl.addEventListener('keydown', function (e) {
      if (e.key !== 'Enter')
        return;
      e.preventDefault();
      var found = filter();
      if (found.length && findEl.value.trim())
        go(found[0], { play: !audio.paused, focus: true });
    });
  }
  window.addEventListener('hashchange', function () {
    var i = fromHash();
    if (i >= 0)
      go(i, { play: !audio.paused });
  });

  textEl.addEventListener('click', function (e) {
    var s = e.target.closest ? e.target.closest('.s') : null;
    if (!s)
      return;
    rove(s);
    seekTo(+s.getAttribute('data-i'));
  });
  textEl.addEventListener('keydown', function (e) {
    var s = e.target.closest ? e.target.closest('.s') : null;
    if (!s || e.altKey || e.ctrlKey || e.metaKey)
      return;
    var i = +s.getAttribute('data-i'), to;
    switch (e.key) {
    case 'Enter':
    case ' ':
    case 'Spacebar':
      e.preventDefault();
      seekTo(i);
      return;
    case 'ArrowDown':
    case 'ArrowRight':
      to = i + 1;
      break;
    case 'ArrowUp':
    case 'ArrowLeft':
      to = i - 1;
      break;
    case 'Home':
      to = 0;
      break;
    case 'End':
      to = spans.length - 1;
      break;
    default:
      return;
    }
    e.preventDefault();
    if (spans[to]) {
      rove(spans[to]);
      spans[to].focus();
    }
  });
  /* Tab back into the text lands on the sentence being read. */
  textEl.addEventListener('focusout', function (e) {
    if (!textEl.contains(e.relatedTarget) && spans[hi])
      rove(spans[hi]);
  });
  if (skipText) {
    skipText.addEventListener('click', function (e) {
      if (!tabStop)
        return;
      e.preventDefault();
      tabStop.focus();
    });
  }

  /* Stop following the audio for a while when the reader scrolls. */
  function scrolled() {
    scrolledAt = Date.now();
  }
  window.addEventListener('wheel', scrolled, { passive: true });
  window.addEventListener('touchmove', scrolled, { passive: true });
  document.addEventListener('keydown', function (e) {
    if (e.target === document.body &&
        /^(PageUp|PageDown|ArrowUp|ArrowDown|Home|End| )$/.test(e.key))
      scrolled();
  });

  var start = fromHash(), at = 0, saved = start < 0 ? restore() : null;
  if (saved && chapterOf(saved.ch) >= 0) {
    start = chapterOf(saved.ch);
    at = saved.t;
  }
  show(start < 0 ? 0 : start, { time: at });
  if (at > 0)
    setStatus('上次听到 ' + clock(at) + '，按“播放”从那里接着听。');
})();
