/* segment.h - split paragraphs into sentences and the chunks sent to eSpeak.
 *
 * A sentence ends at 。！？… (and runs of them), and at ASCII ! and ? written
 * after Han text when Chinese text follows.  Closing quotes and brackets
 * (”’」』）》 and a closing ASCII ") stay with the sentence they close.  A
 * chunk is at most TS_CHUNK_MAX characters (a few more when closers follow
 * a full stop): a longer sentence is split after ；：，、 or ——, failing those
 * between two characters that are not inside one Latin word or number.
 * No character is dropped: the chunks of a paragraph, joined, give back
 * its text, less the spaces at the chunk edges.
 *
 * The segmenter is streaming: text can be fed in pieces of any size (cut
 * at UTF-8 character boundaries), and it keeps at most one chunk's worth
 * of text, so its memory does not depend on paragraph length. */
#ifndef TS_SEGMENT_H
#define TS_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#define TS_CHUNK_MAX 80
/* Hard cap: a run of terminators and closers longer than this is split
 * anyway, so that memory stays bounded on hostile input. */
#define TS_CHUNK_HARD_MAX 200

/* What comes before a chunk: the pause the listener should hear. */
typedef enum ts_break {
	TS_BREAK_NONE = 0, /* first chunk of a chapter */
	TS_BREAK_CLAUSE,   /* a long sentence split in two */
	TS_BREAK_SENTENCE,
	TS_BREAK_PARAGRAPH,
	TS_BREAK_TITLE, /* after the spoken chapter title */
} ts_break;

typedef struct ts_chunk {
	const char *text; /* UTF-8, NUL-terminated, valid until the callback returns */
	size_t len;       /* bytes */
	size_t chars;     /* code points */
	ts_break brk;     /* break before this chunk */
	int sentence_end; /* this chunk ends a sentence */
	/* Set by the front end when the voice has a lexicon (else NULL, 0):
	 * what eSpeak is given (every Han character as tone-numbered pinyin,
	 * the rest as it is), and the syllables alone, separated by spaces.
	 * NUL-terminated, valid until the callback returns. */
	const char *spoken;
	size_t spoken_len;
	const char *tokens;
	size_t tokens_len;
} ts_chunk;

/* Receives each chunk; return 0 to go on, a negative code to stop (the
 * code is passed back by the feed call). */
typedef int (*ts_chunk_fn)(void *ud, const ts_chunk *chunk);

/* Where sentences end, as a state machine over the code points of a
 * paragraph: the rules above, shared by the segmenter (which runs on the
 * normalized text) and the front end (which finds the sentences of the
 * text as written, for timing cues), so that both split alike.  Zero it
 * (or ts_sentence_scan_reset) at the start of each paragraph. */
typedef struct ts_sentence_scan {
	int after_end;  /* after a terminator: absorbing more terminators and closers */
	int tentative;  /* the terminator was ASCII ! or ?: an end only if Chinese follows */
	int quote_open; /* inside an ASCII "..." pair */
	uint32_t prev;  /* previous code point of the paragraph */
} ts_sentence_scan;

typedef enum ts_scan_step {
	TS_SCAN_TEXT,  /* c is text of the current sentence */
	TS_SCAN_TAIL,  /* c follows the sentence's terminator and stays with it: more
	                  terminators, closers, spaces */
	TS_SCAN_BREAK, /* the sentence ended before c; c begins the next one */
} ts_scan_step;

/* Take the next code point c of the paragraph and say where it stands. */
ts_scan_step ts_sentence_scan_push(ts_sentence_scan *s, uint32_t c);
void ts_sentence_scan_reset(ts_sentence_scan *s);

/* May a long sentence be split after c (；：，、 and their ASCII forms)? */
int ts_is_clause_break(uint32_t c);

typedef struct ts_segmenter ts_segmenter;

/* New segmenter that hands chunks to fn.  Returns NULL when out of
 * memory; free with ts_segmenter_free(). */
ts_segmenter *ts_segmenter_new(ts_chunk_fn fn, void *ud);
void ts_segmenter_free(ts_segmenter *s);

/* Feed a piece of paragraph text (valid UTF-8, no newlines; pieces may
 * be cut anywhere between characters).  Returns 0 or the first negative
 * code a callback returned. */
int ts_segmenter_feed(ts_segmenter *s, const char *text, size_t len);

/* The current paragraph ends here: flush what is pending.  The next chunk
 * gets TS_BREAK_PARAGRAPH. */
int ts_segmenter_end_paragraph(ts_segmenter *s);

/* The current sentence ends here (the caller found its end in the text as
 * written): flush what is pending as the sentence's last chunk.  Where the
 * segmenter has found the same end, which is the rule, this only emits
 * the chunk a little earlier than the next character would have; the
 * chunks are the same. */
int ts_segmenter_end_sentence(ts_segmenter *s);

/* Flush what is pending as a chunk that does not end its sentence (the
 * next one gets TS_BREAK_CLAUSE): for a caller that must cut a very long
 * sentence at a place of its choosing. */
int ts_segmenter_end_clause(ts_segmenter *s);

#endif
