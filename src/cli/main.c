/* main.c - the tingshu command line: parses options, wires the stages of
 * the library together, reports diagnostics and decides the exit code
 * (0 success, 1 some input failed, 2 usage error). */
#include "book/build.h"
#include "audio/cues.h"
#include "text/encoding.h"
#include "zh/g2p.h"
#include "book/input.h"
#include "zh/lang.h"
#include "book/output.h"
#include "book/readalong.h"
#include "base/util.h"
#include "speech/voice.h"
#include "audio/write.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TS_VERSION
#define TS_VERSION "0"
#endif

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };
enum { MAX_LEXICONS = 64 }; /* --lexicon FILE */

static int quiet, verbose;
static volatile sig_atomic_t interrupted;

static void msg(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void msg(const char *kind, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tingshu: %s%s", kind, *kind ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tingshu: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tingshu %s%s--help' for more information.\n", cmd ? cmd : "",
	        cmd ? " " : "");
	return EXIT_USAGE;
}

/* Report getopt's '?' (unknown option) or ':' (missing value). */
static int bad_option(const char *cmd, char **argv, int c)
{
	char name[64];
	const char *arg = argv[optind - 1];
	if (strncmp(arg, "--", 2) == 0)
		snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
	else
		snprintf(name, sizeof name, "-%c", optopt);
	return usage_error(cmd, c == ':' ? "option '%s' needs a value" : "unknown option '%s'",
	                   name);
}

static void on_diag(void *ud, ts_level level, const char *text)
{
	(void)ud;
	if (level == 0 && quiet)
		return;
	msg(level ? "error" : "warning", "%s", text);
}

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static const char main_help[] =
    "Usage: tingshu COMMAND [OPTIONS] ...\n"
    "Turn Chinese novels into audiobooks with eSpeak NG.\n"
    "\n"
    "Commands:\n"
    "  build [OPTIONS] INPUT...   make the audiobook: one audio file per chapter\n"
    "  text  [OPTIONS] FILE...    print the text as it will be spoken\n"
    "  pinyin [OPTIONS] FILE...   print the pinyin eSpeak will be given\n"
    "  voices [--voices-dir DIR]  list the voice presets\n"
    "  help [COMMAND]             show help for a command\n"
    "\n"
    "  -h, --help     show this help\n"
    "      --version  show the version\n"
    "\n"
    "Example:\n"
    "  tingshu build -o out/ 三国演义.txt    # a whole book, split at its chapter headings\n"
    "  tingshu build -o out/ chapters/       # a folder of chapter files, in natural order\n"
    "\n"
    "Exit status: 0 success, 1 some input failed (the rest is still built), 2 usage error.\n";

static const char build_help[] =
    "Usage: tingshu build [OPTIONS] INPUT...\n"
    "Make an audiobook: one audio file per chapter, a manifest and a playlist.\n"
    "\n"
    "INPUT is a .txt file (one chapter, or a whole book that is split at its\n"
    "chapter headings: 第N章/回/节/卷/集/部, 楔子, 序章, 尾声, 番外 ...), a directory of\n"
    ".txt files (each a chapter, in natural order: 2 before 10), or - for standard\n"
    "input.  Text before the first heading of a book becomes its front matter.\n"
    "Text may be UTF-8, UTF-16 with a byte-order mark, GB18030/GBK/GB2312 or Big5;\n"
    "the encoding is detected.\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR     output folder (default: out); made if missing\n"
    "  -j, --jobs N         worker processes (default: all cores); the output is\n"
    "                       the same whatever N is\n"
    "      --voice NAME     voice preset (default: cmn); see 'tingshu voices'\n"
    "      --voices-dir DIR where to find voice presets (also $TINGSHU_VOICES)\n"
    "      --rate X         speed factor applied to the preset's rate, 0.5-2.5\n"
    "                       (default: 1; 1.25 is a quarter faster)\n"
    "      --format FMT     audio format: wav (default, 16-bit PCM), flac (lossless,\n"
    "                       about half the size), ogg (Vorbis), mp3, opus (always\n"
    "                       48 kHz)\n"
    "      --quality Q      0-10: for ogg, opus and mp3 the sound (higher is better\n"
    "                       and bigger; default 4: about 50 kbit/s, opus 24), for\n"
    "                       flac the compression effort (default 0: fastest; 10 is\n"
    "                       about 10% smaller and 3 times slower); wav ignores it\n"
    "      --author NAME    the author, written into each file's tags (with the\n"
    "                       chapter as title, the book as album, and the track)\n"
    "      --loudness LUFS  integrated loudness of every chapter, -40 to -10\n"
    "                       (default: -20, EBU R 128); 'off' keeps eSpeak's level\n"
    "      --true-peak DBTP ceiling for the true peak, -12 to 0 (default: -3, which\n"
    "                       also meets ACX); a look-ahead limiter holds it\n"
    "      --sample-rate HZ 44100 or 48000 (resampled with libsoxr); default: the\n"
    "                       voice's own rate (22050 for eSpeak NG)\n"
    "      --sentence-pause MS   silence between sentences (default: the preset's)\n"
    "      --paragraph-pause MS  silence between paragraphs (default: the preset's)\n"
    "      --timing LIST    sentence timing files beside each chapter's audio,\n"
    "                       comma-separated: srt, vtt, lrc, json (default: srt,vtt);\n"
    "                       none for no timing files\n"
    "      --encoding NAME  read the input in this encoding instead of detecting it\n"
    "                       (UTF-8, GB18030, BIG5, UTF-16LE ...; 'iconv -l' lists all)\n"
    "      --lexicon FILE   your pronunciations, one \"词<TAB>pin1 yin1\" a line; they\n"
    "                       override everything (repeatable; a lexicon.txt in the\n"
    "                       folder of an input is read too)\n"
    "      --force          replace an audiobook already in the output folder\n"
    "      --dry-run        list the chapters that would be built, build nothing\n"
    "  -q, --quiet          no progress, no summary, no warnings\n"
    "  -v, --verbose        a line for every chapter built\n"
    "  -h, --help           show this help\n"
    "\n"
    "Output folder:\n"
    "  NNN-<title>.wav      one file per chapter (000 is the front matter, if any;\n"
    "                       .flac, .ogg, .opus or .mp3 with --format)\n"
    "  NNN-<title>.srt      its sentence timing: one cue per sentence, the title\n"
    "                       first, with the text as written in the book (also .vtt,\n"
    "                       .lrc and .json, a list of {start, end, text} in seconds,\n"
    "                       as --timing says)\n"
    "  manifest.json        book title, voice, settings, and each chapter's title,\n"
    "                       source, audio and timing files, duration, sentences,\n"
    "                       characters, and loudness and true peak as measured\n"
    "  playlist.m3u         the chapters in order\n"
    "  index.html           read-along page: open it in a browser to play the\n"
    "                       chapters and follow the text as it is read\n"
    "Files appear under their final names only when complete.\n";

static const char text_help[] =
    "Usage: tingshu text [OPTIONS] FILE...\n"
    "Print the text as it will be spoken, to check a book before a long build:\n"
    "one output line per input line (per paragraph where tags such as <p> or <br>\n"
    "split a line), after cleaning and normalization (numbers as words, lookalike\n"
    "characters repaired).  FILE may be - for standard input.\n"
    "\n"
    "Options:\n"
    "      --sentences        one line per chunk sent to the synthesizer instead\n"
    "      --encoding NAME    read FILE in this encoding instead of detecting it\n"
    "                         (UTF-8, GB18030, BIG5, UTF-16LE ...; 'iconv -l' lists all)\n"
    "      --lexicon FILE     your pronunciations, one \"词<TAB>pin1 yin1\" a line\n"
    "                         (repeatable; a lexicon.txt beside FILE is read too)\n"
    "      --voice NAME       voice preset whose language data to use (default: cmn)\n"
    "      --voices-dir DIR   where to find voice presets\n"
    "  -q, --quiet            no warnings\n"
    "  -h, --help             show this help\n";

static const char pinyin_help[] =
    "Usage: tingshu pinyin [OPTIONS] FILE...\n"
    "Print the pinyin that will be spoken, to check readings before a long build:\n"
    "one output line per input line, one token per Han character of the spoken\n"
    "text (after cleaning and normalization), separated by single spaces: the\n"
    "syllable and its tone, 1-4 or 5 for the neutral tone, with u-umlaut written v\n"
    "(lv4, nv3).  Other characters make no token.  Tones are as read, with the\n"
    "sandhi of 一 and 不 applied; eSpeak applies the 3-3 sandhi itself.  This is\n"
    "exactly what eSpeak is given.  FILE may be - for standard input.\n"
    "\n"
    "Options:\n"
    "      --explain          print each token as CHAR=SYLLABLE/HOW: HOW is the\n"
    "                         lexicon word it was read in, default (the\n"
    "                         character's most common reading), rule:LINE (the\n"
    "                         context rule on that line of polyphones.txt) or\n"
    "                         sandhi\n"
    "      --upto STAGE       stop the pronunciation after STAGE, to measure what\n"
    "                         each adds: chars (each character's most common\n"
    "                         reading), words (+ the lexicon's words), rules\n"
    "                         (+ context rules), all (+ sandhi; the default)\n"
    "      --encoding NAME    read FILE in this encoding instead of detecting it\n"
    "      --lexicon FILE     your pronunciations, one \"词<TAB>pin1 yin1\" a line; they\n"
    "                         override everything (repeatable; a lexicon.txt beside\n"
    "                         FILE is read too)\n"
    "      --voice NAME       voice preset whose language data to use (default: cmn)\n"
    "      --voices-dir DIR   where to find voice presets\n"
    "  -q, --quiet            no warnings\n"
    "  -h, --help             show this help\n";

static const char voices_help[] =
    "Usage: tingshu voices [--voices-dir DIR]\n"
    "List the voice presets.  A preset is a small text file NAME.voice; copy one,\n"
    "edit it, and use it with --voice NAME --voices-dir DIR (or --voice PATH).\n";

/* ---- voices --------------------------------------------------------- */

static int find_voices_dir(const char *explicit_dir, char *dir, size_t sz)
{
	if (ts_voices_dir(explicit_dir, dir, sz) == 0)
		return 0;
	if (explicit_dir)
		msg("error", "voices directory %s does not exist", explicit_dir);
	else
		msg("error",
		    "cannot find the voices directory (looked beside the program and in %s); "
		    "use --voices-dir DIR or set TINGSHU_VOICES",
		    dir);
	return -1;
}

static int cmd_voices(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"voices-dir", required_argument, 0, 'V'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *vdir = NULL;
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'V': vdir = optarg; break;
		case 'h': fputs(voices_help, stdout); return EXIT_OK;
		default: return bad_option("voices", argv, c);
		}
	}
	if (optind < argc)
		return usage_error("voices", "unexpected argument '%s'", argv[optind]);
	char dir[PATH_MAX];
	if (find_voices_dir(vdir, dir, sizeof dir))
		return EXIT_USAGE;
	char **names;
	int n = ts_voice_list(dir, &names);
	if (n < 0) {
		msg("error", "%s: %s", dir, ts_strerror(n));
		return EXIT_FAILED;
	}
	int rc = EXIT_OK;
	for (int i = 0; i < n; i++) {
		ts_voice v;
		char err[512];
		if (ts_voice_find(&v, dir, names[i], err, sizeof err) == 0) {
			printf("%-12s %s%s\n", names[i], v.description,
			       strcmp(names[i], "cmn") == 0 ? " [default]" : "");
		} else {
			msg("warning", "%s", err);
			rc = EXIT_FAILED;
		}
		free(names[i]);
	}
	free(names);
	if (n == 0)
		msg("warning", "no voice presets (*.voice) in %s", dir);
	return rc;
}

/* Find the voices directory, the voice preset and its language data.
 * Returns 0, or prints why and returns -1.  *lang is freed by the caller. */
static int load_voice(const char *vdir_opt, const char *name, ts_voice *voice, ts_lang **lang)
{
	char vdir[PATH_MAX], err[1024];
	if (find_voices_dir(vdir_opt, vdir, sizeof vdir))
		return -1;
	if (ts_voice_find(voice, vdir, name, err, sizeof err)) {
		msg("error", "%s", err);
		return -1;
	}
	if (!voice->language[0] || strchr(voice->language, '/') || voice->language[0] == '.') {
		msg("error",
		    "voice %s: language \"%s\" must be the name of a directory beside the presets",
		    voice->name, voice->language);
		return -1;
	}
	/* The data sits beside the preset; a preset copied elsewhere (a
	 * --voices-dir of the user's, or --voice PATH) uses the shipped data. */
	char dir[PATH_MAX + 64], shipped[PATH_MAX];
	const char *slash = strrchr(name, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - name), name, voice->language);
	else
		snprintf(dir, sizeof dir, "%s/%s", vdir, voice->language);
	struct stat st;
	if (stat(dir, &st) != 0 && ts_voices_dir(NULL, shipped, sizeof shipped) == 0)
		snprintf(dir, sizeof dir, "%s/%s", shipped, voice->language);
	int rc;
	*lang = ts_lang_load(dir, &rc, err, sizeof err);
	if (!*lang) {
		msg("error", "voice %s: cannot load its language data: %s", voice->name, err);
		return -1;
	}
	return 0;
}

static void on_lexicon_warning(void *ud, const char *text)
{
	(void)ud;
	if (!quiet)
		msg("warning", "%s", text);
}

/* The user's lexicons: a lexicon.txt in the folder of each input (or in
 * an input that is a folder), then each --lexicon FILE in order, so that
 * the later ones win.  A --lexicon that cannot be read is an error; 0 or
 * -1 (reported). */
static int add_lexicons(ts_lang *lang, char **inputs, int ninputs, char **files, int nfiles)
{
	char err[1024], path[PATH_MAX + 16], seen[8][PATH_MAX + 16];
	int nseen = 0;
	for (int i = 0; i < ninputs; i++) {
		const char *in = inputs[i];
		struct stat st;
		if (strcmp(in, "-") == 0 || stat(in, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			snprintf(path, sizeof path, "%s/lexicon.txt", in);
		} else {
			const char *slash = strrchr(in, '/');
			if (slash)
				snprintf(path, sizeof path, "%.*s/lexicon.txt", (int)(slash - in),
				         in);
			else
				snprintf(path, sizeof path, "lexicon.txt");
		}
		int dup = 0;
		for (int k = 0; k < nseen && !dup; k++)
			dup = strcmp(seen[k], path) == 0;
		if (dup || stat(path, &st) != 0)
			continue;
		if (nseen < 8)
			snprintf(seen[nseen++], sizeof seen[0], "%s", path);
		int rc = ts_lang_add_lexicon(lang, path, on_lexicon_warning, NULL, err, sizeof err);
		if (rc) {
			msg("error", "lexicon %s", err);
			return -1;
		}
	}
	for (int i = 0; i < nfiles; i++) {
		int rc =
		    ts_lang_add_lexicon(lang, files[i], on_lexicon_warning, NULL, err, sizeof err);
		if (rc) {
			msg("error", "--lexicon %s", err);
			return -1;
		}
	}
	return 0;
}

/* --encoding NAME: 0, or a usage error for a name iconv does not know. */
static int check_encoding(const char *cmd, const char *name)
{
	if (ts_encoding_known(name))
		return 0;
	return usage_error(cmd,
	                   "unknown encoding '%s' (for example UTF-8, GB18030, BIG5, UTF-16LE; "
	                   "'iconv -l' lists all)",
	                   name);
}

/* ---- text ----------------------------------------------------------- */

static int write_stdout(void *ud, const char *s, size_t n)
{
	(void)ud;
	return fwrite(s, 1, n, stdout) == n ? 0 : TS_EIO;
}

/* text and pinyin: the same front end, printing its text or its pinyin. */
static int cmd_text(int argc, char **argv, int pinyin)
{
	const char *cmd = pinyin ? "pinyin" : "text";
	static const struct option opts[] = {{"sentences", no_argument, 0, 's'},
	                                     {"explain", no_argument, 0, 'x'},
	                                     {"upto", required_argument, 0, 'u'},
	                                     {"lexicon", required_argument, 0, 'L'},
	                                     {"encoding", required_argument, 0, 'E'},
	                                     {"voice", required_argument, 0, 'V'},
	                                     {"voices-dir", required_argument, 0, 'D'},
	                                     {"quiet", no_argument, 0, 'q'},
	                                     {"help", no_argument, 0, 'h'},
	                                     {0, 0, 0, 0}};
	int sentences = 0, explain = 0, c, nlex = 0;
	int stages = -1; /* all */
	char *lexicons[MAX_LEXICONS];
	const char *voice_name = "cmn", *vdir_opt = NULL, *encoding = NULL;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (pinyin)
				return bad_option(cmd, argv, '?');
			sentences = 1;
			break;
		case 'x':
			if (!pinyin)
				return bad_option(cmd, argv, '?');
			explain = 1;
			break;
		case 'u':
			if (!pinyin)
				return bad_option(cmd, argv, '?');
			stages = strcmp(optarg, "chars") == 0   ? 0
			         : strcmp(optarg, "words") == 0 ? TS_G2P_WORDS
			         : strcmp(optarg, "rules") == 0 ? TS_G2P_WORDS | TS_G2P_RULES
			         : strcmp(optarg, "all") == 0   ? TS_G2P_ALL
			                                        : -2;
			if (stages == -2)
				return usage_error(
				    cmd, "--upto takes chars, words, rules or all, not '%s'",
				    optarg);
			break;
		case 'L':
			if (nlex == MAX_LEXICONS)
				return usage_error(cmd, "at most %d --lexicon files", MAX_LEXICONS);
			lexicons[nlex++] = optarg;
			break;
		case 'V': voice_name = optarg; break;
		case 'D': vdir_opt = optarg; break;
		case 'q': quiet = 1; break;
		case 'E':
			if (check_encoding(cmd, optarg))
				return EXIT_USAGE;
			encoding = optarg;
			break;
		case 'h': fputs(pinyin ? pinyin_help : text_help, stdout); return EXIT_OK;
		default: return bad_option(cmd, argv, c);
		}
	}
	if (optind >= argc)
		return usage_error(cmd, "no FILE given");
	ts_voice voice;
	ts_lang *lang = NULL;
	if (load_voice(vdir_opt, voice_name, &voice, &lang))
		return EXIT_USAGE;
	if (pinyin && !ts_lang_lexicon(lang)) {
		msg("error",
		    "voice %s: its language data (%s) has no pronunciation lexicon "
		    "(lexicon.bin)",
		    voice.name, voice.language);
		ts_lang_free(lang);
		return EXIT_USAGE;
	}
	if (add_lexicons(lang, argv + optind, argc - optind, lexicons, nlex)) {
		ts_lang_free(lang);
		return EXIT_USAGE;
	}
	ts_text_mode mode = explain     ? TS_TEXT_EXPLAIN
	                    : pinyin    ? TS_TEXT_PINYIN
	                    : sentences ? TS_TEXT_CHUNKS
	                                : TS_TEXT_LINES;
	ts_text_opts topts = {.encoding = encoding, .mode = mode, .g2p_stages = stages};
	int rc = EXIT_OK;
	for (int i = optind; i < argc; i++) {
		char err[1024] = "", warn[1024] = "";
		if (ts_spoken_text(argv[i], &topts, lang, write_stdout, NULL, err, sizeof err, warn,
		                   sizeof warn)) {
			msg("error", "%s", err[0] ? err : argv[i]);
			rc = EXIT_FAILED;
		}
		if (warn[0] && !quiet)
			msg("warning", "%s", warn);
	}
	ts_lang_free(lang);
	if (fflush(stdout) != 0) {
		msg("error", "cannot write to standard output: %s", strerror(errno));
		rc = EXIT_FAILED;
	}
	return rc;
}

/* ---- build ---------------------------------------------------------- */

/* Past this much gain to make up for what the limiter takes off, a
 * chapter is limited heavily: -16 LUFS under -3 dBTP takes about 4 dB
 * with the Mandarin voice, the default -20 LUFS about 0.2. */
#define HEAVY_LIMITING_DB 3.0

typedef struct progress {
	const ts_book *book;
	size_t total_chars;
	size_t done_chars; /* of finished chapters */
	size_t *partial;   /* chars done per chapter in progress */
	uint64_t *partial_samples;
	double *partial_finish; /* 0-1: how far its file is put together */
	/* The share of a chapter's time spent putting its file together
	 * (levelling, limiting, encoding), learnt from the chapters done;
	 * until one is, a guess. */
	double speak_s, finish_s, finish_guess;
	uint64_t done_samples;
	size_t chapters_done, chapters;
	int rate;
	double t0; /* ts_seconds() at the start */
	int tty;
	ts_chapter_result *results;
	char *const *names;
} progress;

static void fmt_duration(char *out, size_t sz, double s)
{
	if (s >= 3600)
		snprintf(out, sz, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
	else if (s >= 60)
		snprintf(out, sz, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(out, sz, "%.1f s", s);
}

static void on_event(void *ud, const ts_event *ev)
{
	progress *p = ud;
	switch (ev->kind) {
	case TS_EV_READY: p->rate = (int)ev->samples; return;
	case TS_EV_STARTED:
		p->partial[ev->chapter] = 0;
		p->partial_samples[ev->chapter] = 0;
		p->partial_finish[ev->chapter] = 0;
		break;
	case TS_EV_PROGRESS:
		p->partial[ev->chapter] = ev->chars_done;
		p->partial_samples[ev->chapter] = ev->samples;
		p->partial_finish[ev->chapter] = ev->finishing;
		break;
	case TS_EV_DONE:
		p->partial[ev->chapter] = 0;
		p->partial_samples[ev->chapter] = 0;
		p->partial_finish[ev->chapter] = 0;
		p->speak_s += p->results[ev->chapter].speak_s;
		p->finish_s += p->results[ev->chapter].finish_s;
		p->chapters_done++;
		p->done_chars += ts_book_chapter(p->book, ev->chapter)->chars;
		p->done_samples += ev->samples;
		if (verbose) {
			const ts_chapter_result *r = &p->results[ev->chapter];
			if (p->tty)
				fputs("\r\033[K", stderr);
			if (r->status == 0)
				msg("", "[%zu/%zu] %s: %.1f s, %zu sentences, %zu characters",
				    p->chapters_done, p->chapters, p->names[ev->chapter],
				    p->rate ? (double)r->samples / p->rate : 0.0, r->sentences,
				    r->chars);
		}
		break;
	}
	if (!p->tty || quiet)
		return;
	/* The work done, in characters: a chapter's characters count as
	 * they are spoken, scaled by the share of its time speaking takes,
	 * and in full as its file is put together. */
	double f = p->speak_s + p->finish_s > 0 ? p->finish_s / (p->speak_s + p->finish_s)
	                                        : p->finish_guess;
	double work = (double)p->done_chars;
	uint64_t samples = p->done_samples;
	size_t finishing = 0;
	double finish_done = 0;
	for (size_t i = 0; i < p->chapters; i++) {
		samples += p->partial_samples[i];
		work += (1 - f) * (double)p->partial[i];
		if (p->partial_finish[i] > 0) {
			finishing++;
			finish_done = p->partial_finish[i];
			/* Passes run again to correct the level are not
			 * foreseen: the chapter counts as done meanwhile. */
			work += f * fmin(p->partial_finish[i], 1) *
			        (double)ts_book_chapter(p->book, i)->chars;
		}
	}
	double el = ts_seconds() - p->t0;
	char eta[64] = "--", audio[64], fin[64] = "";
	if (work > 0 && (double)p->total_chars > work)
		fmt_duration(eta, sizeof eta, el * ((double)p->total_chars - work) / work);
	fmt_duration(audio, sizeof audio, p->rate ? (double)samples / p->rate : 0.0);
	if (finishing == 1 && finish_done < 1)
		snprintf(fin, sizeof fin, ", finishing 1 chapter (%d%%)", (int)(finish_done * 100));
	else if (finishing == 1)
		snprintf(fin, sizeof fin, ", finishing 1 chapter (levelling again, %d%%)",
		         (int)(fmod(finish_done, 1) * 100));
	else if (finishing > 1)
		snprintf(fin, sizeof fin, ", finishing %zu chapters", finishing);
	fprintf(stderr, "\r\033[K[%zu/%zu chapters] %s of audio made%s, ETA %s", p->chapters_done,
	        p->chapters, audio, fin, eta);
	fflush(stderr);
}

/* Make dir and its parents; 0 or -1 with errno. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(p, 0777) != 0 && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(p, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Can we create files in dir?  Checked by doing it: access() is wrong
 * for root and for read-only mounts. */
static int probe_writable(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/.tingshu-probe-%ld", dir, (long)getpid());
	FILE *f = fopen(p, "w");
	if (!f)
		return -1;
	fclose(f);
	unlink(p);
	return 0;
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Is name (inside the output folder) the timing file of format t of one
 * of this build's chapters? */
static int is_new_timing(const char *name, int t, char *const *names, size_t n)
{
	int found = 0;
	for (size_t i = 0; i < n && !found; i++) {
		char *p = ts_cues_path(names[i], t);
		found = p && strcmp(p, name) == 0;
		free(p);
	}
	return found;
}

/* With --force: remove chapter files of the previous build that this one
 * did not make again (their names come from the old playlist): its audio,
 * and the timing files beside it, of any format this build did not write
 * for the same name. */
static void remove_stale(const char *outdir, const char *old_playlist, char *const *names, size_t n,
                         unsigned timing)
{
	char line[1024];
	FILE *f = fopen(old_playlist, "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#' || strchr(line, '/') || line[0] == '.')
			continue;
		int keep = 0;
		for (size_t i = 0; i < n && !keep; i++) {
			const char *base = strrchr(names[i], '/');
			keep = strcmp(base ? base + 1 : names[i], line) == 0;
		}
		char p[PATH_MAX];
		if (!keep) {
			snprintf(p, sizeof p, "%s/%s", outdir, line);
			unlink(p);
		}
		for (int t = 0; t < TS_CUES_NFORMATS; t++) {
			char *old = ts_cues_path(line, t);
			if (old && !((timing & (1u << t)) && is_new_timing(old, t, names, n))) {
				snprintf(p, sizeof p, "%s/%s", outdir, old);
				unlink(p);
			}
			free(old);
		}
	}
	fclose(f);
}

/* A number from lo to hi, all of s; 0 or -1. */
static int parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

static int cmd_build(int argc, char **argv)
{
	/* clang-format off */
	static const struct option opts[] = {
	    {"output", required_argument, 0, 'o'},   {"jobs", required_argument, 0, 'j'},
	    {"voice", required_argument, 0, 'V'},    {"voices-dir", required_argument, 0, 'D'},
	    {"rate", required_argument, 0, 'r'},     {"format", required_argument, 0, 'f'},
	    {"force", no_argument, 0, 'F'},          {"dry-run", no_argument, 0, 'n'},
	    {"quiet", no_argument, 0, 'q'},          {"verbose", no_argument, 0, 'v'},
	    {"encoding", required_argument, 0, 'E'}, {"help", no_argument, 0, 'h'},
	    {"lexicon", required_argument, 0, 'L'},  {"timing", required_argument, 0, 'T'},
	    {"loudness", required_argument, 0, 'U'}, {"true-peak", required_argument, 0, 'P'},
	    {"sample-rate", required_argument, 0, 'R'},
	    {"sentence-pause", required_argument, 0, 'S'},
	    {"paragraph-pause", required_argument, 0, 'G'},
	    {"quality", required_argument, 0, 'Q'},  {"author", required_argument, 0, 'A'},
	    {0, 0, 0, 0}};
	/* clang-format on */
	const char *outdir = "out", *voice_name = "cmn", *vdir_opt = NULL, *format_name = "wav";
	const char *encoding = NULL, *author = NULL;
	long quality = TS_QUALITY_DEFAULT;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	double rate = 1.0;
	ts_master_opts mo = {.normalize = 1,
	                     .target_lufs = TS_LOUDNESS_DEFAULT,
	                     .ceiling_dbtp = TS_TRUE_PEAK_DEFAULT};
	long sentence_pause = -1, paragraph_pause = -1;
	int force = 0, dry = 0, c, nlex = 0;
	unsigned timing = TS_CUES_DEFAULT;
	char *lexicons[MAX_LEXICONS];
	char *end;
	while ((c = getopt_long(argc, argv, ":o:j:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outdir = optarg; break;
		case 'j':
			errno = 0;
			jobs = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || jobs < 1 || jobs > 256)
				return usage_error(
				    "build", "-j takes a number of workers from 1 to 256, not '%s'",
				    optarg);
			break;
		case 'V': voice_name = optarg; break;
		case 'D': vdir_opt = optarg; break;
		case 'r':
			if (parse_number(optarg, 0.5, 2.5, &rate))
				return usage_error(
				    "build",
				    "--rate takes a speed factor from 0.5 to 2.5 (1 is the "
				    "preset's speed), not '%s'",
				    optarg);
			break;
		case 'f': format_name = optarg; break;
		case 'U':
			if (strcmp(optarg, "off") == 0) {
				mo.normalize = 0;
				break;
			}
			if (parse_number(optarg, -40, -10, &mo.target_lufs))
				return usage_error("build",
				                   "--loudness takes a level from -40 to -10 LUFS "
				                   "(or 'off'), not '%s'",
				                   optarg);
			mo.normalize = 1;
			break;
		case 'P':
			if (parse_number(optarg, -12, 0, &mo.ceiling_dbtp))
				return usage_error(
				    "build",
				    "--true-peak takes a ceiling from -12 to 0 dBTP, not '%s'",
				    optarg);
			break;
		case 'R':
			if (strcmp(optarg, "44100") == 0 || strcmp(optarg, "48000") == 0)
				mo.out_rate = atoi(optarg);
			else
				return usage_error("build",
				                   "--sample-rate takes 44100 or 48000, not '%s'",
				                   optarg);
			break;
		case 'S':
		case 'G': {
			double ms;
			if (parse_number(optarg, 0, 10000, &ms))
				return usage_error("build",
				                   "--%s-pause takes milliseconds from 0 to 10000, "
				                   "not '%s'",
				                   c == 'S' ? "sentence" : "paragraph", optarg);
			*(c == 'S' ? &sentence_pause : &paragraph_pause) = lround(ms);
			break;
		}
		case 'Q':
			errno = 0;
			quality = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || quality < TS_QUALITY_MIN ||
			    quality > TS_QUALITY_MAX)
				return usage_error(
				    "build",
				    "--quality takes a whole number from %d to %d, not "
				    "'%s'",
				    TS_QUALITY_MIN, TS_QUALITY_MAX, optarg);
			break;
		case 'A':
			if (ts_utf8_check(optarg, strlen(optarg), 1) != strlen(optarg))
				return usage_error("build", "--author must be UTF-8 text");
			author = optarg;
			break;
		case 'E':
			if (check_encoding("build", optarg))
				return EXIT_USAGE;
			encoding = optarg;
			break;
		case 'F': force = 1; break;
		case 'L':
			if (nlex == MAX_LEXICONS)
				return usage_error("build", "at most %d --lexicon files",
				                   MAX_LEXICONS);
			lexicons[nlex++] = optarg;
			break;
		case 'T':
			if (ts_cues_parse(optarg, &timing))
				return usage_error(
				    "build",
				    "--timing takes a comma-separated list of %s, or "
				    "none, not '%s'",
				    ts_cues_names(), optarg);
			break;
		case 'n': dry = 1; break;
		case 'q': quiet = 1; break;
		case 'v': verbose = 1; break;
		case 'h': fputs(build_help, stdout); return EXIT_OK;
		default: return bad_option("build", argv, c);
		}
	}
	if (optind >= argc)
		return usage_error("build", "no INPUT given (a .txt file, a directory, or -)");
	if (jobs < 1)
		jobs = 1;
	const ts_format *fmt = ts_format_find(format_name);
	if (!fmt)
		return usage_error("build", "unknown format '%s' (known: %s)", format_name,
		                   ts_format_names());
	if (mo.out_rate && ts_format_pick_rate(fmt, mo.out_rate) != mo.out_rate)
		return usage_error("build",
		                   "--format %s cannot hold %d Hz audio; it is made at %d Hz",
		                   fmt->name, mo.out_rate, ts_format_pick_rate(fmt, mo.out_rate));
	ts_voice voice;
	ts_lang *lang = NULL;
	char err[1024];
	if (load_voice(vdir_opt, voice_name, &voice, &lang))
		return EXIT_USAGE;
	if (sentence_pause >= 0)
		voice.sentence_pause_ms = (int)sentence_pause;
	if (paragraph_pause >= 0)
		voice.paragraph_pause_ms = (int)paragraph_pause;
	if (add_lexicons(lang, argv + optind, argc - optind, lexicons, nlex)) {
		ts_lang_free(lang);
		return EXIT_USAGE;
	}

	int status = EXIT_OK;
	ts_book *book = ts_book_new(on_diag, NULL);
	if (!book) {
		msg("error", "out of memory");
		ts_lang_free(lang);
		return EXIT_FAILED;
	}
	if (ts_book_set_encoding(book, encoding)) {
		msg("error", "out of memory");
		ts_book_free(book);
		return EXIT_FAILED;
	}
	for (int i = optind; i < argc; i++)
		if (ts_book_add(book, argv[i]))
			status = EXIT_FAILED;
	size_t n = ts_book_count(book);
	char **paths = calloc(n ? n : 1, sizeof *paths);
	char **names = calloc(n ? n : 1, sizeof *names);
	ts_chapter_result *results = calloc(n ? n : 1, sizeof *results);
	ts_chapter_entry *entries = calloc(n ? n : 1, sizeof *entries);
	char *(*timing_names)[TS_CUES_NFORMATS] = calloc(n ? n : 1, sizeof *timing_names);
	progress prog = {0};
	prog.partial = calloc(n ? n : 1, sizeof *prog.partial);
	prog.partial_samples = calloc(n ? n : 1, sizeof *prog.partial_samples);
	prog.partial_finish = calloc(n ? n : 1, sizeof *prog.partial_finish);
	ts_buf text = {0};
	int run_started = 0;
	if (!paths || !names || !results || !entries || !timing_names || !prog.partial ||
	    !prog.partial_samples || !prog.partial_finish) {
		msg("error", "out of memory");
		status = EXIT_FAILED;
		goto out;
	}
	if (n == 0) {
		msg("error", "nothing to build: no chapter with text in the input");
		status = EXIT_FAILED;
		goto out;
	}
	/* Chapter file names: NNN-<slug>.<ext>; 000 is the front matter. */
	int base = ts_book_chapter(book, 0)->front_matter ? 0 : 1;
	int width = 3;
	for (size_t m = n + (size_t)base; m >= 1000; m /= 10)
		width++;
	for (size_t i = 0; i < n; i++) {
		const ts_chapter *ch = ts_book_chapter(book, i);
		char slug[TS_SLUG_MAX + 1];
		ts_slug(ch->title, slug);
		ts_buf nb = {0}, pb = {0};
		if (ts_buf_printf(&nb, "%0*zu-%s.%s", width, i + (size_t)base, slug, fmt->ext) ||
		    ts_buf_printf(&pb, "%s/%s", outdir, nb.data)) {
			msg("error", "out of memory");
			status = EXIT_FAILED;
			goto out;
		}
		names[i] = nb.data;
		paths[i] = pb.data;
		for (int t = 0; t < TS_CUES_NFORMATS; t++) {
			if ((timing & (1u << t)) &&
			    !(timing_names[i][t] = ts_cues_path(names[i], t))) {
				msg("error", "out of memory");
				status = EXIT_FAILED;
				goto out;
			}
		}
		prog.total_chars += ch->chars;
	}
	if (dry) {
		printf("book: %s\n", ts_book_title(book));
		for (size_t i = 0; i < n; i++) {
			const ts_chapter *ch = ts_book_chapter(book, i);
			printf("%s\t%s:%ld\t%zu chars\t%s%s\n", names[i], ch->display, ch->line,
			       ch->chars, ch->title, ch->front_matter ? " (front matter)" : "");
		}
		goto out;
	}
	if (make_dirs(outdir) != 0 || probe_writable(outdir) != 0) {
		msg("error", "cannot write to output folder %s: %s", outdir, strerror(errno));
		status = EXIT_FAILED;
		goto out;
	}
	char manifest_path[PATH_MAX], playlist_path[PATH_MAX];
	snprintf(manifest_path, sizeof manifest_path, "%s/manifest.json", outdir);
	snprintf(playlist_path, sizeof playlist_path, "%s/playlist.m3u", outdir);
	if (file_exists(manifest_path) && !force) {
		msg("error",
		    "%s already holds an audiobook (manifest.json); use --force to replace it, or "
		    "-o "
		    "to choose another folder",
		    outdir);
		status = EXIT_FAILED;
		goto out;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	prog.book = book;
	prog.chapters = n;
	prog.tty = isatty(2);
	prog.results = results;
	prog.names = names;
	/* With loudness on, about a fifth of a chapter's time goes on its
	 * second pass (bench/finishing.sh); without, next to nothing. */
	prog.finish_guess = mo.normalize ? 0.2 : 0.0;
	prog.t0 = ts_seconds();
	ts_build_job job = {.book = book,
	                    .voice = &voice,
	                    .lang = lang,
	                    .rate_factor = rate,
	                    .format = fmt,
	                    .master = mo,
	                    .quality = (int)quality,
	                    .author = author,
	                    .paths = paths,
	                    .timing = timing,
	                    .workers = (int)jobs,
	                    .owner_pid = (long)getpid(),
	                    .cancel = &interrupted};
	ts_build_stats stats;
	run_started = 1;
	int rc = ts_build_run(&job, results, &stats, on_event, &prog, err, sizeof err);
	if (prog.tty && !quiet)
		fputs("\r\033[K", stderr);
	if (interrupted) {
		msg("error", "interrupted; unfinished files removed");
		status = 130;
		goto out;
	}
	if (rc) {
		msg("error", "%s", err);
		status = EXIT_FAILED;
		goto out;
	}
	prog.rate = stats.sample_rate;
	if (verbose)
		msg("", "largest worker peak memory: %ld KB", stats.worker_maxrss_kb);

	size_t ok = 0, heavy = 0, heaviest = 0, missed = 0, farthest = 0;
	double total = 0, most = 0, worst_miss = 0;
	for (size_t i = 0; i < n; i++) {
		const ts_chapter *ch = ts_book_chapter(book, i);
		if (results[i].warning[0] && !quiet)
			msg("warning", "%s", results[i].warning);
		/* The gain it took beyond the target's to make up for what the
		 * limiter took off. */
		double made_up =
		    results[i].audio.gain_db - (mo.target_lufs - results[i].audio.input_lufs);
		if (!results[i].status && mo.normalize && made_up > HEAVY_LIMITING_DB) {
			if (made_up > most)
				most = made_up, heaviest = i;
			heavy++;
		}
		double miss = fabs(results[i].audio.output_lufs - mo.target_lufs);
		if (!results[i].status && mo.normalize && miss > 0.5) {
			if (miss > worst_miss)
				worst_miss = miss, farthest = i;
			missed++;
		}
		if (results[i].status) {
			msg("error", "%s", results[i].errmsg);
			status = EXIT_FAILED;
			continue;
		}
		ts_chapter_entry *e = &entries[ok++];
		e->index = (int)i + base;
		e->title = ch->title;
		e->source = ch->display;
		e->audio = names[i];
		for (int t = 0; t < TS_CUES_NFORMATS; t++)
			e->timing[t] = timing_names[i][t];
		e->vtt = timing_names[i][__builtin_ctz(TS_CUES_VTT)]; /* the read-along text */
		e->duration_s = (double)results[i].samples / prog.rate;
		e->sentences = results[i].sentences;
		e->chars = results[i].chars;
		e->front_matter = ch->front_matter;
		e->input_lufs = results[i].audio.input_lufs;
		e->gain_db = results[i].audio.gain_db;
		e->output_lufs = results[i].audio.output_lufs;
		e->true_peak_db = results[i].audio.true_peak_db;
		e->limited_s = results[i].audio.limited_s;
		total += e->duration_s;
	}
	if (missed && !quiet)
		msg("warning",
		    "%zu of %zu chapters could not be brought to %g LUFS under a true peak of %g "
		    "dBTP: the limiter holds them down (the farthest: %s, at %.1f LUFS); a lower "
		    "--loudness or a higher --true-peak reaches its target",
		    missed, n, mo.target_lufs, mo.ceiling_dbtp, names[farthest],
		    results[farthest].audio.output_lufs);
	else if (heavy && !quiet)
		msg("warning",
		    "%zu of %zu chapters took more than %.0f dB of limiting to reach %g LUFS under "
		    "a true peak of %g dBTP (the most: %.1f dB, %s); the speech may sound "
		    "flattened: a lower --loudness or a higher --true-peak sounds more natural",
		    heavy, n, HEAVY_LIMITING_DB, mo.target_lufs, mo.ceiling_dbtp, most,
		    names[heaviest]);
	ts_build_settings set = {.voice = &voice,
	                         .wpm = stats.wpm,
	                         .rate_factor = rate,
	                         .sample_rate = ts_master_out_rate(&mo, fmt, prog.rate),
	                         .synth_rate = prog.rate,
	                         .format = fmt->name,
	                         .normalize = mo.normalize,
	                         .target_lufs = mo.target_lufs,
	                         .ceiling_dbtp = mo.ceiling_dbtp,
	                         .quality = (int)quality,
	                         .author = author};
	if (force)
		remove_stale(outdir, playlist_path, names, n, timing);
	/* ts_manifest and ts_playlist fail only when out of memory. */
	ts_error werr = {.code = TS_ENOMEM};
	if (ts_manifest(&text, ts_book_title(book), &set, entries, ok) ||
	    ts_write_text_file(manifest_path, text.data, text.len, (long)getpid(), &werr)) {
		msg("error", "%s", ts_error_msg(&werr));
		status = EXIT_FAILED;
		goto out;
	}
	ts_buf_clear(&text);
	if (ts_playlist(&text, ts_book_title(book), entries, ok) ||
	    ts_write_text_file(playlist_path, text.data, text.len, (long)getpid(), &werr)) {
		msg("error", "%s", ts_error_msg(&werr));
		status = EXIT_FAILED;
		goto out;
	}
	/* The read-along page last: it reads the timing files of the chapters. */
	char page_path[PATH_MAX];
	snprintf(page_path, sizeof page_path, "%s/index.html", outdir);
	ts_buf_clear(&text);
	if (ts_readalong_html(&text, outdir, ts_book_title(book), entries, ok, on_diag, NULL)) {
		msg("error", "%s: out of memory", page_path);
		status = EXIT_FAILED;
		goto out;
	}
	if (ts_write_text_file(page_path, text.data, text.len, (long)getpid(), &werr)) {
		msg("error", "%s", ts_error_msg(&werr));
		status = EXIT_FAILED;
		goto out;
	}
	if (!quiet) {
		char audio[64], took[64];
		fmt_duration(audio, sizeof audio, total);
		fmt_duration(took, sizeof took, ts_seconds() - prog.t0);
		msg("", "built %zu of %zu chapters (%s of audio) in %s into %s", ok, n, audio, took,
		    outdir);
	}
out:
	if (run_started)
		ts_writer_sweep(outdir, (long)getpid());
	for (size_t i = 0; i < n; i++) {
		if (paths)
			free(paths[i]);
		if (names)
			free(names[i]);
		for (int t = 0; timing_names && t < TS_CUES_NFORMATS; t++)
			free(timing_names[i][t]);
	}
	free(timing_names);
	free(paths);
	free(names);
	free(results);
	free(entries);
	free(prog.partial);
	free(prog.partial_samples);
	free(prog.partial_finish);
	ts_buf_free(&text);
	ts_book_free(book);
	ts_lang_free(lang);
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(main_help, stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		fputs(main_help, stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("tingshu %s\n", TS_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "help") == 0) {
		const char *what = argc > 2 ? argv[2] : "";
		fputs(strcmp(what, "build") == 0    ? build_help
		      : strcmp(what, "text") == 0   ? text_help
		      : strcmp(what, "pinyin") == 0 ? pinyin_help
		      : strcmp(what, "voices") == 0 ? voices_help
		                                    : main_help,
		      stdout);
		return EXIT_OK;
	}
	argv[1] = argv[0];
	if (strcmp(cmd, "build") == 0)
		return cmd_build(argc - 1, argv + 1);
	if (strcmp(cmd, "text") == 0)
		return cmd_text(argc - 1, argv + 1, 0);
	if (strcmp(cmd, "pinyin") == 0)
		return cmd_text(argc - 1, argv + 1, 1);
	if (strcmp(cmd, "voices") == 0)
		return cmd_voices(argc - 1, argv + 1);
	return usage_error(NULL, "unknown command '%s' (commands: build, text, pinyin, voices)",
	                   cmd);
}
