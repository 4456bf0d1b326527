/* fixup.h - in-place repairs to files libsndfile has just written, before
 * they are renamed into place (see write.c).
 *
 * MP3: libsndfile hands our UTF-8 strings to LAME's Latin-1 tag API, so
 * the ID3v2.3 text frames say "ISO-8859-1" over UTF-8 bytes (mojibake in
 * every player), and the 30-byte ID3v1 fields cut characters in half.
 * ts_id3_utf8() relabels the tag as ID3v2.4 with UTF-8 text frames and
 * drops an ID3v1 trailer that holds anything but ASCII, in place, with a
 * fixed amount of memory whatever the length of the file. */
#ifndef TS_FIXUP_H
#define TS_FIXUP_H

#include <stddef.h>
#include <stdint.h>

/* Make the text of the ID3 tags of the MP3 file at path read as the UTF-8
 * it is: an ID3v2.3 tag at the start becomes ID3v2.4 with its text frames
 * marked UTF-8 (same size, only header bytes change); an ID3v1 trailer
 * whose text is not ASCII is cut off.  A file without tags, or with a tag
 * this does not understand, is left alone.  Returns 0 or TS_EIO with a
 * message in errbuf. */
int ts_id3_utf8(const char *path, char *errbuf, size_t errsz);

#endif
