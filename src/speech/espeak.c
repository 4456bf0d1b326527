/* espeak.c - eSpeak NG's voices and variants by name (see espeak.h).
 *
 * espeak_ListVoices() reads the voice files of eSpeak's data folder; it
 * needs only the folder's path, not espeak_ng_Initialize().  It runs once,
 * in a child process, which leaves eSpeak in this one untouched and keeps
 * a crash of eSpeak's (out of memory) from being this process's; the
 * names it sends back are kept for the lookups that follow.
 *
 * Most lookups need no list: a variant is a file of voices/!v, and a
 * voice named by its identifier (its file's path under lang/, or that
 * path's last part: "en" for lang/gmw/en) is found by looking there.  Every
 * such file is in eSpeak's list (each has a language line), so what is
 * found so is what the list would find; only a name not found so (a
 * voice's name, as "English (Great Britain)", or no such voice) asks for
 * the list.  Each preset loaded asked for it before: a child process that
 * reads every voice file eSpeak has, a delay every build paid (the more
 * so under AddressSanitizer) and a crowd of allocations in the fault
 * sweeps (bench/README.md). */
#include "speech/espeak.h"

#include "base/child.h"

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The voices, one "identifier\tname\n" a line, then the variants, one
 * "identifier\n" a line (eSpeak ships about 130 voices and 70 variants:
 * some 8 KB), ended by an empty line. */
#define LIST_MAX 65536

static char names[LIST_MAX];
static int have_names; /* 1 listed, -1 could not be */

/* Append "a[\tb]\n" to out[*len..); 0, or -1 when it is full. */
static int put_line(char *out, size_t outsz, size_t *len, const char *a, const char *b)
{
	int k = snprintf(out + *len, outsz - *len, "%s%s%s\n", a, b ? "\t" : "", b ? b : "");
	if (k < 0 || (size_t)k >= outsz - *len)
		return -1;
	*len += (size_t)k;
	return 0;
}

/* The regular files under dir, -1 when it cannot be read through. */
static long count_files(const char *dir, int depth)
{
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	if (!d)
		return -1;
	long n = 0;
	struct dirent *e;
	char p[PATH_MAX];
	struct stat st;
	while (n >= 0 && (e = readdir(d))) {
		int k = snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || k < 0 || (size_t)k >= sizeof p || stat(p, &st) != 0)
			continue;
		long sub = S_ISDIR(st.st_mode) ? count_files(p, depth + 1) : S_ISREG(st.st_mode);
		n = sub < 0 ? -1 : n + sub;
	}
	closedir(d);
	return n;
}

/* In the child: the list into out.  eSpeak skips a voice file it cannot
 * open (short of memory, too): a list shorter than the files of its
 * lang/ and voices/!v folders says so in its first line, "-" for one
 * that may lack names ("+" complete). */
static int list_fn(void *arg, char *out, size_t outsz)
{
	(void)arg;
	espeak_VOICE spec = {.languages = "variant"};
	size_t len = 2;
	long voices = 0, variants = 0;
	char dir[PATH_MAX];
	memset(out, 0, outsz);
	espeak_ng_InitializePath(NULL);
	/* espeak_ListVoices()' array is its static storage, valid until the
	 * next call: each is read through before the next. */
	for (const espeak_VOICE **v = espeak_ListVoices(NULL); v && *v; v++, voices++)
		if (put_line(out, outsz, &len, (*v)->identifier, (*v)->name ? (*v)->name : ""))
			return 1;
	if (put_line(out, outsz, &len, "", NULL))
		return 1;
	for (const espeak_VOICE **v = espeak_ListVoices(&spec); v && *v; v++, variants++)
		if (put_line(out, outsz, &len, (*v)->identifier, NULL))
			return 1;
	if (put_line(out, outsz, &len, "", NULL))
		return 1;
	snprintf(dir, sizeof dir, "%s/lang", ts_espeak_data());
	long want_voices = count_files(dir, 0);
	snprintf(dir, sizeof dir, "%s/voices/!v", ts_espeak_data());
	long want_variants = count_files(dir, 0);
	out[0] = want_voices >= 0 && want_variants >= 0 && voices >= want_voices &&
	                 variants >= want_variants
	             ? '+'
	             : '-';
	out[1] = '\n';
	return 0;
}

/* The list: the voices' lines, and *variants where the variants start;
 * NULL when eSpeak could not list them. */
static const char *list(const char **variants)
{
	if (!have_names)
		have_names = ts_in_child(list_fn, NULL, names, sizeof names - 1) == 0 ? 1 : -1;
	if (have_names < 0)
		return NULL;
	const char *end = strstr(names + 2, "\n\n");
	*variants = end ? end + 2 : names + strlen(names);
	return names + 2;
}

/* A name not found: 0, or -1 when the list may lack it (see list_fn()). */
static int not_found(void)
{
	return names[0] == '+' ? 0 : -1;
}

/* Is the line at p (up to the tab or newline) id? */
static int id_is(const char *p, const char *id)
{
	size_t n = strlen(id);
	return strncmp(p, id, n) == 0 && (p[n] == '\t' || p[n] == '\n');
}

/* Is DATA/sub/name a regular file? */
static int data_file(const char *sub, const char *name)
{
	char p[PATH_MAX];
	struct stat st;
	int k = snprintf(p, sizeof p, "%s/%s/%s", ts_espeak_data(), sub, name);
	return k > 0 && (size_t)k < sizeof p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Is there a file under dir (rel its path under lang/) that eSpeak would
 * take for the voice name: its path under lang/, or that path's last
 * part, in any case (as SelectVoiceByName() compares identifiers)? */
static int find_voice_file(char *dir, size_t rel, const char *name, int depth)
{
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	if (!d)
		return 0;
	size_t len = strlen(dir), n = strlen(name);
	int found = 0;
	struct dirent *e;
	struct stat st;
	while (!found && (e = readdir(d))) {
		size_t el = strlen(e->d_name);
		if (e->d_name[0] == '.' || len + 1 + el >= PATH_MAX)
			continue;
		dir[len] = '/';
		memcpy(dir + len + 1, e->d_name, el + 1);
		if (stat(dir, &st) != 0) {
			found = 0;
		} else if (S_ISDIR(st.st_mode)) {
			found = find_voice_file(dir, rel, name, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			const char *id = dir + rel;
			size_t l = strlen(id);
			found =
			    (l == n && strcasecmp(id, name) == 0) ||
			    (l > n && id[l - n - 1] == '/' && strcasecmp(id + l - n, name) == 0);
		}
		dir[len] = '\0';
	}
	closedir(d);
	return found;
}

static int has_variant(const char *name)
{
	char file[80];
	const char *variants;
	/* As eSpeak's ExtractVoiceVariantName() reads a number. */
	if (name[0] >= '0' && name[0] <= '9') {
		int k = atoi(name);
		if (k == 0)
			return 1;
		snprintf(file, sizeof file, "!v/%c%d", k < 10 ? 'm' : 'f', k < 10 ? k : k - 10);
	} else {
		snprintf(file, sizeof file, "!v/%s", name);
	}
	if (!strchr(name, '/') && data_file("voices", file))
		return 1;
	if (!list(&variants))
		return -1;
	for (const char *p = variants; *p && *p != '\n'; p = strchr(p, '\n') + 1)
		if (id_is(p, file))
			return 1;
	return not_found();
}

int ts_espeak_has_variant(const char *name)
{
	return has_variant(name);
}

int ts_espeak_has_voice(const char *name)
{
	char base[64];
	const char *variants;
	size_t n = strcspn(name, "+");
	if (name[n]) {
		int has = has_variant(name + n + 1);
		if (has <= 0)
			return has;
	}
	snprintf(base, sizeof base, "%.*s", (int)n, name);
	n = strlen(base);
	char dir[PATH_MAX];
	int k = snprintf(dir, sizeof dir, "%s/lang", ts_espeak_data());
	if (n && k > 0 && (size_t)k < sizeof dir && find_voice_file(dir, (size_t)k + 1, base, 0))
		return 1;
	const char *p = list(&variants);
	if (!p)
		return -1;
	/* As eSpeak's SelectVoiceByName(): the name, the identifier, or the
	 * identifier's last part, in any case. */
	for (; n && p < variants && *p != '\n'; p = strchr(p, '\n') + 1) {
		size_t l = strcspn(p, "\t\n");
		const char *nm = p[l] == '\t' ? p + l + 1 : p + l;
		size_t nl = strcspn(nm, "\n");
		if ((nl == n && strncasecmp(base, nm, n) == 0) ||
		    (l == n && strncasecmp(base, p, n) == 0) ||
		    (l > n && p[l - n - 1] == '/' && strncasecmp(base, p + l - n, n) == 0))
			return 1;
	}
	return not_found();
}

const char *ts_espeak_data(void)
{
	const char *path = NULL;
	espeak_Info(&path);
	if (!path || !*path) {
		/* Only the path (ESPEAK_DATA_PATH or the default): nothing
		 * else of eSpeak is set up. */
		espeak_ng_InitializePath(NULL);
		espeak_Info(&path);
	}
	return path && *path ? path : "espeak-ng-data";
}
