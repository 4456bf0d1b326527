/* folder.h - the order of the chapters of a folder (see folder.c). */
#ifndef TS_INPUT_FOLDER_H
#define TS_INPUT_FOLDER_H

/* Compare two file names in natural order ("2.txt" before "10.txt"). */
int ts_natural_cmp(const char *a, const char *b);

#endif
