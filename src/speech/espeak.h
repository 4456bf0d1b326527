/* espeak.h - the voices and variants eSpeak NG has, looked up in its
 * data without starting it (no synthesizer, no audio), so that a preset
 * that names one it lacks fails when it is loaded: eSpeak itself ignores
 * an unknown variant, and reads the Latin words of an SSML <voice> it
 * cannot find with its default voice. */
#ifndef TS_ESPEAK_H
#define TS_ESPEAK_H

/* Is name ("en", "en+f3") a voice eSpeak finds as SSML's <voice name>
 * does: its name, its file, or the last part of the file's path, in any
 * case; and the variant after a '+', if any, one it has?  1 yes, 0 no,
 * -1 when eSpeak could not list its voices (out of memory). */
int ts_espeak_has_voice(const char *name);

/* Is name a variant eSpeak has: a file of its voices/!v folder ("f3"),
 * or a number (1-9: m1-m9, 11-19: f1-f9, 0: none)?  1, 0 or -1 as
 * above. */
int ts_espeak_has_variant(const char *name);

/* The folder of eSpeak's data (for messages); eSpeak's static storage. */
const char *ts_espeak_data(void);

#endif
