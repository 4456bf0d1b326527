/* sentence.h - one code-point view of a sentence, as the pronunciation's
 * later steps (context rules, surnames) see it once its words are known.
 *
 * The view borrows every array from its maker (g2p): nothing is copied
 * or freed through it, and it is valid only while the maker's buffers
 * are unchanged.  cp holds the text's code points with traditional
 * characters folded to simplified ones, so that one rule or one surname
 * serves both scripts; character i is in the word [wbeg[i], wend[i]) of
 * the segmentation.  open[i] says that no word of the lexicon decided the
 * reading of character i; it may be NULL for a reader that does not ask
 * (the context rules do not). */
#ifndef TS_SENTENCE_H
#define TS_SENTENCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_sentence {
	const uint32_t *cp;        /* n code points, traditional folded */
	size_t n;                  /* their count */
	const size_t *wbeg, *wend; /* the word each character is in */
	const unsigned char *open; /* no word of the lexicon reads it (or NULL) */
} ts_sentence;

#endif
