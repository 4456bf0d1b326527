/* options.h - the command line's options from tables: one row an option
 * (name, letter, kind, range, destination, help), from which come the
 * parser, the validation with one message shape, and the help text. */
#ifndef TS_CLI_OPTIONS_H
#define TS_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_RETRY = 75 };

typedef enum opt_kind {
	OPT_FLAG,    /* int = 1 */
	OPT_STRING,  /* const char * = the value */
	OPT_INT,     /* int: a whole number from lo to hi */
	OPT_NUMBER,  /* double: a number from lo to hi */
	OPT_ROUNDED, /* int: a number from lo to hi, rounded */
	OPT_CHOICE,  /* int: the value of one of choices */
	OPT_CUSTOM,  /* parse() */
} opt_kind;

typedef struct opt {
	const char *name; /* long name, without -- */
	int letter;       /* short option, or 0 */
	opt_kind kind;
	size_t offset;    /* of the destination in the block's struct */
	const char *arg;  /* the value's name in the help ("DIR"); NULL: a flag */
	const char *help; /* one line or more: the help wraps it */
	/* OPT_INT, OPT_NUMBER, OPT_ROUNDED: "--NAME takes WHAT from LO to HI
	 * UNIT, not 'VALUE'"; OPT_CHOICE: "--NAME takes WHAT, not 'VALUE'". */
	const char *what;
	double lo, hi;
	const char *unit;
	const char *const *choices; /* OPT_CHOICE: NULL-terminated */
	const int *values;
	/* OPT_CUSTOM: store value in the block's struct at base; 0, or -1
	 * with the reason (a whole sentence) in why. */
	int (*parse)(const struct opt *o, const char *value, void *base, char *why, size_t whysz);
} opt;

/* Options of one kind and the struct they fill. */
typedef struct opt_block {
	const opt *rows;
	size_t n;
	void *base;
} opt_block;

/* Rows of the tables, by kind.  Help is one string: it is wrapped. */
/* clang-format off */
#define OPT_BLOCK(rows, base) {rows, sizeof rows / sizeof rows[0], base}
#define FLAG(n, l, dest, h) {.name = n, .letter = l, .kind = OPT_FLAG, .offset = dest, .help = h}
#define STRING(n, l, dest, a, h) {.name = n, .letter = l, .kind = OPT_STRING, .offset = dest, .arg = a, .help = h}
#define RANGE(k, n, l, dest, a, h, w, low, high, u) {.name = n, .letter = l, .kind = k, .offset = dest, .arg = a, .help = h, .what = w, .lo = low, .hi = high, .unit = u}
#define CHOICE(n, dest, a, h, w, names, vals) {.name = n, .kind = OPT_CHOICE, .offset = dest, .arg = a, .help = h, .what = w, .choices = names, .values = vals}
#define CUSTOM(n, a, h, fn) {.name = n, .kind = OPT_CUSTOM, .arg = a, .help = h, .parse = fn}
/* clang-format on */

/* Parse argv (argv[0] is the command's name) with the options of
 * blocks: the index of the first operand, or -1 after a usage error was
 * reported for cmd. */
int opt_parse(const char *cmd, int argc, char **argv, const opt_block *blocks, size_t nblocks);

/* A decimal number (digits, a point, a sign: no hexadecimal, exponent,
 * inf or nan) from lo to hi in o's message shape; 0, or -1 with the message
 * in why. */
int opt_number(const opt *o, const char *value, double *out, char *why, size_t whysz);

/* The options' help lines, aligned. */
void opt_help(FILE *out, const opt_block *blocks, size_t nblocks);

/* "tingshu: MESSAGE\nTry 'tingshu CMD --help' ...": EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
