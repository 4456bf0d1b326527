/* chapterkey.c - the key of a chapter (see chapterkey.h).
 *
 * The key hashes the chapter's reading through the front end, chunk by
 * chunk, rather than its text: a change of lexicon or rule that changes
 * what is spoken changes the key, and one that does not keeps the files.
 * What is hashed, and in which order, is the records' format: a change
 * makes every chapter of every folder again, so "tingshu chapter key N"
 * says which it is. */
#include "book/chapterkey.h"

#include "speech/synth.h"

#include <string.h>

/* Everything of the job that every chapter's bytes depend on. */
static void key_settings(ts_hash *h, const ts_chapter_job *job)
{
	const ts_voice *v = job->voice;
	const char *data = NULL, *engine = ts_synth_version(&data);
	ts_hash_str(h, "tingshu chapter key 3"); /* 3: speech on 16 samples; pieces */
	ts_hash_str(h, TS_VERSION);
	ts_hash_str(h, engine);
	ts_hash_str(h, data);
	const char *vs[] = {v->espeak_voice, v->variant, v->latin_voice};
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++)
		ts_hash_str(h, vs[i]);
	const int vi[] = {v->rate,
	                  v->pitch,
	                  v->pitch_range,
	                  v->clause_pause_ms,
	                  v->sentence_pause_ms,
	                  v->paragraph_pause_ms,
	                  v->title_pause_ms,
	                  v->lead_in_ms,
	                  v->tail_ms};
	for (size_t i = 0; i < sizeof vi / sizeof vi[0]; i++)
		ts_hash_int(h, vi[i]);
	ts_hash_double(h, job->rate_factor);
	ts_hash_str(h, job->format->name);
	ts_hash_int(h, job->master.normalize);
	ts_hash_double(h, job->master.target_lufs);
	ts_hash_double(h, job->master.ceiling_dbtp);
	ts_hash_int(h, job->master.out_rate);
	ts_hash_int(h, job->quality);
	ts_hash_str(h, job->author);
	/* The files made: with the read-along page's script (TS_CUES_PAGE)
	 * among them, the chapters of a folder built before there was one
	 * are made again, and get it. */
	ts_hash_int(h, job->timing);
	ts_hash_str(h, ts_book_title(job->book)); /* the album tag */
	/* The track count is in the tags of some formats only (MP3's 2/40):
	 * elsewhere a chapter more or less keeps the others as they are. */
	if (job->format->track_total)
		ts_hash_int(h, (int64_t)ts_book_count(job->book));
	if (job->voicing) {
		/* The voices: in each chapter's key.  The quotations are
		 * spoken first (see voiced.c), and eSpeak's sound depends a
		 * little on what it spoke before: "first" makes the chapters
		 * of earlier builds, which spoke them in turn, again; and
		 * every voice is leveled to TS_VOICES_LEVEL_LUFS. */
		ts_hash_str(h, "dialogue voices, quotations first, leveled");
		ts_hash_double(h, TS_VOICES_LEVEL_LUFS);
		ts_hash_double(h, v->loudness_lufs);
	}
}

/* The voice of the text that follows, in the key. */
static void key_voice(void *ud, const ts_voice *v, const char *speaker)
{
	ts_hash *h = ud;
	ts_hash_str(h, speaker ? speaker : "");
	ts_hash_str(h, v->espeak_voice);
	ts_hash_str(h, v->variant);
	ts_hash_str(h, v->latin_voice);
	ts_hash_int(h, v->rate);
	ts_hash_int(h, v->pitch);
	ts_hash_int(h, v->pitch_range);
	ts_hash_double(h, v->loudness_lufs);
}

static int key_chunk(void *ud, const ts_chunk *c)
{
	ts_hash *h = ud;
	ts_hash_str(h, c->text);
	ts_hash_str(h, c->spoken);
	ts_hash_int(h, c->brk);
	return 0;
}

static int key_sentence(void *ud, const char *text, size_t len)
{
	ts_hash *h = ud;
	ts_hash_int(h, (int64_t)len);
	ts_hash_bytes(h, text, len);
	return 0;
}

/* Between the title's chunks (when it is spoken) and the body's. */
static int key_body(void *ud)
{
	ts_hash_str(ud, "body");
	return 0;
}

ts_feed ts_chapter_key_feed(const ts_chapter_job *job, size_t i, ts_hash *h)
{
	const ts_chapter *ch = ts_book_chapter(job->book, i);
	const char *slash = strrchr(job->paths[i], '/');
	ts_hash_init(h);
	key_settings(h, job);
	ts_hash_int(h, (int64_t)i); /* the track tag */
	ts_hash_str(h, slash ? slash + 1 : job->paths[i]);
	ts_hash_str(h, ch->title);
	ts_hash_int(h, ch->title_spoken);
	ts_hash_int(h, ts_chapter_in_pieces(job, i));
	return (ts_feed){.ch = ch,
	                 .chunk = key_chunk,
	                 .sentence = key_sentence,
	                 .voice = key_voice,
	                 .body = key_body,
	                 .ud = h};
}

int ts_chapter_key(const ts_chapter_job *job, size_t i, char key[TS_HASH_HEX], ts_error *err)
{
	ts_hash h;
	ts_feed f = ts_chapter_key_feed(job, i, &h);
	int rc = ts_feed_chapter(job, &f, err);
	if (!rc)
		ts_hash_hex(&h, key);
	return rc;
}

int ts_chapter_chained(const ts_book *b, size_t i)
{
	return i % TS_CHAIN_GROUP != 0 && ts_book_chapter(b, i - 1)->chars < TS_CHAIN_CHARS &&
	       ts_book_chapter(b, i)->chars < TS_CHAIN_CHARS;
}

void ts_chapter_key_chain(const ts_book *b, size_t i, const char prev[TS_HASH_HEX],
                          char key[TS_HASH_HEX])
{
	if (!ts_chapter_chained(b, i))
		return;
	ts_hash h;
	ts_hash_init(&h);
	ts_hash_str(&h, prev);
	ts_hash_str(&h, key);
	ts_hash_hex(&h, key);
}
