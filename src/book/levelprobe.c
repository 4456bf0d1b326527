/* levelprobe.c - the level probe of one-pass leveling (see levelprobe.h).
 *
 * eSpeak's loudness varies little from chapter to chapter of one voice,
 * so most chapters are leveled in one pass at the gain the sample takes;
 * one that misses the target by more than 0.3 LU is measured and made
 * again (master.h). */
#include "book/levelprobe.h"

#include "audio/finish.h"
#include "base/child.h"

#include <math.h>
#include <string.h>

/* The sample: two paragraphs of seeds/004_5daa9d81391bddb7.txt, chosen
 * among its stretches of 150 characters for a loudness close to the mean
 * of the chapters of the seeds, the novel and dialogue test sets with
 * three voices (cmn, cmn-f2, cmn-m1): see bench/README.md, "Third round:
 * one pass".  Spoken once in each worker.  A change of it changes the
 * gain of every chapter, and so their bytes. */
static const char *const level_sample[] = {
    "王廷臣身旁只有近五千士卒，剩下的都是松山城中的百姓。洪承畴当时下令让他从北门撤退，有一部分原因"
    "就是诱敌。但那样的计划在此刻看来，显然不成功，清军的主力全部在这里。按理说，王廷臣那边的清军应"
    "该"
    "没有多少。",
    "虽然不太确定，但洪承畴觉得可以一试，他到现在仍然认为清军不可能在每一处都布有重兵。",
};

typedef struct probe_run {
	ts_synth *syn;
	ts_finisher *fin;
	ts_samples pcm;
} probe_run;

static int probe_chunk(void *ud, const ts_chunk *c)
{
	probe_run *p = ud;
	uint64_t start, end;
	int rc = ts_synth_speak(p->syn, c->spoken ? c->spoken : c->text, &p->pcm);
	return rc ? rc : ts_finish_add(p->fin, p->pcm.data, p->pcm.len, c->brk, &start, &end);
}

/* Speak level_sample in the job's voice through the finisher and measure
 * it: the gain of one-pass leveling and the loudness it is for (NAN when
 * it is silence).  Returns 0 or an error code. */
static int probe(ts_synth *syn, const ts_chapter_job *job, double level[2])
{
	int rate = ts_synth_rate(syn), rc = TS_ENOMEM;
	ts_master *m = ts_master_open_probe(&job->master, rate, NULL);
	probe_run p = {.syn = syn};
	ts_error err = {0};
	if (m && (p.fin = ts_finish_new(rate, job->voice, ts_master_write, m))) {
		ts_feed f = {.paragraphs = level_sample,
		             .nparagraphs = sizeof level_sample / sizeof *level_sample,
		             .chunk = probe_chunk,
		             .ud = &p};
		rc = ts_feed_chapter(job, &f, &err);
		if (!rc)
			rc = ts_finish_end(p.fin);
	}
	ts_finish_free(p.fin);
	ts_samples_free(&p.pcm);
	if (m)
		level[0] = ts_master_probe_end(m, &level[1]);
	return rc;
}

typedef struct probe_job {
	ts_synth *syn;
	const ts_chapter_job *job;
} probe_job;

typedef struct probe_result {
	int rc;
	double level[2]; /* gain, loudness */
} probe_result;

static int probe_in_child(void *arg, char *out, size_t outsz)
{
	const probe_job *j = arg;
	probe_result r = {0};
	r.rc = probe(j->syn, j->job, r.level);
	memcpy(out, &r, outsz < sizeof r ? outsz : sizeof r);
	return 0;
}

int ts_level_probe(ts_synth *syn, const ts_chapter_job *job, ts_master_opts *mo)
{
	probe_job j = {.syn = syn, .job = job};
	probe_result r;
	if (ts_in_child(probe_in_child, &j, (char *)&r, sizeof r) != 0)
		return TS_ECHILD;
	/* A voice that says nothing of the sample (NAN) has its chapters
	 * measured first, in every worker alike. */
	if (!r.rc && isfinite(r.level[0])) {
		mo->one_pass = 1;
		mo->gain_db = r.level[0];
		mo->expect_lufs = r.level[1];
	}
	return r.rc;
}
