/* options.c - parsing and help from the option tables (see options.h). */
#include "cli/options.h"
#include "tingshu.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { OPTS_MAX = 64, HELP_COLUMN = 25, HELP_WIDTH = 79 };

int usage_error(const char *cmd, const char *fmt, ...)
{
	char text[TS_MSG_MAX], shown[4 * TS_MSG_MAX]; /* \xHH: 4 bytes a byte */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	ts_diag_escape(text, shown, sizeof shown); /* it may quote the command line */
	fprintf(stderr, "tingshu: %s\nTry 'tingshu %s%s--help' for more information.\n", shown,
	        cmd ? cmd : "", cmd ? " " : "");
	return EXIT_USAGE;
}

/* Is s a decimal number: a sign, digits, a point and digits?  strtod
 * also takes hexadecimal (0x10, 0x1p1), exponents, inf and nan, which no
 * option means. */
static int decimal(const char *s)
{
	size_t digits = 0;
	s += *s == '-' || *s == '+';
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	return digits && !*s;
}

int opt_number(const opt *o, const char *value, double *out, char *why, size_t whysz)
{
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	int whole = o->kind == OPT_INT;
	if (errno || *end || end == value || !decimal(value) || !(v >= o->lo && v <= o->hi) ||
	    (whole && v != floor(v))) {
		snprintf(why, whysz, "--%s takes %s from %g to %g%s, not '%s'", o->name, o->what,
		         o->lo, o->hi, o->unit ? o->unit : "", value);
		return -1;
	}
	*out = v;
	return 0;
}

/* Store value as row o says into the struct at base. */
static int store(const opt *o, void *base, const char *value, char *why, size_t whysz)
{
	char *dest = (char *)base + o->offset;
	double v;
	switch (o->kind) {
	case OPT_FLAG: *(int *)dest = 1; return 0;
	case OPT_STRING: *(const char **)dest = value; return 0;
	case OPT_INT:
	case OPT_ROUNDED:
		if (opt_number(o, value, &v, why, whysz))
			return -1;
		*(int *)dest = (int)lround(v);
		return 0;
	case OPT_NUMBER: return opt_number(o, value, (double *)dest, why, whysz);
	case OPT_CHOICE:
		for (size_t i = 0; o->choices[i]; i++) {
			if (strcmp(o->choices[i], value) == 0) {
				*(int *)dest = o->values[i];
				return 0;
			}
		}
		snprintf(why, whysz, "--%s takes %s, not '%s'", o->name, o->what, value);
		return -1;
	case OPT_CUSTOM: return o->parse(o, value, base, why, whysz);
	}
	return -1;
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

int opt_parse(const char *cmd, int argc, char **argv, const opt_block *blocks, size_t nblocks)
{
	struct option longs[OPTS_MAX + 1];
	const opt *rows[OPTS_MAX];
	void *bases[OPTS_MAX];
	char shorts[2 * OPTS_MAX + 2] = ":";
	size_t n = 0, ns = 1;
	for (size_t b = 0; b < nblocks; b++) {
		for (size_t i = 0; i < blocks[b].n && n < OPTS_MAX; i++, n++) {
			const opt *o = &blocks[b].rows[i];
			rows[n] = o;
			bases[n] = blocks[b].base;
			/* getopt_long returns the letter, or 256 + the row. */
			longs[n] =
			    (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
			                    o->letter ? o->letter : 256 + (int)n};
			if (o->letter) {
				shorts[ns++] = (char)o->letter;
				if (o->arg)
					shorts[ns++] = ':';
			}
		}
	}
	longs[n] = (struct option){0, 0, 0, 0};
	shorts[ns] = '\0';
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		size_t k = n;
		for (size_t i = 0; i < n && k == n; i++)
			if (longs[i].val == c)
				k = i;
		if (c == '?' || c == ':' || k == n)
			return bad_option(cmd, argv, c), -1;
		char why[1024];
		if (store(rows[k], bases[k], optarg, why, sizeof why))
			return usage_error(cmd, "%s", why), -1;
	}
	return optind;
}

/* Print text from column HELP_COLUMN, wrapped at HELP_WIDTH, the first
 * line after what is already printed (w columns). */
static void wrap(FILE *out, const char *text, int w)
{
	while (*text) {
		int len = 0, room = HELP_WIDTH - HELP_COLUMN, cols = 0;
		/* The longest run of words that fits; a word longer than
		 * a line stands alone. */
		for (int i = 0; text[i]; i++) {
			if ((text[i] & 0xC0) != 0x80)
				cols += (unsigned char)text[i] >= 0xE0 ? 2 : 1; /* CJK: wide */
			if (text[i] == ' ' && cols - 1 > room)
				break;
			if (text[i] == ' ' || !text[i + 1])
				len = cols - 1 <= room || !len ? i + (text[i] != ' ') : len;
		}
		fprintf(out, "%*s%.*s\n", HELP_COLUMN - w, "", len, text);
		text += len;
		while (*text == ' ')
			text++;
		w = 0;
	}
}

void opt_help(FILE *out, const opt_block *blocks, size_t nblocks)
{
	for (size_t b = 0; b < nblocks; b++) {
		for (size_t i = 0; i < blocks[b].n; i++) {
			const opt *o = &blocks[b].rows[i];
			int w = fprintf(out, "  %c%c%s--%s%s%s", o->letter ? '-' : ' ',
			                o->letter ? o->letter : ' ', o->letter ? ", " : "  ",
			                o->name, o->arg ? " " : "", o->arg ? o->arg : "");
			if (w + 1 > HELP_COLUMN) {
				fputc('\n', out);
				w = 0;
			}
			wrap(out, o->help, w);
		}
	}
}
