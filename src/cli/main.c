/* main.c - the tingshu command line: options in, one call to the library,
 * its messages out, and the exit code (0 success, 1 some input failed,
 * 2 usage error, 75 a retry may cure it, 130 interrupted). */
#include "cli/options.h"
#include "cli/report.h"
#include "tingshu.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What the command line itself keeps of the options. */
typedef struct cli_flags {
	int quiet, verbose, help, dry_run, sentences, explain, dropped;
} cli_flags;

/* The options as parsed: the tables of commands[] point into them. */
static cli_flags flags;
static ts_build_opts build_opts;
static ts_text_opts text_opts;
static ts_speakers_opts speakers_opts;
static int progress_shown; /* a progress line is on the terminal */
static int out_errno;      /* why standard output could not be written */
static volatile sig_atomic_t interrupted;

/* Clear the progress line, if one is shown, before anything else is. */
static void clear_progress(void)
{
	if (progress_shown)
		fputs("\r\033[K", stderr);
	progress_shown = 0;
}

/* Every message: what it quotes of the input is made safe to show. */
static void __attribute__((format(printf, 2, 3))) msg(const char *kind, const char *fmt, ...)
{
	char text[TS_MSG_MAX], shown[4 * TS_MSG_MAX]; /* \xHH: 4 bytes a byte */
	va_list ap;
	clear_progress();
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	ts_diag_escape(text, shown, sizeof shown);
	fprintf(stderr, "tingshu: %s%s%s\n", kind, *kind ? ": " : "", shown);
}

/* The library's diagnostics: errors always, warnings unless -q, detail
 * with -v. */
static void on_diag(void *ud, ts_level level, const char *text)
{
	(void)ud;
	if (level == TS_ERROR)
		msg("error", "%s", text);
	else if (level == TS_WARNING && !flags.quiet)
		msg("warning", "%s", text);
	else if (level == TS_INFO && flags.verbose)
		msg("", "%s", text);
}

static void on_signal(int sig)
{
	interrupted = sig;
}

/* The exit status of a failure: engines retry 75. */
static int status_of(int rc)
{
	return rc == TS_EVOICE          ? EXIT_USAGE
	       : rc == TS_ECANCELED     ? 130
	       : ts_error_retryable(rc) ? EXIT_RETRY
	                                : EXIT_FAILED;
}

/* Ctrl-C, SIGTERM and SIGHUP only set interrupted: the library stops and
 * removes what it has not finished (a read they interrupt returns). */
static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* ---- options ---------------------------------------------------------- */

static int parse_lexicon(const opt *o, const char *v, void *base, char *why, size_t sz)
{
	(void)o;
	ts_read_opts *r = base;
	if (r->nlexicons == TS_LEXICONS_MAX) {
		snprintf(why, sz, "at most %d --lexicon files", TS_LEXICONS_MAX);
		return -1;
	}
	r->lexicons[r->nlexicons++] = v;
	return 0;
}

/* --loudness: a level in the row's range, or off. */
static int parse_loudness(const opt *o, const char *v, void *base, char *why, size_t sz)
{
	ts_build_opts *b = base;
	b->normalize = strcmp(v, "off") != 0;
	return b->normalize ? opt_number(o, v, &b->target_lufs, why, sz) : 0;
}

#define B(field) offsetof(ts_build_opts, field)
#define R(field) offsetof(ts_read_opts, field)
#define C(field) offsetof(cli_flags, field)

static const char *const dialogues[] = {"narrator", "voices", NULL};
static const int dialogue_values[] = {TS_DIALOGUE_NARRATOR, TS_DIALOGUE_VOICES};
static const char *const rates[] = {"44100", "48000", NULL};
static const int rate_values[] = {44100, 48000};

/* clang-format off */
static const opt build_rows[] = {
    STRING("output", 'o', B(outdir), "DIR", "output folder (default: out); made if missing"),
    RANGE(OPT_INT, "jobs", 'j', B(jobs), "N", "worker processes (default: all cores); the output is the same whatever N is", "a whole number of workers", 1, 256, NULL),
    RANGE(OPT_NUMBER, "rate", 0, B(rate), "X", "speed factor applied to the preset's rate, 0.5-2.5 (default: 1; 1.25 is a quarter faster)", "a speed factor", 0.5, 2.5, " (1 is the preset's speed)"),
    STRING("format", 0, B(format), "FMT", "audio format: wav (default, 16-bit PCM), flac (lossless, about half the size), ogg (Vorbis), mp3, opus (always 48 kHz), m4a (AAC, the M4B's)"),
    RANGE(OPT_INT, "quality", 0, B(quality), "Q", "0-10: for ogg, opus and mp3 the sound (higher is better and bigger; default 4: about 50 kbit/s, opus 24), for flac the compression effort (default 0: fastest; 10 is about 10% smaller and 3 times slower), for m4a (and the M4B) the bit rate (24 to 128 kbit/s, default 64); wav ignores it", "a whole number", 0, 10, NULL),
    STRING("author", 0, B(author), "NAME", "the author, written into each file's tags (with the chapter as title, the book as album, and the track)"),
    STRING("book", 0, B(book), "LIST", "also the whole book in one file, beside the chapters, once every chapter is built: m4b (AAC with a mark at each chapter, for audiobook players such as BookPlayer, Smart AudioBook Player or Apple Books; --quality sets its bit rate: 24-128 kbit/s, default 64), epub (a read-aloud EPUB 3: the text with the voice, each sentence highlighted as it is read, in Thorium Reader or Apple Books), or m4b,epub; default: none"),
    STRING("cover", 0, B(cover), "FILE", "the cover of the whole-book files: a JPEG or PNG picture (with --book)"),
    {.name = "loudness", .kind = OPT_CUSTOM, .arg = "LUFS", .help = "integrated loudness of every chapter, -40 to -10 (default: -20, EBU R 128); 'off' keeps eSpeak's level", .what = "a level", .lo = -40, .hi = -10, .unit = " LUFS (or 'off')", .parse = parse_loudness},
    RANGE(OPT_NUMBER, "true-peak", 0, B(ceiling_dbtp), "DBTP", "ceiling for the true peak, -12 to 0 (default: -3, which also meets ACX); a look-ahead limiter holds it", "a ceiling", -12, 0, " dBTP"),
    CHOICE("sample-rate", B(sample_rate), "HZ", "44100 or 48000 (resampled with libsoxr); default: the voice's own rate (22050 for eSpeak NG)", "44100 or 48000", rates, rate_values),
    RANGE(OPT_ROUNDED, "sentence-pause", 0, B(sentence_pause_ms), "MS", "silence between sentences (default: the preset's)", "milliseconds", 0, 10000, NULL),
    RANGE(OPT_ROUNDED, "paragraph-pause", 0, B(paragraph_pause_ms), "MS", "silence between paragraphs (default: the preset's)", "milliseconds", 0, 10000, NULL),
    STRING("timing", 0, B(timing), "LIST", "sentence timing files beside each chapter's audio, comma-separated: srt, vtt, lrc, json (default: srt,vtt); none for no timing files"),
    CHOICE("dialogue", B(dialogue), "WHO", "who reads the quotations: narrator (the default) or voices: each in its speaker's voice, as 'tingshu speakers' attributes them (the cast file's preset, else one of the eight cmn-m1..4, cmn-f1..4 chosen by the name, female for a woman); a cast file also switches voices on, unless narrator is asked for", "narrator or voices", dialogues, dialogue_values),
    STRING("cast", 0, B(cast), "FILE", "the cast file, as for 'tingshu speakers' (default: a cast.txt beside the first input)"),
    FLAG("force", 0, B(force), "build every chapter again, even those up to date"),
    STRING("chapters", 0, B(chapters), "LIST", "build only these chapters, numbered as in the file names: 3,5-7"),
    STRING("shard", 0, B(shard), "I/N", "build only part I of N of the book (every N-th chapter): machines sharing the folder each build one part; a plain build then only puts the book together"),
};

static const opt voices_dir_rows[] = {
    STRING("voices-dir", 0, R(voices_dir), "DIR", "where to find voice presets (also $TINGSHU_VOICES)"),
};

/* What build, text and pinyin share: how the text is read. */
static const opt read_rows[] = {
    STRING("voice", 0, R(voice), "NAME", "voice preset (default: " TS_VOICE_DEFAULT "); see 'tingshu voices'"),
    STRING("encoding", 0, R(encoding), "NAME", "read the input in this encoding instead of detecting it (UTF-8, GB18030, BIG5, UTF-16LE ...; 'iconv -l' lists all)"),
    CUSTOM("lexicon", "FILE", "your pronunciations, one \"词<TAB>pin1 yin1\" a line; they override everything (repeatable; a lexicon.txt in the folder of an input is read too)", parse_lexicon),
    FLAG("keep-notes", 0, R(keep_notes), "speak the author's notes of a web novel (PS：求月票, 作者有话说, update notices), which are dropped by default; the site's ads and markers are dropped all the same"),
};

static const opt build_cli_rows[] = {
    FLAG("dry-run", 0, C(dry_run), "list the chapters that would be built, build nothing"),
    FLAG("verbose", 'v', C(verbose), "a line for every chapter built"),
};

static const opt text_cli_rows[] = {
    FLAG("sentences", 0, C(sentences), "one line per chunk sent to the synthesizer instead"),
    FLAG("dropped", 0, C(dropped), "list instead the lines not spoken (a web novel's site ads, markers, notes), one a line: FILE:LINE: dropped (WHY): TEXT, or 'dropped part' for a request cut off a heading"),
};

static const char *const stages[] = {"chars", "words", "rules", "sandhi", "all", NULL};
static const int stage_values[] = {TS_UPTO_CHARS, TS_UPTO_WORDS, TS_UPTO_RULES, TS_UPTO_SANDHI,
                                   TS_UPTO_ALL};

static const opt pinyin_cli_rows[] = {
    FLAG("explain", 0, C(explain), "print each token as CHAR=SYLLABLE/HOW: HOW is the lexicon word it was read in, default (the character's most common reading), rule:LINE (the context rule on that line of polyphones.txt), sandhi, user (your lexicon), surname (a surname starting a personal name), or model+MARGIN(HOW=SYLLABLE) where the g2pM model overrode the reading HOW gave; HOW(model=SYLLABLE+MARGIN) where it disagreed, less sure"),
};

static const opt upto_rows[] = {
    CHOICE("upto", offsetof(ts_text_opts, upto), "STAGE", "stop the pronunciation after STAGE, to measure what each adds: chars (each character's most common reading), words (+ the lexicon's words), rules (+ context rules), sandhi (+ sandhi of 一 and 不), all (+ the g2pM model's second opinion; the default)", "chars, words, rules, sandhi or all", stages, stage_values),
};

#define S(field) offsetof(ts_speakers_opts, field)
static const opt speakers_rows[] = {
    STRING("cast", 0, S(cast), "FILE", "the cast: one character a line, its names (the first is the one printed) separated by spaces, a TAB, its voice preset: \"刘备 玄德 刘玄德 先主<TAB>cmn-m3\" (default: a cast.txt beside the first FILE)"),
    FLAG("explain", 0, S(explain), "add a fourth field saying why: the clause before or after the quotation and its verb, an omitted subject, a person introduced and named after, turns in an exchange, or why it is not speech"),
    STRING("encoding", 0, S(encoding), "NAME", "read the input in this encoding instead of detecting it"),
};

/* Every command's. */
static const opt quiet_rows[] = {
    FLAG("quiet", 'q', C(quiet), "errors only: no progress, summary or warnings"),
};
static const opt help_rows[] = {
    FLAG("help", 'h', C(help), "show this help"),
};
/* clang-format on */

/* ---- help ------------------------------------------------------------- */

static const char main_help[] =
    "Usage: tingshu COMMAND [OPTIONS] ...\n"
    "Turn Chinese novels into audiobooks with eSpeak NG.\n"
    "\n"
    "Commands:\n"
    "  build [OPTIONS] INPUT...   make the audiobook: one audio file per chapter\n"
    "  text  [OPTIONS] FILE...    print the text as it will be spoken\n"
    "  pinyin [OPTIONS] FILE...   print the pinyin eSpeak will be given\n"
    "  speakers [OPTIONS] FILE... print who says each quotation\n"
    "  voices [--voices-dir DIR]  list the voice presets\n"
    "  help [COMMAND]             show help for a command\n"
    "\n"
    "  -h, --help     show this help\n"
    "      --version  show the version\n"
    "\n"
    "Example:\n"
    "  tingshu build -o out/ 三国演义.txt    # a whole book, split at its chapter headings\n"
    "  tingshu build -o out/ chapters/       # a folder of chapter files, in natural order\n"
    "  tingshu build -o out/ book.epub       # an EPUB, chapters from its contents\n"
    "\n"
    "Exit status: 0 success, 1 some input failed (the rest is still built), 2 usage\n"
    "error, 75 a retry may succeed (disk full, a worker killed, out of memory).\n";

/* A command: its help around the options, what its options fill, what
 * its operands are (NULL: it takes none), and what runs it. */
typedef struct command {
	const char *name;
	const char *head, *tail;
	const char *operands; /* the message when none is given */
	int (*run)(const struct command *c, int argc, char **argv);
	opt_block blocks[6];
	size_t nblocks;
} command;

static const char build_head[] =
    "Usage: tingshu build [OPTIONS] INPUT...\n"
    "Make an audiobook: one audio file per chapter, a manifest and a playlist.\n"
    "\n"
    "INPUT is a .txt file (one chapter, or a whole book that is split at its\n"
    "chapter headings), an EPUB without DRM (chapters from its table of\n"
    "contents; title, author and cover from its metadata), a directory of .txt\n"
    "files (each a chapter, in natural order: 2 before 10), or - for standard\n"
    "input.  Text before the first heading of a book becomes its front matter.\n"
    "Headings: 第N章, 第N回, 第N节, 第N集 (N in Arabic, full-width or Chinese\n"
    "numerals: 第12章, 第１２章, 第一千二百三十四章); volumes 第N卷/部/篇, 卷N,\n"
    "VIP卷, 正文卷, whose chapters' titles start with the volume (spoken at its\n"
    "first chapter only); 楔子, 序章, 引子, 尾声, 后记, 番外 ...  A chapter posted\n"
    "twice in a row is built once, with a warning.\n"
    "Text may be UTF-8, UTF-16 with a byte-order mark, GB18030/GBK/GB2312 or Big5;\n"
    "the encoding is detected.\n";

static const char build_tail[] =
    "\n"
    "Output folder:\n"
    "  NNN-<title>.wav      one file per chapter (000 is the front matter, if any;\n"
    "                       .flac, .ogg, .opus, .mp3 or .m4a with --format)\n"
    "  NNN-<title>.srt      its sentence timing: one cue per sentence, the title\n"
    "                       first, with the text as written in the book (also .vtt,\n"
    "                       .lrc and .json, a list of {start, end, text} in seconds,\n"
    "                       as --timing says)\n"
    "  NNN-<title>.js       its text for the read-along page\n"
    "  manifest.json        book title, voice, settings, and each chapter's title,\n"
    "                       source, audio and timing files, duration, sentences,\n"
    "                       characters, and loudness and true peak as measured\n"
    "  playlist.m3u         the chapters in order\n"
    "  index.html           read-along page: open it in a browser to play the\n"
    "                       chapters and follow the text as it is read\n"
    "Files appear under their final names only when complete.\n"
    "\n"
    "Built again, a book remakes only the chapters whose text, readings or settings\n"
    "changed (its state is in OUT/.tingshu/).\n"
    "Exit status: 0 built or up to date, 1 an input or chapter failed (the rest is\n"
    "built), 2 usage error, 75 a retry may succeed (disk full, a killed worker, out\n"
    "of memory, chapters being built by another build), 130 interrupted.\n";

static const char text_head[] =
    "Usage: tingshu text [OPTIONS] FILE...\n"
    "Print the text as it will be spoken, to check a book before a long build:\n"
    "one output line per input line (per paragraph where tags such as <p> or <br>\n"
    "split a line), after cleaning and normalization (numbers as words, lookalike\n"
    "characters repaired).  FILE may be an EPUB (its chapters' titles on lines of\n"
    "their own, then their paragraphs), or - for standard input.\n"
    "The lines of a web novel that are the site's or the uploader's (ads, 本章完,\n"
    "requests for votes) are not spoken: they print as empty lines, and --dropped\n"
    "lists them.  A chapter's copy that a build skips (reposted files repeat\n"
    "one) prints as empty lines too, with the build's warning.\n";

static const char pinyin_head[] =
    "Usage: tingshu pinyin [OPTIONS] FILE...\n"
    "Print the pinyin that will be spoken, to check readings before a long build:\n"
    "one output line per input line, one token per Han character of the spoken\n"
    "text (after cleaning and normalization), separated by single spaces: the\n"
    "syllable and its tone, 1-4 or 5 for the neutral tone, with u-umlaut written v\n"
    "(lv4, nv3).  Other characters make no token.  The tokens of Han characters\n"
    "said for digits and symbols are in brackets (2/3个 -> [san1] [fen1] [zhi1]\n"
    "[er4] ge4), so those not in brackets are one per Han character of the text\n"
    "as written, whatever stands between them.  Tones are as read, with the\n"
    "sandhi of 一 and 不 applied; eSpeak applies the 3-3 sandhi itself.  This is\n"
    "exactly what eSpeak is given.  FILE may be - for standard input.\n";

static const char speakers_head[] =
    "Usage: tingshu speakers [OPTIONS] FILE...\n"
    "Print who says each quotation of a book, in order, a line each:\n"
    "N<TAB>SPEAKER<TAB>QUOTATION, N the chapter's number as in the file names of\n"
    "a build.  Quotations are in “” 「」 『』 ‘’ or ASCII quotes; one inside\n"
    "another belongs to the outer one.  SPEAKER is the name the text gives (X道：,\n"
    "X曰, X谓Y曰, “...”X说), or the cast's first name for it; ? when it cannot\n"
    "be told; - for what is not one person's speech (a letter, a sign, a poem, a\n"
    "quoted word, a crowd).  Check it, and write a cast file, before a long build.\n"
    "FILE is read like the INPUT of build.\n";

static const char voices_head[] =
    "Usage: tingshu voices [--voices-dir DIR]\n"
    "List the voice presets.  A preset is a small text file NAME.voice; copy one,\n"
    "edit it, and use it with --voice NAME --voices-dir DIR (or --voice PATH).\n";

/* ---- voices ----------------------------------------------------------- */

/* ---- text and pinyin -------------------------------------------------- */

static int write_stdout(void *ud, const char *s, size_t n)
{
	(void)ud;
	if (fwrite(s, 1, n, stdout) != n && !out_errno)
		out_errno = errno;
	return out_errno ? TS_EIO : 0;
}

static int cmd_voices(const command *c, int argc, char **argv)
{
	ts_error err = {0};
	size_t bad = 0;
	(void)c, (void)argc, (void)argv;
	int rc = ts_voices_print(text_opts.read.voices_dir, write_stdout, NULL, on_diag, NULL, &bad,
	                         &err);
	if (rc < 0 && !out_errno)
		return msg("error", "%s", ts_error_msg(&err)), status_of(rc);
	return rc || bad ? EXIT_FAILED : EXIT_OK;
}

static int cmd_text(const command *c, int argc, char **argv)
{
	int pinyin = strcmp(c->name, "pinyin") == 0;
	text_opts.mode = flags.explain     ? TS_TEXT_EXPLAIN
	                 : pinyin          ? TS_TEXT_PINYIN
	                 : flags.dropped   ? TS_TEXT_DROPPED
	                 : flags.sentences ? TS_TEXT_CHUNKS
	                                   : TS_TEXT_LINES;
	ts_error err = {0};
	size_t failed = 0;
	text_opts.cancel = &interrupted;
	catch_signals();
	int rc = ts_text_print(&text_opts, argv, (size_t)argc, write_stdout, NULL, on_diag, NULL,
	                       &failed, &err);
	if (rc == TS_EINVAL)
		return usage_error(c->name, "%s", ts_error_msg(&err));
	if (rc && !out_errno) { /* standard output's failure: main() reports it */
		msg("error", "%s", ts_error_msg(&err));
		return status_of(rc);
	}
	return rc || failed ? EXIT_FAILED : EXIT_OK;
}

static int cmd_speakers(const command *c, int argc, char **argv)
{
	ts_error err = {0};
	size_t failed = 0;
	speakers_opts.cancel = &interrupted;
	catch_signals();
	int rc = ts_speakers_print(&speakers_opts, argv, (size_t)argc, write_stdout, NULL, on_diag,
	                           NULL, &failed, &err);
	if (rc && !out_errno) {
		msg("error", "%s", ts_error_msg(&err));
		return status_of(rc);
	}
	(void)c;
	return rc || failed ? EXIT_FAILED : EXIT_OK;
}

/* ---- build ------------------------------------------------------------ */

/* The progress line, on a terminal only. */
static void on_progress(void *ud, const ts_progress *p)
{
	char line[256];
	(void)ud;
	cli_progress_text(p, line, sizeof line);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	progress_shown = 1;
}

static int cmd_build(const command *c, int argc, char **argv)
{
	ts_error err = {0};
	ts_plan *plan;
	build_opts.cancel = &interrupted;
	catch_signals();
	int rc = ts_plan_new(&plan, &build_opts, argv, (size_t)argc, on_diag, NULL, &err);
	if (rc == TS_EINVAL)
		return usage_error(c->name, "%s", ts_error_msg(&err));
	if (rc)
		return msg("error", "%s", ts_error_msg(&err)), status_of(rc);
	int status = ts_plan_inputs_failed(plan) ? EXIT_FAILED : EXIT_OK;
	if (flags.dry_run) {
		ts_plan_print(plan, write_stdout, NULL);
		ts_plan_free(plan);
		return status;
	}
	ts_build_events ev = {.diag = on_diag};
	if (isatty(2) && !flags.quiet)
		ev.progress = on_progress;
	ts_build_summary sum;
	rc = ts_plan_build(plan, &ev, &sum, &err);
	clear_progress();
	if (rc) {
		msg("error", "%s", ts_error_msg(&err));
		status = status_of(rc);
	} else if (sum.failed) {
		/* 75 when a retry may cure every failure: engines retry it. */
		status = sum.retry == sum.failed && !status ? EXIT_RETRY : EXIT_FAILED;
	}
	/* Every book ends with its summary line, success or not: job logs
	 * grep for it. */
	char line[PATH_MAX + 256];
	cli_summary_text(&sum, rc, build_opts.outdir, line, sizeof line);
	if (!flags.quiet)
		msg("", "%s", line);
	ts_plan_free(plan);
	return status;
}

/* clang-format off */
static const command commands[] = {
    {"build", build_head, build_tail, "no INPUT given (a .txt file, an EPUB, a directory, or -)", cmd_build,
     {OPT_BLOCK(build_rows, &build_opts), OPT_BLOCK(read_rows, &build_opts.read), OPT_BLOCK(voices_dir_rows, &build_opts.read),
      OPT_BLOCK(build_cli_rows, &flags), OPT_BLOCK(quiet_rows, &flags), OPT_BLOCK(help_rows, &flags)}, 6},
    {"text", text_head, "", "no FILE given", cmd_text,
     {OPT_BLOCK(text_cli_rows, &flags), OPT_BLOCK(read_rows, &text_opts.read), OPT_BLOCK(voices_dir_rows, &text_opts.read),
      OPT_BLOCK(quiet_rows, &flags), OPT_BLOCK(help_rows, &flags)}, 5},
    {"pinyin", pinyin_head, "", "no FILE given", cmd_text,
     {OPT_BLOCK(pinyin_cli_rows, &flags), OPT_BLOCK(upto_rows, &text_opts), OPT_BLOCK(read_rows, &text_opts.read),
      OPT_BLOCK(voices_dir_rows, &text_opts.read), OPT_BLOCK(quiet_rows, &flags), OPT_BLOCK(help_rows, &flags)}, 6},
    {"speakers", speakers_head, "", "no FILE given", cmd_speakers,
     {OPT_BLOCK(speakers_rows, &speakers_opts), OPT_BLOCK(quiet_rows, &flags), OPT_BLOCK(help_rows, &flags)}, 3},
    {"voices", voices_head, "", NULL, cmd_voices,
     {OPT_BLOCK(voices_dir_rows, &text_opts.read), OPT_BLOCK(help_rows, &flags)}, 2},
};
/* clang-format on */

static const command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int print_help(const command *c)
{
	if (!c)
		return fputs(main_help, stdout), EXIT_OK;
	printf("%s\nOptions:\n", c->head);
	opt_help(stdout, c->blocks, c->nblocks);
	fputs(c->tail, stdout);
	return EXIT_OK;
}

/* What standard output could not take fails the command, whatever it
 * was: a full disk, a closed pipe. */
static int close_stdout(int status)
{
	int e = out_errno;
	if (fflush(stdout) != 0 && !e)
		e = errno;
	if (ferror(stdout) && !e)
		e = EIO;
	if (fclose(stdout) != 0 && !e && errno != EBADF)
		e = errno;
	if (!e)
		return status;
	msg("error", "standard output: %s", strerror(e));
	return status == EXIT_OK ? EXIT_FAILED : status;
}

static int run(int argc, char **argv)
{
	ts_build_opts_init(&build_opts);
	text_opts.upto = TS_UPTO_ALL;
	if (argc < 2)
		return fputs(main_help, stderr), EXIT_USAGE;
	const char *name = argv[1];
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0)
		return print_help(NULL);
	if (strcmp(name, "--version") == 0)
		return printf("tingshu %s\n", TS_VERSION), EXIT_OK;
	if (strcmp(name, "help") == 0)
		return print_help(argc > 2 ? find_command(argv[2]) : NULL);
	const command *c = find_command(name);
	if (!c)
		return usage_error(
		    NULL, "unknown command '%s' (commands: build, text, pinyin, speakers, voices)",
		    name);
	argv[1] = argv[0];
	int first = opt_parse(c->name, argc - 1, argv + 1, c->blocks, c->nblocks);
	if (first < 0)
		return EXIT_USAGE;
	if (flags.help)
		return print_help(c);
	int nargs = argc - 1 - first;
	char **args = argv + 1 + first;
	if (c->operands && nargs < 1)
		return usage_error(c->name, "%s", c->operands);
	if (!c->operands && nargs > 0)
		return usage_error(c->name, "unexpected argument '%s'", args[0]);
	return c->run(c, nargs, args);
}

int main(int argc, char **argv)
{
	char out[1 << 16]; /* help and lists leave at the end, where a failure says why */
	if (!isatty(1))
		setvbuf(stdout, out, _IOFBF, sizeof out);
	return close_stdout(run(argc, argv));
}
