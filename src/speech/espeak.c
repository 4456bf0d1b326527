/* espeak.c - eSpeak NG's voices and variants by name (see espeak.h).
 *
 * espeak_ListVoices() reads the voice files of eSpeak's data folder; it
 * needs only the folder's path, not espeak_ng_Initialize().  It runs in a
 * child process, which leaves eSpeak in this one untouched and keeps a
 * crash of eSpeak's (out of memory) from being this process's. */
#include "speech/espeak.h"

#include "base/child.h"

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* eSpeak's voices, or its variants: its static storage, valid until the
 * next call. */
static const espeak_VOICE **list(int variants)
{
	espeak_VOICE spec = {.languages = "variant"};
	espeak_ng_InitializePath(NULL);
	return espeak_ListVoices(variants ? &spec : NULL);
}

static int has_variant(const char *name)
{
	char file[80];
	/* As eSpeak's ExtractVoiceVariantName() reads a number. */
	if (name[0] >= '0' && name[0] <= '9') {
		int k = atoi(name);
		if (k == 0)
			return 1;
		snprintf(file, sizeof file, "!v/%c%d", k < 10 ? 'm' : 'f', k < 10 ? k : k - 10);
	} else {
		snprintf(file, sizeof file, "!v/%s", name);
	}
	for (const espeak_VOICE **v = list(1); v && *v; v++)
		if (strcmp((*v)->identifier, file) == 0)
			return 1;
	return 0;
}

static int has_voice(const char *name)
{
	char base[64];
	size_t n = strcspn(name, "+");
	if (name[n] && !has_variant(name + n + 1))
		return 0;
	snprintf(base, sizeof base, "%.*s", (int)n, name);
	n = strlen(base);
	/* As eSpeak's SelectVoiceByName(). */
	for (const espeak_VOICE **v = list(0); n && v && *v; v++) {
		const char *id = (*v)->identifier;
		size_t l = strlen(id);
		if (strcasecmp(base, (*v)->name) == 0 || strcasecmp(base, id) == 0 ||
		    (l > n && id[l - n - 1] == '/' && strcasecmp(base, id + l - n) == 0))
			return 1;
	}
	return 0;
}

static int variant_fn(void *name, char *out, size_t outsz)
{
	(void)out, (void)outsz;
	return has_variant(name);
}

static int voice_fn(void *name, char *out, size_t outsz)
{
	(void)out, (void)outsz;
	return has_voice(name);
}

int ts_espeak_has_variant(const char *name)
{
	return ts_in_child(variant_fn, (void *)name, NULL, 0);
}

int ts_espeak_has_voice(const char *name)
{
	return ts_in_child(voice_fn, (void *)name, NULL, 0);
}

const char *ts_espeak_data(void)
{
	const char *path = NULL;
	espeak_Info(&path);
	return path ? path : "espeak-ng-data";
}
