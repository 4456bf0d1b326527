/* speaker.c - a long text spoken in pieces, each in a process forked
 * from the same eSpeak state (see speaker.h).
 *
 * Two pipes join the speaker (in the process that speaks a chapter) to
 * the spawner and the piece it forked.  Down: a command or a text, as a
 * 32-bit length (START or END as commands) then the text's bytes.  Up:
 * frames of a header (a code and a count, 32 bits each) and what the
 * count says: the spawner's answer to START (0 and the piece's process
 * id, or a failure), then for each text: 1 and the window's size each
 * time the shared window of samples is full (the speaker takes them and
 * sends GO down), and 0 and the samples left in it once the text is
 * spoken (or a failure's code and its message's bytes).  The spawner waits for the piece's process
 * while it runs, so that one of them reads at a time; the piece ends on END.  A piece's process
 * that dies may leave part of a frame: the spawner then ends too, and the speaker sees the pipe
 * end. */
#include "speech/speaker.h"

#include "base/file.h"
#include "base/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define START UINT32_MAX
#define END   (UINT32_MAX - 1)
#define GO    (UINT32_MAX - 2)
/* The samples pass through a window of shared memory, the pipes carrying
 * only what is in it: a pipe's copies cost about 8 % of the speaking. */
enum { WINDOW = 1 << 19 }; /* samples: 24 s at 22,050 Hz */

struct ts_spawner {
	pid_t pid;
	int to, from; /* commands and texts down; answers up */
	int broken;   /* a speaker gave up on it */
	int16_t *shm; /* the window */
};

struct ts_speaker {
	ts_spawner *z;
	int piece;    /* a piece's process is speaking */
	size_t bytes; /* of the texts of the current piece */
	size_t pieces;
	char errmsg[512];
};

/* ---- the processes ------------------------------------------------- */

typedef struct frames {
	int fd, in;
	size_t n;     /* samples in the window */
	int16_t *shm; /* the window, shared */
} frames;

static int put_frame(int fd, int32_t code, const void *p, size_t bytes, size_t count)
{
	int32_t hdr[2] = {code, (int32_t)count};
	return ts_write_full(fd, hdr, sizeof hdr) || ts_write_full(fd, p, bytes) ? TS_EIO : 0;
}

/* The samples come into the shared window; a full window is handed over,
 * and filled again once the speaker has taken it (GO). */
static int to_window(void *ud, const int16_t *s, size_t n)
{
	frames *f = ud;
	uint32_t go;
	while (n > 0) {
		size_t k = WINDOW - f->n < n ? WINDOW - f->n : n;
		memcpy(f->shm + f->n, s, k * sizeof *s);
		f->n += k, s += k, n -= k;
		if (f->n < WINDOW)
			continue;
		if (put_frame(f->fd, 1, "", 0, f->n) ||
		    ts_read_full(f->in, &go, sizeof go) != (ssize_t)sizeof go || go != GO)
			return TS_EIO;
		f->n = 0;
	}
	return 0;
}

/* A piece's process: each text spoken, its samples handed over through
 * the window, until END.  It never returns. */
static void piece_main(ts_synth *syn, int16_t *shm, int in, int out)
{
	frames f = {.fd = out, .in = in, .shm = shm};
	char *text = NULL;
	size_t cap = 0;
	uint32_t len;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Its pages mapped at once, not a fault each (fails harmlessly
	 * before Linux 5.14). */
	madvise(shm, WINDOW * sizeof *shm, MADV_POPULATE_WRITE);
	while (ts_read_full(in, &len, sizeof len) == (ssize_t)sizeof len && len != END) {
		if (len >= GO || TS_GROW(text, cap, (size_t)len + 1) ||
		    ts_read_full(in, text, len) != (ssize_t)len)
			_exit(1);
		text[len] = '\0';
		f.n = 0;
		int rc = ts_synth_speak_to(syn, text, to_window, &f);
		const char *msg = ts_synth_errmsg(syn);
		if (rc == TS_EIO || (rc ? put_frame(out, rc, msg, strlen(msg), strlen(msg))
		                        : put_frame(out, 0, "", 0, f.n)))
			_exit(1);
	}
	/* No ts_synth_free(): eSpeak's terminate joins a thread that exists
	 * only in the process that started it. */
	_exit(0);
}

/* The spawner: a piece's process for each START, waited for.  It never
 * returns. */
static void spawner_main(ts_synth *syn, int16_t *shm, int in, int out)
{
	uint32_t cmd;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (ts_read_full(in, &cmd, sizeof cmd) == (ssize_t)sizeof cmd && cmd == START) {
		pid_t pid = fork();
		if (pid == 0)
			piece_main(syn, shm, in, out);
		if (pid < 0) {
			char msg[200];
			snprintf(msg, sizeof msg, "cannot start a process to speak in: %s",
			         strerror(errno));
			if (put_frame(out, TS_ECHILD, msg, strlen(msg), strlen(msg)))
				_exit(1);
			continue;
		}
		if (put_frame(out, 0, "", 0, (size_t)pid))
			_exit(1);
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			_exit(1);
	}
	_exit(0);
}

ts_spawner *ts_spawner_start(ts_synth *syn, ts_error *err)
{
	int down[2], up[2];
	ts_spawner *z = calloc(1, sizeof *z);
	if (!z) {
		ts_error_set(err, TS_ENOMEM, NULL);
		return NULL;
	}
	if (pipe(down) != 0) {
		free(z);
		ts_error_set(err, TS_ECHILD, "cannot make a pipe: %s", strerror(errno));
		return NULL;
	}
	if (pipe(up) != 0) {
		ts_error_set(err, TS_ECHILD, "cannot make a pipe: %s", strerror(errno));
		close(down[0]), close(down[1]), free(z);
		return NULL;
	}
	void *shm = mmap(NULL, WINDOW * sizeof(int16_t), PROT_READ | PROT_WRITE,
	                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid = shm == MAP_FAILED ? -1 : fork();
	if (pid == 0) {
		close(down[1]), close(up[0]);
		spawner_main(syn, shm, down[0], up[1]);
	}
	close(down[0]), close(up[1]);
	*z = (ts_spawner){.pid = pid, .to = down[1], .from = up[0], .shm = shm};
	fcntl(z->to, F_SETFD, FD_CLOEXEC);
	fcntl(z->from, F_SETFD, FD_CLOEXEC);
	if (pid < 0) {
		ts_error_set(err, TS_ECHILD, "cannot start a process: %s", strerror(errno));
		ts_spawner_stop(z);
		return NULL;
	}
	return z;
}

int ts_spawner_alive(ts_spawner *z)
{
	int st;
	pid_t r = z->pid > 0 ? waitpid(z->pid, &st, WNOHANG) : -1;
	if (r == z->pid)
		z->pid = 0; /* reaped: not to be signalled or waited for again */
	return !z->broken && r == 0;
}

int ts_spawner_ready(ts_spawner **z, ts_synth *syn, ts_error *err)
{
	if (*z && ts_spawner_alive(*z))
		return 0;
	ts_spawner_stop(*z);
	*z = ts_spawner_start(syn, err);
	return *z ? 0 : err->code;
}

void ts_spawner_stop(ts_spawner *z)
{
	if (!z)
		return;
	close(z->to);
	close(z->from);
	if (z->shm != MAP_FAILED)
		munmap(z->shm, WINDOW * sizeof(int16_t));
	if (z->pid > 0) {
		int st;
		kill(z->pid, SIGKILL); /* its piece's process goes with it */
		while (waitpid(z->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	free(z);
}

/* ---- the speaker ---------------------------------------------------- */

ts_speaker *ts_speaker_new(ts_spawner *z)
{
	ts_speaker *sp = calloc(1, sizeof *sp);
	if (sp)
		sp->z = z;
	madvise(z->shm, WINDOW * sizeof *z->shm, MADV_POPULATE_READ);
	return sp;
}

/* Down the pipe, which may have no reader left: the write then fails with
 * EPIPE, without the signal that would end this process. */
static int send_down(ts_speaker *sp, uint32_t len, const char *text)
{
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	int rc = ts_write_full(sp->z->to, &len, sizeof len) ||
	         (text && ts_write_full(sp->z->to, text, len));
	if (rc && errno == EPIPE) {
		struct timespec now = {0, 0};
		while (sigtimedwait(&pipe_set, NULL, &now) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* The processes are gone, or broke the protocol: the spawner is of no
 * more use (its owner starts another). */
static int gone(ts_speaker *sp)
{
	sp->z->broken = 1;
	sp->piece = 0;
	if (sp->z->pid > 0)
		kill(sp->z->pid, SIGKILL);
	snprintf(sp->errmsg, sizeof sp->errmsg, "the process speaking the chapter died");
	return TS_ECHILD;
}

/* A frame's header: 0, or TS_ECHILD when the pipe ended. */
static int header(ts_speaker *sp, int32_t hdr[2])
{
	return ts_read_full(sp->z->from, hdr, 2 * sizeof *hdr) == (ssize_t)(2 * sizeof *hdr)
	           ? 0
	           : TS_ECHILD;
}

/* A failure's message, of n bytes: its code, or TS_ECHILD. */
static int failure(ts_speaker *sp, int32_t code, size_t n)
{
	char msg[sizeof sp->errmsg];
	if (code >= 0 || n >= sizeof msg || ts_read_full(sp->z->from, msg, n) != (ssize_t)n)
		return gone(sp);
	msg[n] = '\0';
	snprintf(sp->errmsg, sizeof sp->errmsg, "%s", msg);
	return code == TS_ENOMEM ? TS_ENOMEM : code == TS_ECHILD ? TS_ECHILD : TS_ESPEAK;
}

static int start_piece(ts_speaker *sp)
{
	int32_t hdr[2];
	if ((sp->piece && send_down(sp, END, NULL)) || send_down(sp, START, NULL) ||
	    header(sp, hdr))
		return gone(sp);
	sp->piece = 0;
	if (hdr[0])
		return failure(sp, hdr[0], (size_t)hdr[1]);
	sp->piece = 1;
	sp->bytes = 0;
	sp->pieces++;
	return 0;
}

/* The samples of the text sent, into out: each window handed over. */
static int take_samples(ts_speaker *sp, ts_samples *out)
{
	int32_t hdr[2];
	for (;;) {
		if (header(sp, hdr))
			return gone(sp);
		if (hdr[0] < 0)
			return failure(sp, hdr[0], (size_t)hdr[1]);
		size_t n = (size_t)hdr[1];
		if (hdr[0] > 1 || n > WINDOW || (hdr[0] == 1 && n != WINDOW))
			return gone(sp);
		if (TS_GROW(out->data, out->cap, out->len + n)) {
			gone(sp); /* it waits for the window */
			snprintf(sp->errmsg, sizeof sp->errmsg, "out of memory");
			return TS_ENOMEM;
		}
		memcpy(out->data + out->len, sp->z->shm, n * sizeof *out->data);
		out->len += n;
		if (hdr[0] == 0)
			return 0;
		if (send_down(sp, GO, NULL))
			return gone(sp);
	}
}

/* Does text start a new piece?  By its bytes' hash, so by what it says. */
static int starts_piece(const ts_speaker *sp, const char *text, size_t len, int may_start)
{
	if (!sp->piece)
		return 1;
	if (!may_start || sp->bytes < TS_SPEAKER_MIN)
		return 0;
	return sp->bytes >= TS_SPEAKER_MAX || ts_fnv32(text, len) % TS_SPEAKER_ODDS == 0;
}

int ts_speaker_speak(ts_speaker *sp, const char *text, int may_start, ts_samples *out)
{
	size_t len = strlen(text);
	int rc;
	out->len = 0;
	if (sp->z->broken)
		return gone(sp);
	if (len >= END) {
		snprintf(sp->errmsg, sizeof sp->errmsg, "a text of %zu bytes is too long to speak",
		         len);
		return TS_ESPEAK;
	}
	if (starts_piece(sp, text, len, may_start) && (rc = start_piece(sp)))
		return rc;
	sp->bytes += len;
	if (send_down(sp, (uint32_t)len, text))
		return gone(sp);
	return take_samples(sp, out);
}

size_t ts_speaker_pieces(const ts_speaker *sp)
{
	return sp->pieces;
}

const char *ts_speaker_errmsg(const ts_speaker *sp)
{
	return sp->errmsg;
}

void ts_speaker_free(ts_speaker *sp)
{
	if (!sp)
		return;
	if (sp->piece && !sp->z->broken && send_down(sp, END, NULL))
		gone(sp);
	free(sp);
}
