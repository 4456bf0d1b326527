/* test_records.c - what an output folder remembers, without eSpeak: chapter
 * records written, put in place, read back exactly, checked against the
 * files they name, listed and removed; damaged records refused; locks
 * taken, refused while their build lives, taken over when it is gone,
 * never from another machine, waited for, swept and let go.
 * Usage: test_records SCRATCHDIR */
#include "book/locks.h"
#include "book/records.h"

#include "base/file.h"

#include "check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX];

static void put(const char *name, const char *text)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int exists(const char *name)
{
	char p[PATH_MAX + 64];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

/* Write r as the record of audio and put it in place, as a build does. */
static int land(const char *audio, ts_record *r)
{
	ts_error err = {0};
	int rc = ts_record_write(dir, audio, r, (long)getpid(), &err);
	char *path = ts_record_file(dir, audio);
	char *tmp = path ? ts_temp_name(path, (long)getpid()) : NULL;
	if (!rc)
		rc = tmp ? ts_commit_files(NULL, &tmp, &path, 1, (long)getpid(), &err) : TS_ENOMEM;
	free(tmp);
	free(path);
	return rc;
}

static void test_records(void)
{
	ts_error err = {0};
	CHECK(!ts_state_exists(dir));
	CHECK(ts_state_init(dir, &err) == 0);
	CHECK(ts_state_exists(dir));
	CHECK(ts_state_init(dir, &err) == 0); /* again: nothing to do */

	put("001-a.wav", "0123456789");
	put("001-a.srt", "abc");
	ts_record r = {.synth_rate = 22050,
	               .wpm = 175,
	               .samples = 123456789012ULL,
	               .sentences = 7,
	               .chars = 99,
	               .nfiles = 2};
	memcpy(r.key, "0123456789abcdef0123456789abcdef", TS_HASH_HEX);
	r.audio.out_rate = 44100;
	r.audio.frames = 246913578024ULL;
	r.audio.input_lufs = -23.456789012345678;
	r.audio.gain_db = 3.1 / 7;
	r.audio.output_lufs = -20.000000000000004;
	r.audio.true_peak_db = -3.25;
	r.audio.limited_s = 0.1;
	snprintf(r.files[0], TS_RECORD_NAME, "001-a.wav");
	snprintf(r.files[1], TS_RECORD_NAME, "001-a.srt");
	r.sizes[0] = 10, r.sizes[1] = 3;
	CHECK(land("001-a.wav", &r) == 0);

	/* Read back exactly: a manifest made from records is the one made
	 * while building. */
	ts_record got;
	CHECK(ts_record_read(dir, "001-a.wav", &got, &err) == 1);
	CHECK(strcmp(got.key, r.key) == 0);
	CHECK(got.synth_rate == 22050 && got.wpm == 175 && got.samples == r.samples);
	CHECK(got.sentences == 7 && got.chars == 99 && !got.empty);
	CHECK(got.audio.out_rate == 44100 && got.audio.frames == r.audio.frames);
	CHECK(got.audio.input_lufs == r.audio.input_lufs && got.audio.gain_db == r.audio.gain_db);
	CHECK(got.audio.output_lufs == r.audio.output_lufs);
	CHECK(got.audio.true_peak_db == -3.25 && got.audio.limited_s == 0.1);
	CHECK(got.nfiles == 2 && strcmp(got.files[1], "001-a.srt") == 0 && got.sizes[1] == 3);

	/* Its files are there at their sizes; one changed or gone, they are not. */
	CHECK(ts_record_files_ok(dir, &got));
	put("001-a.srt", "abcd");
	CHECK(!ts_record_files_ok(dir, &got));
	put("001-a.srt", "abc");
	CHECK(ts_record_files_ok(dir, &got));
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/001-a.wav", dir);
	unlink(p);
	CHECK(!ts_record_files_ok(dir, &got));
	/* A record of no file is never "all there". */
	ts_record none = {.empty = 1};
	memcpy(none.key, r.key, TS_HASH_HEX);
	CHECK(!ts_record_files_ok(dir, &none));

	/* An empty chapter's record: no files. */
	CHECK(land("002-b.wav", &none) == 0);
	CHECK(ts_record_read(dir, "002-b.wav", &got, &err) == 1 && got.empty && got.nfiles == 0);

	/* No record: 0, and not an error. */
	CHECK(ts_record_read(dir, "009-none.wav", &got, &err) == 0);

	/* Damaged records are refused, with the file named. */
	static const char *const bad[] = {
	    "not a record\n",
	    "tingshu-chapter 1\nsynth_rate 22050\n",                     /* no key */
	    "tingshu-chapter 1\nkey 0123\n",                             /* short key */
	    "tingshu-chapter 1\nkey 0123456789abcdef0123456789abcdef\n", /* no file, not empty */
	    "tingshu-chapter 1\nkey 0123456789abcdef0123456789abcdef\nfile 3 ../x\n", /* a path */
	    "tingshu-chapter 1\nkey 0123456789abcdef0123456789abcdef\nwpm fast\nfile 3 a\n",
	    "tingshu-chapter 1\nkey 0123456789abcdef0123456789abcdef\nempty 1\nfile 3 a\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		put(".tingshu/chapters/003-c.wav.rec", bad[i]);
		ts_error e = {0};
		CHECK(ts_record_read(dir, "003-c.wav", &got, &e) == TS_EINVAL);
		CHECK(strstr(ts_error_msg(&e), "003-c.wav.rec") != NULL);
	}
	/* Names a later version may add are skipped. */
	put(".tingshu/chapters/003-c.wav.rec",
	    "tingshu-chapter 1\nkey 0123456789abcdef0123456789abcdef\nfuture 2\nfile 3 a\n");
	CHECK(ts_record_read(dir, "003-c.wav", &got, &err) == 1 && got.nfiles == 1);

	/* Removed alone: its files stay. */
	ts_record_remove(dir, "003-c.wav");
	CHECK(ts_record_read(dir, "003-c.wav", &got, &err) == 0);
	CHECK(exists("001-a.srt"));
}

/* ts_record_each's callback: counts the names, and checks they are ours. */
static void count_name(void *ud, const char *audio)
{
	int *n = ud;
	CHECK(strcmp(audio, "001-a.wav") == 0 || strcmp(audio, "002-b.wav") == 0);
	(*n)++;
}

static void test_listing(void)
{
	int n = 0;
	put(".tingshu/chapters/.hidden.rec", "x");
	put(".tingshu/chapters/notes.txt", "x");
	CHECK(ts_record_each(dir, count_name, &n) == 0);
	CHECK(n == 2);
	/* A folder with no state lists nothing, and is not an error. */
	n = 0;
	CHECK(ts_record_each("/nonexistent-tingshu-dir", count_name, &n) == 0 && n == 0);
}

/* The pid of a process that was and is no more. */
static long dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return (long)pid;
}

static void test_locks(void)
{
	ts_error err = {0};
	char host[64], text[128];
	ts_host_name(host);

	CHECK(ts_lock_take(dir, "001-a.wav", &err) == 0);
	CHECK(exists(".tingshu/locks/001-a.wav.lock"));
	/* Held by a build that runs (this one): refused, saying who and where. */
	ts_error e = {0};
	CHECK(ts_lock_take(dir, "001-a.wav", &e) == TS_EBUSY);
	snprintf(text, sizeof text, "pid %ld on %s", (long)getpid(), host);
	CHECK(strstr(ts_error_msg(&e), text) != NULL);
	CHECK(strstr(ts_error_msg(&e), "001-a.wav.lock") != NULL);
	/* Waited for: still refused after the time given. */
	CHECK(ts_lock_wait(dir, "001-a.wav", 0.05, &e) == TS_EBUSY);
	ts_lock_release(dir, "001-a.wav");
	CHECK(!exists(".tingshu/locks/001-a.wav.lock"));
	CHECK(ts_lock_take(dir, "001-a.wav", &err) == 0);
	ts_lock_release(dir, "001-a.wav");

	/* A build of this machine that is gone: its lock is taken over. */
	snprintf(text, sizeof text, "%ld %s\n", dead_pid(), host);
	put(".tingshu/locks/book.lock", text);
	CHECK(ts_lock_take(dir, "book", &err) == 0);
	ts_lock_release(dir, "book");

	/* Another machine's build cannot be known to be gone: never taken. */
	snprintf(text, sizeof text, "%ld elsewhere.example\n", dead_pid());
	put(".tingshu/locks/002-b.wav.lock", text);
	CHECK(ts_lock_take(dir, "002-b.wav", &e) == TS_EBUSY);
	CHECK(strstr(ts_error_msg(&e), "on elsewhere.example") != NULL);

	/* A lock being written (no pid yet) is a build that is starting. */
	put(".tingshu/locks/003-c.wav.lock", "");
	CHECK(ts_lock_take(dir, "003-c.wav", &e) == TS_EBUSY);
	CHECK(strstr(ts_error_msg(&e), "starting") != NULL);

	/* The sweep removes the locks of gone builds of this machine only. */
	snprintf(text, sizeof text, "%ld %s\n", dead_pid(), host);
	put(".tingshu/locks/004-d.wav.lock", text);
	snprintf(text, sizeof text, "%ld %s\n", (long)getpid(), host);
	put(".tingshu/locks/005-e.wav.lock", text);
	ts_lock_sweep(dir);
	CHECK(!exists(".tingshu/locks/004-d.wav.lock"));
	CHECK(exists(".tingshu/locks/005-e.wav.lock"));
	CHECK(exists(".tingshu/locks/002-b.wav.lock"));
	CHECK(exists(".tingshu/locks/003-c.wav.lock"));

	/* A path too long for a lock is an error, not a crash. */
	char longdir[PATH_MAX + 16];
	memset(longdir, 'x', sizeof longdir - 1);
	longdir[sizeof longdir - 1] = '\0';
	CHECK(ts_lock_take(longdir, "book", &e) == TS_EINVAL);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_records SCRATCHDIR\n");
		return 2;
	}
	snprintf(dir, sizeof dir, "%s/state_scratch", argv[1]);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0 || mkdir(dir, 0777) != 0) {
		fprintf(stderr, "%s: cannot make it\n", dir);
		return 2;
	}
	test_records();
	test_listing();
	test_locks();
	if (check_failures)
		fprintf(stderr, "test_records: %d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
